import type { ChangeRule } from "../../core/modules/receiver-writes";
import type { Session, SessionPatch } from "./model";
import { sessionType } from "./translate";

/** A partner's PATCH must leave a valid canonical Session (core/modules/receiver-writes.ts). */
export const SESSION_CHANGES: ChangeRule<Session> = { type: sessionType };

/**
 * Applies a canonical PATCH fragment to a stored Session (OCPI 2.2.1 Sessions module):
 * fields present replace the stored ones, except `charging_periods`, which
 * are APPENDED; an omitted or empty list changes nothing (replacing or
 * removing periods takes a PUT). Pure, so an adapter can run it inside an
 * atomic update and retry it.
 */
export const applySessionPatch = (current: Session, fragment: SessionPatch): Session => {
  const { charging_periods: added, ...fields } = fragment;
  const next: Session = { ...current };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) next[key] = value;
  if (added && added.length > 0) next.charging_periods = [...(current.charging_periods ?? []), ...added];
  return next;
};
