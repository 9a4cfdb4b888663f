import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { parseConfig } from "../../config/load-config";
import { gatewayConfigData, removeTempDirs, tempDir, versionsUrlOf } from "../support/gateway-config";
import {
  freePorts,
  ocpiRequest,
  startGatewayProcess,
  writeGatewayConfig,
  type GatewayProcess,
  type HttpResult,
  type WrittenConfig,
} from "../support/gateway-process";
import { startEmspPartner, type EmspPartner } from "../support/emsp-partner";

/**
 * README "Proxy modules" end to end, every piece a real process or gateway on
 * loopback: a CSMS that speaks OCPI 2.2.1 (a second gateway process on the
 * `local` adapter, the backend), a front gateway process whose locations
 * and tokens go to it (`adapter: proxy`, its token from ${CSMS_TOKEN}), and
 * an eMSP that registered with the front in 2.3.0. The front got its token
 * for the backend the way an operator would: one credentials handshake
 * (an eMSP gateway registering as DE/EMS with the backend, then closed).
 */

const CPO = { country_code: "NL", party_id: "BBB", role: "CPO" as const };
const TO_BBB = { "OCPI-to-country-code": "NL", "OCPI-to-party-id": "BBB", "OCPI-from-country-code": "DE", "OCPI-from-party-id": "EMS" };

const location = (n: number) => ({
  country_code: "NL",
  party_id: "BBB",
  id: `LOC${n}`,
  publish: true,
  name: `Backend site ${n}`,
  address: `Stationsplein ${n}`,
  city: "Utrecht",
  country: "NLD",
  coordinates: { latitude: "52.08935", longitude: "5.11011" },
  time_zone: "Europe/Amsterdam",
  // 2.3.0 only: the backend speaks 2.2.1, so it never reaches the front
  help_phone: "+31301234567",
  evses: [
    {
      uid: `LOC${n}-EVSE1`,
      evse_id: `NL*BBB*E000${n}`,
      status: "AVAILABLE",
      connectors: [
        { id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 32, last_updated: `2026-01-0${n}T00:00:00Z` },
      ],
      last_updated: `2026-01-0${n}T00:00:00Z`,
    },
  ],
  last_updated: `2026-01-0${n}T00:00:00Z`,
});

let backendConfig: WrittenConfig;
let backend: GatewayProcess;
let front: GatewayProcess;
let emsp: EmspPartner;
let csmsToken: string;

const get = (url: string): Promise<HttpResult> => ocpiRequest("GET", url, { token: emsp.tokenToCpo, headers: TO_BBB });
const frontLocations = () => `${front.url}/ocpi/2.3.0/sender/locations`;
const frontToken = (uid: string) => `${front.url}/ocpi/2.3.0/receiver/tokens/DE/EMS/${uid}`;

beforeAll(async () => {
  const [backendPort, frontPort, registrarPort, emspPort] = await freePorts(4);
  const seed = path.join(tempDir(), "seed.json");
  fs.writeFileSync(seed, JSON.stringify({ locations: [1, 2, 3].map(location) }));
  backendConfig = writeGatewayConfig({
    port: backendPort,
    party: CPO,
    modules: { locations: { adapter: "local" }, tokens: { adapter: "local" } },
    adapters: { local: { seed } },
    partners: [{ id: "front", token_a: "backend-token-a-for-front", versions: ["2.2.1"], versions_url: versionsUrlOf(registrarPort) }],
  });
  backend = await startGatewayProcess(backendConfig);
  const registrar = await startEmspPartner({ port: registrarPort, cpoUrl: backend.url, tokenA: "backend-token-a-for-front", partnerId: "csms", modules: ["tokens"] });
  csmsToken = registrar.tokenToCpo;
  await registrar.close();

  const data = gatewayConfigData({
    port: frontPort,
    party: CPO,
    modules: { locations: { adapter: "csms" }, tokens: { adapter: "csms", roles: ["RECEIVER"] } },
    adapters: { csms: { type: "proxy", base_url: backend.versionsUrl, token: "${CSMS_TOKEN}", version: "2.2.1" } },
    // lenient with the eMSP, so an object only the backend refuses reaches it
    partners: [{ id: "emsp", token_a: "front-token-a-for-emsp", versions_url: versionsUrlOf(emspPort), strictness: "log" }],
  });
  const dir = tempDir("ocpi-front-");
  const file = path.join(dir, "gateway.config.yaml");
  fs.writeFileSync(file, stringify(data));
  const env = { ...process.env, CSMS_TOKEN: csmsToken };
  front = await startGatewayProcess({ dir, file, config: parseConfig(stringify(data), { CSMS_TOKEN: csmsToken }, file) }, { env });
  emsp = await startEmspPartner({ port: emspPort, cpoUrl: front.url, tokenA: "front-token-a-for-emsp", partnerId: "front" });
}, 90_000);

