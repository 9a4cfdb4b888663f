import "reflect-metadata";
import net from "node:net";
import { Gateway } from "../../app/gateway";
import { DEFAULT_INBOUND, type InboundServerConfig } from "../../config/types";
import { ConfigError, parseConfig } from "../../config/load-config";
import { gatewayConfigYaml, removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { location, token } from "../support/charge-point";

/**
 * Issue #23 item 2: heavy request bodies (`server.inbound.heavy_body_*`)
 * pass the gateway's heavy lane (core/http/heavy-lane.ts) — one at a time,
 * each next one after a pause proportional to the busy time of the last,
 * at most `heavy_body_max_wait_ms` of waiting, then HTTP 429 with 2000 and
 * Retry-After — while every other request goes on. Real gateways on
 * loopback, raw sockets (a client library would hide when the answer came
 * and cannot break a body off); what is checked is the order of answers,
 * never a duration. A share of 1e-6 makes the pause after one heavy body
 * longer than any test: the lane is then busy for as long as a test runs,
 * once another request was about during that body's turn (`lingering`);
 * with nobody else about, the lane keeps no pause.
 */

/** the lane never pauses: heavy bodies are only taken one at a time */
const NO_PAUSE: Partial<InboundServerConfig> = { heavy_body_share: 1 };
/** after one heavy body, the lane pauses for at least a thousand times its busy time */
const PAUSED: Partial<InboundServerConfig> = { heavy_body_share: 0.000_001 };

interface Served {
  gateway: Gateway;
  port: number;
  auth: string;
}

let served: Served[] = [];

/** A gateway as a CPO (tokens) and an eMSP (locations), the partner registered as eMSP DE/EMS and CPO DE/CPX; the defaults but `inbound`. */
const serve = async (inbound: Partial<InboundServerConfig>): Promise<Served> => {
  const [port] = await freePorts(1);
  const gateway = await Gateway.create(
    testGatewayConfig({
      port,
      party: [
        { country_code: "NL", party_id: "GWY", role: "CPO" },
        { country_code: "NL", party_id: "EMP", role: "EMSP" },
      ],
      server: { inbound: { ...DEFAULT_INBOUND, ...inbound } },
      modules: { tokens: { adapter: "local" }, locations: { adapter: "local" } },
      partners: [{ id: "partner" }],
    }),
  );
  const issued = await gateway.registry.issueToken("partner");
  await gateway.registry.recordRegistration("partner", {
    version: "2.3.0",
    versionsUrl: "http://127.0.0.1:9/versions",
    endpoints: [],
    roles: [
      { country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "DEEMS" } },
      { country_code: "DE", party_id: "CPX", role: "CPO", business_details: { name: "DECPX" } },
    ],
    tokenToPartner: "unused-token-to-partner",
  });
  await gateway.listen();
  const one = { gateway, port, auth: `Token ${Buffer.from(issued).toString("base64")}` };
  served.push(one);
  return one;
};

afterEach(async () => {
  await Promise.all(served.map((s) => s.gateway.close()));
  served = [];
});

afterAll(() => removeTempDirs());

const tokenPath = (uid: string) => `/ocpi/2.3.0/receiver/tokens/DE/EMS/${uid}`;
const tokenBody = (uid: string, extra?: unknown, changes: Record<string, unknown> = {}) => Buffer.from(JSON.stringify({ ...token, uid, ...changes, extra }));
/** heavy by its bytes (600 KB: over the default 128 KiB), few members */
const heavyToken = (uid: string, changes: Record<string, unknown> = {}) => tokenBody(uid, Array.from({ length: 10 }, () => "h".repeat(60_000)), changes);
/** heavy by its members (25,000 array elements: over the default 10,000), 100 KB */
const manyMembersToken = (uid: string) => tokenBody(uid, Array.from({ length: 25_000 }, (_, i) => i % 10));

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { status_code: number; status_message?: string };
}

interface Sent {
  answer: Promise<Answer>;
  /** whether the answer has come */
  answered(): boolean;
  /** break the connection off (the client gone) */
  destroy(): void;
}

/**
 * A request over a raw socket: its head, then the body (at most
 * `sendAtMost` bytes of it; `chunked`: in one chunk without a
 * Content-Length), then the answer, complete once its body is in.
 */
