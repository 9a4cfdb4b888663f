import "reflect-metadata";
import { randomUUID } from "node:crypto";
import pino from "pino";
import { RedisStore } from "../../core/store/redis-store";
import { RegistrationGeneration } from "../../core/partners/registration-generation";
import { ResponseCache } from "../../core/cache/response-cache";
import type { GatewayConfig } from "../../config/types";
import { DEFAULT_CACHE_CONFIG } from "../../config/types";

/**
 * Issue #26: on one Redis a busy instance answers its generation reads at
 * once (no promise) from a leased batch whose answer came in
 * (RegistrationGeneration.now, ResponseCache.generationNow), within that
 * batch's lease only, and so never answers at once what a write that
 * completed replaced, on any instance.
 */

const url = process.env.REDIS_URL;
if (!url) throw new Error("REDIS_URL is not set; test/support/redis.global-setup.ts should have set it");

const log = pino({ level: "silent" });
const party = { country_code: "NL", party_id: "GWY" };
const opened: { close(): Promise<void> }[] = [];

afterAll(async () => {
  for (const o of opened) await o.close();
});

type Client = { storeSharedReads: (...args: unknown[]) => unknown; stream: { destroy(): void }; once(event: string, listener: () => void): void };

/** Two instances on one Redis with leases of `leaseMs`, each with its registration generation and response cache. */
const setup = async (leaseMs: number) => {
  const keyPrefix = `test:at-once:${randomUUID()}:`;
  const config = { store: { type: "redis", url, key_prefix: keyPrefix }, cache: DEFAULT_CACHE_CONFIG } as unknown as GatewayConfig;
  const instance = async () => {
    const store = await RedisStore.connect({ target: { url }, keyPrefix, generationLeaseMs: leaseMs });
    opened.push(store);
    const cache = ResponseCache.fromConfig(config, log, store);
    opened.push(cache);
    const client = (store as unknown as { redis: Client }).redis;
    return { store, cache, client, registration: new RegistrationGeneration(store) };
  };
  return { one: await instance(), other: await instance() };
};

/** Both reads of a request, as the cached-GET path asks them: at once when known, else waited for. */
const readBoth = async (i: { registration: RegistrationGeneration; cache: ResponseCache }): Promise<[string, string]> => [
  i.registration.now() ?? (await i.registration.read()),
  i.cache.generationNow("locations", party) ?? (await i.cache.generation("locations", party)),
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("generation reads answered at once on one Redis", () => {
  it("answer nothing at once until a leased batch's answer came in, then what the read answers", async () => {
    const { one } = await setup(1000);
    expect(one.registration.now()).toBeUndefined();
    expect(one.cache.generationNow("locations", party)).toBeUndefined();
    // the first batch takes no lease (not busy yet); the second does
    await Promise.all([one.registration.read(), one.cache.generation("locations", party)]);
    expect(one.registration.now()).toBeUndefined();
    const [registered, generation] = await Promise.all([one.registration.read(), one.cache.generation("locations", party)]);
    expect(one.registration.now()).toBe(registered);
    expect(one.cache.generationNow("locations", party)).toBe(generation);
  });

  it("answer at once only within the lease of the batch that read it, and ask for no read by itself", async () => {
    const lease = 300;
    const { one } = await setup(lease);
    const scripts = jest.spyOn(one.client, "storeSharedReads");
    await one.registration.read();
    const sent = performance.now();
    const registered = await one.registration.read();
    expect(scripts).toHaveBeenCalledTimes(2);
    // every answer at once until the lease ends is the leased one, and none of them is a round trip
    while (performance.now() < sent + lease - 50) {
      expect(one.registration.now()).toBe(registered);
      await sleep(20);
    }
    await sleep(Math.max(0, sent + lease + 10 - performance.now()));
    expect(one.registration.now()).toBeUndefined();
    expect(scripts).toHaveBeenCalledTimes(2);
  });

  it("never answer at once what a write another instance completed replaced, while this instance is busy", async () => {
    const { one, other } = await setup(5);
    let stop = false;
    let atOnce = 0;
    let reads = 0;
    // a busy reader on this instance: counts what it was answered at once
    const busy = (async () => {
      while (!stop) {
        if (one.registration.now() !== undefined) atOnce++;
        await readBoth(one);
        reads++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 20; i++) {
      await sleep(3);
      const [registered, generation] = await readBoth(one);
      await other.registration.renew();
      expect((await readBoth(one))[0]).not.toBe(registered);
      await other.cache.invalidate("locations", party);
      expect((await readBoth(one))[1]).not.toBe(generation);
    }
    stop = true;
    await busy;
    expect(reads).toBeGreaterThan(100);
    expect(atOnce).toBeGreaterThan(0);
  });

  it("answer at once after a write of this instance only what was read after it", async () => {
    const { one } = await setup(1000);
    for (let i = 0; i < 5; i++) {
      await readBoth(one);
      const [registered, generation] = await readBoth(one);
      expect(one.registration.now()).toBe(registered);
      await one.registration.renew();
      await one.cache.invalidate("locations", party);
      expect(one.registration.now()).toBeUndefined();
      expect(one.cache.generationNow("locations", party)).toBeUndefined();
      expect(await one.registration.read()).not.toBe(registered);
      expect(await one.cache.generation("locations", party)).not.toBe(generation);
    }
  });

  it("answer nothing at once once the connection is lost, until a read on the new connection came in", async () => {
    const { one, other } = await setup(1000);
    await readBoth(one);
    const [registered] = await readBoth(one);
    expect(one.registration.now()).toBe(registered);
    const closed = new Promise<void>((resolve) => one.client.once("close", resolve));
    one.client.stream.destroy();
    await closed;
    expect(one.registration.now()).toBeUndefined();
    expect(one.cache.generationNow("locations", party)).toBeUndefined();
    // a renewal on the other instance meanwhile (this one's lease in Redis may still run: it waits that out)
    await other.registration.renew();
    await new Promise<void>((resolve) => (one.store.sharedReads!.ready ? resolve() : one.client.once("ready", resolve)));
    const after = await one.registration.read();
    expect(after).not.toBe(registered);
    expect(one.registration.now() ?? after).toBe(after);
  });
});