afterAll(async () => {
  await emsp?.close();
  await front?.stop();
  await backend?.stop();
  removeTempDirs();
});

describe("a module on adapter: proxy, in front of a gateway speaking 2.2.1", () => {
  it("masks the backend's token in check-config", async () => {
    const checked = await front.cli(["check-config"], { env: { ...process.env, CSMS_TOKEN: csmsToken } });
    expect(checked.code).toBe(0);
    expect(checked.stdout).not.toContain(csmsToken);
    expect(checked.stdout).toMatch(/token: "?\*\*\*"?/);
  });

  it("serves the backend's Locations to a 2.3.0 eMSP, page by page, translated up from 2.2.1", async () => {
    const first = await get(`${frontLocations()}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.status_code).toBe(1000);
    expect(first.headers["x-total-count"]).toBe("3");
    expect(first.body.data.map((l: { id: string }) => l.id)).toEqual(["LOC1", "LOC2"]);
    // the partner's routing headers answered, the Link on the front's own URL
    expect(first.headers["ocpi-from-party-id"]).toBe("BBB");
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1];
    expect(next.startsWith(front.url)).toBe(true);
    const second = await get(next);
    expect(second.body.data.map((l: { id: string }) => l.id)).toEqual(["LOC3"]);
    expect(second.headers.link).toBeUndefined();
    // the backend was read in 2.2.1: a 2.3.0-only field did not survive the round trip
    expect(first.body.data[0].help_phone).toBeUndefined();
    expect(first.body.data[0].evses[0].evse_id).toBe("NL*BBB*E0001");
  });

  it("GETs one Location, and an unknown one is 404 / 2003", async () => {
    const one = await get(`${frontLocations()}/loc2`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: "LOC2", name: "Backend site 2" });
    const unknown = await get(`${frontLocations()}/NOPE`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(2003);
  });

  it("stores Tokens in the backend: PUT 201 then 200, PATCH merged, read back through both gateways", async () => {
    expect((await emsp.putToken(front.url, "TOK1")).status).toBe(201);
    expect((await emsp.putToken(front.url, "TOK1")).status).toBe(200);
    const patched = await ocpiRequest("PATCH", frontToken("TOK1"), { token: emsp.tokenToCpo, headers: TO_BBB, body: { valid: false, last_updated: "2026-02-01T00:00:00Z" } });
    expect(patched.body.status_code).toBe(1000);
    const viaFront = await emsp.getToken(front.url, "TOK1");
    expect(viaFront.body.data).toMatchObject({ uid: "TOK1", valid: false, contract_id: "DE-EMS-CTOK1" });
    const atBackend = await ocpiRequest("GET", `${backend.url}/ocpi/2.2.1/receiver/tokens/DE/EMS/TOK1?type=RFID`, { token: csmsToken });
    expect(atBackend.body.data).toMatchObject({ uid: "TOK1", valid: false });
    expect((await emsp.getToken(front.url, "TOK9")).status).toBe(404);
  });

  it("passes on the backend's 2001 for an object it refuses", async () => {
    const bad = { ...emsp.token("TOK2"), whitelist: "SOMETIMES" };
    const answer = await ocpiRequest("PUT", frontToken("TOK2"), { token: emsp.tokenToCpo, headers: TO_BBB, body: bad });
    expect(answer.body.status_code).toBe(2001);
    expect(answer.body.status_message).toContain("/whitelist");
    expect(answer.body.status_message).not.toContain(csmsToken);
    const atBackend = await ocpiRequest("GET", `${backend.url}/ocpi/2.2.1/receiver/tokens/DE/EMS/TOK2?type=RFID`, { token: csmsToken });
    expect(atBackend.status).toBe(404);
  });

  it("answers 503 / 3000 while the backend is down, and serves again once it is back", async () => {
    // asked while the backend is up, so the front has it in its cache (whichever test asked it before, if any)
    expect((await get(`${frontLocations()}?limit=2`)).status).toBe(200);
    await backend.stop();
    // a page not asked before: answers already asked are served from the front's cache (README "Cache") meanwhile
    expect((await get(`${frontLocations()}?limit=2`)).status).toBe(200);
    const down = await get(`${frontLocations()}?limit=1`);
    expect(down.status).toBe(503);
    expect(down.body.status_code).toBe(3000);
    expect(down.headers["retry-after"]).toBeDefined();
    expect((await emsp.putToken(front.url, "TOK3")).body.status_code).toBe(3000);
    expect((await ocpiRequest("GET", `${front.url}/ready`)).status).toBe(503);
    backend = await startGatewayProcess(backendConfig);
    const back = await get(`${frontLocations()}?limit=1`);
    expect(back.status).toBe(200);
    expect(back.body.data).toHaveLength(1);
    expect((await ocpiRequest("GET", `${front.url}/ready`)).status).toBe(200);
  }, 60_000);
});
