import type { Context } from "koa";
import type { GatewayConfig } from "../../config/types";
import type { ObjectType } from "../contract/object-type";
import type { LossyTranslationLog } from "../model/lossy";
import type { TolerantReader } from "../model/tolerant-reader";
import type { VersionNumber } from "../protocol/types";
import { invalidFields } from "../contract/errors";
import { readJsonBody } from "../http/json-body";
import { bodyLimitsOf } from "../http/body-limits";
import type { MatchedRoute } from "./route-match";
import type { Inbound } from "./inbound";

/** What reading a sender's body uses of the hub. */
export interface SenderBodyDeps {
  config: GatewayConfig;
  reader: TolerantReader;
  lossy: LossyTranslationLog;
}

/** A body a partner sent through the hub, read in its version. */
export interface SenderBody {
  /** as sent, read under the sender's strictness (repaired where `repair` repairs); as parsed when the route declares no body type */
  value: unknown;
  /** the route's body type, when the module declares one */
  type?: ObjectType<any>;
  /** the body in the canonical (2.3.0) model; `value` itself without a body type */
  canonical(): unknown;
  /** the body in `version` for partner `targetId` (translation losses logged under it); `value` itself without a body type */
  inVersion(version: VersionNumber, targetId: string): unknown;
}

/**
 * The one reading of a body sent through the hub (forwarded parsed, or broadcast): parsed under the body limits,
 * then, where the module's route declares a body type, checked under the sender's strictness in its version
 * (2001 naming the fields, nothing forwarded) and translated on demand. Undefined when there is no body.
 */
export const readSenderBody = async (deps: SenderBodyDeps, ctx: Context, inbound: Inbound, found: MatchedRoute | undefined): Promise<SenderBody | undefined> => {
  const { body: parsed } = await readJsonBody(ctx.req, ctx.res, bodyLimitsOf(deps.config));
  if (parsed === undefined) return undefined;
  const spec = found?.route.body;
  if (!spec) return { value: parsed, canonical: () => parsed, inVersion: () => parsed };
  const params = found.params;
  const { sender, version, from } = inbound;
  const read = await deps.reader.read({ partnerId: sender.id, strictness: inbound.profile.strictness, type: spec.type, schema: spec.type.schema(version, spec.mode), raw: parsed, sender: from });
  if (!read.ok) throw invalidFields(read.issues);
  const canonical = () => spec.type.up(read.value, version, deps.lossy.context(sender.id, spec.type.name, version, params, from));
  return {
    value: read.value,
    type: spec.type,
    canonical,
    inVersion: (target, targetId) => (target === version ? read.value : spec.type.down(canonical(), target, deps.lossy.context(targetId, spec.type.name, target, params, from))),
  };
};
