import { randomUUID } from "node:crypto";
import path from "node:path";
import pino from "pino";
import type { Store } from "../../core/store/port";
import { openStore } from "../../core/store/open-store";
import { Outbox, type EnqueueRequest, type OutboundRequest } from "../../core/outbox/outbox";
import { OutboxWorker, type OutboxEvents } from "../../core/outbox/outbox-worker";
import { DEFAULT_RETRY_POLICY, isRetryable, retryDelay, retryPolicyOf, type RetryPolicy } from "../../core/outbox/retry-policy";
import { PartnerCallError } from "../../core/client/ocpi-client";
import { removeTempDirs, tempDir, testGatewayConfig } from "../support/gateway-config";
import { ConfigError } from "../../config/load-config";
import { StoreUnavailableError } from "../../core/store/store-unavailable";

/**
 * The outbox and its worker against both stores: FIFO per partner,
 * collapse keys, essential messages, the in-flight claim, which failures
 * are retried, and the backlog window. The worker sends through a function
 * standing for the partner (the HTTP side is covered by test/e2e/push.test.ts).
 */

const log = pino({ level: "silent" });
const FAST: RetryPolicy = { baseDelayMs: 10, maxDelayMs: 40, backlogWindowMs: 60_000 };

const request = (path: string, body?: unknown): OutboundRequest => ({ method: "PATCH", target: { module: "locations", role: "RECEIVER", path }, body });
const message = (partnerId: string, path: string, extra: Pick<EnqueueRequest, "collapseKey" | "essential"> & { body?: unknown } = {}): EnqueueRequest => ({
  partnerId,
  request: request(path, extra.body),
  label: `PATCH ${path}`,
  collapseKey: extra.collapseKey,
  essential: extra.essential,
});
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The store as a Redis Cluster failover shows it to the gateway (issue #8): a call `fault` names fails with
 * StoreUnavailableError, before it reached the store ("refuse") or after its write was applied ("apply":
 * the master took it, but no replica acknowledged it).
 */
const failingStore = (inner: Store, fault: (method: string, collection: unknown) => "refuse" | "apply" | undefined): Store =>
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

const bodies = async (outbox: Outbox, partnerId: string) => (await outbox.pending(partnerId)).items.map((m) => m.request.body);

const until = async (check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> => {
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
const partnerSide = (partnerId: string) => {
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

const STORES: { name: string; open: () => Promise<Store> }[] = [
  { name: "SQLite", open: () => openStore({ type: "sqlite", path: path.join(tempDir("ocpi-outbox-"), "outbox.db") }) },
  {
    name: "Redis",
    open: () => {
      if (!process.env.REDIS_URL) throw new Error("REDIS_URL is not set: the jest global setup starts a redis-server");
      return openStore({ type: "redis", url: process.env.REDIS_URL, key_prefix: `test:outbox:${randomUUID()}:` });
    },
  },
];

afterAll(() => removeTempDirs());

describe.each(STORES)("outbox on $name", ({ open }) => {
  let store: Store;
  const workers: OutboxWorker[] = [];
  const partner = () => `p-${randomUUID().slice(0, 8)}`;
  const startWorker = (outbox: Outbox, send: (p: string, r: OutboundRequest) => Promise<void>, events: OutboxEvents = {}, policy = FAST) => {
    const worker = new OutboxWorker(outbox, store, send, () => policy, log, events, { pollMs: 20 });
    workers.push(worker);
    worker.start();
    return worker;
  };

  beforeAll(async () => {
    store = await open();
  });

  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });

  afterAll(async () => {
    await store.close();
  });

  it("keeps one FIFO per partner", async () => {
    const outbox = new Outbox(store);
    const [a, b] = [partner(), partner()];
    for (const n of [1, 2, 3]) {
      await outbox.enqueue(message(a, `/a${n}`));
      await outbox.enqueue(message(b, `/b${n}`));
    }
    expect((await outbox.pending(a)).items.map((m) => m.label)).toEqual(["PATCH /a1", "PATCH /a2", "PATCH /a3"]);
    expect(await outbox.partners()).toEqual(expect.arrayContaining([a, b]));

    const [sideA, sideB] = [partnerSide(a), partnerSide(b)];
    startWorker(outbox, async (to, req) => {
      await sideA.send(to, req);
      await sideB.send(to, req);
    });
    await until(async () => (await outbox.pending(a)).total === 0 && (await outbox.pending(b)).total === 0);
    expect(sideA.paths()).toEqual(["/a1", "/a2", "/a3"]);
    expect(sideB.paths()).toEqual(["/b1", "/b2", "/b3"]);
    // an empty queue is forgotten
    await until(async () => !(await outbox.partners()).includes(a));
    await until(async () => (await outbox.counts(a)).delivered === 3);
  });

  it("collapses waiting messages with one key into the newest, behind what was queued in between", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const status = (s: string) => message(p, "/NL/CPO/LOC1/EVSE1", { collapseKey: "EVSE1:status", body: { status: s } });
    await outbox.enqueue(status("CHARGING"));
    await outbox.enqueue(message(p, "/NL/CPO/LOC1", { body: { whole: "location" } }));
    await outbox.enqueue(status("BLOCKED"));
    await outbox.enqueue(status("AVAILABLE"));
    // one status message left, after the Location PUT: the newest status wins at the partner
    expect(await bodies(outbox, p)).toEqual([{ whole: "location" }, { status: "AVAILABLE" }]);
    const ids = new Set((await outbox.pending(p)).items.map((m) => m.id));
    expect(ids.size).toBe(2);
  });

  it("never collapses into a message in flight or one already tried", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const status = (s: string) => message(p, "/NL/CPO/LOC1/EVSE1", { collapseKey: "EVSE1:status", body: { status: s } });
    await outbox.enqueue(status("CHARGING"));
    const head = (await outbox.head(p))!;
    const claimed = await outbox.claim(head);
    expect(claimed).toMatchObject({ inFlight: true, request: { body: { status: "CHARGING" } } });
    await outbox.enqueue(status("BLOCKED"));
    expect(await bodies(outbox, p)).toEqual([{ status: "CHARGING" }, { status: "BLOCKED" }]);

    // the delivery failed: the head keeps its backoff, a newer status queues behind it
    const failed = await outbox.failed(claimed!, "connection refused", Date.now() + 60_000);
    expect(failed).toMatchObject({ inFlight: false, attempts: 1, lastError: "connection refused" });
    await outbox.enqueue(status("AVAILABLE"));
    expect(await bodies(outbox, p)).toEqual([{ status: "CHARGING" }, { status: "AVAILABLE" }]);
  });

  it("enqueueAllIf queues only while the guard's entry holds its value, checked with the writes (issue #11)", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const woken: string[][] = [];
    outbox.onEnqueue((ids) => woken.push([...ids]));
    const guard = { collection: `guard-${p}`, key: "current", value: "gen-1" };
    // absent entry: not the guard's value
    expect(await outbox.enqueueAllIf(guard, [message(p, "/E1")])).toBeUndefined();
    await store.put(guard.collection, guard.key, "gen-1");
    const ids = await outbox.enqueueAllIf(guard, [message(p, "/E1"), message(p, "/E2")]);
    expect(ids).toHaveLength(2);
    await store.put(guard.collection, guard.key, "gen-2");
    expect(await outbox.enqueueAllIf(guard, [message(p, "/E3")])).toBeUndefined();
    expect((await outbox.pending(p)).items.map((m) => m.request.target)).toEqual([
      expect.objectContaining({ path: "/E1" }),
      expect.objectContaining({ path: "/E2" }),
    ]);
    // only a queued enqueue wakes workers, naming its partners
    expect(woken).toEqual([[p]]);
    expect(await outbox.enqueueAllIf(undefined, [message(p, "/E4")])).toHaveLength(1);
  });

  it("a claim returns the current content, and refuses a message moved to the tail", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const status = (s: string) => message(p, "/E1", { collapseKey: "E1:status", body: { status: s } });
    await outbox.enqueue(status("CHARGING"));
    const read = (await outbox.head(p))!;
    await outbox.enqueue(status("BLOCKED"));
    // the collapse moved the message to the tail, so a stale read of it may not claim it out of turn
    expect(await outbox.claim(read)).toBeUndefined();
    const fresh = (await outbox.head(p))!;
    expect(await outbox.claim(fresh)).toMatchObject({ request: { body: { status: "BLOCKED" } }, inFlight: true });
    await outbox.remove(fresh);
    expect(await outbox.claim(fresh)).toBeUndefined();
    expect((await outbox.pending(p)).total).toBe(0);
  });

  it("retries network errors, HTTP 5xx and OCPI 3xxx with backoff, in order", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = partnerSide(p);
    const failures = [
      new PartnerCallError("unreachable", "PUT http://127.0.0.1:1/x failed: ECONNREFUSED"),
      new PartnerCallError("http", "HTTP 503 without an OCPI envelope", 503),
      new PartnerCallError("ocpi", "status_code 3000", 200, 3000),
    ];
    side.failWith = () => failures.shift();
    const worker = startWorker(outbox, side.send);
    await outbox.enqueue(message(p, "/first"));
    await outbox.enqueue(message(p, "/second"));
    await until(() => side.received.length === 2);
    expect(side.paths()).toEqual(["/first", "/second"]);
    await worker.drain();
    await until(async () => (await outbox.counts(p)).delivered === 2);
    expect(await outbox.counts(p)).toEqual({ delivered: 2, rejected: 0, dropped: 0 });
  });

  it("dead-letters a 2xxx rejection without retrying it, counts it and goes on", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = partnerSide(p);
    let attempts = 0;
    side.failWith = (req) => {
      if ((req.target as { path: string }).path !== "/refused") return undefined;
      attempts++;
      return new PartnerCallError("ocpi", "HTTP 404, status_code 2001: EVSE not found", 404, 2001);
    };
    const rejected: string[] = [];
    startWorker(outbox, side.send, { rejected: (m) => void rejected.push(m.label) });
    await outbox.enqueue(message(p, "/refused"));
    await outbox.enqueue(message(p, "/next"));
    await until(() => side.received.length === 1);
    expect(side.paths()).toEqual(["/next"]);
    expect(attempts).toBe(1);
    expect(rejected).toEqual(["PATCH /refused"]);
    await until(async () => (await outbox.counts(p)).rejected === 1);
    expect(await outbox.counts(p)).toEqual({ delivered: 1, rejected: 1, dropped: 0 });
    // not essential, and kept all the same, with the partner's answer
    const { items } = await outbox.deadLetters(p);
    expect(items).toEqual([expect.objectContaining({ label: "PATCH /refused", answer: expect.objectContaining({ httpStatus: 404, statusCode: 2001 }) })]);
    expect(await outbox.lastRejection(p)).toMatchObject({ label: "PATCH /refused", answer: { statusCode: 2001 } });
  });

  it("two refused versions of one object in a collapse slot are two dead letters, in their order; a re-sent one reaches the partner", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = partnerSide(p);
    side.failWith = () => new PartnerCallError("ocpi", "HTTP 400, status_code 2001: unknown EVSE", 400, 2001);
    startWorker(outbox, side.send);
    await outbox.enqueue(message(p, "/evse", { collapseKey: "evse-status", body: { status: "AVAILABLE" } }));
    await until(async () => (await outbox.deadLetters(p)).total === 1);
    // the slot is free again: the next version takes it, under the same id
    await outbox.enqueue(message(p, "/evse", { collapseKey: "evse-status", body: { status: "CHARGING" } }));
    await until(async () => (await outbox.deadLetters(p)).total === 2);
    const { items } = await outbox.deadLetters(p);
    expect(items.map((l) => (l.request.body as { status: string }).status)).toEqual(["AVAILABLE", "CHARGING"]);
    expect(new Set(items.map((l) => l.id)).size).toBe(2);
    side.failWith = undefined;
    expect(await outbox.retryDeadLetters(p, items[1].id)).toEqual([expect.objectContaining({ deadLetterId: items[1].id })]);
    await until(() => side.received.length === 1);
    expect(side.received.map((r) => r.body)).toEqual([{ status: "CHARGING" }]);
    expect((await outbox.deadLetters(p)).items.map((l) => l.id)).toEqual([items[0].id]);
  });

  it("past the backlog window drops superseded updates, keeps essential ones and asks for a resync", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = partnerSide(p);
    side.failWith = () => new PartnerCallError("unreachable", "ECONNREFUSED");
    const resyncs: string[] = [];
    startWorker(outbox, side.send, { resyncNeeded: (id) => void resyncs.push(id) }, { baseDelayMs: 10, maxDelayMs: 20, backlogWindowMs: 150 });
    await outbox.enqueue(message(p, "/loc1"));
    await outbox.enqueue(message(p, "/cdr1", { essential: true }));
    await outbox.enqueue(message(p, "/evse1", { collapseKey: "k" }));
    await outbox.enqueue(message(p, "/cdr2", { essential: true }));
    await until(() => resyncs.length > 0);
    expect(resyncs[0]).toBe(p);
    expect((await outbox.pending(p)).items.map((m) => m.label)).toEqual(["PATCH /cdr1", "PATCH /cdr2"]);
    await until(async () => (await outbox.counts(p)).dropped === 2);

    side.failWith = undefined;
    await until(() => side.received.length === 2);
    expect(side.paths()).toEqual(["/cdr1", "/cdr2"]);
  });

  it("delivers partners side by side: a long backlog does not hold up another partner", async () => {
    const outbox = new Outbox(store);
    const [slow, quick] = [partner(), partner()];
    const [slowSide, quickSide] = [partnerSide(slow), partnerSide(quick)];
    startWorker(outbox, async (to, req) => {
      if (to === slow) await new Promise((resolve) => setTimeout(resolve, 20));
      await slowSide.send(to, req);
      await quickSide.send(to, req);
    });
    for (let n = 0; n < 30; n++) await outbox.enqueue(message(slow, `/slow${n}`));
    await until(() => slowSide.received.length > 0);
    await outbox.enqueue(message(quick, "/quick"));
    await until(() => quickSide.received.length === 1);
    expect(slowSide.received.length).toBeLessThan(30);
    await until(() => slowSide.received.length === 30);
    expect(slowSide.paths()).toEqual(Array.from({ length: 30 }, (_, n) => `/slow${n}`));
  });

  it("two workers on one store (two instances) deliver every message once, in order", async () => {
    const p = partner();
    const side = partnerSide(p);
    const [one, two] = [new Outbox(store), new Outbox(store)];
    startWorker(one, side.send);
    startWorker(two, side.send);
    for (let n = 0; n < 40; n++) await (n % 2 ? one : two).enqueue(message(p, `/m${n}`));
    await until(() => side.received.length >= 40);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(side.paths()).toEqual(Array.from({ length: 40 }, (_, n) => `/m${n}`));
  });

  it.each(["refuse", "apply"] as const)(
    "a delivered message is not sent again when the store fails its removal (%s): retried under the lock until confirmed (issue #8)",
    async (kind) => {
      const p = partner();
      const side = partnerSide(p);
      let deletes = 0;
      // the first three removals from the queue fail, as during a failover
      const flaky = failingStore(store, (method, collection) => (method === "delete" && collection === `outbox:queue:${p}` && ++deletes <= 3 ? kind : undefined));
      // two instances on the failing store: the other one must not take the queue meanwhile
      const outboxes = [new Outbox(flaky), new Outbox(flaky)];
      for (const outbox of outboxes) {
        const worker = new OutboxWorker(outbox, flaky, side.send, () => FAST, log, {}, { pollMs: 20 });
        workers.push(worker);
        worker.start();
      }
      await outboxes[0].enqueue(message(p, "/first"));
      await outboxes[1].enqueue(message(p, "/second"));
      await until(async () => (await outboxes[0].pending(p)).total === 0 && side.received.length >= 2);
      await pause(200);
      expect(deletes).toBeGreaterThan(3);
      expect(side.paths()).toEqual(["/first", "/second"]);
    },
  );

  it("a message enqueued under a stable id is queued once, and dropped unsent when enqueued again after its delivery", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = partnerSide(p);
    const result: EnqueueRequest = { ...message(p, "/result", { essential: true }), id: "commands.received:c1" };
    await outbox.enqueue(result);
    // a retry whose first write had landed after all
    await outbox.enqueue(result);
    expect((await outbox.pending(p)).items.map((m) => m.id)).toEqual(["commands.received:c1"]);
    startWorker(outbox, side.send);
    await until(async () => side.received.length === 1 && (await outbox.pending(p)).total === 0);
    // once more, after the delivery: taken off the queue without being sent
    await outbox.enqueue(result);
    await until(async () => (await outbox.pending(p)).total === 0);
    await pause(50);
    expect(side.paths()).toEqual(["/result"]);
    expect(await outbox.forgetSent(p, Date.now() + 1)).toBe(1);
  });

  it("removing a delivered message again leaves a newer one in its collapse slot", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const status = (s: string) => message(p, "/E1", { collapseKey: "E1:status", body: { status: s } });
    await outbox.enqueue(status("CHARGING"));
    const delivered = (await outbox.claim((await outbox.head(p))!))!;
    await outbox.remove(delivered);
    await outbox.enqueue(status("AVAILABLE"));
    // the removal repeated, as after a failed acknowledgement: the slot now holds another message
    await outbox.remove(delivered);
    expect(await bodies(outbox, p)).toEqual([{ status: "AVAILABLE" }]);
  });

  it("survives a restart: another Outbox on the same store delivers what was queued", async () => {
    const p = partner();
    await new Outbox(store).enqueue(message(p, "/queued-before-restart", { essential: true }));
    const outbox = new Outbox(store);
    expect((await outbox.head(p))?.label).toBe("PATCH /queued-before-restart");
    const side = partnerSide(p);
    startWorker(outbox, side.send);
    await until(() => side.received.length === 1);
  });

  it("a worker that was not started delivers nothing (a CLI process only enqueues)", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = partnerSide(p);
    const idle = new OutboxWorker(outbox, store, side.send, () => FAST, log);
    await outbox.enqueue(message(p, "/not-yet"));
    await idle.drain();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(side.received).toEqual([]);
    expect((await outbox.pending(p)).total).toBe(1);
    workers.push(idle);
    idle.start();
    await until(() => side.received.length === 1);
  });
});

