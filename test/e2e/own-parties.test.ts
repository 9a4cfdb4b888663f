import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, tempDir, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, type HttpResult } from "../support/gateway-process";
import { startEmspPartner, type EmspPartner } from "../support/emsp-partner";

/**
 * README "Several parties on one gateway": one gateway serves two CPO
 * parties, NL/AAA with its Locations and Tokens on the `local` adapter and
 * NL/BBB with its on `proxy`, in front of BBB's own OCPI backend (a second
 * gateway, 2.2.1). A 2.3.0 eMSP registered once reaches each party by its
 * to-headers (OCPI- or ROAMING-), and a GET All naming no party lists both.
 */

const AAA: PartySpec = { country_code: "NL", party_id: "AAA", role: "CPO", name: "AAA Charging" };
const BBB: PartySpec = { country_code: "NL", party_id: "BBB", role: "CPO", name: "BBB Charging" };

const location = (party: PartySpec, n: number) => ({
  country_code: party.country_code,
  party_id: party.party_id,
  id: `LOC${party.party_id}${n}`,
  publish: true,
  name: `${party.party_id} site ${n}`,
  address: `Stationsplein ${n}`,
  city: "Utrecht",
  country: "NLD",
  coordinates: { latitude: "52.08935", longitude: "5.11011" },
  time_zone: "Europe/Amsterdam",
  last_updated: `2026-01-0${n}T00:00:00Z`,
});

const seedFile = (party: PartySpec, count: number): string => {
  const file = path.join(tempDir(), "seed.json");
  fs.writeFileSync(file, JSON.stringify({ locations: Array.from({ length: count }, (_, i) => location(party, i + 1)) }));
  return file;
};

const quiet = { logger: pino({ level: "silent" }) };
let backend: Gateway;
let platform: Gateway;
let emsp: EmspPartner;
let platformUrl: string;
let backendUrl: string;
let csmsToken: string;

const to = (party: PartySpec, prefix = "OCPI") => ({ [`${prefix}-to-country-code`]: party.country_code, [`${prefix}-to-party-id`]: party.party_id });
const call = (method: string, route: string, headers: Record<string, string> = {}, body?: unknown): Promise<HttpResult> =>
  ocpiRequest(method, `${platformUrl}/ocpi/2.3.0${route}`, { token: emsp.tokenToCpo, headers, body });
const ids = (answer: HttpResult): string[] => answer.body.data.map((l: { id: string }) => l.id);

beforeAll(async () => {
  const [backendPort, platformPort, registrarPort, emspPort] = await freePorts(4);
  backendUrl = `http://127.0.0.1:${backendPort}`;
  platformUrl = `http://127.0.0.1:${platformPort}`;
  backend = await Gateway.create(
    testGatewayConfig({
      port: backendPort,
      party: BBB,
      modules: { locations: { adapter: "local" }, tokens: { adapter: "local" } },
      adapters: { local: { seed: seedFile(BBB, 2) } },
      partners: [{ id: "platform", token_a: "backend-token-a-platform", versions: ["2.2.1"], versions_url: versionsUrlOf(registrarPort) }],
    }),
    quiet,
  );
  await backend.listen();
  const registrar = await startEmspPartner({ port: registrarPort, cpoUrl: backendUrl, tokenA: "backend-token-a-platform", partnerId: "csms", modules: ["tokens"] });
  csmsToken = registrar.tokenToCpo;
  await registrar.close();

  const byParty = (adapter: string) => ({ adapter, parties: ["NLAAA", { party: "NLBBB", adapter: "csms" }] });
  platform = await Gateway.create(
    testGatewayConfig({
      port: platformPort,
      party: [AAA, BBB],
      modules: { locations: byParty("local"), tokens: { ...byParty("local"), roles: ["RECEIVER"] } },
      adapters: { local: { seed: seedFile(AAA, 3) }, csms: { type: "proxy", base_url: `${backendUrl}/ocpi/versions`, token: csmsToken, version: "2.2.1" } },
      partners: [{ id: "emsp", token_a: "platform-token-a-emsp", versions_url: versionsUrlOf(emspPort) }],
    }),
    quiet,
  );
  await platform.listen();
  emsp = await startEmspPartner({ port: emspPort, cpoUrl: platformUrl, tokenA: "platform-token-a-emsp", partnerId: "platform" });
}, 60_000);

afterAll(async () => {
  await emsp?.close();
  await platform?.close();
  await backend?.close();
  removeTempDirs();
});

