import { randomUUID } from "node:crypto";
import { openStore } from "../../core/store/open-store";
import type { Store } from "../../core/contract/store";
import { Outbox } from "../../core/outbox/outbox";
import { type EnqueueRequest, type OutboxMessage } from "../../core/outbox/outbox-message";

/**
 * Issue #11: on one Redis, Outbox.enqueueAll writes a change's messages (positions, collapse slots, queue
 * entries, outbox:partners) in one script call; what it leaves in the store is what the store calls one at a
 * time leave on SQLite or a cluster (test/core/outbox.test.ts runs the behaviour on both stores).
 */

const status = (partnerId: string, s: string, extra: Partial<EnqueueRequest> = {}): EnqueueRequest => ({
  partnerId,
  request: { method: "PATCH", target: { module: "locations", role: "RECEIVER", path: "/NL/CPO/L1/E1" }, body: { status: s, list: [] } },
  label: `PATCH ${s}`,
  collapseKey: "locations:E1:status",
  orderKey: "locations:NL/CPO/L1/E1",
  tag: "t",
  ...extra,
});

/** The names of the store's script calls (RedisStore.scriptOnOneRedis), as they are made. */
const scriptCalls = (store: Store): string[] => {
  const calls: string[] = [];
  const script = (store as unknown as { scriptOnOneRedis: (...a: unknown[]) => unknown }).scriptOnOneRedis.bind(store);
  (store as unknown as { scriptOnOneRedis: unknown }).scriptOnOneRedis = (name: string, ...rest: unknown[]) => {
    calls.push(name);
    return script(name, ...rest);
  };
  return calls;
};

describe("Outbox.enqueueAll on one Redis", () => {
  let store: Store;
  beforeEach(async () => {
    if (!process.env.REDIS_URL) throw new Error("REDIS_URL is not set: the jest global setup starts a redis-server");
    store = await openStore({ type: "redis", url: process.env.REDIS_URL, key_prefix: `test:enqueue:${randomUUID()}:` });
  });
  afterEach(async () => store.close());

  it("takes one script call for a change's messages to several partners, in positions after every one taken before", async () => {
    const outbox = new Outbox(store);
    const calls = scriptCalls(store);
    await outbox.enqueueAll([status("a", "CHARGING", { collapseKey: undefined }), status("b", "CHARGING", { collapseKey: undefined })]);
    const ids = await outbox.enqueueAll([status("a", "BLOCKED"), status("b", "BLOCKED"), status("a", "AVAILABLE", { collapseKey: undefined, id: "stable" })]);
    expect(calls).toEqual(["outboxEnqueue", "outboxEnqueue"]);
    expect(ids).toEqual(["slot0:locations:E1:status", "slot0:locations:E1:status", "stable"]);
    const a = (await outbox.pending("a")).items;
    expect(a.map((m) => m.seq)).toEqual([1, 3, 5]);
    expect(a[1]).toEqual({
      ...status("a", "BLOCKED"),
      id: "slot0:locations:E1:status",
      seq: 3,
      attempts: 0,
      nextAttemptAt: 0,
      enqueuedAt: a[1].enqueuedAt,
    });
    expect(a[2]).toMatchObject({ id: "stable", once: true, seq: 5 });
    expect(await outbox.partners()).toEqual(expect.arrayContaining(["a", "b"]));
    // the same stable id again is not queued twice
    await outbox.enqueueAll([status("a", "AVAILABLE", { collapseKey: undefined, id: "stable" })]);
    expect((await outbox.pending("a")).total).toBe(3);
  });

  it("collapses into a waiting message (moved to the tail, fields kept), never into one in flight or already tried", async () => {
    const outbox = new Outbox(store);
    await outbox.enqueue(status("p", "CHARGING"));
    await outbox.enqueue(status("p", "PUT", { collapseKey: undefined }));
    await outbox.enqueue(status("p", "BLOCKED"));
    let items = (await outbox.pending("p")).items;
    expect(items.map((m) => m.label)).toEqual(["PATCH PUT", "PATCH BLOCKED"]);
    const waiting = items[1] as OutboxMessage;
    expect(waiting).toMatchObject({ id: "slot0:locations:E1:status", seq: 3, tag: "t", orderKey: "locations:NL/CPO/L1/E1", attempts: 0 });
    expect(waiting.request.body).toEqual({ status: "BLOCKED", list: [] });

    // claimed: the next one takes the other slot; tried: it stays as it is too
    await outbox.claim(waiting);
    await outbox.enqueue(status("p", "RESERVED"));
    items = (await outbox.pending("p")).items;
    expect(items.map((m) => [m.id, m.label])).toEqual([
      [items[0].id, "PATCH PUT"],
      ["slot0:locations:E1:status", "PATCH BLOCKED"],
      ["slot1:locations:E1:status", "PATCH RESERVED"],
    ]);
    await outbox.failed(items[1], "boom", 0);
    await outbox.enqueue(status("p", "OUTOFORDER"));
    items = (await outbox.pending("p")).items;
    expect(items.map((m) => m.label)).toEqual(["PATCH PUT", "PATCH BLOCKED", "PATCH OUTOFORDER"]);
    expect(items[1]).toMatchObject({ attempts: 1, lastError: "boom" });
    expect(items[2]).toMatchObject({ id: "slot1:locations:E1:status", seq: 5 });
  });

  it("claims in one script call, keeping the body as it was queued, and a claim after a failure marks it in flight again", async () => {
    const outbox = new Outbox(store);
    const calls = scriptCalls(store);
    await outbox.enqueue(status("p", "CHARGING"));
    const [waiting] = (await outbox.pending("p")).items;
    const claimed = await outbox.claim(waiting);
    expect(calls).toEqual(["outboxEnqueue", "outboxClaim"]);
    expect(claimed).toEqual({ ...waiting, inFlight: true });
    // the empty array stays an array (the script never re-encodes the stored text)
    expect((await outbox.get("p", waiting.id))!.request.body).toEqual({ status: "CHARGING", list: [] });
    // a stale position is not claimed
    expect(await outbox.claim({ ...waiting, seq: waiting.seq + 1 })).toBeUndefined();
    const failed = (await outbox.failed(claimed!, "boom", 0))!;
    expect(failed.inFlight).toBe(false);
    // waiting again: a newer status collapses into the other slot, not into the tried one
    expect(await outbox.claim(failed)).toMatchObject({ inFlight: true, attempts: 1, lastError: "boom" });
    expect((await outbox.get("p", waiting.id))!.inFlight).toBe(true);
    await outbox.enqueue(status("p", "BLOCKED"));
    expect((await outbox.pending("p")).items.map((m) => [m.id, m.label])).toEqual([
      ["slot0:locations:E1:status", "PATCH CHARGING"],
      ["slot1:locations:E1:status", "PATCH BLOCKED"],
    ]);
  });
});
