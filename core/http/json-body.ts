import { bodyParser } from "@koa/bodyparser";
import type { Middleware } from "koa";
import { OcpiError } from "./errors";
import { Status } from "../protocol/status";

/**
 * Parses every POST/PUT/PATCH body as JSON whatever its Content-Type (many
 * partners omit it). Malformed JSON is HTTP 400 + 2001; the parser's own
 * message is not echoed because it quotes the body, which may hold a token.
 */
export const jsonBody = (limitBytes: number): Middleware =>
  bodyParser({
    enableTypes: ["json"],
    detectJSON: () => true,
    jsonLimit: limitBytes,
    onError: (error) => {
      const tooLarge = (error as { status?: number }).status === 413;
      throw new OcpiError(
        Status.INVALID_PARAMETERS,
        tooLarge ? `Request body larger than ${limitBytes} bytes` : "Request body is not valid JSON (expected an object or array)",
        tooLarge ? 413 : 400,
      );
    },
  }) as unknown as Middleware;

/** The parsed body, or undefined when the request had none. */
export const requestBody = (request: { rawBody?: string; body?: unknown }): unknown =>
  request.rawBody === undefined || request.rawBody.trim() === "" ? undefined : request.body;
