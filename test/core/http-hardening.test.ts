import "reflect-metadata";
import { type Exchange, exchange, expectEnvelopeAndClose, head, parseResponse, trickle } from "./http-hardening.fixtures";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { Writable } from "node:stream";
import Koa from "koa";
import { Gateway } from "../../app/gateway";
import { createLogger } from "../../core/logging/logger";
import { jsonBody, requestBody, MAX_JSON_DEPTH } from "../../core/http/json-body";
import { withoutNulls } from "../../core/model/without-nulls";
import { DEFAULT_INBOUND, type InboundServerConfig } from "../../config/types";
import { removeTempDirs } from "../support/gateway-config";
import { ocpiRequest } from "../support/gateway-process";
import { partnerGateway } from "../support/partner-gateway";
import { EXAMPLES } from "../support/ocpi-examples";
import { eventually } from "../support/charge-point";

/**
 * The inbound HTTP surface under hostile or broken clients (issue #8 items 4,
 * 6 and the parsing half of 8), against real listening gateways over
 * loopback; raw sockets where an HTTP client would hide what the server does.
 */

/** Short limits, so each timeout fires within a test; the bounds asserted below are generous multiples of them. */
const TIGHT: InboundServerConfig = {
  ...DEFAULT_INBOUND,
  headers_timeout_ms: 1000,
  request_timeout_ms: 2000,
  keep_alive_timeout_ms: 1000,
  max_connections_per_client: 0,
};
const CAPPED: InboundServerConfig = { ...DEFAULT_INBOUND, keep_alive_timeout_ms: 60_000, max_connections_per_client: 3 };
const SLACK_MS = 5000;

// --- gateways ----------------------------------------------------------------------------------------

interface Served {
  gateway: Gateway;
  port: number;
  auth: string;
  logs: { level: number; msg: string }[];
}

const started: Gateway[] = [];

/** A listening gateway serving tokens on the local adapter, with one registered eMSP partner (DE/EMS). */
const serve = async (inbound: InboundServerConfig): Promise<Served> => {
  const logs: Served["logs"] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });
  const served = await partnerGateway({ inbound, logger: createLogger("debug", sink) });
  started.push(served.gateway);
  return { ...served, logs };
};

let tight: Served;
let capped: Served;

beforeAll(async () => {
  [tight, capped] = await Promise.all([serve(TIGHT), serve(CAPPED)]);
});

afterAll(async () => {
  await Promise.all(started.map((g) => g.close()));
  removeTempDirs();
});
// --- item 4: deep nesting ------------------------------------------------------------------------------

const nested = (depth: number, inner = "1"): string => "[".repeat(depth) + inner + "]".repeat(depth);
const tokenUrl = (port: number, uid: string) => `http://127.0.0.1:${port}/ocpi/2.3.0/receiver/tokens/DE/EMS/${uid}`;
const tokenJson = (uid: string, extra: string) =>
  `{"country_code":"DE","party_id":"EMS","uid":"${uid}","type":"RFID","contract_id":"DE-EMS-C1","issuer":"EMS",` +
  `"valid":true,"whitelist":"ALLOWED","last_updated":"2025-01-01T00:00:00Z","extra":${extra}}`;

