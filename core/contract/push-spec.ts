import type { ObjectType } from "./object-type";
import type { Page, PageRequest } from "./page";
import type { PortContext } from "./port-context";
import type { HttpMethod, PartyRef, VersionNumber } from "../protocol/types";
import type { DataChange } from "./change-feed";
import { OcpiError } from "./errors";

export type ChangeKind = DataChange["kind"];

/** Where on the partner's RECEIVER endpoint a change goes: the path below it and the query. */
export interface PushTarget {
  path: string;
  query?: Record<string, string>;
}

/**
 * How a module's changes reach partners' RECEIVER interfaces, declared by
 * its plugin (`ModulePlugin.pushSpec`): core/push does the rest (who is
 * entitled, translation, outbox, retries, resync) the same for every module.
 */
export interface PushSpec<ReceiverPort = unknown, SenderPort = ListingPort> {
  /** the object type of a change by its path depth: index 0 for ["LOC1"], 1 for ["LOC1", "EVSE1"]… */
  readonly objectTypes: readonly ObjectType<any>[];
  /** the identity field of the object at each depth, which must equal the path's segment ("id", "uid"…) */
  readonly idFields: readonly string[];
  /**
   * A module whose objects are not a hierarchy names a change's object type and id field itself (payments:
   * `["terminals", id]`, `["financial-advice-confirmations", id]`); undefined when the path names none.
   * Absent: by the path's depth, from `objectTypes` and `idFields`.
   */
  objectOf?(change: Pick<DataChange, "path">): ChangeObject | undefined;
  /** the HTTP method of each kind of change; a kind left out cannot be pushed (locations are never deleted) */
  readonly methods: Partial<Record<ChangeKind, HttpMethod>>;
  /** default: /{country_code}/{party_id}/{path…} with no query */
  target?(change: DataChange, version: VersionNumber): PushTarget;
  /**
   * Changes that supersede each other while they wait share a collapse
   * key; this names the kind of change (e.g. "status"), core/push scopes it
   * to the object. Only for changes that overwrite everything their
   * predecessor wrote: a dropped predecessor must never be missed.
   */
  collapse?(change: DataChange): string | undefined;
  /** delivered at least once, even past a partner's backlog window (CDRs, final sessions) */
  essential?(change: DataChange): boolean;
  /**
   * The one party a change is for, when not every entitled partner may see it: Sessions and CDRs belong
   * to the owner of their token (Part B). Then the change is pushed only to partners whose scope includes
   * it (core/partners/party-scope.ts), and to nobody when it resolves to undefined. A PATCH fragment
   * carries no token: the module reads the stored object. Absent, or "all" for a change: every entitled partner gets it.
   */
  audience?(change: DataChange): Promise<PartyRef | "all" | undefined>;
  /** a full resync pushes every object of the module again (not needed for essential-only modules like CDRs) */
  readonly resync: boolean;
  /** how a resync reads a page of the SENDER port, as a partner's GET would (Locations: published ones only); default its `list` */
  resyncPage?(sender: SenderPort, page: PageRequest, ctx: PortContext): Promise<Page<object>>;
  /**
   * Stores a change event about our own data (POST /admin/v1/events) through
   * the module's RECEIVER port, by the rules a partner's push follows; used
   * when the adapter serving the module has no CHANGES port of its own.
   */
  apply?(receiver: ReceiverPort, change: DataChange, ctx: PortContext): Promise<ChangeOutcome>;
}

/** What a change's object is: its type, the field holding its id and the id the path gives. */
export interface ChangeObject {
  type: ObjectType<any>;
  idField: string;
  id: string;
}

/** The object a change is about: the module's `objectOf`, or the type and id field at the path's depth. */
export const changeObjectOf = (spec: PushSpec<any, any>, change: Pick<DataChange, "path">): ChangeObject | undefined => {
  if (spec.objectOf) return spec.objectOf(change);
  const depth = change.path.length;
  const type = spec.objectTypes[depth - 1];
  return type && { type, idField: spec.idFields[depth - 1], id: change.path[depth - 1] };
};

/** The `list` every SENDER port has: a full resync pages through it. */
export interface ListingPort {
  list(page: PageRequest, ctx: PortContext): Promise<Page<Record<string, unknown>>>;
}

/**
 * Optional adapter port `<module>.CHANGES`: applies a change event a
 * backend posted to POST /admin/v1/events, and reports what changed on the
 * ChangeFeed. The `local` adapter stores the object; an adapter over a
 * legacy system may fetch the current object from it instead.
 */
export interface ChangesPort {
  apply(change: DataChange): Promise<ChangeOutcome>;
}

/** Whether the change was applied; when not, why (answered with 2001, on HTTP 404 when the object is unknown). */
export type ChangeOutcome = { applied: true } | { applied: false; reason: string; unknownObject?: boolean };

export const APPLIED: ChangeOutcome = { applied: true };

export const unknownObject = (what: string): ChangeOutcome => ({ applied: false, unknownObject: true, reason: `${what} not found` });

export const unsupportedChange = (change: DataChange): ChangeOutcome => ({
  applied: false,
  reason: `${change.module}: a ${change.kind} at path depth ${change.path.length} is not supported`,
});

/** A receiver rule's "no such object" (an OcpiError on HTTP 404, as the merge helpers throw) as an outcome. */
export const orUnknownObject = async (apply: () => Promise<ChangeOutcome>): Promise<ChangeOutcome> => {
  try {
    return await apply();
  } catch (error) {
    if (error instanceof OcpiError && error.httpStatus === 404) return { applied: false, unknownObject: true, reason: error.message };
    throw error;
  }
};

export const changesPortName = (module: string): string => `${module}.CHANGES`;

const enc = encodeURIComponent;

export const defaultTarget = (change: DataChange): PushTarget => ({
  path: `/${enc(change.owner.country_code)}/${enc(change.owner.party_id)}/${change.path.map(enc).join("/")}`,
});
