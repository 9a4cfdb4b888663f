import "reflect-metadata";
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import pino from "pino";
import type { GatewayConfig } from "../../config/types";
import { testGatewayConfig } from "../support/gateway-config";
import { Gateway } from "../../app/gateway";
import { ChangeFeed } from "../../core/contract/change-feed";
import { evseStatusChanges } from "../support/data-changes";
import { Outbox } from "../../core/outbox/outbox";
import { Redis } from "ioredis";
import type { Store } from "../../core/contract/store";

/**
 * Issue #11: a change's cache invalidation and its push enqueue go to the
 * store's Redis in one socket write, the invalidation first (Redis answers
 * one connection's commands in order), instead of one round trip each: a
 * push is never queued, so never delivered, before the answers it makes
 * stale are dropped on every instance (ResponseCache.invalidation,
 * ChangeFeed's Staged listeners).
 */

const HOST = "127.0.0.1";
let gateway: Gateway;
let monitor: Redis;
/** the MONITOR connection ioredis opens beside `monitor` */
let watching: Redis;

afterAll(async () => {
  await gateway?.close();
  watching?.disconnect();
  monitor?.disconnect();
});

const config = (prefix: string): GatewayConfig =>
  testGatewayConfig({
    // never listened on: the outbox worker is not started, so what a change queues stays queued
    port: 8080,
    store: { type: "redis", key_prefix: prefix },
    modules: { locations: { adapter: "local" } },
    partners: [{ id: "p1", versions_url: `http://${HOST}:9/ocpi/versions`, versions: ["2.3.0"] }],
  });

const change = evseStatusChanges();

describe("a change published on the Redis store", () => {
  it("sends the cache invalidation and the push enqueue in one write, the invalidation first, and resolves when both are answered", async () => {
    const prefix = `test:${randomUUID()}:`;
    // the outbox worker is not started (no listen): the queued pushes stay to be counted
    gateway = await Gateway.create(config(prefix), { logger: pino({ level: "silent" }) });
    await gateway.registry.recordRegistration("p1", {
      version: "2.3.0",
      versionsUrl: `http://${HOST}:9/ocpi/versions`,
      endpoints: [{ identifier: "locations", role: "RECEIVER", url: `http://${HOST}:9/ocpi/2.3.0/receiver/locations` }],
      roles: [{ country_code: "DE", party_id: "E01", role: "EMSP", business_details: { name: "p1" } }],
      tokenToPartner: "token-p1",
    });
    const feed = gateway.container.resolve(ChangeFeed);
    // the first change lists the partners; the next ones are queued under that listing's generation
    await feed.publish(change());

    monitor = new Redis(process.env.REDIS_URL!);
    const seen: { command: string; key: string; source: string }[] = [];
    watching = await monitor.monitor();
    watching.on("monitor", (_time: string, args: string[], source: string) => {
      const key = args.find((a) => a.startsWith(prefix)) ?? "";
      if (key) seen.push({ command: args[0].toLowerCase(), key: key.slice(prefix.length), source });
    });
    // MONITOR starts with the next command it sees: one of ours, so nothing of the change below is missed
    await monitor.ping();

    const store = (gateway.registry as unknown as { store: { redis: { stream: Socket & Record<string, unknown> } } & Store }).store;
    const socket = store.redis.stream;
    let writes = 0;
    for (const name of ["_write", "_writev"]) {
      const original = socket[name] as (...a: unknown[]) => unknown;
      socket[name] = function (this: Socket, ...args: unknown[]) {
        writes++;
        return original.apply(this, args);
      };
    }
    await feed.publish(change());
    expect(writes).toBe(1);
    expect(await gateway.container.resolve(Outbox).pending("p1").then((p) => p.total)).toBe(2);

    await new Promise((resolve) => setTimeout(resolve, 100));
    // what the gateway sent, up to the pending() read above: the script that sets the generation token (and
    // reads the generation leases, SharedReads), then the enqueue script, on one connection
    const ours = seen.filter((s) => s.source !== "lua").slice(0, 2);
    expect(ours.map((s) => [s.command, s.key])).toEqual([
      ["evalsha", "cache:{locations}:gen:locations:NLGWY"],
      ["evalsha", expect.stringMatching(/^\{outbox:/)],
    ]);
    expect(new Set(ours.map((s) => s.source)).size).toBe(1);
    // and what they ran: the token set before anything is queued
    // (past the reads of the generation leases)
    const ran = seen.filter((s) => s.source === "lua" && !s.key.startsWith("{generation-leases}"));
    expect([ran[0].command, ran[0].key]).toEqual(["set", "cache:{locations}:gen:locations:NLGWY"]);
    expect(ran.slice(1).every((s) => s.key.startsWith("{outbox:") || s.key.startsWith("{partners:"))).toBe(true);
  });
});
