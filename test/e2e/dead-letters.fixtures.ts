/** The tokens and the fake eMSP of the dead-letters test (test/e2e/dead-letters.test.ts): how it answers a push, what it received. */
import "reflect-metadata";
import type http from "node:http";
import { LoopbackPartner } from "../support/loopback-server";

export type Json = Record<string, any>;

export const ADMIN_TOKEN = "dead-letters-admin-token-0123456789";
export const TOKEN_A = "dead-letters-token-a-0123456789";
/** the token the eMSP gives us: what we call it with, and what it echoes back */
export const PARTNER_TOKEN = "partner-issued-token-for-the-cpo-9f8e7d6c5b4a";
/** a credential the eMSP's error page shows that is not ours (say, another platform's) */
export const OTHER_TOKEN_B64 = Buffer.from("some-other-platforms-token-1234").toString("base64");
export const OWNER = { country_code: "NL", party_id: "CPO" };

/* ---------------------------------------------------------------- the eMSP, written with node:http */

export interface Received {
  method: string;
  path: string;
  /** the pushed object's id */
  id: string;
  /** a pushed session's status ("" for a CDR) */
  state: string;
  status: number;
}

export type Answer = { status: number; contentType: string; body: string };
/** How the eMSP answers a push; undefined: as the spec says (1000). */
export type Behaviour = (method: string, id: string, authorization: string, body: Json) => Answer | undefined;

export const json = (status: number, body: unknown): Answer => ({ status, contentType: "application/json", body: JSON.stringify(body) });
export const accepted = (status: number): Answer => json(status, { status_code: 1000, timestamp: new Date().toISOString() });
/** what a Python framework answers a body it cannot validate: the request's headers echoed for "debugging", then the whole input */
export const validation422 = (authorization: string, input: Json): Answer =>
  json(422, {
    detail: [{ loc: ["body", "cdr_token", "country_code"], msg: "field required", type: "value_error.missing" }],
    request: { headers: { authorization }, token: Buffer.from(authorization.replace(/^Token /, ""), "base64").toString("utf8") },
    input,
  });
export const envelope2001 = (authorization: string): Answer =>
  json(400, { status_code: 2001, status_message: `Unknown token in session; you sent Authorization: ${authorization}`, timestamp: new Date().toISOString() });
export const htmlPage500 = (authorization: string): Answer => ({
  status: 500,
  contentType: "text/html",
  // and a credential that is not ours, written like one: scrubbed too
  body: `<html>\n<head><title>500 Internal Server Error</title></head>\n<body>\n<h1>Internal Server Error</h1>\n<p>request had ${authorization}, expected Token ${OTHER_TOKEN_B64}</p>\n</body></html>`,
});

export class FakeEmsp extends LoopbackPartner {
  readonly received: Received[] = [];
  behaviour: Behaviour = () => undefined;

  /** answers of a kind to pushes of one object */
  deliveries(id: string, status?: number): Received[] {
    return this.received.filter((r) => r.id === id && (status === undefined || r.status === status));
  }

  protected answer(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    const path = req.url ?? "";
    const method = req.method ?? "";
    let answer: Answer;
    if (path === "/versions") answer = json(200, { status_code: 1000, data: [{ version: "2.2.1", url: `${this.base}/details` }], timestamp: new Date().toISOString() });
    else if (path === "/details") {
      const endpoints = ["credentials", "sessions", "cdrs"].map((identifier) => ({ identifier, role: "RECEIVER", url: `${this.base}/${identifier}` }));
      answer = json(200, { status_code: 1000, data: { version: "2.2.1", endpoints }, timestamp: new Date().toISOString() });
    } else {
      const body = (text ? JSON.parse(text) : {}) as Json;
      const id = String(body.id ?? "");
      answer = this.behaviour(method, id, req.headers.authorization ?? "", body) ?? accepted(method === "POST" ? 201 : 200);
      this.received.push({ method, path, id, state: String(body.status ?? ""), status: answer.status });
    }
    res.writeHead(answer.status, { "Content-Type": answer.contentType });
    res.end(answer.body);
  }
}
