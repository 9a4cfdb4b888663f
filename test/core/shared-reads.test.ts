import "reflect-metadata";
import { randomUUID } from "node:crypto";
import pino from "pino";
import { RedisStore } from "../../core/store/redis-store";
import { RegistrationGeneration, REGISTRATION_GENERATION } from "../../core/partners/registration-generation";
import { ResponseCache } from "../../core/cache/response-cache";
import { StoreUnavailableError } from "../../core/contract/store-unavailable";
import { Outbox } from "../../core/outbox/outbox";
import type { GatewayConfig } from "../../config/types";
import { DEFAULT_CACHE_CONFIG, MAX_GENERATION_LEASE_MS } from "../../config/types";
import { GENERATION_LEASES } from "../../core/store/shared-reads";

/**
 * Issue #11: on one Redis the registration generation (authentication) and
 * the response cache's generation tokens that requests arriving together ask
 * for are read in one script, one round trip, and each read still starts
 * after it was asked, so it sees every write that completed before.
 */

const url = process.env.REDIS_URL;
if (!url) throw new Error("REDIS_URL is not set; test/support/redis.global-setup.ts should have set it");

const log = pino({ level: "silent" });
const LEASE_MS = 5;
const party = { country_code: "NL", party_id: "GWY" };
const opened: { close(): Promise<void> }[] = [];

afterAll(async () => {
  for (const o of opened) await o.close();
});

const setup = async () => {
  const keyPrefix = `test:shared:${randomUUID()}:`;
  // leases on (store.generation_lease_ms), as by default
  const store = await RedisStore.connect({ target: { url }, keyPrefix, generationLeaseMs: LEASE_MS });
  opened.push(store);
  // another instance on the same Redis
  const other = await RedisStore.connect({ target: { url }, keyPrefix, generationLeaseMs: LEASE_MS });
  opened.push(other);
  const config = { store: { type: "redis", url, key_prefix: keyPrefix }, cache: DEFAULT_CACHE_CONFIG } as unknown as GatewayConfig;
  const cache = ResponseCache.fromConfig(config, log, store);
  opened.push(cache);
  const otherCache = ResponseCache.fromConfig(config, log, other);
  opened.push(otherCache);
  // the scripts' own clients, to count what is sent
  const client = (store as unknown as { redis: Record<string, (...args: unknown[]) => unknown> }).redis;
  return { store, other, cache, otherCache, client, registration: new RegistrationGeneration(store), otherRegistration: new RegistrationGeneration(other) };
};

describe("shared reads of generations on one Redis", () => {
  it("read the registration generation and the cache's tokens of a batch in one script", async () => {
    const { store, cache, client, registration } = await setup();
    expect(store.sharedReads).toBeDefined();
    const scripts = jest.spyOn(client, "storeSharedReads");
    const hget = jest.spyOn(client, "hget");
    // ten requests arriving together, each asking for both
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => Promise.all([registration.read(), Promise.resolve(cache.generation("locations", party))])),
    );
    expect(scripts).toHaveBeenCalledTimes(1);
    expect(hget).not.toHaveBeenCalled();
    expect(new Set(answers.map(([r]) => r)).size).toBe(1);
    expect(new Set(answers.map(([, g]) => g)).size).toBe(1);
    // the next batch is another script; nothing changed, so the same answers
    expect(await Promise.all([registration.read(), cache.generation("locations", party)])).toEqual(answers[0]);
    expect(scripts).toHaveBeenCalledTimes(2);
  });

  it("see a write another instance completed before they were asked, on the very next batch", async () => {
    const { cache, otherCache, registration, otherRegistration } = await setup();
    const [registered, generation] = await Promise.all([registration.read(), cache.generation("locations", party)]);
    expect(await otherRegistration.read()).toBe(registered);

    await otherRegistration.renew();
    await otherCache.invalidate("locations", party);
    const [registeredAfter, generationAfter] = await Promise.all([registration.read(), cache.generation("locations", party)]);
    expect(registeredAfter).not.toBe(registered);
    expect(generationAfter).not.toBe(generation);
    expect(await otherRegistration.read()).toBe(registeredAfter);
    expect(await otherCache.generation("locations", party)).toBe(generationAfter);

    // a read asked while a batch is under way waits for the next one, which sees a write that completed meanwhile
    const first = registration.read();
    await new Promise((resolve) => setImmediate(resolve));
    const renewed = otherRegistration.renew();
    await renewed;
    const second = registration.read();
    expect(await first).toBe(registeredAfter);
    expect(await second).not.toBe(registeredAfter);
    expect(await second).toBe(await otherRegistration.read());
  });

  it("never take back an invalidation of this instance: its token is set on the connection the reads go on", async () => {
    const { cache, otherCache } = await setup();
    for (let i = 0; i < 20; i++) {
      const before = await cache.generation("locations", party);
      const invalidated = cache.invalidate("locations", party);
      // asked while the invalidation is under way: read after its write
      const during = cache.generation("locations", party);
      await invalidated;
      expect(await during).not.toBe(before);
      expect(await cache.generation("locations", party)).toBe(await during);
      expect(await otherCache.generation("locations", party)).toBe(await during);
    }
  });

  it("fail the registration read as the store fails, while the cache goes on with its own view", async () => {
    const { store, cache, client, registration } = await setup();
    const tokenBefore = await cache.generation("locations", party);
    jest.spyOn(client, "storeSharedReads").mockImplementationOnce(() => Promise.reject(new Error("Connection is closed.")));
    const [registered, generation] = await Promise.allSettled([registration.read(), Promise.resolve(cache.generation("locations", party))]);
    expect(registered.status).toBe("rejected");
    expect((registered as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    // the cache keeps this process's view of the tokens
    expect(generation).toEqual({ status: "fulfilled", value: tokenBefore });
    // and the next batch reads the store again
    expect(await registration.read()).toBe((await store.get<string>(REGISTRATION_GENERATION, "current")) ?? "-");
  });
});