describe("deeply nested bodies", () => {
  it.each([
    ["PUT", "DEEP1", tokenJson("DEEP1", nested(10_000))],
    ["PUT", "DEEP2", nested(100_000)],
    ["PATCH", "DEEP3", `{"whitelist":${nested(MAX_JSON_DEPTH)}}`],
  ])("%s %s: HTTP 400 with 2001 naming the depth, nothing stored, nothing logged as an error", async (method, uid, body) => {
    const response = await ocpiRequest(method, tokenUrl(tight.port, uid), { body, headers: { Authorization: tight.auth } });
    expect(response.status).toBe(400);
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    const stored = await ocpiRequest("GET", tokenUrl(tight.port, uid), { headers: { Authorization: tight.auth } });
    expect(stored.status).toBe(404);
    expect(tight.logs.filter((line) => line.level >= 50)).toEqual([]);
  });

  it(`a body exactly ${MAX_JSON_DEPTH} levels deep is taken and stored`, async () => {
    const extra = nested(MAX_JSON_DEPTH - 1);
    const put = await ocpiRequest("PUT", tokenUrl(tight.port, "ATLIMIT"), { body: tokenJson("ATLIMIT", extra), headers: { Authorization: tight.auth } });
    expect(put.body.status_code).toBe(1000);
    const stored = await ocpiRequest("GET", tokenUrl(tight.port, "ATLIMIT"), { headers: { Authorization: tight.auth } });
    expect(stored.body.data.extra).toEqual(JSON.parse(extra));
  });

  it("brackets inside strings do not count as nesting", async () => {
    const uid = "BRACKETS";
    const put = await ocpiRequest("PUT", tokenUrl(tight.port, uid), {
      body: tokenJson(uid, JSON.stringify("[{".repeat(100) + '\\"[')),
      headers: { Authorization: tight.auth },
    });
    expect(put.body.status_code).toBe(1000);
  });

  it(`every example payload of the spec nests at most 7 levels, far below ${MAX_JSON_DEPTH}`, () => {
    const depthOf = (value: unknown): number =>
      value !== null && typeof value === "object" ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;
    const parsed = fs
      .readdirSync(EXAMPLES, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".json"))
      .flatMap((f) => {
        try {
          return [JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), "utf8")) as unknown];
        } catch {
          return []; // a few examples are fragments, not whole JSON documents
        }
      });
    expect(parsed.length).toBeGreaterThan(100);
    const deepest = Math.max(...parsed.map(depthOf));
    expect(deepest).toBeLessThanOrEqual(7);
  });

  it("null stripping walks any depth without recursion and keeps its rules: nulls dropped from objects, kept in arrays, key order kept", () => {
    let deep: unknown = { a: null, b: 1 };
    for (let i = 0; i < 200_000; i++) deep = [deep];
    let out = withoutNulls(deep);
    for (let i = 0; i < 200_000; i++) out = (out as unknown[])[0];
    expect(out).toEqual({ b: 1 });
    const cleaned = withoutNulls({ z: 1, n: null, a: [null, { x: null, y: [null] }], o: { p: null, q: "s" } });
    expect(cleaned).toEqual({ z: 1, a: [null, { y: [null] }], o: { q: "s" } });
    expect(Object.keys(cleaned as object)).toEqual(["z", "a", "o"]);
    expect(withoutNulls(null)).toBeNull();
    expect(withoutNulls("s")).toBe("s");
  });
});

// --- item 6: answers Node's parser would give without a body -----------------------------------------

describe("answers from the HTTP layer are envelopes", () => {
  it("a 100 KB URL: HTTP 431 with an envelope, then the connection is closed", async () => {
    const result = await exchange(tight.port, (s) => s.write(head([`GET /ocpi/versions?x=${"a".repeat(100_000)} HTTP/1.1`, "Host: 127.0.0.1"])), SLACK_MS);
    const response = expectEnvelopeAndClose(result, 431, 2000);
    expect(response.body.status_message).toContain(`${TIGHT.max_header_bytes} bytes`);
  });

  it.each([
    ["an unknown method", head(["GARBAGE / HTTP/1.1", "Host: 127.0.0.1"])],
    ["a Content-Length that is no number", head(["PUT /ocpi/versions HTTP/1.1", "Host: 127.0.0.1", "Content-Length: ten"])],
    ["a header line without a colon", head(["GET /ocpi/versions HTTP/1.1", "Host: 127.0.0.1", "broken header"])],
  ])("a malformed request (%s): HTTP 400 with an envelope, then closed", async (_name, request) => {
    expectEnvelopeAndClose(await exchange(tight.port, (s) => s.write(request), SLACK_MS), 400, 2000);
  });

  it("CONNECT: HTTP 405 with an envelope, then closed", async () => {
    expectEnvelopeAndClose(await exchange(tight.port, (s) => s.write(head(["CONNECT 127.0.0.1:9 HTTP/1.1", "Host: 127.0.0.1:9"])), SLACK_MS), 405, 2000);
  });

  it("an Expect the server does not know: HTTP 417 with an envelope", async () => {
    const result = await exchange(tight.port, (s) => s.write(head(["GET /ocpi/versions HTTP/1.1", "Host: 127.0.0.1", "Expect: teapot"])), SLACK_MS);
    expectEnvelopeAndClose(result, 417, 2000);
  });

  it("no Host header: the app answers (here 401 with an envelope), not Node's empty 400", async () => {
    const result = await exchange(tight.port, (s) => s.write(head(["GET /ocpi/versions HTTP/1.1", "Connection: close"])), SLACK_MS);
    expect(result.text.startsWith("HTTP/1.1 401 ")).toBe(true);
    expect(parseResponse(result.text).body.status_code).toBe(2000);
  });
});

