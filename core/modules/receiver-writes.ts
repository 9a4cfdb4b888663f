import type { OcpiReply, OcpiRequest } from "../contract/module-plugin";
import type { PartyRef, VersionNumber } from "../protocol/types";
import { httpStatusOf, type PortContext, type PutOutcome } from "../contract/port-context";
import { describeIssues, invalid, type FieldIssue } from "../contract/errors";
import { issuesOf, silentTranslation } from "../model/object-type";
import { type ObjectType } from "../contract/object-type";
import { checkBodyIdentity } from "./receiver-rules";
import { updateStored, type UpdatablePort } from "./update-stored";

/**
 * How the interfaces of every module take a write (a PUT, a PATCH, a POST,
 * a DELETE, a posted result): one answer, one PUT of a whole object, one
 * change of a stored object. The merge itself is the module's (its own file,
 * shared with its pushSpec.apply); that the result must still be valid, and
 * what happens when it is not, is decided here.
 */

/**
 * The answer to every write: status 1000 with `data: null` (OCPI 2.2.1
 * Transport and format, Response format: no data to return). A PUT or POST
 * that stored an object answers HTTP 201 when it created it, 200 when it
 * replaced it (or took it again unchanged).
 */
export const written = (outcome?: PutOutcome, headers?: Record<string, string>): OcpiReply => {
  const reply: OcpiReply = { data: null };
  if (outcome) reply.httpStatus = httpStatusOf(outcome);
  if (headers) reply.headers = headers;
  return reply;
};

/** The part of a Receiver port a PUT of a whole object needs. */
export interface PuttablePort<T> {
  put(owner: PartyRef, object: T, ctx: PortContext): Promise<PutOutcome>;
}

/**
 * A PUT of a whole object at its own path (OCPI 2.2.1 Transport and format,
 * Client owned object push): the object's owner and ids must be the path's,
 * then the port stores it; 201 or 200.
 */
export const putWhole = async <T extends object>(
  req: OcpiRequest,
  port: PuttablePort<T>,
  ids: Record<string, string | undefined>,
  object: T = req.body as T,
): Promise<OcpiReply> => {
  const owner = req.owner!;
  checkBodyIdentity(object as Record<string, unknown>, owner, ids);
  return written(await port.put(owner, object, req.port));
};

/**
 * What "still valid" means for a module's object after a change of the
 * stored one (a PATCH, a PUT of one of its parts).
 */
export interface ChangeRule<T> {
  type: ObjectType<T>;
  /**
   * `canonical` (default): the 2.3.0 schema. `partner`: the object as the
   * partner's version would carry it whole (translated down, then that
   * version's schema).
   */
  checkedIn?: "canonical" | "partner";
  /** refused whatever the partner's strictness; otherwise a `strictness: log` partner's change is stored with a warning */
  alwaysRefused?: boolean;
}

/** What makes `object` invalid by the rule, for a partner of `version`; empty when it is valid. */
export const problemsAfterChange = <T>(rule: ChangeRule<T>, object: T, version: VersionNumber): FieldIssue[] => {
  const inPartnerVersion = rule.checkedIn === "partner";
  const wire = inPartnerVersion ? rule.type.down(object, version, silentTranslation()) : object;
  const result = rule.type.schema(inPartnerVersion ? version : "2.3.0", "full").safeParse(wire);
  return result.success ? [] : issuesOf(result.error);
};

/** PATCH: the partner sent a fragment; PUT: it sent one part (an EVSE of a Location) whole. */
export type ChangeKind = "PATCH" | "PUT";

/**
 * Never store a half-valid object: the result of a change must still be a
 * whole, valid object, else 2001 naming the fields. Only a partner whose
 * `strictness` is `log` has it stored, with a warning, unless the rule
 * refuses it always; under `reject` and `repair` (which has nothing to repair
 * in a merge) it is refused. Without a partner's request (a change our own backend
 * reported, pushSpec.apply) an invalid result is refused. Answers the object
 * when it may be stored.
 */
export const checkChanged = <T>(rule: ChangeRule<T>, object: T, req?: OcpiRequest, kind: ChangeKind = "PATCH"): T => {
  const issues = problemsAfterChange(rule, object, req?.ctx.version ?? "2.3.0");
  if (issues.length === 0) return object;
  const name = rule.type.name;
  const strictness = req?.ctx.profile.strictness;
  // `repair` has nothing to repair in a merge of stored and sent fields: what it cannot repair is refused, as under `reject`
  if (!req || rule.alwaysRefused || strictness !== "log") throw invalid(`the ${name} after this change would be invalid: ${describeIssues(issues)}`);
  req.ctx.log.warn({ issues }, `stored a ${kind === "PATCH" ? "PATCHed" : "changed"} ${name} that is not valid (strictness: ${strictness})`);
  return object;
};

/**
 * Applies `change` (the module's merge, pure) to the stored object under
 * `key` of the request's owner, checks the result (checkChanged) and stores
 * it, atomically where the port can (updateStored). Undefined when there is
 * no such object: the caller answers its 404.
 */
export const changeStored = <Key, T>(
  req: OcpiRequest,
  port: UpdatablePort<Key, T>,
  key: Key,
  change: (current: T) => T,
  rule: ChangeRule<T>,
  kind: ChangeKind = "PATCH",
): Promise<T | undefined> => updateStored(port, req.owner!, key, (current) => checkChanged(rule, change(current), req, kind), req.port);

/**
 * A PATCH of a stored object (OCPI 2.2.1 Transport and format, Client owned
 * object push): the fragment may repeat the path's owner and ids but not
 * change them; then changeStored. Undefined when there is no such object.
 */
export const patchStored = <Key, T>(
  req: OcpiRequest,
  port: UpdatablePort<Key, T>,
  key: Key,
  ids: Record<string, string | undefined>,
  merge: (current: T) => T,
  rule: ChangeRule<T>,
): Promise<T | undefined> => {
  checkBodyIdentity(req.body as Record<string, unknown>, req.owner!, ids);
  return changeStored(req, port, key, merge, rule);
};
