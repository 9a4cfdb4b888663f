import "reflect-metadata";
import { readFileSync } from "node:fs";
import path from "node:path";
import request from "supertest";
import { Gateway } from "../../app/gateway";
import type { VersionNumber } from "../../config/types";
import type { CredentialsRole } from "../../core/protocol/types";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { EXAMPLES } from "../support/ocpi-examples";
import { recordReliability } from "../support/reliability-report";

/**
 * The isolation matrix (issue #8): every partner × every other partner's
 * and our own parties' objects × every receiver route × every version is
 * refused, and the victim's objects are unchanged afterwards. Partners:
 * two eMSPs and a configured hub; each first stores objects of every
 * module under its own party, which is what the others then try to read
 * and overwrite.
 */

const VERSIONS: VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const example = (name: string) => JSON.parse(readFileSync(path.join(EXAMPLES, "2.2.1", name), "utf8")) as Record<string, unknown>;

interface Party {
  country_code: string;
  party_id: string;
}
const OURS: Party = { country_code: "NL", party_id: "GWY" };
const PARTNERS = [
  { id: "emsp-a", party: { country_code: "DE", party_id: "AAA" }, role: "EMSP" },
  { id: "emsp-b", party: { country_code: "FR", party_id: "BBB" }, role: "EMSP" },
  { id: "hub", party: { country_code: "IT", party_id: "HUB" }, role: "HUB" },
] as const;

/** Objects every owner keeps, with their 2.2.1 example bodies (ids fixed per owner). */
const owned = (owner: Party) => {
  const location = { ...example("location_example.json"), ...owner, id: "LOC1" } as Record<string, unknown>;
  const evse = (location.evses as Record<string, unknown>[])[0];
  const connector = (evse.connectors as Record<string, unknown>[])[0];
  return {
    location,
    evseUid: String(evse.uid),
    connectorId: String(connector.id),
    session: withTokenOwner({ ...example("session_example_1_simple_start.json"), ...owner, id: "SES1" }, owner),
    cdr: withTokenOwner({ ...example("cdr_example.json"), ...owner, id: "CDR1" }, owner),
    tariff: { ...example("tariff_1_simple_2hour.json"), ...owner, id: "TAR1" },
    token: { ...example("token_example_2_full_rfid.json"), ...owner, uid: "TOK1" },
  };
};

/** The 2.2.1 examples' cdr_token lacks its owner fields (OCPI 2.2.1 CDRs module): the owner's own driver. */
const withTokenOwner = (object: Record<string, unknown>, owner: Party) => ({ ...object, cdr_token: { ...(object.cdr_token as object), ...owner } });

interface Attempt {
  method: "get" | "put" | "patch" | "delete" | "post";
  path: string;
  body?: unknown;
}

/** Every receiver route that names an owner, aimed at `victim`'s objects. */
const attemptsOn = (v: VersionNumber, victim: Party): Attempt[] => {
  const o = owned(victim);
  const base = (module: string) => `/ocpi/${v}/receiver/${module}/${victim.country_code}/${victim.party_id}`;
  const loc = `${base("locations")}/LOC1`;
  const attempts: Attempt[] = [
    { method: "get", path: loc },
    { method: "put", path: loc, body: o.location },
    { method: "patch", path: loc, body: { name: "taken over", last_updated: "2026-02-02T00:00:00Z" } },
    { method: "get", path: `${loc}/${o.evseUid}` },
    { method: "put", path: `${loc}/${o.evseUid}`, body: (o.location.evses as unknown[])[0] },
    { method: "patch", path: `${loc}/${o.evseUid}`, body: { status: "BLOCKED", last_updated: "2026-02-02T00:00:00Z" } },
    { method: "get", path: `${loc}/${o.evseUid}/${o.connectorId}` },
    { method: "patch", path: `${loc}/${o.evseUid}/${o.connectorId}`, body: { max_voltage: 1, last_updated: "2026-02-02T00:00:00Z" } },
    { method: "get", path: `${base("sessions")}/SES1` },
    { method: "put", path: `${base("sessions")}/SES1`, body: o.session },
    { method: "patch", path: `${base("sessions")}/SES1`, body: { status: "INVALID", last_updated: "2026-02-02T00:00:00Z" } },
    { method: "get", path: `${base("cdrs")}/CDR1` },
    { method: "post", path: `/ocpi/${v}/receiver/cdrs`, body: { ...o.cdr, id: "CDR2" } },
    { method: "get", path: `${base("tariffs")}/TAR1` },
    { method: "put", path: `${base("tariffs")}/TAR1`, body: o.tariff },
    { method: "delete", path: `${base("tariffs")}/TAR1` },
    { method: "get", path: `${base("tokens")}/TOK1` },
    { method: "put", path: `${base("tokens")}/TOK1`, body: o.token },
    { method: "patch", path: `${base("tokens")}/TOK1`, body: { valid: false, last_updated: "2026-02-02T00:00:00Z" } },
  ];
  return attempts;
};

