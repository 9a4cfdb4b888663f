import type { ObjectType } from "../model/object-type";
import type { PortContext } from "../ports";
import type { PartyRef } from "../protocol/types";

/**
 * How a module takes part in sync pulls (`partners[].sync.<module>`): the
 * object type of the partner's SENDER list, and how one pulled object is
 * stored through our RECEIVER port. The kernel pages, validates, checks the
 * owner and keeps the watermark; the plugin only knows its port.
 */
export interface SyncSpec<T = any, ReceiverPort = unknown> {
  /** the objects of the partner's SENDER list */
  readonly type: ObjectType<T>;
  /** the list answers only with date_from (sessions); a full pull then asks from the epoch */
  readonly dateFromRequired?: boolean;
  /** creates or replaces one object of `owner` (one of the partner's parties) in `receiverPort`; idempotent; the port's answer is not used */
  upsert(receiverPort: ReceiverPort, owner: PartyRef, object: T, ctx: PortContext): Promise<unknown>;
}
