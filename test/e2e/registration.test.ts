import "reflect-metadata";
import pino from "pino";
import request from "supertest";
import type { VersionNumber } from "../../config/types";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import {
  freePorts,
  ocpiRequest,
  partnerRecordOf,
  startGatewayProcess,
  tokenHeader,
  writeGatewayConfig,
  type CliResult,
  type GatewayProcess,
} from "../support/gateway-process";

/**
 * Two gateway processes on loopback register with each other through the
 * credentials handshake (OCPI 2.2.1 Credentials module), driven by the CLI the operator uses:
 * `partners register|update|unregister`. Each partnership shares one token A,
 * configured on both sides.
 */

const TOKEN_A = "e2e-shared-token-A-0123456789";
const PARTY_A: PartySpec = { country_code: "NL", party_id: "AAA", role: "CPO" };
const PARTY_B: PartySpec = { country_code: "DE", party_id: "BBB", role: "EMSP" };
const ALL: VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];

interface VersionCase {
  name: string;
  /** versions gateway A accepts with B */
  a: VersionNumber[];
  /** versions gateway B accepts with A */
  b: VersionNumber[];
  /** the highest mutual version */
  expected: VersionNumber;
  /** B keeps its state in Redis instead of SQLite */
  bOnRedis?: boolean;
}

const CASES: VersionCase[] = [
  { name: "2.3.0 <-> 2.3.0", a: ALL, b: ALL, expected: "2.3.0" },
  { name: "2.3.0 <-> 2.2.1", a: ALL, b: ["2.2.1", "2.1.1"], expected: "2.2.1", bOnRedis: true },
  { name: "2.2.1 <-> 2.1.1", a: ["2.2.1", "2.1.1"], b: ["2.1.1"], expected: "2.1.1" },
];

type Side = "A" | "B";

interface Pair {
  A: GatewayProcess;
  B: GatewayProcess;
}

/** Our partner id for the other side. */
const partnerIdOn = (side: Side): string => (side === "A" ? "gw-b" : "gw-a");
const other = (side: Side): Side => (side === "A" ? "B" : "A");

const startPair = async (c: VersionCase): Promise<Pair> => {
  const [portA, portB] = await freePorts(2);
  const a = writeGatewayConfig({
    port: portA,
    party: PARTY_A,
    partners: [{ id: "gw-b", token_a: TOKEN_A, versions_url: versionsUrlOf(portB), versions: c.a }],
  });
  const b = writeGatewayConfig({
    port: portB,
    party: PARTY_B,
    store: c.bOnRedis ? { type: "redis" } : undefined,
    partners: [{ id: "gw-a", token_a: TOKEN_A, versions_url: versionsUrlOf(portA), versions: c.b }],
  });
  const started = await Promise.allSettled([startGatewayProcess(a), startGatewayProcess(b)]);
  if (started[0].status === "fulfilled" && started[1].status === "fulfilled") return { A: started[0].value, B: started[1].value };
  await Promise.all(started.map((s) => (s.status === "fulfilled" ? s.value.stop() : undefined)));
  throw started.find((s): s is PromiseRejectedResult => s.status === "rejected")!.reason;
};

const pairs = new Map<string, Pair>();
const pairKey = (c: VersionCase, initiator: Side) => `${c.name}/${initiator}`;

beforeAll(async () => {
  // Two pairs (four processes) start at a time: starting is CPU-bound, and a
  // burst of twelve on a small machine only makes each start slower.
  const queue = CASES.flatMap((c) => (["A", "B"] as Side[]).map((initiator) => ({ c, initiator })));
  const errors: unknown[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { c, initiator } = next;
      await startPair(c).then(
        (pair) => pairs.set(pairKey(c, initiator), pair),
        (error) => errors.push(error),
      );
    }
  };
  await Promise.all([worker(), worker()]);
  if (errors.length) throw errors[0];
}, 120_000);

