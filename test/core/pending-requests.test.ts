import { randomUUID } from "node:crypto";
import path from "node:path";
import pino from "pino";
import type { StoreConfig } from "../../config/types";
import type { Store } from "../../core/contract/store";
import { openStore } from "../../core/store/open-store";
import { PendingRequests, type PendingEntry, type PendingKind } from "../../core/async/pending-requests";
import { removeTempDirs, tempDir } from "../support/gateway-config";

/**
 * core/async: durable pending asynchronous requests. Exactly one outcome per
 * request however outcomes and timeouts race, across instances sharing a
 * store; a delivery that fails (or whose instance dies) is taken over once
 * its lease expires.
 */

const quiet = pino({ level: "silent" });

/** A kind that records its deliveries; `failing` makes the next deliveries throw. */
const recordingKind = (name: string) => {
  const delivered: { id: string; outcome: string }[] = [];
  const kind: PendingKind<{ n: number }, string> & { delivered: typeof delivered; failing: number } = {
    name,
    delivered,
    failing: 0,
    timeoutOutcome: () => "TIMEOUT",
    async deliver(entry: PendingEntry<{ n: number }, string>, outcome: string) {
      if (kind.failing > 0) {
        kind.failing--;
        throw new Error("backend down");
      }
      delivered.push({ id: entry.id, outcome });
    },
  };
  return kind;
};

const stores: [string, () => StoreConfig][] = [
  ["sqlite", () => ({ type: "sqlite", path: path.join(tempDir("ocpi-pending-"), "gateway.db") })],
  ["redis", () => ({ type: "redis", url: process.env.REDIS_URL!, key_prefix: `test:${randomUUID()}:` })],
];

describe.each(stores)("PendingRequests on %s", (_name, configOf) => {
  const opened: Store[] = [];
  let config: StoreConfig;
  /** an instance of the gateway's pending requests; several share one store like gateway instances do */
  const instance = async (options = {}) => {
    const store = await openStore(config);
    opened.push(store);
    return new PendingRequests(store, quiet, options);
  };

  beforeAll(() => {
    config = configOf();
  });
  afterAll(async () => {
    for (const store of opened) await store.close();
    removeTempDirs();
  });

  it("takes the first outcome and refuses later ones; an unknown id is unknown", async () => {
    const pending = await instance();
    const kind = recordingKind(`k-${randomUUID()}`);
    pending.register(kind);
    expect(await pending.open(kind.name, "a", { n: 1 }, Date.now() + 60_000)).toBe(true);
    expect(await pending.open(kind.name, "a", { n: 2 }, Date.now() + 60_000)).toBe(false);
    expect(await pending.settle(kind.name, "a", "ACCEPTED")).toBe("settled");
    expect(await pending.settle(kind.name, "a", "REJECTED")).toBe("finished");
    expect(await pending.settle(kind.name, "nope", "ACCEPTED")).toBe("unknown");
    expect(kind.delivered).toEqual([{ id: "a", outcome: "ACCEPTED" }]);
    expect(await pending.get(kind.name, "a")).toMatchObject({ state: "done", outcome: "ACCEPTED", data: { n: 1 } });
  });

  it("outcomes racing from several instances: exactly one is delivered", async () => {
    const instances = await Promise.all([instance(), instance(), instance()]);
    const kind = recordingKind(`k-${randomUUID()}`);
    for (const p of instances) p.register(kind);
    const ids = ["r1", "r2", "r3", "r4", "r5"];
    for (const id of ids) await instances[0].open(kind.name, id, { n: 0 }, Date.now() + 60_000);
    const settlements = await Promise.all(ids.flatMap((id) => instances.map((p, i) => p.settle(kind.name, id, `outcome-${i}`))));
    expect(settlements.filter((s) => s === "settled")).toHaveLength(ids.length);
    expect(kind.delivered.map((d) => d.id).sort()).toEqual(ids);
  });

  it("the timeout: after the deadline the timeout outcome is delivered once, sweep or not; a late outcome is refused", async () => {
    const [one, two] = await Promise.all([instance(), instance()]);
    const kind = recordingKind(`k-${randomUUID()}`);
    one.register(kind);
    two.register(kind);
    const deadline = Date.now() + 50;
    await one.open(kind.name, "t", { n: 0 }, deadline);
    await one.sweep(deadline - 1); // a sweep's clock: under load more than 50 ms may pass before it runs
    expect(kind.delivered).toEqual([]);
    while (Date.now() <= deadline) await new Promise((resolve) => setTimeout(resolve, 60));
    const [, , late] = await Promise.all([one.sweep(), two.sweep(), one.settle(kind.name, "t", "ACCEPTED")]);
    expect(late).toBe("finished");
    expect(kind.delivered).toEqual([{ id: "t", outcome: "TIMEOUT" }]);
    expect(await one.get(kind.name, "t")).toMatchObject({ state: "done", outcome: "TIMEOUT", timedOut: true });
  });

  it("a failed delivery keeps the outcome and is retried by a sweep once the lease expired", async () => {
    const pending = await instance({ leaseMs: 50 });
    const kind = recordingKind(`k-${randomUUID()}`);
    kind.failing = 1;
    pending.register(kind);
    await pending.open(kind.name, "f", { n: 0 }, Date.now() + 60_000);
    expect(await pending.settle(kind.name, "f", "ACCEPTED")).toBe("settled");
    expect(kind.delivered).toEqual([]);
    const settling = await pending.get(kind.name, "f");
    expect(settling).toMatchObject({ state: "settling", outcome: "ACCEPTED" });
    // the sweeps' clock is given: under load more than the 50 ms lease may pass between two statements
    await pending.sweep(settling!.leaseUntil! - 1);
    expect(kind.delivered).toEqual([]); // the lease still holds
    await pending.sweep(settling!.leaseUntil!);
    expect(kind.delivered).toEqual([{ id: "f", outcome: "ACCEPTED" }]);
    expect(await pending.settle(kind.name, "f", "REJECTED")).toBe("finished");
  });

  it("closed entries take no outcome, and finished ones are forgotten after the retention", async () => {
    const pending = await instance({ retentionMs: 30 });
    const kind = recordingKind(`k-${randomUUID()}`);
    pending.register(kind);
    await pending.open(kind.name, "c", { n: 0 }, Date.now() + 60_000);
    expect(await pending.close<{ n: number }>(kind.name, "c", (d) => ({ n: d.n + 1 }))).toBe(true);
    expect(await pending.settle(kind.name, "c", "ACCEPTED")).toBe("finished");
    expect(await pending.get(kind.name, "c")).toMatchObject({ state: "done", data: { n: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 40));
    await pending.sweep();
    expect(await pending.get(kind.name, "c")).toBeUndefined();
    expect(kind.delivered).toEqual([]);
  });

  it("reschedule moves the deadline of a pending entry only", async () => {
    const pending = await instance();
    const kind = recordingKind(`k-${randomUUID()}`);
    pending.register(kind);
    await pending.open(kind.name, "m", { n: 0 }, Date.now() + 20);
    expect(await pending.reschedule<{ n: number }>(kind.name, "m", Date.now() + 60_000, () => ({ n: 5 }))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await pending.sweep();
    expect(kind.delivered).toEqual([]);
    await pending.settle(kind.name, "m", "ACCEPTED");
    expect(await pending.reschedule(kind.name, "m", Date.now())).toBe(false);
    expect(kind.delivered).toEqual([{ id: "m", outcome: "ACCEPTED" }]);
  });
});
