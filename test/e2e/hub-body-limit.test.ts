import "reflect-metadata";
import http from "node:http";
import net from "node:net";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { DEFAULT_INBOUND } from "../../config/types";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { eventually, token } from "../support/charge-point";

/**
 * Issue #23 (finding D4): a body forwarded by the hub is held to the same
 * body limits as one the gateway reads itself (core/http/body-limits.ts).
 * Streamed between partners of the same version, a body over
 * `server.inbound.max_body_bytes` is refused at its Content-Length, or, sent
 * chunked, cut off on its way once it passes the limit: the sender gets 413
 * with 2001, the receiver never a complete request. Parsed between versions,
 * it is also held to the member limits. A hub on loopback between a sender
 * registered in its store and fake receivers that record what reaches them.
 */

/** What a fake receiver saw of the Token PUTs forwarded to it. */
interface Seen {
  /** the Authorization of each Token PUT */
  authorizations: string[];
  started: number;
  completed: number;
  /** closed before the whole body had arrived */
  broken: number;
}

/** A CPO at `version` that registers with the hub like any partner and records the Token PUTs it gets (answering 1000 to complete ones). */
const fakeReceiver = async (port: number, version: "2.3.0" | "2.2.1", partyId: string): Promise<{ server: http.Server; seen: Seen }> => {
  const seen: Seen = { authorizations: [], started: 0, completed: 0, broken: 0 };
  const base = `http://127.0.0.1:${port}`;
  const ok = (data: unknown) => JSON.stringify({ status_code: 1000, timestamp: new Date().toISOString(), data });
  const server = http.createServer((req, res) => {
    const path = req.url ?? "";
    const tokenPut = path.startsWith(`/${version}/tokens/`);
    if (tokenPut) {
      seen.started++;
      seen.authorizations.push(String(req.headers.authorization));
      req.once("close", () => (req.complete ? undefined : seen.broken++));
    }
    let body = "";
    req.on("data", (chunk: Buffer) => (tokenPut ? undefined : (body += chunk)));
    req.on("end", () => {
      res.setHeader("Content-Type", "application/json");
      if (tokenPut) {
        seen.completed++;
        return res.end(ok(null));
      }
      if (path === "/versions") return res.end(ok([{ version, url: `${base}/${version}` }]));
      if (path === `/${version}`)
        return res.end(
          ok({
            version,
            endpoints: [
              { identifier: "credentials", role: "SENDER", url: `${base}/${version}/credentials` },
              { identifier: "tokens", role: "RECEIVER", url: `${base}/${version}/tokens` },
            ],
          }),
        );
      if (path === `/${version}/credentials`)
        return res.end(
          ok({
            token: `fake-${partyId}-token-for-the-hub-0001`,
            url: `${base}/versions`,
            roles: [{ role: "CPO", country_code: "NL", party_id: partyId, business_details: { name: `Fake ${partyId}` } }],
          }),
        );
      res.statusCode = 404;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  return { server, seen };
};

let hub: Gateway;
let hubPort: number;
let senderAuth: string;
let same: Awaited<ReturnType<typeof fakeReceiver>>;
let older: Awaited<ReturnType<typeof fakeReceiver>>;

beforeAll(async () => {
  const [port, samePort, olderPort] = await freePorts(3);
  hubPort = port;
  same = await fakeReceiver(samePort, "2.3.0", "CPO");
  older = await fakeReceiver(olderPort, "2.2.1", "OLD");
  hub = await Gateway.create(
    testGatewayConfig({
      port,
      party: { country_code: "NL", party_id: "HUB", role: "OTHER" },
      server: { hub_party_id: "NLHUB" },
      partners: [
        { id: "sender", roles: [{ role: "EMSP", party: "DEEMS" }] },
        { id: "same", token_a: "token-a-same", versions_url: `http://127.0.0.1:${samePort}/versions`, roles: [{ role: "CPO", party: "NLCPO" }] },
        { id: "older", token_a: "token-a-older", versions_url: `http://127.0.0.1:${olderPort}/versions`, roles: [{ role: "CPO", party: "NLOLD" }] },
      ],
    }),
    { logger: pino({ level: "silent" }) },
  );
  await hub.listen();
  expect(await hub.credentials.register("same")).toMatchObject({ status: "registered", version: "2.3.0" });
  expect(await hub.credentials.register("older")).toMatchObject({ status: "registered", version: "2.2.1" });
  const issued = await hub.registry.issueToken("sender");
  await hub.registry.recordRegistration("sender", {
    version: "2.3.0",
    versionsUrl: "http://127.0.0.1:9/versions",
    endpoints: [],
    roles: [{ country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "DEEMS" } }],
    tokenToPartner: "unused-token-to-partner",
  });
  senderAuth = `Token ${Buffer.from(issued).toString("base64")}`;
});

afterAll(async () => {
  await hub?.close();
  for (const fake of [same, older]) await new Promise<void>((resolve) => fake?.server.close(() => resolve()));
  removeTempDirs();
});

const routing = (to: string) => [
  "OCPI-from-country-code: DE",
  "OCPI-from-party-id: EMS",
  "OCPI-to-country-code: NL",
  `OCPI-to-party-id: ${to}`,
  "X-Request-ID: req-1",
  "X-Correlation-ID: corr-1",
];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { status_code: number; status_message?: string };
}

/**
 * A Token PUT through the hub over a raw socket: the head, then `write`
 * sends the body as it likes until the hub has answered; resolves with the
 * answer once the hub has closed the connection.
 */
const putThroughHub = (to: string, uid: string, head: string[], write: (socket: net.Socket) => void): Promise<Answer> =>
  new Promise((resolve, reject) => {
    let text = "";
    const socket = net.connect({ port: hubPort, host: "127.0.0.1" });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close; got ${text.slice(0, 300)}`));
    }, 30_000);
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      text = text.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return reject(new Error(`closed without an answer: ${text.slice(0, 300)}`));
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: JSON.parse(text.slice(end + 4)) });
    });
    socket.on("connect", () => {
      const lines = [`PUT /ocpi/2.3.0/receiver/tokens/DE/EMS/${uid} HTTP/1.1`, "Host: 127.0.0.1", `Authorization: ${senderAuth}`, "Content-Type: application/json", ...routing(to), ...head];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      write(socket);
    });
  });

const MB = 1024 * 1024;
const LIMIT = DEFAULT_INBOUND.max_body_bytes;

describe("finding D4: a same-version body through the hub is held to the byte limit", () => {
  it("a body within the limits is streamed to the receiver and answered by it (1000)", async () => {
    const before = same.seen.completed;
    const answer = await ocpiRequest("PUT", `http://127.0.0.1:${hubPort}/ocpi/2.3.0/receiver/tokens/DE/EMS/SMALL`, {
      body: { ...token, uid: "SMALL" },
      headers: { Authorization: senderAuth, ...Object.fromEntries(routing("CPO").map((h) => h.split(": "))) },
    });
    expect(answer.body.status_code).toBe(1000);
    expect(same.seen.completed - before).toBe(1);
  });

  it("a body sent with Expect: 100-continue reaches the receiver with the hub's token for it, never the sender's", async () => {
    const body = JSON.stringify({ ...token, uid: "EXPECT" });
    const answer = await putThroughHub("CPO", "EXPECT", [`Content-Length: ${body.length}`, "Expect: 100-continue", "Connection: close"], (socket) => socket.write(body));
    expect(answer.body.status_code).toBe(1000);
    expect(same.seen.authorizations.at(-1)).toBe(`Token ${Buffer.from("fake-CPO-token-for-the-hub-0001").toString("base64")}`);
  });

  it("30 MB with its Content-Length: 413 with 2001 naming the limit before any of it is sent on; the receiver gets nothing", async () => {
    const before = { ...same.seen };
    // one megabyte of the thirty: the answer comes before the rest is sent
    const answer = await putThroughHub("CPO", "BIG1", [`Content-Length: ${30 * MB}`], (socket) => socket.write(Buffer.alloc(MB, " ")));
    expect(answer.status).toBe(413);
    expect(answer.body.status_code).toBe(2001);
    expect(answer.body.status_message).toContain(`larger than ${LIMIT} bytes (server.inbound.max_body_bytes)`);
    expect(answer.headers.connection).toBe("close");
    expect(same.seen).toEqual(before);
  });

  it("30 MB sent chunked: cut off once past the limit, 413 with 2001; the receiver never gets a complete request", async () => {
    const before = { ...same.seen };
    let sent = 0;
    const answer = await putThroughHub("CPO", "BIG2", ["Transfer-Encoding: chunked"], (socket) => {
      const chunk = Buffer.alloc(MB, " ");
      const more = () => {
        while (sent < 30 * MB && socket.writable) {
          sent += chunk.length;
          socket.write(`${chunk.length.toString(16)}\r\n`);
          socket.write(chunk);
          if (!socket.write("\r\n")) return void socket.once("drain", more);
        }
        if (socket.writable) socket.write("0\r\n\r\n");
      };
      more();
    });
    expect(answer.status).toBe(413);
    expect(answer.body.status_code).toBe(2001);
    expect(answer.body.status_message).toContain(`larger than ${LIMIT} bytes`);
    expect(sent).toBeLessThan(30 * MB);
    await eventually(async () => expect(same.seen.broken - before.broken).toBe(same.seen.started - before.started));
    expect(same.seen.completed).toBe(before.completed);
  });
});