const send = (
  to: Served,
  method: string,
  target: string,
  body?: Buffer,
  options: { sendAtMost?: number; chunked?: boolean; auth?: string } = {},
): Sent => {
  const socket = net.connect({ port: to.port, host: "127.0.0.1" });
  let done = false;
  const answer = new Promise<Answer>((resolve, reject) => {
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const end = text.indexOf("\r\n\r\n");
      if (done || end < 0) return;
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      if (Buffer.byteLength(text.slice(end + 4), "latin1") < Number(headers["content-length"])) return;
      done = true;
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: JSON.parse(text.slice(end + 4)) });
      socket.end();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => done || reject(new Error(`closed without an answer: ${text.slice(0, 300)}`)));
  });
  socket.on("connect", () => {
    const framing = !body ? [] : options.chunked ? ["Transfer-Encoding: chunked"] : [`Content-Length: ${body.length}`];
    const head = [`${method} ${target} HTTP/1.1`, "Host: 127.0.0.1", `Authorization: ${options.auth ?? to.auth}`, "Content-Type: application/json", ...framing];
    socket.write(`${head.join("\r\n")}\r\n\r\n`);
    if (body && options.chunked) socket.write(`${body.length.toString(16)}\r\n${body.toString("latin1")}\r\n0\r\n\r\n`, "latin1");
    else if (body) socket.write(body.subarray(0, options.sendAtMost ?? body.length));
  });
  return { answer, answered: () => done, destroy: () => socket.destroy() };
};

const put = (to: Served, target: string, body: Buffer, options?: { sendAtMost?: number; chunked?: boolean; auth?: string }) =>
  send(to, "PUT", target, body, options);

/** answered 200 or 201 with 1000 (the message shown when it was not) */
/**
 * Another client's request being served: a small PUT whose body has not all come, until it is destroyed;
 * resolved once a GET sent after it is answered (its head was read before the GET's).
 */
const lingering = async (to: Served): Promise<Sent> => {
  const body = tokenBody("LINGER");
  const sent = send(to, "PUT", tokenPath("LINGER"), body, { sendAtMost: body.length - 1 });
  // it ends unanswered when destroyed
  sent.answer.catch(() => undefined);
  await send(to, "GET", tokenPath("LINGER")).answer;
  return sent;
};

const expectTaken = async (sent: Sent) => {
  const answer = await sent.answer;
  expect([answer.status < 300, answer.body.status_code, answer.body.status_message]).toEqual([true, 1000, answer.body.status_message]);
};

describe("a heavy body and a normal request", () => {
  it("the normal requests (a GET, a small PUT) are answered while a heavy body waits for the lane", async () => {
    const gateway = await serve({ ...PAUSED, heavy_body_max_wait_ms: 600_000 });
    await expectTaken(put(gateway, tokenPath("NORMAL"), tokenBody("NORMAL")));
    const other = await lingering(gateway);
    await expectTaken(put(gateway, tokenPath("HEAVY1"), heavyToken("HEAVY1")));
    // the lane pauses now; the next heavy body waits for it
    const waiting = put(gateway, tokenPath("HEAVY2"), heavyToken("HEAVY2"));

    const read = await send(gateway, "GET", tokenPath("NORMAL")).answer;
    expect([read.status, read.body.status_code]).toEqual([200, 1000]);
    await expectTaken(put(gateway, tokenPath("SMALL"), tokenBody("SMALL", { note: "a normal body" })));
    // a small body without a Content-Length is weighed as it comes, not taken for heavy (it was, and waited out the pause)
    await expectTaken(put(gateway, tokenPath("CHUNKED"), tokenBody("CHUNKED", { note: "sent chunked" }), { chunked: true }));
    expect(waiting.answered()).toBe(false);

    // the client gives up: the request ends without an answer
    waiting.destroy();
    await expect(waiting.answer).rejects.toThrow(/closed without an answer/);
    other.destroy();
  });

  it("with no other request about, heavy bodies follow one another without a pause", async () => {
    const gateway = await serve({ ...PAUSED, heavy_body_max_wait_ms: 600_000 });
    for (const uid of ["BULK1", "BULK2", "BULK3"]) await expectTaken(put(gateway, tokenPath(uid), heavyToken(uid)));
    // a request about during a turn: the pause after it is kept
    const other = await lingering(gateway);
    await expectTaken(put(gateway, tokenPath("BULK4"), heavyToken("BULK4")));
    other.destroy();
    const next = put(gateway, tokenPath("BULK5"), heavyToken("BULK5"));
    expect((await send(gateway, "GET", tokenPath("BULK4")).answer).status).toBe(200);
    expect(next.answered()).toBe(false);
    next.destroy();
    await expect(next.answer).rejects.toThrow(/closed without an answer/);
  });

  it("a Location of 100 EVSEs is not heavy: taken while the lane pauses, where a heavy body is refused", async () => {
    const gateway = await serve({ ...PAUSED, heavy_body_max_wait_ms: 2_000 });
    const other = await lingering(gateway);
    await expectTaken(put(gateway, tokenPath("HEAVY1"), heavyToken("HEAVY1")));
    const base = location({ country_code: "DE", party_id: "CPX" });
    const evses = Array.from({ length: 100 }, (_, i) => ({ ...base.evses[0], uid: `EVSE${i}`, evse_id: `DE*CPX*E${i}` }));
    const big = Buffer.from(JSON.stringify({ ...base, id: "HUNDRED", evses }));
    await expectTaken(put(gateway, "/ocpi/2.3.0/receiver/locations/DE/CPX/HUNDRED", big));
    // the lane was pausing all along: a heavy body now waits out heavy_body_max_wait_ms and is refused
    expect((await put(gateway, tokenPath("HEAVY2"), heavyToken("HEAVY2")).answer).status).toBe(429);
    other.destroy();
  });
});

