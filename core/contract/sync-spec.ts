import type { PartnerConfig } from "../../config/types";
import type { ObjectType } from "./object-type";
import type { PortContext } from "./port-context";
import type { PartyRef } from "../protocol/types";

/**
 * How a module takes part in sync pulls (`partners[].sync.<module>`): the
 * object type of the partner's SENDER list, and how one pulled object is
 * stored through our RECEIVER port. The kernel pages, validates, checks the
 * owner and keeps the watermark; the plugin only knows its port.
 */
export interface SyncSpec<T = any, ReceiverPort = unknown> extends SyncList<T, ReceiverPort> {
  /** the list answers only with date_from (sessions); a full pull then asks from the epoch */
  readonly dateFromRequired?: boolean;
  /**
   * Further lists of the module, pulled after the first in the same pull and under the same watermark
   * (payments: the FACs after the Terminals). A pull completes only when every list did.
   */
  readonly more?: readonly SyncList<any, ReceiverPort>[];
  /**
   * Why `partner` is not pulled from, or undefined when it is; default: every partner is. A schedule or a
   * request naming such a partner is refused with it, and a registration does not pull from it.
   */
  refuses?(partner: PartnerConfig): string | undefined;
  /**
   * Pulled as soon as a partner it may be pulled from registers (or its registration changes) and offers the
   * module's SENDER interface, with or without a schedule (core/sync/registration-pulls.ts): a partner that only
   * lists what others push is heard from its registration on.
   */
  readonly atRegistration?: boolean;
}

/** One SENDER list of a partner and how its objects are stored. */
export interface SyncList<T = any, ReceiverPort = unknown> {
  /** the objects of the partner's SENDER list */
  readonly type: ObjectType<T>;
  /** below the module's endpoint URL, for a module with sub-resources (payments: "/terminals"); default: the URL itself */
  readonly path?: string;
  /**
   * The owner of a pulled object, which must be one of the partner's parties; default: the object's own
   * country_code and party_id. A module whose objects name none (payments) gives the party they come from.
   */
  owner?(object: T, partnerParties: readonly PartyRef[]): PartyRef | undefined;
  /** objects the module takes and leaves as a push of them would be: neither stored nor counted as rejected */
  ignore?(object: T): boolean;
  /** creates or replaces one object of `owner` (one of the partner's parties) in `receiverPort`; idempotent; the port's answer is not used */
  upsert(receiverPort: ReceiverPort, owner: PartyRef, object: T, ctx: PortContext): Promise<unknown>;
  /**
   * Optional: `upsert` of several objects of `owner`, in their order (a page's, the later of two with one id
   * winning), in one call where the port can take them so; resolves false, having stored nothing, where it
   * cannot, and the kernel upserts each.
   */
  upsertAll?(receiverPort: ReceiverPort, owner: PartyRef, objects: T[], ctx: PortContext): Promise<boolean>;
}
