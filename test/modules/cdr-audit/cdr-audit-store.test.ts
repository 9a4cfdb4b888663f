import { randomUUID } from "node:crypto";
import type { Store } from "../../../core/contract/store";
import { SqliteStore } from "../../../core/store/sqlite-store";
import { RedisStore } from "../../../core/store/redis-store";
import { startRedisCluster, type RedisCluster } from "../../support/redis-cluster";
import { AuditStore, summaryOf } from "../../../plugins/cdrs/audit/audit-store";
import { auditKey, type KeptAudit } from "../../../plugins/cdrs/audit/model";
import { auditKept } from "../../../plugins/cdrs/audit/audit-cdr";
import { audit, exampleCdr } from "./cdr-audit.fixtures";

/** The CDR audit's store on each store the gateway runs on: a CDR queued once, audits listed by partner, verdict and time. */
const redisUrl = process.env.REDIS_URL;
if (!redisUrl) throw new Error("REDIS_URL is not set; test/support/redis.global-setup.ts should have set it");
let cluster: Promise<RedisCluster> | undefined;
afterAll(async () => (await cluster)?.stop(), 30_000);

const STORES: [string, () => Promise<Store>][] = [
  ["SQLite", async () => SqliteStore.open(":memory:")],
  ["Redis", () => RedisStore.connect({ target: { url: redisUrl }, keyPrefix: `test:cdr-audit:${randomUUID()}:` })],
  // a fresh cluster's replicas, on a loaded machine, may take longer than the default 500 ms to acknowledge the first writes
  ["Redis Cluster", async () => RedisStore.connect({ target: { nodes: (await (cluster ??= startRedisCluster())).urls.slice(0, 2) }, keyPrefix: `test:cdr-audit:${randomUUID()}:`, commandTimeoutMs: 5_000, replicaAckTimeoutMs: 5_000 })],
];