describe("retry classification", () => {
  it.each([
    ["network error", true, new PartnerCallError("unreachable", "ECONNREFUSED")],
    ["timeout", true, new PartnerCallError("timeout", "timed out")],
    ["HTTP 500 without envelope", true, new PartnerCallError("http", "HTTP 500", 500)],
    ["HTTP 502 with a 1000 envelope", true, new PartnerCallError("http", "HTTP 502", 502, 1000)],
    ["OCPI 3000", true, new PartnerCallError("ocpi", "3000", 200, 3000)],
    ["OCPI 3001 on HTTP 500", true, new PartnerCallError("ocpi", "3001", 500, 3001)],
    ["HTTP 429", true, new PartnerCallError("http", "HTTP 429", 429)],
    ["OCPI 2001", false, new PartnerCallError("ocpi", "2001", 200, 2001)],
    ["HTTP 404 with 2003", false, new PartnerCallError("ocpi", "2003", 404, 2003)],
    ["HTTP 400 without envelope", false, new PartnerCallError("http", "HTTP 400", 400)],
    ["any other error", true, new Error("socket hang up")],
  ])("%s: retried %s", (_name, expected, error) => {
    expect(isRetryable(error)).toBe(expected);
  });

  it("backs off exponentially up to the maximum, with jitter", () => {
    const policy: RetryPolicy = { baseDelayMs: 100, maxDelayMs: 1000, backlogWindowMs: 0 };
    const delays = [0, 1, 2, 3, 10].map((attempts) => retryDelay(policy, attempts));
    expect(delays[0]).toBeGreaterThanOrEqual(80);
    expect(delays[0]).toBeLessThanOrEqual(120);
    expect(delays[2]).toBeGreaterThanOrEqual(320);
    expect(delays[2]).toBeLessThanOrEqual(480);
    expect(delays[4]).toBeLessThanOrEqual(1200);
    expect(delays[4]).toBeGreaterThanOrEqual(800);
  });
});

describe("push settings (partners[].push)", () => {
  const configWith = (push: unknown) => testGatewayConfig({ port: 8080, partners: [{ id: "emsp", push } as never] });

  it("become the partner's retry policy, over the defaults", () => {
    const config = configWith({ base_delay_ms: 50, backlog_window_ms: "2000" });
    expect(retryPolicyOf(config.partners[0].push)).toEqual({ baseDelayMs: 50, maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs, backlogWindowMs: 2000 });
    expect(retryPolicyOf(undefined)).toEqual(DEFAULT_RETRY_POLICY);
  });

  it("are checked, naming the field", () => {
    let error: unknown;
    try {
      configWith({ base_delay_ms: 0, max_delay_ms: "soon", retries: 3 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const errors = (error as ConfigError).errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^partners\[0\]\.push\.base_delay_ms: must be a whole number of milliseconds/),
        expect.stringMatching(/^partners\[0\]\.push\.max_delay_ms: must be a whole number of milliseconds/),
        expect.stringMatching(/^partners\[0\]\.push\.retries: unknown key/),
      ]),
    );
  });
});