describe("read leases of a busy instance on one Redis", () => {
  /** Reads one after another, each in a batch of its own unless a lease answers it, until `stop` is set. */
  const keepReading = (read: () => Promise<unknown>) => {
    const state = { stop: false, reads: 0 };
    const done = (async () => {
      while (!state.stop) {
        await read();
        state.reads++;
      }
    })();
    return { state, done };
  };

  it("answer reads from a recent batch, and still never serve what a write that completed replaced, on any instance", async () => {
    const { cache, otherCache, client, registration, otherRegistration } = await setup();
    const scripts = jest.spyOn(client, "storeSharedReads");
    const busy = keepReading(() => Promise.all([registration.read(), Promise.resolve(cache.generation("locations", party))]));
    for (let i = 0; i < 10; i++) {
      // let the busy reader take a lease on what it reads now
      await new Promise((resolve) => setTimeout(resolve, 3));
      const [registered, generation] = await Promise.all([registration.read(), Promise.resolve(cache.generation("locations", party))]);
      // on the other instance: settles once the leases taken before it ended
      await otherRegistration.renew();
      expect(await registration.read()).not.toBe(registered);
      await otherCache.invalidate("locations", party);
      expect(await cache.generation("locations", party)).not.toBe(generation);
    }
    busy.state.stop = true;
    await busy.done;
    // the leases were used: far fewer round trips than reads
    expect(busy.state.reads).toBeGreaterThan(100);
    expect(scripts.mock.calls.length).toBeLessThan(busy.state.reads / 4);
  });

  it("are taken by default, and not with generation_lease_ms 0: every batch is a round trip then", async () => {
    const keyPrefix = `test:shared:${randomUUID()}:`;
    const byDefault = await RedisStore.connect({ target: { url }, keyPrefix });
    opened.push(byDefault);
    const defaultScripts = jest.spyOn((byDefault as unknown as { redis: Record<string, (...args: unknown[]) => unknown> }).redis, "storeSharedReads");
    const defaultRegistration = new RegistrationGeneration(byDefault);
    // (many reads: on a loaded machine some may be further apart than two leases, and take none)
    for (let i = 0; i < 200; i++) await defaultRegistration.read();
    expect(defaultScripts.mock.calls.length).toBeLessThan(100);
    const store = await RedisStore.connect({ target: { url }, keyPrefix, generationLeaseMs: 0 });
    opened.push(store);
    const client = (store as unknown as { redis: Record<string, (...args: unknown[]) => unknown> }).redis;
    const scripts = jest.spyOn(client, "storeSharedReads");
    const registration = new RegistrationGeneration(store);
    for (let i = 0; i < 50; i++) await registration.read();
    expect(scripts).toHaveBeenCalledTimes(50);
  });

  /** Two instances on one Redis with long leases (still running when a write follows on a loaded machine). */
  const longLeases = async (lease: number) => {
    const keyPrefix = `test:shared:${randomUUID()}:`;
    const store = await RedisStore.connect({ target: { url }, keyPrefix, generationLeaseMs: lease });
    opened.push(store);
    const other = await RedisStore.connect({ target: { url }, keyPrefix, generationLeaseMs: lease });
    opened.push(other);
    return { keyPrefix, store, other, registration: new RegistrationGeneration(store), otherRegistration: new RegistrationGeneration(other) };
  };

  it("queue a change's messages as due only once the other instances' leases taken before them have ended", async () => {
    const lease = 1000;
    const { store, registration, otherRegistration } = await longLeases(lease);
    const outbox = new Outbox(store);
    const message = (partnerId: string) => ({ partnerId, label: "test", request: { method: "PUT" as const, target: { module: "locations", role: "RECEIVER" as const, path: "NL/GWY/LOC1" }, body: {} } });
    // nobody reading: due at once
    await outbox.enqueue(message("idle"));
    expect((await outbox.pending("idle")).items[0].nextAttemptAt).toBe(0);
    // this instance busy (two reads one after another: the second takes a lease): its own leases are not waited for
    await registration.read();
    await registration.read();
    await outbox.enqueue(message("own"));
    expect((await outbox.pending("own")).items[0].nextAttemptAt).toBe(0);
    // the other instance busy: due once its lease ends
    await otherRegistration.read();
    await otherRegistration.read();
    const before = Date.now();
    await outbox.enqueue(message("busy"));
    const due = (await outbox.pending("busy")).items[0].nextAttemptAt;
    expect(due).toBeGreaterThan(before);
    expect(due).toBeLessThanOrEqual(Date.now() + lease + 1);
  });

  it("read a write of this instance right after it, though a batch was read while its command was still to be sent", async () => {
    const { store, registration } = await longLeases(1000);
    const shared = store.sharedReads!;
    const read = () => shared.get<string>(REGISTRATION_GENERATION, "current");
    // busy: the second read takes a lease
    await registration.read();
    await registration.read();
    const before = await read();
    const written = `written-${randomUUID()}`;
    const writing = shared.writing(async () => {
      // the write's command leaves a few turns later, as a write behind other I/O does
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      await store.put(REGISTRATION_GENERATION, "current", written);
    });
    // asked once the write started: its batch is sent (and leased) before the write's command
    expect(await read()).toBe(before);
    await writing;
    expect(await read()).toBe(written);
  });

  it("never hold a write or a push up for longer than the longest lease, whatever the leases hash holds (Redis's clock set back)", async () => {
    const { store, other, otherRegistration } = await longLeases(5);
    const redis = (store as unknown as { redis: { time(): Promise<[string, string]> } }).redis;
    const [seconds, micros] = await redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    // another instance's lease ending an hour from now: one taken before Redis's clock was set back an hour
    await store.put(GENERATION_LEASES, "set-back", now + 3_600_000);
    const started = performance.now();
    await otherRegistration.renew();
    const waited = performance.now() - started;
    // waited out as a lease of the longest length, not an hour
    expect(waited).toBeGreaterThanOrEqual(MAX_GENERATION_LEASE_MS);
    expect(waited).toBeLessThan(MAX_GENERATION_LEASE_MS + 5_000);
    const outbox = new Outbox(other);
    const before = Date.now();
    await outbox.enqueue({ partnerId: "p", label: "test", request: { method: "PUT", target: { module: "locations", role: "RECEIVER", path: "NL/GWY/LOC1" }, body: {} } });
    const due = (await outbox.pending("p")).items[0].nextAttemptAt;
    expect(due).toBeGreaterThan(before);
    expect(due).toBeLessThanOrEqual(Date.now() + MAX_GENERATION_LEASE_MS + 50);
  });

  it("never hold a write up for the writer's own leases, and still read it right after", async () => {
    const lease = 1000;
    const { keyPrefix, store, registration } = await longLeases(lease);
    const config = { store: { type: "redis", url, key_prefix: keyPrefix }, cache: DEFAULT_CACHE_CONFIG } as unknown as GatewayConfig;
    const cache = ResponseCache.fromConfig(config, log, store);
    opened.push(cache);
    for (let i = 0; i < 5; i++) {
      // this instance busy: the second read takes a lease, the third is answered from it
      await registration.read();
      await cache.generation("locations", party);
      const registered = await registration.read();
      const generation = await cache.generation("locations", party);
      expect(await registration.read()).toBe(registered);
      const started = performance.now();
      await registration.renew();
      await cache.invalidate("locations", party);
      // far sooner than a lease: nothing waited for one
      expect(performance.now() - started).toBeLessThan(lease / 2);
      expect(await registration.read()).not.toBe(registered);
      expect(await cache.generation("locations", party)).not.toBe(generation);
    }
  });
});
