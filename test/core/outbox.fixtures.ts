/** Messages, a partner standing in for the HTTP side, faulty stores and the two stores the outbox test runs on (test/core/outbox.test.ts). */
import { randomUUID } from "node:crypto";
import path from "node:path";
import pino from "pino";
import type { Store } from "../../core/contract/store";
import { openStore } from "../../core/store/open-store";
import { Outbox } from "../../core/outbox/outbox";
import { type EnqueueRequest } from "../../core/outbox/outbox-message";
import { type OutboundRequest } from "../../core/client/outbound-request";
import type { RetryPolicy } from "../../core/contract/partner-profile";
import { tempDir } from "../support/gateway-config";
import { StoreUnavailableError } from "../../core/contract/store-unavailable";

export const log = pino({ level: "silent" });
export const FAST: RetryPolicy = { baseDelayMs: 10, maxDelayMs: 40, backlogWindowMs: 60_000 };

export const request = (path: string, body?: unknown): OutboundRequest => ({ method: "PATCH", target: { module: "locations", role: "RECEIVER", path }, body });
export const message = (partnerId: string, path: string, extra: Pick<EnqueueRequest, "collapseKey" | "essential"> & { body?: unknown } = {}): EnqueueRequest => ({
  partnerId,
  request: request(path, extra.body),
  label: `PATCH ${path}`,
  collapseKey: extra.collapseKey,
  essential: extra.essential,
});
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The store as a Redis Cluster failover shows it to the gateway (issue #8): a call `fault` names fails with
 * StoreUnavailableError, before it reached the store ("refuse") or after its write was applied ("apply":
 * the master took it, but no replica acknowledged it).
 */
export const failingStore = (inner: Store, fault: (method: string, collection: unknown) => "refuse" | "apply" | undefined): Store =>
  new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const kind = fault(String(prop), args[0]);
        if (kind === "refuse") throw new StoreUnavailableError(inner.kind, "failing over");
        const result = await value.apply(target, args);
        if (kind === "apply") throw new StoreUnavailableError(inner.kind, "no replica acknowledged the write");
        return result;
      };
    },
  });

export const bodies = async (outbox: Outbox, partnerId: string) => (await outbox.pending(partnerId)).items.map((m) => m.request.body);

export const until = async (check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/**
 * Partner `partnerId` as the worker sees it: records what arrives, fails
 * while `failWith` says so. Messages other tests left for other partners
 * in the shared store are taken silently.
 */
export const partnerSide = (partnerId: string) => {
  const received: OutboundRequest[] = [];
  const side = {
    received,
    paths: () => received.map((r) => (r.target as { path: string }).path),
    failWith: undefined as ((request: OutboundRequest) => Error | undefined) | undefined,
    send: async (to: string, req: OutboundRequest) => {
      if (to !== partnerId) return;
      const error = side.failWith?.(req);
      if (error) throw error;
      received.push(req);
    },
  };
  return side;
};

export const STORES: { name: string; open: () => Promise<Store> }[] = [
  { name: "SQLite", open: () => openStore({ type: "sqlite", path: path.join(tempDir("ocpi-outbox-"), "outbox.db") }) },
  {
    name: "Redis",
    open: () => {
      if (!process.env.REDIS_URL) throw new Error("REDIS_URL is not set: the jest global setup starts a redis-server");
      return openStore({ type: "redis", url: process.env.REDIS_URL, key_prefix: `test:outbox:${randomUUID()}:` });
    },
  },
];