let gateway: Gateway;
const tokens: Record<string, string> = {};

const call = (partnerId: string, a: Attempt) => {
  const req = request(gateway.app.callback())[a.method](a.path).set("Authorization", `Token ${b64(tokens[partnerId])}`);
  return a.body === undefined ? req : req.send(a.body as object);
};

/** Every object as its owner reads it back, and the size of our own parties' collections: a refused attempt changes neither. */
const snapshot = async () => {
  const out: Record<string, unknown> = {};
  for (const p of PARTNERS.filter((p) => p.role !== "HUB")) {
    const o = owned(p.party);
    const base = (module: string) => `/ocpi/2.2.1/receiver/${module}/${p.party.country_code}/${p.party.party_id}`;
    for (const path of [`${base("locations")}/LOC1`, `${base("sessions")}/SES1`, `${base("cdrs")}/CDR1`, `${base("cdrs")}/CDR2`, `${base("tariffs")}/TAR1`, `${base("tokens")}/TOK1`, `${base("locations")}/LOC1/${o.evseUid}`])
      out[path] = (await call(p.id, { method: "get", path })).body.data;
  }
  for (const module of ["locations", "sessions", "cdrs", "tariffs", "tokens"])
    out[`ours:${module}`] = (await gateway.store.range(`local:${module}:NLGWY`, { offset: 0, limit: 1 })).total;
  return out;
};

beforeAll(async () => {
  const [port] = await freePorts(1);
  const modules = Object.fromEntries(["locations", "sessions", "cdrs", "tariffs", "tokens"].map((m) => [m, { adapter: "local" }]));
  gateway = await Gateway.create(
    testGatewayConfig({
      port,
      modules,
      partners: PARTNERS.map((p) => ({ id: p.id, ...(p.role === "HUB" ? { roles: [{ role: "HUB" as const, party: "ITHUB" }] } : {}) })),
    }),
  );
  for (const p of PARTNERS) {
    tokens[p.id] = await gateway.registry.issueToken(p.id);
    const roles: CredentialsRole[] = [{ ...p.party, role: p.role, business_details: { name: p.id } }];
    await gateway.registry.recordRegistration(p.id, {
      version: "2.2.1",
      versionsUrl: "http://127.0.0.1:9/versions",
      endpoints: [],
      roles,
      tokenToPartner: "unused",
    });
  }
  // Each eMSP stores objects of every module under its own party, through its own receiver calls.
  for (const p of PARTNERS.filter((p) => p.role !== "HUB")) {
    const o = owned(p.party);
    const base = (module: string) => `/ocpi/2.2.1/receiver/${module}/${p.party.country_code}/${p.party.party_id}`;
    const own: Attempt[] = [
      { method: "put", path: `${base("locations")}/LOC1`, body: o.location },
      { method: "put", path: `${base("sessions")}/SES1`, body: o.session },
      { method: "post", path: "/ocpi/2.2.1/receiver/cdrs", body: o.cdr },
      { method: "put", path: `${base("tariffs")}/TAR1`, body: o.tariff },
      { method: "put", path: `${base("tokens")}/TOK1`, body: o.token },
    ];
    for (const a of own) {
      const response = await call(p.id, a);
      expect(`${a.path}: ${response.body.status_code} ${response.body.status_message}`).toMatch(new RegExp(`: 1000 `));
    }
  }
});