describe("inbound timeouts", () => {
  it("headers trickled line by line (slowloris): HTTP 408 with an envelope, closed within the headers timeout", async () => {
    const result = await exchange(
      tight.port,
      (s) => {
        s.write("GET /ocpi/versions HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        trickle(s, "X-Slow: 1\r\n", 200);
      },
      TIGHT.headers_timeout_ms + SLACK_MS,
    );
    const response = expectEnvelopeAndClose(result, 408, 2000);
    expect(response.body.status_message).toContain(`${TIGHT.headers_timeout_ms} ms`);
  });

  it("a connection that sends nothing is closed within the headers timeout", async () => {
    const result = await exchange(tight.port, () => undefined, TIGHT.headers_timeout_ms + SLACK_MS);
    expect(result.closed).toBe(true);
  });

  it("a body trickled a byte at a time: HTTP 408 with an envelope, closed within the request timeout", async () => {
    const result = await exchange(
      tight.port,
      (s) => {
        s.write(head(["PUT /ocpi/2.3.0/receiver/tokens/DE/EMS/SLOW HTTP/1.1", "Host: 127.0.0.1", `Authorization: ${tight.auth}`, "Content-Type: application/json", "Content-Length: 1000"]));
        trickle(s, " ", 200);
      },
      TIGHT.request_timeout_ms + SLACK_MS,
    );
    expectEnvelopeAndClose(result, 408, 2000);
    const stored = await ocpiRequest("GET", tokenUrl(tight.port, "SLOW"), { headers: { Authorization: tight.auth } });
    expect(stored.status).toBe(404);
  });

  it("an idle kept-alive connection is closed after the keep-alive timeout, after exactly one answer", async () => {
    const result = await exchange(tight.port, (s) => s.write(head(["GET /ocpi/versions HTTP/1.1", "Host: 127.0.0.1"])), TIGHT.keep_alive_timeout_ms + SLACK_MS);
    expect(result.closed).toBe(true);
    expect(result.text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(result.text.startsWith("HTTP/1.1 401 ")).toBe(true);
  });
});

describe("an oversized body", () => {
  it("is answered 413 with an envelope and the connection closed while the client is still sending", async () => {
    let sent = 0;
    const result = await exchange(
      tight.port,
      (s) => {
        s.write(head(["PUT /ocpi/2.3.0/receiver/tokens/DE/EMS/BIG HTTP/1.1", "Host: 127.0.0.1", `Authorization: ${tight.auth}`, "Content-Length: 20000000"]));
        const chunk = "x".repeat(1000);
        const timer = setInterval(() => {
          if (!s.writable) return clearInterval(timer);
          s.write(chunk);
          sent += chunk.length;
        }, 20);
        s.once("close", () => clearInterval(timer));
      },
      SLACK_MS,
    );
    const response = expectEnvelopeAndClose(result, 413, 2001);
    expect(response.body.status_message).toContain(`larger than ${DEFAULT_INBOUND.max_body_bytes} bytes (server.inbound.max_body_bytes)`);
    expect(sent).toBeLessThan(20_000_000);
  });
});

describe("connections per client address", () => {
  const keepAliveGet = (s: net.Socket) => s.write(head(["GET /ocpi/versions HTTP/1.1", "Host: 127.0.0.1"]));

  /** An open connection the server has admitted: it answered a request on it and keeps it alive. */
  const admitted = (localAddress = "127.0.0.1", port = capped.port): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: "127.0.0.1", localAddress });
      socket.once("connect", () => keepAliveGet(socket));
      socket.once("data", (chunk) => (chunk.toString("latin1").startsWith("HTTP/1.1 401 ") ? resolve(socket) : reject(new Error(chunk.toString("latin1")))));
      socket.once("error", reject);
    });

  it("over the cap: HTTP 503 with a 3000 envelope and Retry-After, then closed; other addresses and freed slots are served", async () => {
    const open = await Promise.all([admitted(), admitted(), admitted()]);
    try {
      const refused = await exchange(capped.port, keepAliveGet, SLACK_MS);
      const response = expectEnvelopeAndClose(refused, 503, 3000);
      expect(response.headers["retry-after"]).toBe("1");

      // the cap is per address: another loopback address still gets in
      const other = await admitted("127.0.0.2");
      other.destroy();

      // a closed connection frees its slot
      open.pop()!.destroy();
      let again: Exchange | undefined;
      for (let tries = 0; tries < 50 && !again?.text.startsWith("HTTP/1.1 401 "); tries++) {
        again = await exchange(capped.port, (s) => s.write(head(["GET /ocpi/versions HTTP/1.1", "Host: 127.0.0.1", "Connection: close"])), SLACK_MS);
      }
      expect(again!.text.startsWith("HTTP/1.1 401 ")).toBe(true);
    } finally {
      for (const socket of open) socket.destroy();
    }
  });

  it("with max_connections_per_client 0 there is no cap: 100 connections from one address are all served", async () => {
    const open = await Promise.all(Array.from({ length: 100 }, () => admitted("127.0.0.1", tight.port)));
    for (const socket of open) socket.destroy();
    expect(open).toHaveLength(100);
  });
});

