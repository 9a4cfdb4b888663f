import { startHarness, type Harness } from "../../support/module-harness";
import { example230, post, receiverOptions, type Json } from "../cdrs.fixtures";
import { CdrAuditing } from "../../../plugins/cdrs/audit/cdr-auditing";

/**
 * The CDR audit through the gateway's surface: CDRs a CPO partner POSTs to our cdrs Receiver are answered
 * before they are audited, audited once in the background, and shown on the admin API, the status page and
 * GET /metrics.
 */
const ADMIN = "Bearer audit-admin";

describe("CDR audit of the CDRs a partner pushes", () => {
  let h: Harness;
  let auditing: CdrAuditing;
  beforeEach(async () => {
    h = await startHarness(receiverOptions({ adminToken: "audit-admin" }));
    auditing = h.gateway.container.resolve(CdrAuditing);
  });
  afterEach(() => h.close());

  const cdr = (id: string, changes: Json = {}): Json => ({ ...example230(), id, ...changes });
  const admin = (path: string) => h.http.get(`/admin/v1${path}`).set("Authorization", ADMIN);
  /** The worker runs with `listen()`; the harness serves without it, so the test drains the queue once the CDRs are in it. */
  const auditQueued = async (count: number) => {
    for (let i = 0; i < 200 && (await auditing.audits.queued()) < count; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await auditing.worker.drain()).toBe(count);
  };

  it("answers the partner before the audit, then audits the CDR: match, with the explanation", async () => {
    expect((await post(h, "2.3.0", cdr("AUD1"))).status).toBe(201);
    // answered, and not audited yet: the audit is not part of the answer
    expect((await admin("/audit/cdrs/AUD1")).status).toBe(404);
    await auditQueued(1);
    const res = await admin("/audit/cdrs/AUD1");
    expect(res.status).toBe(200);
    const [audit] = res.body.data;
    expect([audit.key, audit.partner, audit.direction, audit.verdict, audit.tariff]).toEqual(["received/BE/BEC/AUD1", "partner", "received", "match", { id: "12", source: "embedded" }]);
    expect(audit.explanation[0]).toContain("step_size 300 s: the 7103 s of TIME rounded up to 24 × 300 s = 7200 s");
  });

  it("audits each CDR once: a sender's retry of the same CDR is not audited again", async () => {
    await post(h, "2.3.0", cdr("ONCE1"));
    expect((await post(h, "2.3.0", cdr("ONCE1"))).status).toBe(200);
    await auditQueued(1);
    expect(await auditing.worker.drain()).toBe(0);
    expect((await admin("/audit/cdrs?partner=partner")).body.data.total).toBe(1);
  });

  it("lists by partner and verdict, a mismatch with its differences, a credit against its original", async () => {
    await post(h, "2.3.0", cdr("L1"));
    await post(h, "2.3.0", cdr("L2", { total_cost: { before_taxes: 3.95, taxes: [{ name: "VAT", amount: 0.395 }] } }));
    await post(h, "2.3.0", cdr("L1-C", { credit: true, credit_reference_id: "L1", total_cost: { before_taxes: -3.5 }, total_time_cost: { before_taxes: -4, taxes: [{ name: "VAT", amount: -0.4 }] } }));
    await auditQueued(3);
    const list = await admin("/audit/cdrs?partner=partner&verdict=mismatch");
    // ordered by when each was audited (the same millisecond: by key)
    expect(list.body.data.audits.map((a: Json) => [a.cdr_id, a.verdict, a.differences]).sort()).toEqual([
      ["L1-C", "mismatch", 2],
      ["L2", "mismatch", 1],
    ]);
    const l2 = (await admin("/audit/cdrs/L2")).body.data[0];
    expect(l2.differences.map((d: Json) => [d.field, d.cdr, d.expected])).toEqual([
      // 0.395 VAT is within the 0.01 tolerance of 0.40
      ["total_cost.before_taxes", 3.95, 4],
    ]);
    const credit = (await admin("/audit/cdrs/L1-C")).body.data[0];
    expect(credit.differences.map((d: Json) => d.field)).toEqual(["credit.total_cost.before_taxes", "credit.total_cost.after_taxes"]);
    expect((await admin("/audit/cdrs?verdict=match&limit=1")).body.data).toMatchObject({ offset: 0, limit: 1, total: 1, audits: [{ cdr_id: "L1" }] });
    expect((await admin("/audit/cdrs?since=2999-01-01T00:00:00Z")).body.data.total).toBe(0);
  });

  it("a CDR it cannot read (a backend's, unvalidated) is unpriceable with the reason, and the CDRs after it are audited", async () => {
    // ours (we are DE/TNM here), as an adapter reported them
    const entry = (id: string, changes: Json) => ({ key: `sent/DE/TNM/${id}`, direction: "sent" as const, cdr: { ...cdr(id, changes), country_code: "DE", party_id: "TNM" } as never });
    await auditing.audits.enqueue(entry("BAD1", { end_date_time: "not a date" }));
    await auditing.audits.enqueue(entry("GOOD1", {}));
    expect(await auditing.worker.drain()).toBe(2);
    const [bad] = (await admin("/audit/cdrs/BAD1")).body.data;
    expect([bad.verdict, bad.reason]).toEqual(["unpriceable", "the CDR could not be read: Invalid time value"]);
    expect((await admin("/audit/cdrs/GOOD1")).body.data[0].verdict).toBe("match");
  });

  it("refuses a wrong parameter with 2001 naming it", async () => {
    for (const [query, named] of [
      ["verdict=bad", "verdict"],
      ["since=yesterday", "since"],
      ["limit=0", "limit"],
      ["offset=-1", "offset"],
    ]) {
      const res = await admin(`/audit/cdrs?${query}`);
      expect([res.body.status_code, res.body.status_message.split(":")[0]]).toEqual([2001, named]);
    }
    expect((await h.http.get("/admin/v1/audit/cdrs").set("Authorization", "Bearer wrong")).status).toBe(401);
  });

  it("counts verdicts per partner on /metrics and shows the last day's on the status page", async () => {
    await post(h, "2.3.0", cdr("M1"));
    await post(h, "2.3.0", cdr("M2", { total_cost: { before_taxes: 1 } }));
    await auditQueued(2);
    const metrics = await h.http.get("/metrics").set("Authorization", ADMIN);
    expect(metrics.text).toContain('ocpi_cdr_audits_total{partner="partner",verdict="match"} 1');
    expect(metrics.text).toContain('ocpi_cdr_audits_total{partner="partner",verdict="mismatch"} 1');
    const status = await h.http.get("/admin/status").set("Authorization", ADMIN);
    expect(status.text).toContain('<b data-figure="cdrs-audited">2</b>CDRs audited, 24 h');
    expect(status.text).toContain('<b data-figure="cdr-mismatches" class="bad">1</b>CDR mismatches, 24 h');
  });
});
