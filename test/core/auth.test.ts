import "reflect-metadata";
import { Writable } from "node:stream";
import request from "supertest";
import { Gateway } from "../../app/gateway";
import { createLogger } from "../../core/logging/logger";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";

/**
 * The Authorization header (OCPI 2.2.1 Transport and format, Authorization header): `Token <token>`, Base64 in
 * 2.2+, raw in 2.1.1 and many 2.2 implementations, chosen per partner by
 * `token_encoding`. Everything goes through the HTTP surface of an
 * in-process gateway; GET versions is open to token A, so the configured
 * tokens A are enough to authenticate.
 */

const RAW_TOKEN = "raw-partner-token-A-7f3c9e";
const B64_TOKEN = "b64-partner-token-A-41d2aa";
const AUTO_TOKEN = "auto-partner-token-A-9b0e17";
const ALL_TOKENS = [RAW_TOKEN, B64_TOKEN, AUTO_TOKEN];

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const VERSIONS = "/ocpi/versions";

let gateway: Gateway;
const logLines: string[] = [];
/** Every response body this file received, to check no token was echoed. */
const bodies: string[] = [];

beforeAll(async () => {
  const [port] = await freePorts(1);
  const config = testGatewayConfig({
    port,
    server: { log_level: "trace" },
    partners: [
      { id: "raw-partner", token_a: RAW_TOKEN, token_encoding: "raw" },
      { id: "b64-partner", token_a: B64_TOKEN, token_encoding: "base64" },
      { id: "auto-partner", token_a: AUTO_TOKEN, token_encoding: "auto" },
    ],
  });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  gateway = await Gateway.create(config, { logger: createLogger("trace", sink) });
});

afterAll(async () => {
  await gateway?.close();
  removeTempDirs();
});

const get = async (authorization?: string, path = VERSIONS) => {
  const req = request(gateway.app.callback()).get(path);
  if (authorization !== undefined) req.set("Authorization", authorization);
  const response = await req;
  bodies.push(response.text);
  return response;
};

const expect401Envelope = (response: request.Response) => {
  expect(response.status).toBe(401);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(response.body).toEqual({
    status_code: 2000,
    status_message: expect.any(String),
    timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
  });
};

/** Authorization headers that carry no usable token. */
const GARBAGE: [string, string][] = [
  ["another scheme", `Bearer ${b64(AUTO_TOKEN)}`],
  ["Basic auth", `Basic ${b64(`user:${AUTO_TOKEN}`)}`],
  ["the scheme alone", "Token"],
  ["the scheme and a space", "Token "],
  ["two values", `Token ${AUTO_TOKEN} ${AUTO_TOKEN}`],
  ["the token without scheme", AUTO_TOKEN],
  ["non-ASCII", "Token t\u00f6ken-\u00e9\u00e8"],
  ["Base64 of nothing", "Token ===="],
  ["Base64 of binary", `Token ${Buffer.from([0, 1, 2, 255, 254, 10]).toString("base64")}`],
  ["Base64 of a token with spaces", `Token ${b64("has some spaces")}`],
  ["malformed Base64", "Token ab=cd=="],
  ["a very long value", `Token ${"x".repeat(8000)}`],
  ["a token one character longer than 64", `Token ${"y".repeat(65)}`],
];

describe("token_encoding per partner", () => {
  it("raw: the raw token is accepted", async () => {
    const response = await get(`Token ${RAW_TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.body.status_code).toBe(1000);
  });

  it("raw: the same token Base64-encoded gets 401", async () => {
    expect401Envelope(await get(`Token ${b64(RAW_TOKEN)}`));
  });

  it("base64: the Base64-encoded token is accepted", async () => {
    const response = await get(`Token ${b64(B64_TOKEN)}`);
    expect(response.status).toBe(200);
    expect(response.body.status_code).toBe(1000);
  });

  it("base64: the raw token gets 401", async () => {
    expect401Envelope(await get(`Token ${B64_TOKEN}`));
  });

  it("auto: both the raw and the Base64 form are accepted", async () => {
    for (const header of [`Token ${AUTO_TOKEN}`, `Token ${b64(AUTO_TOKEN)}`]) {
      const response = await get(header);
      expect(response.status).toBe(200);
      expect(response.body.status_code).toBe(1000);
    }
  });

  it("a Base64 value with a trailing newline inside (the spec examples' defect) is accepted", async () => {
    expect(b64(`${B64_TOKEN}\n`)).not.toEqual(b64(B64_TOKEN));
    for (const token of [B64_TOKEN, AUTO_TOKEN]) {
      const response = await get(`Token ${b64(`${token}\n`)}`);
      expect(response.status).toBe(200);
    }
  });
});

describe("refused credentials", () => {
  it("no Authorization header: 401 with an envelope", async () => {
    expect401Envelope(await get());
  });

  it("a Base64 value that decodes to an unknown token: 401 with an envelope, not 500", async () => {
    expect401Envelope(await get(`Token ${b64("no-such-token-anywhere")}`));
    expect401Envelope(await get(`Token ${b64("no-such-token\n")}`));
  });

  it.each(GARBAGE)("garbage header (%s): 401 with an envelope", async (_name, header) => {
    expect401Envelope(await get(header));
  });
});

/** Every kind of Authorization header the tests above send: accepted in each encoding, refused, absent and garbage. */
const EVERY_HEADER: (string | undefined)[] = [
  `Token ${RAW_TOKEN}`,
  `Token ${b64(RAW_TOKEN)}`,
  `Token ${b64(B64_TOKEN)}`,
  `Token ${B64_TOKEN}`,
  `Token ${AUTO_TOKEN}`,
  `Token ${b64(AUTO_TOKEN)}`,
  `Token ${b64(`${B64_TOKEN}\n`)}`,
  undefined,
  `Token ${b64("no-such-token-anywhere")}`,
  ...GARBAGE.map(([, header]) => header),
];

describe("secrecy", () => {
  // each check has requests of every kind to look at, whichever tests ran before it
  beforeEach(async () => {
    for (const header of EVERY_HEADER) await get(header);
  });

  it("no response body carries a token", () => {
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of bodies) {
      for (const token of ALL_TOKENS) {
        expect(body).not.toContain(token);
        expect(body).not.toContain(b64(token));
      }
    }
  });

  it("no log line carries a token (debug access logs included)", () => {
    // The capture works: every request above was logged.
    expect(logLines.filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(bodies.length);
    const logs = logLines.join("");
    for (const token of ALL_TOKENS) {
      expect(logs).not.toContain(token);
      expect(logs).not.toContain(b64(token));
    }
  });
});
