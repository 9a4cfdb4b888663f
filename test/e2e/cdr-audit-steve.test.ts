import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import { removeTempDirs, tempDir } from "../support/gateway-config";
import { ALPHA } from "../support/steve-seed";
import { CdrAuditing } from "../../plugins/cdrs/audit/cdr-auditing";
import type { CdrAudit } from "../../plugins/cdrs/audit/model";
import { command, eventually, requests, startSteveCpo, stored, TARIFF, type Json, type SteveCpo, type SteveCpoOptions } from "./steve-cpo-harness";

/**
 * The CDR audit end to end (issue #27): a CPO gateway on the `steve` adapter (SteVe 3.14 schema on MariaDB,
 * the fake SteVe REST API; steve-cpo-harness.ts) prices a session its eMSP started by command, and both
 * gateways audit the CDR, the CPO the one it sends, the eMSP the one it receives. Then a CPO whose CDRs are
 * priced with another tariff than the one it publishes: the eMSP, which pulled the published one, finds the
 * mismatch.
 */
const TAG = "AUDITTAG1";
const EMSP_MODULES = ["tokens", "locations", "commands", "sessions", "cdrs", "tariffs"];

let env: SteveCpo | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});
afterAll(() => removeTempDirs());

const start = async (options: SteveCpoOptions = {}): Promise<SteveCpo> => {
  env = await startSteveCpo("3.14", { emspModules: EMSP_MODULES, ...options });
  const world = env;
  await eventually(() => world.logLines.some((l) => l.includes("steve: first poll")));
  return world;
};

/** The eMSP pulls the CPO's tariffs and Locations, pushes its token, starts a session, 1.5 kWh are metered, it stops: the CPO's CDR reaches the eMSP. */
const chargeOnce = async (world: SteveCpo): Promise<string> => {
  expect((await world.emsp.admin("POST", "/sync/cpo/tariffs")).status).toBe(200);
  expect((await world.emsp.admin("POST", "/sync/cpo/locations")).status).toBe(200);
  expect((await world.emsp.putToken(world.cpoUrl, TAG)).status).toBe(201);
  const started = await command(world, "START_SESSION", { token: world.emsp.token(TAG), location_id: ALPHA.id, evse_uid: `${ALPHA.id}-2`, connector_id: "1", authorization_reference: "AUTH-AUDIT-1" });
  expect(started).toMatchObject({ result: { result: "ACCEPTED" } });
  const put = await eventually(() => requests(world, "PUT", "/receiver/sessions/DE/ABC/").find((r) => r.status < 300));
  const sessionId = put.path.split("/").pop()!;
  await world.fake.meter(Number(sessionId), 1500);
  await eventually(async () => (await stored<Json>(world, "local:sessions:DEABC", sessionId))?.kwh === 1.5);
  expect(await command(world, "STOP_SESSION", { session_id: sessionId })).toMatchObject({ result: { result: "ACCEPTED" } });
  await eventually(() => stored<Json>(world, "local:cdrs:DEABC", sessionId), 15_000);
  return sessionId;
};

const cpoAudit = (world: SteveCpo, id: string): Promise<CdrAudit> =>
  eventually(async () => (await world.cpo.container.resolve(CdrAuditing).byId(id))[0], 15_000);
const emspAudit = (world: SteveCpo, id: string): Promise<Json> =>
  eventually(async () => {
    const res = await world.emsp.admin("GET", `/audit/cdrs/${id}`);
    return res.status === 200 ? (res.body as Json).data[0] : undefined;
  }, 15_000);

test("a session priced by the CPO is audited a match on both sides", async () => {
  const world = await start();
  const id = await chargeOnce(world);
  const sent = await cpoAudit(world, id);
  expect([sent.direction, sent.partner, sent.verdict, sent.differences]).toEqual(["sent", "emsp", "match", []]);
  // 1.5 kWh × 0.40 = 0.60 and the 0.50 flat fee, plus 20 % VAT
  expect(sent.explanation.at(-1)).toBe("total_cost: the lines add up to 1.10 excl. tax, 0.22 tax");
  // its Session and its Location's time zone were found (through the steve adapter's sessions and locations ports)
  expect(sent.notes.filter((n) => /not held/.test(n))).toEqual([]);
  const received = await emspAudit(world, id);
  expect([received.direction, received.partner, received.verdict, received.differences, received.tariff]).toEqual(["received", "cpo", "match", [], { id: "T-AC", source: "embedded" }]);
  expect((received.notes as string[]).filter((n) => /not held/.test(n))).toEqual([]);
  expect(received.explanation[0]).toMatch(/^FLAT .*: element #0 \(no restrictions\), 0.50 per session, once: 0.50 excl. tax, VAT 20 % 0.10 \(tax_included NO\) → total_fixed_cost$/);
}, 120_000);

test("a CPO whose CDRs carry another tariff than the one it publishes: mismatch on the eMSP side", async () => {
  // The CPO publishes T-AC at 0.40/kWh from its tariffs module (the `local` adapter), while SteVe's sessions are priced at 0.45/kWh.
  const dir = tempDir("ocpi-audit-steve-");
  fs.writeFileSync(path.join(dir, "seed.json"), JSON.stringify({ tariffs: [{ country_code: "DE", party_id: "ABC", ...TARIFF }] }));
  const priced = { ...TARIFF, elements: [{ price_components: [{ type: "ENERGY", price: 0.45, vat: 20, step_size: 1 }, { type: "FLAT", price: 0.5, vat: 20, step_size: 1 }] }] };
  const world = await start({
    cpoConfig: (config) => ({
      ...config,
      modules: { ...config.modules, tariffs: { adapter: "local", roles: ["SENDER"] } },
      adapters: { ...config.adapters, steve: { ...config.adapters.steve, tariffs: [priced] }, local: { seed: path.join(dir, "seed.json") } },
    }),
  });
  const id = await chargeOnce(world);
  const received = await emspAudit(world, id);
  expect(received.verdict).toBe("mismatch");
  expect(received.differences.map((d: Json) => [d.field, d.cdr, d.expected])).toEqual([
    ["tariffs[T-AC]", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"],
    // 1.5 kWh × 0.45 = 0.675 + 0.50 = 1.175 in the CDR; at the published 0.40: 1.10; 20 % VAT on each
    ["total_cost.before_taxes", 1.175, 1.1],
    ["total_cost.taxes", 0.235, 0.22],
    ["total_energy_cost.before_taxes", 0.675, 0.6],
    ["total_energy_cost.taxes", 0.135, 0.12],
  ]);
  expect(received.differences[0].explanation).toContain('"price":0.45');
  // the CPO's own audit says the same of the CDR it sent
  expect((await cpoAudit(world, id)).verdict).toBe("mismatch");
}, 120_000);