describe("one gateway, two CPO parties on different adapters", () => {
  it("lists both parties' roles in its credentials, and one version details for the platform", async () => {
    const credentials = await call("GET", "/credentials");
    expect(credentials.body.data.roles.map((r: { party_id: string; role: string }) => `${r.role} ${r.party_id}`)).toEqual(["CPO AAA", "CPO BBB"]);
    expect(credentials.body.data.roles[1].business_details.name).toBe("BBB Charging");
    const details = await ocpiRequest("GET", `${platformUrl}/ocpi/2.3.0`, { token: emsp.tokenToCpo });
    const locations = details.body.data.endpoints.filter((e: { identifier: string }) => e.identifier === "locations");
    expect(locations).toEqual([expect.objectContaining({ role: "SENDER" }), expect.objectContaining({ role: "RECEIVER" })]);
  });

  it("serves each party's Locations from its own adapter, by OCPI- or ROAMING-to headers", async () => {
    const aaa = await call("GET", "/sender/locations", to(AAA));
    expect(ids(aaa)).toEqual(["LOCAAA1", "LOCAAA2", "LOCAAA3"]);
    expect(aaa.headers["ocpi-from-party-id"]).toBe("AAA");
    const bbb = await call("GET", "/sender/locations", to(BBB, "ROAMING"));
    expect(ids(bbb)).toEqual(["LOCBBB1", "LOCBBB2"]);
    expect(bbb.headers["x-total-count"]).toBe("2");
    expect(bbb.headers["ocpi-from-party-id"]).toBe("BBB");
    // one party's object is not the other's
    expect((await call("GET", "/sender/locations/LOCBBB1", to(BBB))).body.data.name).toBe("BBB site 1");
    expect((await call("GET", "/sender/locations/LOCBBB1", to(AAA))).status).toBe(404);
    expect((await call("GET", "/sender/locations/LOCAAA1", to(BBB))).status).toBe(404);
  });

  it("answers a GET All naming no party with every party's objects, one party after the other, across Link pages", async () => {
    const all = await call("GET", "/sender/locations");
    expect(all.headers["x-total-count"]).toBe("5");
    expect(ids(all)).toEqual(["LOCAAA1", "LOCAAA2", "LOCAAA3", "LOCBBB1", "LOCBBB2"]);
    const walked: string[] = [];
    let next: string | undefined = `${platformUrl}/ocpi/2.3.0/sender/locations?limit=2`;
    while (next) {
      const page: HttpResult = await ocpiRequest("GET", next, { token: emsp.tokenToCpo });
      expect(page.headers["x-total-count"]).toBe("5");
      walked.push(...ids(page));
      next = /<([^>]+)>; rel="next"/.exec(String(page.headers.link ?? ""))?.[1];
    }
    expect(walked).toEqual(["LOCAAA1", "LOCAAA2", "LOCAAA3", "LOCBBB1", "LOCBBB2"]);
    // each object names its owner (as in a hub's GET All)
    expect(all.body.data.map((l: { party_id: string }) => l.party_id)).toEqual(["AAA", "AAA", "AAA", "BBB", "BBB"]);
  });

  it("stores a Token pushed to each party in that party's adapter", async () => {
    const token = emsp.token("TOKX");
    expect((await call("PUT", "/receiver/tokens/DE/EMS/TOKX", to(BBB), token)).status).toBe(201);
    const atBackend = await ocpiRequest("GET", `${backendUrl}/ocpi/2.2.1/receiver/tokens/DE/EMS/TOKX?type=RFID`, { token: csmsToken });
    expect(atBackend.body.data).toMatchObject({ uid: "TOKX" });
    expect((await call("GET", "/receiver/tokens/DE/EMS/TOKX", to(AAA))).status).toBe(404);
    expect((await call("PUT", "/receiver/tokens/DE/EMS/TOKY", to(AAA), emsp.token("TOKY"))).status).toBe(201);
    expect((await call("GET", "/receiver/tokens/DE/EMS/TOKY", to(AAA))).body.data).toMatchObject({ uid: "TOKY" });
    const notAtBackend = await ocpiRequest("GET", `${backendUrl}/ocpi/2.2.1/receiver/tokens/DE/EMS/TOKY?type=RFID`, { token: csmsToken });
    expect(notAtBackend.status).toBe(404);
  });

  it("keeps partner isolation: only the eMSP's own objects, only our parties as addressees", async () => {
    const foreign = await call("PUT", "/receiver/tokens/NL/AAA/TOKZ", to(AAA), { ...emsp.token("TOKZ"), country_code: "NL", party_id: "AAA" });
    expect(foreign.body.status_code).toBe(2001);
    expect(foreign.body.status_message).toContain("not one of the partner's parties");
    const stranger = await call("GET", "/sender/locations", { "OCPI-to-country-code": "NL", "OCPI-to-party-id": "CCC" });
    expect(stranger.body.status_code).toBe(2001);
  });
});
