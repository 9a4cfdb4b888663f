import { randomUUID } from "node:crypto";
import type { Store } from "../../core/contract/store";
import { Outbox } from "../../core/outbox/outbox";
import { type EnqueueRequest } from "../../core/outbox/outbox-message";
import { type OutboundRequest } from "../../core/client/outbound-request";
import { OutboxWorker } from "../../core/outbox/outbox-worker";
import { type OutboxEvents } from "../../core/outbox/delivery-attempt";
import { PartnerCallError } from "../../core/client/ocpi-client";
import { removeTempDirs } from "../support/gateway-config";
import { bodies, failingStore, FAST, log, message, partnerSide, pause, STORES, until } from "./outbox.fixtures";

/**
 * The outbox and its worker against both stores: FIFO per partner,
 * collapse keys, essential messages, the in-flight claim, which failures
 * are retried, and the backlog window. The worker sends through a function
 * standing for the partner (the HTTP side is covered by test/e2e/push.test.ts).
 */

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