describe("heavy bodies the lane cannot take in time", () => {
  it("get HTTP 429 with 2000 and Retry-After, the connection closed, nothing stored: by bytes, by members sent chunked, past the queue", async () => {
    const gateway = await serve({ ...PAUSED, heavy_body_queue: 1, heavy_body_max_wait_ms: 1_000 });
    const other = await lingering(gateway);
    await expectTaken(put(gateway, tokenPath("FIRST"), heavyToken("FIRST")));
    const refused = [
      put(gateway, tokenPath("BYBYTES"), heavyToken("BYBYTES")),
      put(gateway, tokenPath("BYMEMBERS"), manyMembersToken("BYMEMBERS"), { chunked: true }),
      put(gateway, tokenPath("PASTQUEUE"), heavyToken("PASTQUEUE")),
    ];
    for (const sent of refused) {
      const answer = await sent.answer;
      expect(answer.status).toBe(429);
      expect(answer.body.status_code).toBe(2000);
      expect(answer.body.status_message).toContain("server.inbound.heavy_body_max_wait_ms");
      expect(Number(answer.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(answer.headers.connection).toBe("close");
    }
    for (const uid of ["BYBYTES", "BYMEMBERS", "PASTQUEUE"]) expect((await send(gateway, "GET", tokenPath(uid)).answer).status).toBe(404);
    other.destroy();
  });

  it("are served in turn when they fit the wait: three at once, each taken", async () => {
    const gateway = await serve({ ...NO_PAUSE, heavy_body_queue: 1 });
    const sent = ["TURN1", "TURN2", "TURN3"].map((uid) => put(gateway, tokenPath(uid), heavyToken(uid)));
    for (const one of sent) await expectTaken(one);
  });
});

describe("the lane recovers: no place or turn is kept by a request that ends otherwise", () => {
  /** one heavy body at a time, none read while another of the client's is, refused after 2 s: a place or turn kept would refuse the next body */
  const recovering = () => serve({ ...NO_PAUSE, heavy_body_queue: 1, heavy_body_max_wait_ms: 2_000 });

  it("refused by validation, malformed, over a limit while read, or of an unknown token: the next heavy body is taken", async () => {
    const gateway = await recovering();
    const invalid = await put(gateway, tokenPath("INVALID"), heavyToken("INVALID", { whitelist: "SOMETIMES" })).answer;
    expect([invalid.body.status_code, invalid.body.status_message]).toEqual([2001, expect.stringContaining("/whitelist")]);
    await expectTaken(put(gateway, tokenPath("AFTER1"), heavyToken("AFTER1")));

    const malformed = await put(gateway, tokenPath("BROKEN"), Buffer.concat([heavyToken("BROKEN"), Buffer.from("}")])).answer;
    expect([malformed.status, malformed.body.status_code]).toEqual([400, 2001]);
    await expectTaken(put(gateway, tokenPath("AFTER2"), heavyToken("AFTER2")));

    const wide = `{${Array.from({ length: 300 }, (_, i) => `"m${i}":"${"w".repeat(2_000)}"`).join(",")}}`;
    const over = await put(gateway, tokenPath("WIDE"), tokenBody("WIDE", JSON.parse(wide))).answer;
    expect([over.status, over.body.status_code]).toEqual([413, 2001]);
    await expectTaken(put(gateway, tokenPath("AFTER3"), heavyToken("AFTER3")));

    const stranger = await put(gateway, tokenPath("STRANGER"), heavyToken("STRANGER"), { auth: "Token bm90LWEtdG9rZW4" }).answer;
    expect(stranger.status).toBe(401);
    await expectTaken(put(gateway, tokenPath("AFTER4"), heavyToken("AFTER4")));
  });

  it("a client gone mid-body: its place goes to the body waiting for it, and the next is taken", async () => {
    const gateway = await recovering();
    const body = heavyToken("HALF");
    // half a heavy body, the rest never sent: it holds the client's one place while it is read
    const half = put(gateway, tokenPath("HALF"), body, { sendAtMost: body.length / 2 });
    const normal = await send(gateway, "GET", tokenPath("HALF")).answer;
    expect(normal.status).toBe(404);
    // a whole heavy body of the same client waits unread for that place
    const next = put(gateway, tokenPath("NEXT"), heavyToken("NEXT"));
    half.destroy();
    await expect(half.answer).rejects.toThrow(/closed without an answer/);
    await expectTaken(next);
    await expectTaken(put(gateway, tokenPath("LAST"), heavyToken("LAST")));
    expect((await send(gateway, "GET", tokenPath("HALF")).answer).status).toBe(404);
  });
});

describe("refused bodies, paced per address (refusals_per_second)", () => {
  it("past the allowance a refusal waits unanswered while other requests are answered; past 5 s of waiting ones, the connection is closed unanswered", async () => {
    const gateway = await serve({ refusals_per_second: 1 });
    await expectTaken(put(gateway, tokenPath("NORMAL"), tokenBody("NORMAL")));
    // over max_body_bytes by its Content-Length: refused before it is read; one a second is answered, one at once
    const oversized = Buffer.alloc(DEFAULT_INBOUND.max_body_bytes + 1, 0x20);
    const refusals = Array.from({ length: 7 }, (_, i) => put(gateway, tokenPath(`OVER${i}`), oversized, { sendAtMost: 0 }));
    const first = await Promise.race(refusals.map((r) => r.answer));
    expect([first.status, first.body.status_code]).toEqual([413, 2001]);
    const read = await send(gateway, "GET", tokenPath("NORMAL")).answer;
    expect([read.status, read.body.status_code]).toEqual([200, 1000]);
    expect(refusals.filter((r) => r.answered()).length).toBeLessThan(7);

    const answers = await Promise.all(refusals.map((r) => r.answer.then((a) => `${a.status} ${a.body.status_code}`, () => "closed unanswered")));
    expect(answers.sort()).toEqual([...Array<string>(6).fill("413 2001"), "closed unanswered"]);
  });
});

describe("server.inbound heavy lane in the config", () => {
  const yamlWith = (inbound: unknown) => gatewayConfigYaml({ port: 8080, server: { inbound: inbound as InboundServerConfig } });

  it("is set by YAML, the others keeping their defaults", () => {
    const inbound = { heavy_body_bytes: 100_000, heavy_body_share: 0.05, heavy_body_queue: 4, heavy_body_max_wait_ms: 0, weighty_body_share: 0.25 };
    expect(parseConfig(yamlWith(inbound), {}).server.inbound).toEqual({ ...DEFAULT_INBOUND, ...inbound });
  });

  it.each([
    ["heavy_body_share", 0],
    ["heavy_body_share", 1.5],
    ["heavy_body_queue", 0],
    ["heavy_body_members", 0],
    ["heavy_body_max_wait_ms", -1],
    ["weighty_body_share", 0],
    ["weighty_body_share", 1.5],
    ["refusals_per_second", 0],
  ])("%s: %s is refused, naming the field", (field, value) => {
    expect(() => parseConfig(yamlWith({ [field]: value }), {})).toThrow(ConfigError);
    expect(() => parseConfig(yamlWith({ [field]: value }), {})).toThrow(new RegExp(`server\\.inbound\\.${field}`));
  });
});
