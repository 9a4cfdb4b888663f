import path from "node:path";
import pino from "pino";
import type { Store } from "../../core/contract/store";
import { openStore } from "../../core/store/open-store";
import { StoreUnavailableError } from "../../core/contract/store-unavailable";
import { PendingRequests, type PendingEntry, type PendingKind } from "../../core/async/pending-requests";
import { removeTempDirs, tempDir } from "../support/gateway-config";

/**
 * core/async across a store failover (issue #8: command results delivered
 * once): a store write that fails may have been applied all the same (its
 * master took it, then died, or no replica acknowledged it in time). An
 * outcome is then still delivered once, soon, and not again by the sweep
 * once the lease has expired.
 */

const quiet = pino({ level: "silent" });
const KIND = "commands.received";
const LEASE_MS = 2_000;

const until = async (check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** The store as a failover shows it: a call `fault` names fails, before it reached the store ("refuse") or after it was applied ("apply"). */
const failingStore = (inner: Store, fault: (method: string, args: unknown[]) => "refuse" | "apply" | undefined): Store =>
  new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const kind = fault(String(prop), args);
        if (kind === "refuse") throw new StoreUnavailableError(inner.kind, "failing over");
        const result = await value.apply(target, args);
        if (kind === "apply") throw new StoreUnavailableError(inner.kind, "no replica acknowledged the write");
        return result;
      };
    },
  });

/** A kind that records its deliveries, each of which may fail as the store does (`failNext`). */
const recordingKind = () => {
  const delivered: string[] = [];
  const kind: PendingKind<object, string> & { delivered: string[]; failNext: number } = {
    name: KIND,
    delivered,
    failNext: 0,
    timeoutOutcome: () => "TIMEOUT",
    async deliver(entry: PendingEntry<object, string>, outcome: string) {
      if (kind.failNext > 0) {
        kind.failNext--;
        throw new StoreUnavailableError("sqlite", "failing over");
      }
      delivered.push(`${entry.id}:${outcome}`);
    },
  };
  return kind;
};

describe("pending requests across a store failover", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ type: "sqlite", path: path.join(tempDir("ocpi-pending-failover-"), "gateway.db") });
  });
  afterAll(async () => {
    await store.close();
    removeTempDirs();
  });

  const setUp = async (fault: (method: string, args: unknown[]) => "refuse" | "apply" | undefined = () => undefined) => {
    const pending = new PendingRequests(failingStore(store, fault), quiet, { leaseMs: LEASE_MS });
    const kind = recordingKind();
    pending.register(kind);
    const id = `c-${Math.random().toString(36).slice(2)}`;
    await pending.open(KIND, id, {}, Date.now() + 60_000);
    return { pending, kind, id };
  };

  it("a claim whose write failed but landed is known by its token: delivered at once, not again after the lease", async () => {
    let updates = 0;
    // the first write of a compare-and-set (the claim) is applied, and reported failed
    const { pending, kind, id } = await setUp((method) => (method === "update" && ++updates === 1 ? "apply" : undefined));
    await expect(pending.settle(KIND, id, "ACCEPTED")).rejects.toThrow(StoreUnavailableError);
    await until(() => kind.delivered.length === 1);
    await until(async () => (await pending.get(KIND, id))?.state === "done");
    // the lease expired long ago: nothing is left for a sweep to deliver again
    await pending.sweep(Date.now() + 10 * LEASE_MS);
    expect(kind.delivered).toEqual([`${id}:ACCEPTED`]);
  });

  it("a claim whose write did not land stays pending: nothing delivered, the next report wins", async () => {
    let updates = 0;
    const { pending, kind, id } = await setUp((method) => (method === "update" && ++updates === 1 ? "refuse" : undefined));
    await expect(pending.settle(KIND, id, "ACCEPTED")).rejects.toThrow(StoreUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(kind.delivered).toEqual([]);
    expect(await pending.settle(KIND, id, "REJECTED")).toBe("settled");
    expect(kind.delivered).toEqual([`${id}:REJECTED`]);
  });

  it("a delivery that failed with the store is retried until it went through, then marked done, once", async () => {
    const { pending, kind, id } = await setUp();
    kind.failNext = 2;
    expect(await pending.settle(KIND, id, "ACCEPTED")).toBe("settled");
    await until(async () => (await pending.get(KIND, id))?.state === "done");
    await pending.sweep(Date.now() + 10 * LEASE_MS);
    expect(kind.delivered).toEqual([`${id}:ACCEPTED`]);
  });

  it("a done mark that failed is retried without delivering again", async () => {
    let updates = 0;
    // the claim goes through; the done mark (the second compare-and-set) is refused twice
    const { pending, kind, id } = await setUp((method) => (method === "update" && [2, 3].includes(++updates) ? "refuse" : undefined));
    expect(await pending.settle(KIND, id, "ACCEPTED")).toBe("settled");
    await until(async () => (await pending.get(KIND, id))?.state === "done");
    await pending.sweep(Date.now() + 10 * LEASE_MS);
    expect(kind.delivered).toEqual([`${id}:ACCEPTED`]);
  });
});