afterAll(async () => {
  await gateway?.close();
  removeTempDirs();
});

/** Every partner's attempt on every other partner's and our parties' objects: what was not refused. */
const attackAll = async () => {
  const violations: string[] = [];
  let cases = 0;
  for (const attacker of PARTNERS) {
    const victims = [...PARTNERS.filter((p) => p.id !== attacker.id).map((p) => p.party), OURS];
    for (const victim of victims)
      for (const v of VERSIONS)
        for (const a of attemptsOn(v, victim)) {
          cases++;
          const response = await call(attacker.id, a);
          // The posted CDR names its owner in the body, which is checked after the body is valid in the version
          // spoken: the 2.2.1 example is refused by isolation in 2.2.1 and as invalid in the others.
          const byIsolation = a.method !== "post" || v === "2.2.1";
          const refused =
            response.status < 500 &&
            response.body?.status_code === 2001 &&
            (!byIsolation || /not one of the partner's parties/.test(response.body.status_message));
          if (!refused) violations.push(`${attacker.id} ${a.method.toUpperCase()} ${a.path}: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 160)}`);
        }
  }
  return { violations, cases };
};

/** A registration of `partner` claiming `parties` besides its own, through the one path every registration takes. */
const claim = (partner: (typeof PARTNERS)[number], ...parties: { role: string; party: Party }[]) =>
  gateway.registry.recordRegistration(partner.id, {
    version: "2.2.1",
    versionsUrl: "http://127.0.0.1:9/versions",
    endpoints: [],
    roles: [partner, ...parties].map((p) => ({ ...p.party, role: p.role, business_details: { name: partner.id } }) as CredentialsRole),
    tokenToPartner: "unused",
  });

describe("isolation matrix", () => {
  it("refuses every partner on every other partner's and our parties' objects, on every receiver route and version", async () => {
    const before = await snapshot();
    const { violations, cases } = await attackAll();
    const after = await snapshot();
    expect(Object.entries(before).filter(([k, v]) => !k.startsWith("ours:") && v !== undefined)).toHaveLength(2 * 6);
    recordReliability("isolation matrix", { cases, faults: 0, losses: violations.length, notes: ["partners × others' and our parties × receiver routes × versions"] });
    expect(violations).toEqual([]);
    expect(after).toEqual(before);
    expect(cases).toBe(3 * 3 * VERSIONS.length * attemptsOn("2.2.1", OURS).length);
  });

  it("refuses every partner's claim of another's or our party, the configured hub's too; of concurrent claims of a free party one wins (issue #23)", async () => {
    const before = { snapshot: await snapshot(), records: await gateway.registry.list() };
    const refusals: string[] = [];
    for (const attacker of PARTNERS)
      for (const victim of [...PARTNERS.filter((p) => p.id !== attacker.id).map((p) => p.party), OURS]) {
        const outcome = await claim(attacker, { role: "EMSP", party: victim }).then(
          () => "registered",
          (error: { statusCode?: number; message: string }) => `${error.statusCode} ${error.message}`,
        );
        refusals.push(`${attacker.id} → ${victim.country_code}/${victim.party_id}: ${outcome}`);
      }
    expect(refusals.filter((r) => !/: 2001 \/roles\/1: .* (is registered by another partner|is another partner.s party \(partners\[\]\.roles\)|is one of our own parties)$/.test(r))).toEqual([]);
    const free: Party = { country_code: "BE", party_id: "FRE" };
    const race = await Promise.allSettled(PARTNERS.map((p) => claim(p, { role: "CPO", party: free })));
    expect(race.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const winner = PARTNERS[race.findIndex((o) => o.status === "fulfilled")];
    await claim(winner); // gives the free party up again
    expect((await attackAll()).violations).toEqual([]);
    expect(await snapshot()).toEqual(before.snapshot);
    expect((await gateway.registry.list()).map((r) => [r.id, r.status, r.roles])).toEqual(before.records.map((r) => [r.id, r.status, r.roles]));
  });
});
