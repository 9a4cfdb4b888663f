import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import { Gateway } from "../../../app/gateway";
import { removeTempDirs, sqliteStore, tempDir, testGatewayConfig } from "../../support/gateway-config";
import { freePorts, ocpiRequest } from "../../support/gateway-process";
import { readExample, type Json } from "../cdrs.fixtures";

/**
 * The CDR audit of the CDRs our sync pull brings in (README "Auditing CDRs and invoices": every CDR the
 * gateway receives, by a partner's POST or by our pull of its list): a CPO gateway whose `local` adapter
 * holds CDRs for the eMSP's token, an eMSP gateway registered with it through the credentials handshake,
 * an on-demand pull of the CPO's CDRs from the eMSP's admin API, then the eMSP's audits of them on the
 * same admin API: each CDR audited once, as received from the CPO partner, priced and explained.
 */
const ADMIN = "pull-audit-admin-token-0123456789";
const TOKEN_A = "pull-audit-token-a-0123456789";
const CPO = { country_code: "BE", party_id: "BEC", role: "CPO" as const };
const EMSP = { country_code: "DE", party_id: "TNM", role: "EMSP" as const };

/** The 2.3.0 CDR example (for the eMSP's token DE/TNM, its tariff embedded) under `id`; `total_cost` changed for a mismatch. */
const cdr = (id: string, totalCost?: number): Json => {
  const example = readExample("2.3.0", "cdr_example.json");
  return totalCost === undefined ? { ...example, id } : { ...example, id, total_cost: { before_taxes: totalCost } };
};

describe("CDR audit of the CDRs a sync pull brings in", () => {
  let cpo: Gateway;
  let emsp: Gateway;
  let emspUrl: string;

  beforeEach(async () => {
    const [cpoPort, emspPort] = await freePorts(2);
    emspUrl = `http://127.0.0.1:${emspPort}`;
    const seed = path.join(tempDir("ocpi-pull-audit-"), "cpo.json");
    fs.writeFileSync(seed, JSON.stringify({ cdrs: [cdr("PULLED1"), cdr("PULLED2", 1.23)] }));
    const modules = { cdrs: { adapter: "local" } };
    cpo = await Gateway.create(
      testGatewayConfig({
        port: cpoPort,
        party: CPO,
        modules,
        adapters: { local: { seed } },
        partners: [{ id: "emsp", token_a: TOKEN_A, versions_url: `${emspUrl}/ocpi/versions` }],
      }),
    );
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: EMSP,
        modules,
        store: sqliteStore(),
        server: { admin_token: ADMIN },
        partners: [{ id: "cpo", token_a: TOKEN_A, versions_url: `http://127.0.0.1:${cpoPort}/ocpi/versions` }],
      }),
    );
    await cpo.listen();
    await emsp.listen();
    await emsp.credentials.register("cpo");
  });

  afterEach(async () => {
    await emsp.close();
    await cpo.close();
    removeTempDirs();
  });

  const admin = (method: "GET" | "POST", pathAndQuery: string) =>
    ocpiRequest(method, `${emspUrl}/admin/v1${pathAndQuery}`, { headers: { Authorization: `Bearer ${ADMIN}` } });

  /** The eMSP's audits of the CDRs of the CPO partner, once there are `count` (its worker audits in the background). */
  const audits = async (count: number): Promise<Json[]> => {
    for (let attempt = 0; ; attempt++) {
      const listed = await admin("GET", "/audit/cdrs?partner=cpo");
      expect(listed.status).toBe(200);
      const found = listed.body.data.audits as Json[];
      if (found.length >= count || attempt === 300) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it("audits each pulled CDR once, as received from the partner: a match, and a mismatch with its difference explained", async () => {
    const pull = await admin("POST", "/sync/cpo/cdrs");
    expect(pull.status).toBe(200);
    const listed = await audits(2);
    expect(listed.map((a) => [a.cdr_id, a.partner, a.verdict]).sort()).toEqual([
      ["PULLED1", "cpo", "match"],
      ["PULLED2", "cpo", "mismatch"],
    ]);
    const mismatch = await admin("GET", "/audit/cdrs/PULLED2");
    expect(mismatch.status).toBe(200);
    const [audit] = mismatch.body.data as Json[];
    expect([audit.direction, audit.partner, audit.verdict]).toEqual(["received", "cpo", "mismatch"]);
    expect(audit.differences.map((d: Json) => [d.field, d.cdr])).toContainEqual(["total_cost.before_taxes", 1.23]);
    // a full pull again brings the same CDRs: they are not audited a second time
    expect((await admin("POST", "/sync/cpo/cdrs?full=true")).status).toBe(200);
    // a CDR queued wakes the worker at once: a second audit would be listed well within this wait
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const again = await admin("GET", "/audit/cdrs?partner=cpo");
    expect(again.body.data.total).toBe(2);
  });
});
