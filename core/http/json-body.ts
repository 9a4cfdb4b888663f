import type { IncomingMessage, ServerResponse } from "node:http";
import type { Middleware } from "koa";
import { OcpiError } from "../contract/errors";
import { Status } from "../protocol/status";
import { knownNullFree } from "../model/without-nulls";
import { JsonScanner, hasProtoMember, protoMember, readRawBody, type BodyLimits } from "./body-limits";
import { parseInParts } from "./pieced-parse";
import { WEIGHTY_BODY_BYTES, WEIGHTY_BODY_MEMBERS, clientKeyOf, weightyTurnsOf } from "./weighty-turns";

export { MAX_JSON_DEPTH } from "./body-limits";

/** Methods whose body is read: OCPI sends objects with these; a body on any other request is left unread. */
const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

const notJson = (): OcpiError => new OcpiError(Status.INVALID_PARAMETERS, "Request body is not valid JSON (expected an object or array)", 400);

/** A request body as readJsonBody read it. */
export interface JsonBody {
  /** the parsed object or array (undefined when there was none, or only whitespace) */
  body: unknown;
  /**
   * For a weighty body (core/http/weighty-turns.ts), the turn of its next piece: whoever goes on with the
   * body (validating it, then storing it: core/host/mount-route.ts) awaits it between two costly steps, so
   * that each is a piece of its own; undefined for a smaller body, taken in one piece.
   */
  nextPiece: (() => Promise<void>) | undefined;
}

/**
 * A request body read under the body limits (core/http/body-limits.ts) and
 * parsed as JSON whatever its Content-Type (many partners omit it): `body`
 * the parsed object or array (undefined when there was none). Over a limit it
 * is refused while it arrives (HTTP 413, or 400 nested too deep, both 2001);
 * malformed JSON or a top-level scalar is HTTP 400 + 2001, the parser's own
 * message not echoed because it quotes the body, which may hold a token.
 */
export const readJsonBody = async (req: IncomingMessage, res: ServerResponse, limits: BodyLimits): Promise<JsonBody> => {
  const scanner = new JsonScanner(limits, true);
  const bytes = await readRawBody(req, res, limits, scanner);
  // a weighty body is parsed (in parts: core/http/pieced-parse.ts), then checked and encoded, each piece on a turn of its own (core/http/weighty-turns.ts)
  const turns = bytes.length >= WEIGHTY_BODY_BYTES || scanner.members >= WEIGHTY_BODY_MEMBERS ? weightyTurnsOf(limits) : undefined;
  const client = turns ? clientKeyOf(req) : "";
  if (turns) {
    turns.weighty(res);
    await turns.turn(client);
  }
  let body: unknown;
  try {
    body = turns ? await parseInParts(bytes, scanner.arrays, () => turns.turn(client)) : undefined;
    if (body === undefined) {
      let raw = bytes.toString("utf8");
      if (raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
      const start = raw.search(/\S/);
      if (start < 0) return { body: undefined, nextPiece: undefined };
      if (raw[start] !== "{" && raw[start] !== "[") throw notJson();
      body = JSON.parse(raw);
    }
  } catch {
    throw notJson();
  }
  // a key that may be "__proto__" (written so, or escaped: "\u005f_proto__"): the parsed body tells
  if (scanner.suspectKey && hasProtoMember(body)) throw protoMember();
  if (!scanner.nullMember) knownNullFree(body as object);
  if (!turns) return { body, nextPiece: undefined };
  await turns.turn(client);
  return { body, nextPiece: () => turns.turn(client) };
};

/**
 * Reads every POST/PUT/PATCH body as JSON (readJsonBody) into
 * `ctx.request.body`; read it with requestBody.
 */
export const jsonBody = (limits: BodyLimits): Middleware => async (ctx, next) => {
  if (!METHODS_WITH_BODY.has(ctx.method)) return next();
  const { body, nextPiece } = await readJsonBody(ctx.req, ctx.res, limits);
  (ctx.request as { body?: unknown }).body = body;
  // ctx.state.nextWeightyPiece: JsonBody.nextPiece, for the route that validates and stores the body
  ctx.state.nextWeightyPiece = nextPiece;
  // ctx.state.bodyMediaType: the Content-Type a request with a body was
  // sent with, lower-cased and without parameters ("text/plain"), or
  // undefined when it had none. The body was parsed as JSON regardless;
  // this lets a route tell a JSON body from one merely parsed as JSON.
  if (body !== undefined) ctx.state.bodyMediaType = mediaTypeOf(ctx.get("Content-Type"));
  await next();
};

const mediaTypeOf = (contentType: string): string | undefined => contentType.split(";")[0].trim().toLowerCase() || undefined;

/** The parsed body, or undefined when the request had none (or only whitespace). */
export const requestBody = (request: { body?: unknown }): unknown => request.body;
