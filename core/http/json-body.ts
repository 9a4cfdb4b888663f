import { bodyParser } from "@koa/bodyparser";
import type { Middleware } from "koa";
import { OcpiError } from "./errors";
import { Status } from "../protocol/status";

/**
 * How deeply arrays and objects may nest in a request body. The deepest OCPI
 * object (a CDR's tariffs → elements → price_components → …) is about 8
 * levels; 32 leaves room for partners' custom properties while keeping every
 * walk over a body (null stripping, validation) far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Parses every POST/PUT/PATCH body as JSON whatever its Content-Type (many
 * partners omit it). Malformed JSON is HTTP 400 + 2001; the parser's own
 * message is not echoed because it quotes the body, which may hold a token.
 * A body over the limit is HTTP 413 and closes the connection, so the rest of
 * it is not read; a body nested deeper than MAX_JSON_DEPTH is HTTP 400 + 2001.
 */
export const jsonBody = (limitBytes: number): Middleware => {
  const parse = bodyParser({
    enableTypes: ["json"],
    detectJSON: () => true,
    jsonLimit: limitBytes,
    onError: (error) => {
      if ((error as { status?: number }).status === 413) {
        throw new OcpiError(Status.INVALID_PARAMETERS, `Request body larger than ${limitBytes} bytes`, 413, { Connection: "close" });
      }
      throw new OcpiError(Status.INVALID_PARAMETERS, "Request body is not valid JSON (expected an object or array)", 400);
    },
  }) as unknown as Middleware;
  return (ctx, next) =>
    parse(ctx, async () => {
      const raw = (ctx.request as { rawBody?: string }).rawBody;
      if (raw !== undefined && raw.trim() !== "") {
        // ctx.state.bodyMediaType: the Content-Type a request with a body was
        // sent with, lower-cased and without parameters ("text/plain"), or
        // undefined when it had none. The body was parsed as JSON regardless;
        // this lets a route tell a JSON body from one merely parsed as JSON.
        ctx.state.bodyMediaType = mediaTypeOf(ctx.get("Content-Type"));
        if (nestingDepth(raw) > MAX_JSON_DEPTH) {
          throw new OcpiError(Status.INVALID_PARAMETERS, `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, 400);
        }
      }
      await next();
    });
};

const mediaTypeOf = (contentType: string): string | undefined => contentType.split(";")[0].trim().toLowerCase() || undefined;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting of arrays and objects in JSON text that parsed: one
 * pass over the characters, brackets inside strings skipped. A loop, not a
 * walk of the parsed value, so its own depth never grows with the body's.
 */
const nestingDepth = (json: string): number => {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) deepest = Math.max(deepest, ++depth);
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return deepest;
};

/** The parsed body, or undefined when the request had none. */
export const requestBody = (request: { rawBody?: string; body?: unknown }): unknown =>
  request.rawBody === undefined || request.rawBody.trim() === "" ? undefined : request.body;