afterAll(async () => {
  const gateways = [...pairs.values()].flatMap((p) => [p.A, p.B]);
  const codes = await Promise.all(gateways.map((g) => g.stop()));
  removeTempDirs();
  // A clean SIGTERM shutdown exits 0.
  expect(codes).toEqual(gateways.map(() => 0));
}, 60_000);

const expectOk = (result: CliResult): CliResult => {
  if (result.code !== 0) throw new Error(`CLI exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result;
};

/** The token `side` presents to the other gateway, as `side` persisted it. */
const tokenToOther = async (pair: Pair, side: Side): Promise<string> => {
  const record = await partnerRecordOf(pair[side].config, partnerIdOn(side));
  expect(record?.tokenToPartner).toEqual(expect.any(String));
  return record!.tokenToPartner!;
};

/** `side`'s registration of the other gateway, as persisted. */
const recordOn = async (pair: Pair, side: Side) => (await partnerRecordOf(pair[side].config, partnerIdOn(side)))!;

/** `partners list` output of one side (a CLI process costs ~0.5 s of CPU, so only the responder's is read). */
const listOf = async (gateway: GatewayProcess): Promise<string> => expectOk(await gateway.cli(["partners", "list"])).stdout.trim();

/** A credentials object in the wire format of `version`. */
const credentialsBody = (version: VersionNumber, url: string, party: PartySpec) =>
  version === "2.1.1"
    ? { token: "a-token-of-a-second-registration", url, business_details: { name: "again" }, party_id: party.party_id, country_code: party.country_code }
    : {
        token: "a-token-of-a-second-registration",
        url,
        roles: [{ role: party.role, business_details: { name: "again" }, party_id: party.party_id, country_code: party.country_code }],
      };

const encodingFor = (version: VersionNumber) => (version === "2.1.1" ? "raw" : "base64");

/** Runs one step of a lifecycle; a failure names the step. */
const step = async (name: string, run: () => Promise<void>): Promise<void> => {
  try {
    await run();
  } catch (error) {
    if (error instanceof Error) {
      const message = error.message;
      error.message = `[step: ${name}] ${message}`;
      if (error.stack) error.stack = error.stack.replace(message, error.message);
    }
    throw error;
  }
};

const SCENARIOS = CASES.flatMap((c) => (["A", "B"] as Side[]).map((initiator) => ({ ...c, initiator })));

/**
 * One partnership from registration to unregistration. The six scenarios
 * (three version pairs, each side initiating) run concurrently: each has
 * its own two gateway processes, and most of the time goes to CLI processes.
 */
describe("registration between two gateway processes", () => {
  it.concurrent.each(SCENARIOS)(
    "$name, $initiator initiates: register, use, 405, update, unregister",
    async (c) => {
      const initiatorSide = c.initiator;
      const responderSide = other(initiatorSide);
      const v = c.expected;
      const encoding = encodingFor(v);
      const pair = pairs.get(pairKey(c, initiatorSide))!;
      const initiator = pair[initiatorSide];
      const responder = pair[responderSide];
      const versionsWith = (gateway: GatewayProcess, token: string) => ocpiRequest("GET", gateway.versionsUrl, { token, encoding });
      // tokens each side presents to the other, before and after `partners update`
      let initiatorToken = "";
      let responderToken = "";

      await step(`partners register settles on ${v}`, async () => {
        const result = expectOk(await initiator.cli(["partners", "register", partnerIdOn(initiatorSide)]));
        expect(result.stdout).toMatch(new RegExp(`^Registered with ${partnerIdOn(initiatorSide)}: version ${v.replace(/\./g, "\\.")},`));
        // The responder's operator sees the same version.
        const list = await listOf(responder);
        expect(list).toContain(`partner ${partnerIdOn(responderSide)}: registered, version ${v},`);
        for (const side of ["A", "B"] as Side[]) expect(await recordOn(pair, side)).toMatchObject({ status: "registered", version: v });
        // The token A was never printed.
        expect(result.stdout + result.stderr + list).not.toContain(TOKEN_A);
      });

      await step("each side reaches the other with the token it received; token A is retired", async () => {
        initiatorToken = await tokenToOther(pair, initiatorSide);
        responderToken = await tokenToOther(pair, responderSide);
        expect(initiatorToken).not.toEqual(responderToken);

        const fromInitiator = await versionsWith(responder, initiatorToken);
        expect(fromInitiator.status).toBe(200);
        expect(fromInitiator.body.status_code).toBe(1000);
        // The highest version the responder offers the initiator is the negotiated one.
        expect(fromInitiator.body.data[0].version).toBe((responderSide === "A" ? c.a : c.b)[0]);
        const fromResponder = await versionsWith(initiator, responderToken);
        expect(fromResponder.status).toBe(200);
        expect(fromResponder.body.data.map((d: { version: string }) => d.version)).toContain(v);

        // Version details of the negotiated version list the credentials endpoint.
        const details = await ocpiRequest("GET", `${responder.url}/ocpi/${v}`, { token: initiatorToken, encoding });
        expect(details.body.data.endpoints).toEqual(
          expect.arrayContaining([expect.objectContaining({ identifier: "credentials", url: `${responder.url}/ocpi/${v}/credentials` })]),
        );

        // GET credentials answers with the responder's credentials for the caller, in the version's format.
        const creds = await ocpiRequest("GET", `${responder.url}/ocpi/${v}/credentials`, { token: initiatorToken, encoding });
        expect(creds.status).toBe(200);
        expect(creds.body.data).toMatchObject({ token: initiatorToken, url: responder.versionsUrl });
        const responderParty = responderSide === "A" ? PARTY_A : PARTY_B;
        if (v === "2.1.1") expect(creds.body.data).toMatchObject({ party_id: responderParty.party_id, country_code: responderParty.country_code });
        else expect(creds.body.data.roles).toEqual([expect.objectContaining({ party_id: responderParty.party_id, role: responderParty.role })]);

        for (const gateway of [initiator, responder]) {
          const withTokenA = await ocpiRequest("GET", gateway.versionsUrl, { token: TOKEN_A });
          expect(withTokenA.status).toBe(401);
          expect(withTokenA.body.status_code).toBe(2000);
        }
      });

      await step("a second credentials POST is refused with HTTP 405", async () => {
        const again = await ocpiRequest("POST", `${responder.url}/ocpi/${v}/credentials`, {
          token: initiatorToken,
          encoding,
          body: credentialsBody(v, initiator.versionsUrl, initiatorSide === "A" ? PARTY_A : PARTY_B),
        });
        expect(again.status).toBe(405);
        expect(again.body).toMatchObject({ status_code: expect.any(Number), timestamp: expect.stringMatching(/Z$/) });
        // Nothing changed: the registered token still works.
        expect((await versionsWith(responder, initiatorToken)).status).toBe(200);
      });

      await step("partners update rotates both tokens: the old ones get 401, the new ones work", async () => {
        const result = expectOk(await initiator.cli(["partners", "update", partnerIdOn(initiatorSide)]));
        expect(result.stdout).toContain(`version ${v}`);
        const newInitiatorToken = await tokenToOther(pair, initiatorSide);
        const newResponderToken = await tokenToOther(pair, responderSide);
        expect(newInitiatorToken).not.toEqual(initiatorToken);
        expect(newResponderToken).not.toEqual(responderToken);

        expect((await versionsWith(responder, initiatorToken)).status).toBe(401);
        expect((await versionsWith(initiator, responderToken)).status).toBe(401);
        expect((await versionsWith(responder, newInitiatorToken)).status).toBe(200);
        expect((await versionsWith(initiator, newResponderToken)).status).toBe(200);
        initiatorToken = newInitiatorToken;
        responderToken = newResponderToken;
        // still on the same version
        const details = await ocpiRequest("GET", `${responder.url}/ocpi/${v}`, { token: initiatorToken, encoding });
        expect(details.body.data.version).toBe(v);
      });

      await step("partners unregister ends the partnership: every token gets 401 on both sides", async () => {
        const result = expectOk(await initiator.cli(["partners", "unregister", partnerIdOn(initiatorSide)]));
        expect(result.stdout).toContain("Unregistered");

        for (const [gateway, token] of [
          [responder, initiatorToken],
          [initiator, responderToken],
        ] as const) {
          const after = await versionsWith(gateway, token);
          expect(after.status).toBe(401);
          expect(after.body).toMatchObject({ status_code: 2000 });
          const credentials = await ocpiRequest("GET", `${gateway.url}/ocpi/${v}/credentials`, { token, encoding });
          expect(credentials.status).toBe(401);
        }
        for (const side of ["A", "B"] as Side[]) expect((await recordOn(pair, side)).status).toBe("unregistered");
        const list = await listOf(responder);
        expect(list).toContain(`partner ${partnerIdOn(responderSide)}: unregistered`);
        // token A was used up: the hint is to agree a new one, not to run `partners register` with the old one
        expect(list).toContain("token A was used up");
        expect(list).not.toContain("partners register");
      });
    },
    120_000,
  );
});

describe("a registration survives a crash of either gateway", () => {
  let pair: Pair;

  beforeAll(async () => {
    pair = await startPair({ name: "crash", a: ALL, b: ALL, expected: "2.3.0" });
    expectOk(await pair.A.cli(["partners", "register", "gw-b"]));
  }, 60_000);

  afterAll(async () => {
    await Promise.all([pair?.A.stop(), pair?.B.stop()]);
  });

  it("after SIGKILL and a restart on the same store, the tokens still work and token A stays retired", async () => {
    const tokenOfA = await tokenToOther(pair, "A");
    const tokenOfB = await tokenToOther(pair, "B");
    await Promise.all([pair.A.kill(), pair.B.kill()]);
    [pair.A, pair.B] = await Promise.all([startGatewayProcess(pair.A), startGatewayProcess(pair.B)]);

    expect((await ocpiRequest("GET", pair.B.versionsUrl, { token: tokenOfA })).status).toBe(200);
    expect((await ocpiRequest("GET", pair.A.versionsUrl, { token: tokenOfB })).status).toBe(200);
    for (const gateway of [pair.A, pair.B]) expect((await ocpiRequest("GET", gateway.versionsUrl, { token: TOKEN_A })).status).toBe(401);
    // the restarted gateway announces the partner as registered
    expect(pair.A.output()).toContain("partner gw-b: registered, version 2.3.0");
  });

  it("partners register again is refused locally: the partner is already registered", async () => {
    const again = await pair.A.cli(["partners", "register", "gw-b"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already registered");
  });
});

describe("token A outside the versions and credentials modules (in-process)", () => {
  let gateway: Gateway;

  beforeAll(async () => {
    const [port] = await freePorts(1);
    gateway = await Gateway.create(
      testGatewayConfig({ port, partners: [{ id: "emsp", token_a: TOKEN_A }] }),
      { logger: pino({ level: "silent" }) },
    );
  });

  // the temporary folders go in the file's afterAll: the pairs' CLIs run in theirs after this describe when shuffled
  afterAll(async () => {
    await gateway.close();
  });

  it.each(["/ocpi/versions", "/ocpi/2.3.0", "/ocpi/2.3.0/credentials", "/ocpi/2.1.1/credentials"])("is accepted on GET %s", async (path) => {
    const response = await request(gateway.app.callback()).get(path).set("Authorization", tokenHeader(TOKEN_A));
    expect(response.status).toBe(200);
    expect(response.body.status_code).toBe(1000);
  });

  it.each([
    "/ocpi/2.3.0/sender/locations",
    "/ocpi/2.2.1/receiver/sessions/NL/AAA/1",
    "/ocpi/2.1.1/tariffs",
    "/ocpi/2.3.0/nosuchmodule",
    "/ocpi/9.9.9/credentials",
  ])("gets 401 on GET %s", async (path) => {
    const response = await request(gateway.app.callback()).get(path).set("Authorization", tokenHeader(TOKEN_A));
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ status_code: 2000, timestamp: expect.stringMatching(/Z$/) });
  });
});
