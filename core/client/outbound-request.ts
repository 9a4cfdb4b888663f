import type { ObjectType } from "../contract/object-type";
import type { DataChange } from "../contract/change-feed";
import type { HttpMethod, InterfaceRole, PartyRef, VersionNumber } from "../protocol/types";

/**
 * The canonical object an outbox message carries instead of a wire body (`OutboundRequest.object`). It is rendered for
 * the partner when it is delivered (PartnerClient.send): translated down to the version the partner is registered in
 * then and shaped by its config then (`send_nulls_for_optional`), so a message that waited, or a dead letter re-sent
 * after the partner re-registered or its config changed, goes out as they say now, not as they said when it was queued.
 */
export interface QueuedObject {
  /** where the object is in the target module, as a change names it (["LOC1", "EVSE1"], ["terminals", "T1"]): its object type, by the module's push spec */
  path: string[];
  /** the canonical (OCPI 2.3.0) object, or a PATCH fragment */
  value: unknown;
  /** the party that owns it, for versions whose objects name none (TranslationContext.owner) */
  owner: PartyRef;
  /**
   * the kind of change a push carries: its receiver path and query are then those the module's push spec gives for the
   * partner's version at delivery (a Token's `?type=`, none in 2.1.1); absent (a hub's broadcast keeps the sender's): as queued
   */
  kind?: DataChange["kind"];
}

/** Where a queued object is sent below the module's endpoint in a version: path and query. */
export interface QueuedTarget {
  path: string;
  query?: Record<string, string>;
}

/** What renders a queued object of a module: its object type and, for a push, its receiver path and query in a version (core/push/pushed-objects.ts). */
export interface QueuedObjects {
  typeOf(module: string, object: QueuedObject): ObjectType<any> | undefined;
  /** undefined: the target as queued */
  targetOf(module: string, object: QueuedObject, version: VersionNumber): QueuedTarget | undefined;
}

/** Where an outbound message goes: a module endpoint of the partner, or a URL it gave us (response_url). */
export type OutboundTarget = { module: string; role: InterfaceRole; path?: string; query?: Record<string, string> } | { url: string };

export interface OutboundRequest {
  method: HttpMethod;
  target: OutboundTarget;
  /**
   * a wire body, sent as it is: a message whose body has no object type of a module (a command or charging-profile
   * result, client info), and every message queued before objects were queued canonically (an upgrade delivers those unchanged)
   */
  body?: unknown;
  /** the canonical object, rendered for the partner when the message is delivered (a module target only; no `body` then) */
  object?: QueuedObject;
  from?: PartyRef;
  /** the party the message is for; its to-headers are chosen from it (core/client/addressee.ts) */
  to?: PartyRef;
}