describe.each(STORES)("CDR audit store on %s", (_name, open) => {
  let store: Store;
  let audits: AuditStore;
  beforeEach(async () => {
    store = await open();
    audits = new AuditStore(store);
  });
  afterEach(() => store.close());

  const cdr = (id: string) => ({ ...exampleCdr("2.3.0/cdr_example.json"), id });
  const entry = (id: string) => ({ key: auditKey("received", { country_code: "BE", party_id: "BEC" }, id), direction: "received" as const, partner: "cpo-a", cdr: cdr(id) });

  it("queues what the audit of a CDR reads of it, which audits it as the whole CDR", async () => {
    const whole = { ...cdr("S1"), remark: "a remark", meter_id: "M-1", session_id: "SES-1" };
    await audits.enqueue({ ...entry("S1"), cdr: whole });
    const [queued] = await audits.next(1);
    expect(queued.cdr.cdr_location).toEqual({ id: whole.cdr_location.id });
    expect(Object.keys(queued.cdr).filter((field) => !(field in whole))).toEqual([]);
    expect(Object.keys(whole).filter((field) => !(field in queued.cdr))).toEqual(["auth_method", "last_updated", "remark", "meter_id"]);
    const ctx = { direction: "received" as const, partner: "cpo-a", heldTariffs: [], tolerance: 0.01, now: "2024-06-03T10:01:00Z" };
    expect(audit(queued.cdr as typeof whole, ctx)).toEqual(audit(whole, ctx));
  });

  it("keeps a queued CDR's embedded tariffs as their text, read back as the objects the CDR embedded; one queued as objects (before 2026-12-08) is read as it was", async () => {
    const whole = cdr("S2");
    expect(whole.tariffs?.length).toBeGreaterThan(0);
    await audits.enqueue({ ...entry("S2"), cdr: whole });
    expect((await store.indexedRecords.get<{ cdr: { tariffs: unknown } }>("cdrs:audits", entry("S2").key))?.cdr.tariffs).toBe(JSON.stringify(whole.tariffs));
    // as release 458dbf7 queued it: the audited fields, its tariffs as objects
    const { auth_method: _auth, last_updated: _updated, ...earlier } = cdr("S3");
    await store.indexedRecords.add("cdrs:audits", [["partner"], ["partner", "verdict"], ["verdict"]], [{ key: entry("S3").key, sortKey: -(2 ** 52) + 1, fields: {}, value: { ...entry("S3"), cdr: { ...earlier, cdr_location: { id: earlier.cdr_location.id } } } }]);
    const queued = await audits.next(10);
    expect(queued.map((q) => q.cdr.id)).toEqual(["S3", "S2"]);
    for (const q of queued) expect(q.cdr.tariffs).toEqual(whole.tariffs);
    const ctx = { direction: "received" as const, partner: "cpo-a", heldTariffs: [], tolerance: 0.01, now: "2024-06-03T10:01:00Z" };
    expect(queued.map((q) => audit(q.cdr as typeof whole, ctx).verdict)).toEqual(queued.map(() => audit(whole, ctx).verdict));
  });

  it("queues a CDR once, however often it passes", async () => {
    expect(await audits.enqueue(entry("A1"))).toBe(true);
    expect(await audits.enqueue(entry("A1"))).toBe(false);
    expect((await audits.next(10)).map((q) => q.cdr.id)).toEqual(["A1"]);
  });

  it("records audits off the queue, lists them by partner, verdict and time, and finds them by CDR id", async () => {
    for (const id of ["A1", "A2", "A3"]) await audits.enqueue(entry(id));
    const at = (minute: number) => `2024-06-03T10:0${minute}:00Z`;
    const match = audit(cdr("A1"), { partner: "cpo-a", now: at(1) });
    const mismatch = audit({ ...cdr("A2"), total_cost: { before_taxes: 3 } }, { partner: "cpo-a", now: at(2) });
    const other = audit(cdr("A3"), { partner: "cpo-b", now: at(3) });
    await audits.record([match, mismatch, other]);
    expect(await audits.queued()).toBe(0);
    const ids = async (query: Parameters<AuditStore["list"]>[0]) => (await audits.list(query)).items.map((s) => s.cdr_id);
    expect(await ids({ offset: 0, limit: 10 })).toEqual(["A1", "A2", "A3"]);
    expect(await ids({ partner: "cpo-a", offset: 0, limit: 10 })).toEqual(["A1", "A2"]);
    expect(await ids({ partner: "cpo-a", verdict: "mismatch", offset: 0, limit: 10 })).toEqual(["A2"]);
    expect(await ids({ verdict: "match", offset: 0, limit: 10 })).toEqual(["A1", "A3"]);
    expect(await ids({ since: Date.parse(at(2)), offset: 0, limit: 10 })).toEqual(["A2", "A3"]);
    expect(await ids({ offset: 1, limit: 1 })).toEqual(["A2"]);
    expect((await audits.list({ partner: "cpo-a", offset: 0, limit: 1 })).total).toBe(2);
    expect(await audits.counts("cpo-a", Date.parse(at(0)))).toEqual({ audited: 2, mismatches: 1 });
    expect((await audits.byId("a2", [{ country_code: "NL", party_id: "XXX" }, { country_code: "be", party_id: "bec" }])).map((a) => [a.key, a.verdict, a.differences[0].field])).toEqual([["received/BE/BEC/A2", "mismatch", "total_cost.before_taxes"]]);
  });

  it("keeps a queued CDR out of the lists and lookups until audited, and queues the next ones after the audits", async () => {
    await audits.enqueue(entry("A1"));
    await audits.record([audit(cdr("A1"), { partner: "cpo-a", now: "2024-06-03T10:01:00Z" })]);
    expect(await audits.enqueue(entry("A1"))).toBe(false);
    await audits.enqueue(entry("A2"));
    expect((await audits.next(10)).map((q) => q.cdr.id)).toEqual(["A2"]);
    expect(await audits.queued()).toBe(1);
    expect(await audits.get(entry("A2").key)).toBeUndefined();
    expect((await audits.list({ offset: 0, limit: 10 })).items.map((s) => s.cdr_id)).toEqual(["A1"]);
    expect((await audits.list({ offset: 0, limit: 10 })).total).toBe(1);
  });

  it("takes over what earlier releases left: CDRs in their own queue or queued beside the audits, audits listed in collections of summaries or keys, or in lists not read (key lists); and no since reaches the queue", async () => {
    const at = (minute: number) => `2024-06-03T10:0${minute}:00Z`;
    // as they were written: each audit in cdrs:audit at its time, and in its partner's, its partner and verdict's and its verdict's list
    const lists = (kept: KeptAudit) => [`p:${kept.partner}`, `p:${kept.partner}:${kept.verdict}`, `v:${kept.verdict}`].map((list) => `cdrs:audit:${list}`);
    const keptAsEarlier = async (kept: KeptAudit, listed: (list: string) => Promise<unknown>) => {
      await store.put("cdrs:audit", kept.key, kept, Date.parse(kept.audited_at));
      for (const list of lists(kept)) await listed(list);
    };
    const summarised = audit(cdr("B1"), { partner: "cpo-a", now: at(1) }) as KeptAudit;
    const keyed = audit({ ...cdr("B3"), total_cost: { before_taxes: 3 } }, { partner: "cpo-a", now: at(2) }) as KeptAudit;
    const inKeyLists = audit(cdr("B4"), { partner: "cpo-b", now: at(3) }) as KeptAudit;
    await keptAsEarlier(summarised, (list) => store.put(list, summarised.key, summaryOf(summarised), Date.parse(at(1))));
    await keptAsEarlier(keyed, (list) => store.put(list, keyed.key, keyed.key, Date.parse(at(2))));
    // listed in key lists (a store capability of 2026-12, taken out since): the take-over reads the audits, not their lists
    await keptAsEarlier(inKeyLists, async () => undefined);
    await store.put("cdrs:audit:queue", entry("B2").key, entry("B2"), 1);
    await store.put("cdrs:audit", entry("B5").key, entry("B5"), -(2 ** 52) + Date.parse(at(4)));
    expect((await audits.next(10)).map((q) => q.cdr.id)).toEqual(["B5", "B2"]);
    expect((await store.range("cdrs:audit:queue", { offset: 0, limit: 10 })).total).toBe(0);
    const listed = async (query: Omit<Parameters<AuditStore["list"]>[0], "offset" | "limit">) =>
      (await audits.list({ ...query, offset: 0, limit: 10 })).items.map((s) => [s.cdr_id, s.verdict]);
    expect(await listed({ partner: "cpo-a" })).toEqual([["B1", "match"], ["B3", "mismatch"]]);
    expect(await listed({ partner: "cpo-a", verdict: "mismatch" })).toEqual([["B3", "mismatch"]]);
    expect(await listed({ verdict: "match" })).toEqual([["B1", "match"], ["B4", "match"]]);
    expect(await audits.counts("cpo-a", 0)).toEqual({ audited: 2, mismatches: 1 });
    expect(await listed({ since: -1e15 })).toEqual([["B1", "match"], ["B3", "mismatch"], ["B4", "match"]]);
    // taken off the earlier collection, found as before, and never queued again
    expect(await audits.queued()).toBe(2);
    expect((await store.range("cdrs:audit", { offset: 0, limit: 10 })).total).toBe(0);
    expect((await audits.get(keyed.key))?.differences[0].field).toBe("total_cost.before_taxes");
    expect(await audits.enqueue(entry("B1"))).toBe(false);
  });

  it("takes an earlier release's audits over a page each time the worker asks for more, and finds those not taken over yet", async () => {
    for (let i = 0; i < 5; i++) {
      const kept = audit(cdr(`L${i}`), { partner: "cpo-a", now: `2024-06-03T10:0${i}:00Z` }) as KeptAudit;
      await store.put("cdrs:audit", kept.key, kept, Date.parse(kept.audited_at));
    }
    const listed = async () => (await audits.list({ verdict: "match", offset: 0, limit: 10 })).items.map((s) => s.cdr_id);
    await audits.next(2);
    expect(await listed()).toEqual(["L0", "L1"]);
    expect((await audits.byId("L4", [{ country_code: "BE", party_id: "BEC" }])).map((a) => a.verdict)).toEqual(["match"]);
    expect(await audits.enqueue(entry("L4"))).toBe(false);
    await audits.next(2);
    await audits.next(2);
    expect(await listed()).toEqual(["L0", "L1", "L2", "L3", "L4"]);
    expect((await store.range("cdrs:audit", { offset: 0, limit: 10 })).total).toBe(0);
  });

  it("keeps a re-pricing as its facts and reads it back in the words it was audited with", async () => {
    const ctx = { direction: "received" as const, partner: "cpo-a", heldTariffs: [], tolerance: 0.01, now: "2024-06-03T10:01:00Z" };
    const kept = auditKept(cdr("A1"), ctx);
    expect(["repricing" in kept, "explanation" in kept]).toEqual([true, false]);
    // its notes as codes and values
    expect(kept.notes).toEqual([["unpublished", "12"], ["no-time-zone"], ["no-tax-included", "12"]]);
    await audits.record([kept]);
    const read = await audits.get(kept.key);
    expect(read).toEqual(audit(cdr("A1"), ctx));
    expect(Object.keys(read!)).toEqual(Object.keys(audit(cdr("A1"), ctx)));
    expect(read!.explanation.at(-1)).toMatch(/^total_cost: the lines add up to /);
  });

  it("reads an audit kept before its differences and notes were kept as facts (their words stored) as it was audited", async () => {
    const ctx = { direction: "received" as const, partner: "cpo-a", heldTariffs: [], tolerance: 0.01, now: "2024-06-03T10:01:00Z" };
    const right = cdr("O1");
    const wrong = { ...right, total_cost: { ...right.total_cost, before_taxes: right.total_cost.before_taxes + 1 } };
    const worded = audit(wrong, ctx);
    const kept: KeptAudit = { ...auditKept(wrong, ctx), differences: worded.differences, notes: worded.notes };
    await audits.record([kept]);
    expect(await audits.get(kept.key)).toEqual(worded);
  });

  it("keeps the differences of totals from the re-pricing without its words, and reads them back worded as they were audited", async () => {
    const ctx = { direction: "received" as const, partner: "cpo-a", heldTariffs: [], tolerance: 0.01, now: "2024-06-03T10:01:00Z" };
    const right = cdr("M1");
    const wrong = { ...right, total_cost: { before_taxes: right.total_cost.before_taxes + 1 }, total_time_cost: { ...right.total_time_cost!, before_taxes: 0 } };
    const kept = auditKept(wrong, ctx);
    expect(kept.differences.map((d) => ("repriced" in d ? [d.field, d.repriced] : [d.field, "worded"]))).toEqual([
      ["total_cost.before_taxes", ""],
      ["total_cost.taxes", "the CDR lists no taxes; "],
      ["total_time_cost.before_taxes", ""],
    ]);
    await audits.record([kept]);
    const read = await audits.get(kept.key);
    expect(read).toEqual(audit(wrong, ctx));
    expect(read!.differences.map((d) => d.explanation)).toEqual([
      read!.explanation.join("; "),
      `the CDR lists no taxes; ${read!.explanation.join("; ")}`,
      expect.stringMatching(/^TIME .* → total_time_cost$/),
    ]);
  });
});