// What every test above sends must leave no error-level line and no partner token in either gateway's log,
// whichever tests ran and in whatever order.
afterEach(() => {
  if (!tight || !capped) return;
  const encoded = tight.auth.slice("Token ".length);
  const token = Buffer.from(encoded, "base64").toString("utf8");
  for (const served of [tight, capped]) {
    expect(served.logs.filter((line) => line.level >= 50)).toEqual([]);
    for (const secret of [encoded, token]) expect(JSON.stringify(served.logs)).not.toContain(secret);
  }
});

describe("logs", () => {
  it("a request the HTTP parser refuses is logged, below error level and without the token", async () => {
    const request = head(["GET /ocpi/versions HTTP/1.1", "Host: 127.0.0.1", `Authorization: ${tight.auth}`, "broken header"]);
    expectEnvelopeAndClose(await exchange(tight.port, (s) => s.write(request), SLACK_MS), 400, 2000);
    await eventually(async () => expect(tight.logs.some((line) => line.msg === "inbound request refused by the HTTP parser")).toBe(true));
  });
});

describe("the body's media type", () => {
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    const app = new Koa();
    app.use(jsonBody({ ...DEFAULT_INBOUND, max_body_bytes: 1024 }));
    app.use((ctx) => {
      ctx.body = { parsed: requestBody(ctx.request as { body?: unknown }), recorded: "bodyMediaType" in ctx.state, bodyMediaType: ctx.state.bodyMediaType ?? null };
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A POST written by hand, so no client adds a Content-Type of its own. */
  const post = (body: string, contentType?: string) =>
    head(["POST / HTTP/1.1", "Host: 127.0.0.1", "Connection: close", `Content-Length: ${body.length}`, ...(contentType ? [`Content-Type: ${contentType}`] : [])]) + body;

  it.each([
    ["Text/Plain; charset=utf-8", "text/plain"],
    ["application/json", "application/json"],
    [undefined, null],
  ])("Content-Type %s: parsed as JSON all the same, recorded as %s", async (contentType, expected) => {
    const result = await exchange(port, (s) => s.write(post('{"a":1}', contentType)), SLACK_MS);
    expect(parseResponse(result.text).body).toEqual({ parsed: { a: 1 }, recorded: true, bodyMediaType: expected });
  });

  it("is not recorded for a request without a body", async () => {
    const result = await exchange(port, (s) => s.write(post("", "text/plain")), SLACK_MS);
    expect(parseResponse(result.text).body.recorded).toBe(false);
  });
});
