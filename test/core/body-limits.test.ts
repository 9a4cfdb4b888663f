import "reflect-metadata";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { Gateway } from "../../app/gateway";
import { DEFAULT_INBOUND, type InboundServerConfig } from "../../config/types";
import { ConfigError, parseConfig } from "../../config/load-config";
import { gatewayConfigYaml, removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { location, token } from "../support/charge-point";
import { JsonScanner } from "../../core/http/body-limits";
import { EXAMPLES } from "../support/ocpi-examples";

/**
 * Issue #23 (finding D3): a body costs what it weighs. Bodies over one of
 * the body limits of `server.inbound` (core/http/body-limits.ts) are refused
 * while they arrive — HTTP 413 with 2001 naming the limit, the connection
 * closed, nothing stored — and bodies at a limit are taken. Real gateways
 * on loopback; raw sockets where a client library would hide when the
 * server answered.
 */

/** Small limits, so each edge is a small body: a Token is 10 members and 10 layouts before its `extra`. */
const TIGHT: InboundServerConfig = {
  ...DEFAULT_INBOUND,
  max_object_members: 20,
  max_body_members: 200,
  max_body_layouts: 60,
  max_string_bytes: 100,
};

interface Served {
  gateway: Gateway;
  port: number;
  auth: string;
}

const started: Gateway[] = [];

/** A gateway as a CPO (tokens) and an eMSP (locations, tariffs), with a partner registered as eMSP DE/EMS and CPO DE/CPX. */
const serve = async (inbound?: InboundServerConfig): Promise<Served> => {
  const [port] = await freePorts(1);
  const gateway = await Gateway.create(
    testGatewayConfig({
      port,
      party: [
        { country_code: "NL", party_id: "GWY", role: "CPO" },
        { country_code: "NL", party_id: "EMP", role: "EMSP" },
      ],
      server: inbound ? { inbound } : {},
      modules: { tokens: { adapter: "local" }, locations: { adapter: "local" }, tariffs: { adapter: "local" } },
      partners: [{ id: "partner" }],
    }),
  );
  started.push(gateway);
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
  return { gateway, port, auth: `Token ${Buffer.from(issued).toString("base64")}` };
};

let defaults: Served;
let tight: Served;

beforeAll(async () => {
  [defaults, tight] = await Promise.all([serve(), serve(TIGHT)]);
});

afterAll(async () => {
  await Promise.all(started.map((g) => g.close()));
  removeTempDirs();
});

const tokenPath = (uid: string) => `/ocpi/2.3.0/receiver/tokens/DE/EMS/${uid}`;
const tokenJson = (uid: string, extra: string) => JSON.stringify({ ...token, uid }).replace(/}$/, `,"extra":${extra}}`);
const stored = async (served: Served, uid: string) => ocpiRequest("GET", `http://127.0.0.1:${served.port}${tokenPath(uid)}`, { headers: { Authorization: served.auth } });

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: { status_code: number; status_message?: string };
}

/**
 * A PUT over a raw socket: its head, then the body (at most `sendAtMost`
 * bytes of it, the rest never sent), then the server's answer — once it
 * says `Connection: close`, only when the server has closed the connection.
 * An answer to a body not sent whole was given before the server had read
 * it whole.
 */
