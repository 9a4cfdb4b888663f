import request from "supertest";
import type { VersionNumber } from "../../config/types";
import type { Harness } from "./module-harness";

/**
 * The harness served through Koa instead of the path before it: middleware added after the app is built
 * makes Koa serve every request (core/host/http-app.ts).
 */
export const throughKoa = (h: Harness): Harness => {
  h.gateway.app.use((_ctx, next) => next());
  h.http = request(h.gateway.app.callback());
  return h;
};

/** A Sender list GET of `module` in `version` by the harness's partner. */
export const senderList = (h: Harness, version: VersionNumber, module: string, query: string) =>
  h.http.get(h.path(version, "SENDER", module, query)).set("Authorization", h.auth);

/** The answer without what differs per request (its date, ids and timestamp). */
export const comparable = (res: { status: number; text: string; headers: Record<string, string> }) => {
  const { date: _d, "x-request-id": _r, "x-correlation-id": _c, ...headers } = res.headers;
  return { status: res.status, headers, text: res.text.replace(/"timestamp":"[^"]+"/, "") };
};