describe("a body the hub parses (between versions) is held to every body limit", () => {
  it("a Token with 400,000 unknown members to a 2.2.1 receiver: 413 with 2001 naming max_object_members; the receiver gets nothing", async () => {
    const members = Array.from({ length: 400_000 }, (_, i) => `"unknown_member_${i}":${i}`).join(",");
    const first = Buffer.from(JSON.stringify({ ...token, uid: "D3HUB" }).replace(/}$/, `,${members}}`)).subarray(0, 256 * 1024);
    // chunked, so that no Content-Length gives it away: one chunk of 256 KB, the rest never sent
    const answer = await putThroughHub("OLD", "D3HUB", ["Transfer-Encoding: chunked"], (socket) => socket.write(`${first.length.toString(16)}\r\n${first}\r\n`));
    expect(answer.status).toBe(413);
    expect(answer.body.status_code).toBe(2001);
    expect(answer.body.status_message).toContain("server.inbound.max_object_members");
    expect(older.seen.started).toBe(0);
  });
});

describe("refusals at the hub are paced per address, as at every entrance (server.inbound.refusals_per_second)", () => {
  it("fifteen same-version bodies over the byte limit at once: each 413, past the allowance of 10 a second each waiting for its slot", async () => {
    const answeredAt = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        new Promise<{ status: number; at: number }>((resolve, reject) => {
          const socket = net.connect({ port: hubPort, host: "127.0.0.1" });
          socket.setEncoding("latin1");
          socket.on("error", () => undefined);
          socket.once("data", (chunk: string) => {
            resolve({ status: Number(chunk.split(" ")[1]), at: performance.now() });
            socket.destroy();
          });
          socket.on("close", () => reject(new Error("closed without an answer")));
          const lines = [`PUT /ocpi/2.3.0/receiver/tokens/DE/EMS/PACED${i} HTTP/1.1`, "Host: 127.0.0.1", `Authorization: ${senderAuth}`, ...routing("CPO"), `Content-Length: ${30 * MB}`];
          socket.on("connect", () => socket.write(`${lines.join("\r\n")}\r\n\r\n`));
        }),
      ),
    );
    expect(answeredAt.map((a) => a.status)).toEqual(Array(15).fill(413));
    const times = answeredAt.map((a) => a.at);
    // at least five waited for their slots, a tenth of a second apart
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(400);
  });
});