const rawPut = (served: Served, target: string, body: Buffer, headers: string[] = [], sendAtMost = body.length): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    let text = "";
    let answer: RawAnswer | undefined;
    const socket = net.connect({ port: served.port, host: "127.0.0.1" });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer${answer ? " and no close" : ""}; got ${text.slice(0, 300)}`));
    }, 20_000);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer!);
    };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const end = text.indexOf("\r\n\r\n");
      if (answer || end < 0) return;
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const parsed = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      if (Buffer.byteLength(text.slice(end + 4), "latin1") < Number(parsed["content-length"])) return;
      answer = { status: Number(statusLine.split(" ")[1]), headers: parsed, body: JSON.parse(text.slice(end + 4)) };
      if (parsed.connection !== "close") done();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => (answer ? done() : reject(new Error(`closed without an answer: ${text.slice(0, 300)}`))));
    socket.on("connect", () => {
      const length = headers.some((h) => h.startsWith("Transfer-Encoding")) ? [] : [`Content-Length: ${body.length}`];
      const head = [`PUT ${target} HTTP/1.1`, "Host: 127.0.0.1", `Authorization: ${served.auth}`, "Content-Type: application/json", ...length, ...headers];
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      socket.write(body.subarray(0, sendAtMost));
    });
  });

const expectRefused = (answer: RawAnswer, httpStatus: number, ...named: string[]) => {
  expect(answer.status).toBe(httpStatus);
  expect(answer.body.status_code).toBe(2001);
  for (const words of named) expect(answer.body.status_message).toContain(words);
  expect(answer.headers.connection).toBe("close");
};

describe("finding D3: a Token with 400,000 unknown members", () => {
  /** the Token with 400,000 more members, named `name(i)` */
  const d3Body = (uid: string, name: (i: number) => string) =>
    Buffer.from(JSON.stringify({ ...token, uid }).replace(/}$/, `,${Array.from({ length: 400_000 }, (_, i) => `"${name(i)}":${i % 10}`).join(",")}}`));

  it("as found (6.6 MB): 413 with 2001 naming max_body_bytes at its Content-Length, before the body is read; nothing stored", async () => {
    const body = d3Body("D3", (i) => `unknown_member_${i}`);
    expect(body.length).toBeGreaterThan(6_600_000);
    const answer = await rawPut(defaults, tokenPath("D3"), body, [], 64 * 1024);
    expectRefused(answer, 413, `larger than ${DEFAULT_INBOUND.max_body_bytes} bytes`, "server.inbound.max_body_bytes");
    expect((await stored(defaults, "D3")).status).toBe(404);
  });

  it("sent chunked, without a Content-Length: 413 with 2001 naming max_object_members after its first 256 KB; nothing stored", async () => {
    const first = d3Body("D3SHORT", (i) => `unknown_member_${i}`).subarray(0, 256 * 1024);
    // one chunk, and the rest never sent: the answer can only come from a server that refused it early
    const chunked = Buffer.concat([Buffer.from(`${first.length.toString(16)}\r\n`), first, Buffer.from("\r\n")]);
    const answer = await rawPut(defaults, tokenPath("D3SHORT"), chunked, ["Transfer-Encoding: chunked"]);
    expectRefused(answer, 413, `more than ${DEFAULT_INBOUND.max_object_members} members`, "server.inbound.max_object_members");
    expect((await stored(defaults, "D3SHORT")).status).toBe(404);
  });
});

const freshNames = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `"${prefix}${i}":1`).join(",");

describe("each body limit, at its edge (server.inbound set small)", () => {
  // a Token: 10 members (its 9 fields and `extra`) in 10 layouts before anything in `extra`
  const cases: [string, string, string, string][] = [
    // [limit, extra at the limit, extra one over, words of the refusal]
    ["max_object_members", `{${freshNames(20, "m")}}`, `{${freshNames(21, "m")}}`, "an object with more than 20 members"],
    ["max_body_members", `[${Array(190).fill(0).join(",")}]`, `[${Array(191).fill(0).join(",")}]`, "more than 200 members and array elements"],
    ["max_body_layouts", `[${Array.from({ length: 50 }, (_, i) => `{"l${i}":1}`).join(",")}]`, `[${Array.from({ length: 51 }, (_, i) => `{"l${i}":1}`).join(",")}]`, "more than 60 layouts"],
    ["max_string_bytes", JSON.stringify("s".repeat(100)), JSON.stringify("s".repeat(101)), "longer than 100 bytes"],
    ["max_string_bytes (a number)", "1".repeat(100), "1".repeat(101), "longer than 100 bytes"],
    ["max_string_bytes (a member name)", `{"${"n".repeat(100)}":1}`, `{"${"n".repeat(101)}":1}`, "longer than 100 bytes"],
  ];

  it.each(cases)("%s: the limit is taken and stored, one more is refused (413 + 2001 naming it), nothing stored", async (limit, atLimit, over, words) => {
    const uid = `EDGE${cases.findIndex((c) => c[0] === limit)}`;
    const taken = await rawPut(tight, tokenPath(uid), Buffer.from(tokenJson(uid, atLimit)));
    expect(taken.body.status_code).toBe(1000);
    expect((await stored(tight, uid)).body.data.extra).toEqual(JSON.parse(atLimit));

    const refused = await rawPut(tight, tokenPath(`${uid}X`), Buffer.from(tokenJson(`${uid}X`, over)));
    expectRefused(refused, 413, words, `server.inbound.${limit.split(" ")[0]}`);
    expect((await stored(tight, `${uid}X`)).status).toBe(404);
  });

  it("objects that repeat a layout do not count again: 90 objects of the same member name are one layout", async () => {
    const extra = `[${Array(90).fill('{"same":1}').join(",")}]`;
    expect((await rawPut(tight, tokenPath("REPEATS"), Buffer.from(tokenJson("REPEATS", extra)))).body.status_code).toBe(1000);
  });

  it("a string's escapes count as sent", async () => {
    const escaped = JSON.stringify(`${"\\".repeat(50)}`); // 50 backslashes: 100 bytes as sent
    const body = Buffer.from(tokenJson("ESCAPES", escaped));
    expect((await rawPut(tight, tokenPath("ESCAPES"), body)).body.status_code).toBe(1000);
    const over = Buffer.from(tokenJson("ESCAPESX", JSON.stringify(`${"\\".repeat(50)}x`)));
    expectRefused(await rawPut(tight, tokenPath("ESCAPESX"), over), 413, "longer than 100 bytes");
  });
});

describe("the scanner, fed a body in pieces", () => {
  /** the scanner's verdict on `text` fed in pieces cut at `cuts`: "ok", "suspect" (a key it cannot clear of being __proto__) or the refusal */
  const verdict = (text: string, cuts: number[]): string => {
    const scanner = new JsonScanner(TIGHT);
    const bytes = Buffer.from(text);
    try {
      [0, ...cuts, bytes.length].reduce((from, to) => (scanner.feed(bytes.subarray(from, to)), to));
      return scanner.suspectKey ? "suspect" : "ok";
    } catch (error) {
      return (error as Error).message;
    }
  };

  /** every way to cut `text` in two, and in three (at half the first cut, too) */
  const cutsOf = (text: string): number[][] =>
    Array.from({ length: Buffer.byteLength(text) - 1 }, (_, i) => i + 1).flatMap((a) => (a > 1 ? [[a], [Math.floor(a / 2), a]] : [[a]]));

  it.each([
    ["members, escaped strings and UTF-8", tokenJson("PIECES", String.raw`{"ab":"x\\\"y\\","c":[1,{"d":"é\u00e9"}]}`), "ok"],
    ["a member name with an escape", tokenJson("PIECES", String.raw`{"a\"b":1}`), "suspect"],
    ["one member over", tokenJson("PIECES", `{${freshNames(21, "m")}}`), "more than 20 members"],
    ["a string one byte over", tokenJson("PIECES", JSON.stringify("s".repeat(101))), "longer than 100 bytes"],
    ["one layout over", tokenJson("PIECES", `[${Array.from({ length: 51 }, (_, i) => `{"l${i}":1}`).join(",")}]`), "more than 60 layouts"],
  ])("%s: the same verdict wherever the body is cut", (_name, text, expected) => {
    const whole = verdict(text, []);
    expect(whole).toContain(expected);
    for (const cuts of cutsOf(text)) expect(verdict(text, cuts)).toBe(whole);
  });

  it('a member "__proto__" is refused, or, cut inside its name, left to the parsed body to tell (never taken as it is)', () => {
    const text = `{"a":{"__proto__":1}}`;
    expect(verdict(text, [])).toContain('"__proto__"');
    for (const cuts of cutsOf(text)) expect(verdict(text, cuts)).toMatch(/"__proto__"|^suspect$/);
  });
});

describe("a member named __proto__", () => {
  it.each([
    ["written plainly", `{"a":{"__proto__":{"polluted":true}}}`],
    ["written with an escape", `{"a":{"\\u005f_proto__":{"polluted":true}}}`],
  ])("%s: HTTP 400 with 2001 naming it, nothing stored", async (_how, extra) => {
    const answer = await rawPut(tight, tokenPath("PROTO"), Buffer.from(tokenJson("PROTO", extra)));
    expectRefused(answer, 400, '"__proto__"');
    expect((await stored(tight, "PROTO")).status).toBe(404);
  });

  it("as a string value it is only text", async () => {
    expect((await rawPut(tight, tokenPath("PROTOTEXT"), Buffer.from(tokenJson("PROTOTEXT", '"__proto__"')))).body.status_code).toBe(1000);
  });
});

describe("a compressed body", () => {
  it("is read inflated (gzip)", async () => {
    const body = gzipSync(tokenJson("GZIP", '"zipped"'));
    expect((await rawPut(tight, tokenPath("GZIP"), body, ["Content-Encoding: gzip"])).body.status_code).toBe(1000);
    expect((await stored(tight, "GZIP")).body.data.extra).toBe("zipped");
  });

  it("is held to the limits as it inflates: 20 MB of spaces in 20 KB of gzip is 413", async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from(tokenJson("BOMB", "1").slice(0, -1)), Buffer.alloc(20_000_000, " "), Buffer.from("}")]));
    expect(bomb.length).toBeLessThan(100_000);
    expectRefused(await rawPut(tight, tokenPath("BOMB"), bomb, ["Content-Encoding: gzip"]), 413, `larger than ${TIGHT.max_body_bytes} bytes`);
    expect((await stored(tight, "BOMB")).status).toBe(404);
  });

  it("in an encoding the gateway does not read: HTTP 415 with 2001 naming it", async () => {
    expectRefused(await rawPut(tight, tokenPath("BR"), Buffer.from("abc"), ["Content-Encoding: br"]), 415, "Content-Encoding br");
  });
});

describe("the defaults take large real objects", () => {
  it("every example payload of the spec", () => {
    const examples = fs
      .readdirSync(EXAMPLES, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".json"))
      .map((f) => fs.readFileSync(path.join(EXAMPLES, f)));
    expect(examples.length).toBeGreaterThan(100);
    for (const example of examples) expect(() => new JsonScanner(DEFAULT_INBOUND).feed(example)).not.toThrow();
  });

  const STAMP = "2024-05-01T10:00:00Z";

  it("a Location with 400 EVSEs of 3 connectors", async () => {
    const base = location({ country_code: "DE", party_id: "CPX" });
    const connectors = ["1", "2", "3"].map((id) => ({ ...base.evses[0].connectors[0], id, tariff_ids: ["T1", "T2"] }));
    const evses = Array.from({ length: 400 }, (_, i) => ({
      uid: `EVSE${i}`,
      evse_id: `DE*CPX*E${i}`,
      status: "AVAILABLE",
      capabilities: ["RFID_READER", "REMOTE_START_STOP_CAPABLE", "RESERVABLE"],
      floor_level: "1",
      physical_reference: String(i),
      coordinates: { latitude: "52.09074", longitude: "5.12142" },
      parking_restrictions: ["EV_ONLY"],
      connectors,
      last_updated: STAMP,
    }));
    const body = Buffer.from(JSON.stringify({ ...base, id: "BIG", evses }));
    expect((await rawPut(defaults, "/ocpi/2.3.0/receiver/locations/DE/CPX/BIG", body)).body.status_code).toBe(1000);
  });

  it("a Tariff with a price for every quarter hour of the week (672 elements)", async () => {
    const days = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];
    const hhmm = (quarter: number) => `${String(Math.floor(quarter / 4) % 24).padStart(2, "0")}:${String((quarter % 4) * 15).padStart(2, "0")}`;
    const elements = days.flatMap((day) =>
      Array.from({ length: 96 }, (_, q) => ({
        price_components: [
          { type: "ENERGY", price: 0.3 + q / 1000, step_size: 1 },
          { type: "PARKING_TIME", price: 1, step_size: 900 },
        ],
        restrictions: { start_time: hhmm(q), end_time: hhmm(q + 1), day_of_week: [day] },
      })),
    );
    const tariff = { country_code: "DE", party_id: "CPX", id: "WEEK", currency: "EUR", tax_included: "NO", elements, last_updated: STAMP };
    const answer = await rawPut(defaults, "/ocpi/2.3.0/receiver/tariffs/DE/CPX/WEEK", Buffer.from(JSON.stringify(tariff)));
    expect(answer.body.status_code).toBe(1000);
  });
});

describe("server.inbound body limits in the config", () => {
  const yamlWith = (inbound: unknown) => gatewayConfigYaml({ port: 8080, server: { inbound: inbound as InboundServerConfig } });

  it("are set by YAML, the others keeping their defaults", () => {
    expect(parseConfig(yamlWith({ max_body_members: 1234 }), {}).server.inbound).toEqual({ ...DEFAULT_INBOUND, max_body_members: 1234 });
  });

  it.each(["max_body_bytes", "max_object_members", "max_body_members", "max_body_layouts", "max_string_bytes"])("%s: 0 is refused, naming the field", (key) => {
    expect(() => parseConfig(yamlWith({ [key]: 0 }), {})).toThrow(ConfigError);
    expect(() => parseConfig(yamlWith({ [key]: 0 }), {})).toThrow(new RegExp(`server\\.inbound\\.${key}: must be an integer between`));
  });
});
