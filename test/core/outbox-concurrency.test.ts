import { randomUUID } from "node:crypto";
import path from "node:path";
import pino from "pino";
import type { Store } from "../../core/contract/store";
import { openStore } from "../../core/store/open-store";
import { Outbox } from "../../core/outbox/outbox";
import { type EnqueueRequest } from "../../core/outbox/outbox-message";
import { type OutboundRequest } from "../../core/client/outbound-request";
import { OutboxWorker } from "../../core/outbox/outbox-worker";
import { DEFAULT_PUSH_CONCURRENCY } from "../../core/partners/partner-settings";
import type { RetryPolicy } from "../../core/contract/partner-profile";
import { PartnerCallError } from "../../core/client/ocpi-client";
import { removeTempDirs, tempDir, testGatewayConfig } from "../support/gateway-config";
import { ConfigError } from "../../config/load-config";

/**
 * Issue #11: a partner's messages are delivered several at a time, in order per object (OutboxMessage.orderKey,
 * an object path), at most the partner's concurrency at once (`partners[].push.concurrency`). The partner here
 * answers after a random delay, so later messages overtake earlier ones wherever the worker lets them.
 */

const log = pino({ level: "silent" });
const FAST: RetryPolicy = { baseDelayMs: 10, maxDelayMs: 40, backlogWindowMs: 60_000 };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const until = async (check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await pause(10);
  }
};

interface Update {
  object: string;
  n: number;
}

/** A change of `object` (a path below locations:NLCPO) numbered `n`, as push-fan-out orders it. */
const update = (partnerId: string, object: string, n: number, collapse = false): EnqueueRequest => ({
  partnerId,
  request: { method: "PATCH", target: { module: "locations", role: "RECEIVER", path: `/NL/CPO/${object}` }, body: { object, n } satisfies Update },
  label: `PATCH ${object} #${n}`,
  orderKey: `locations:NLCPO/${object}`,
  collapseKey: collapse ? `locations:NLCPO/${object}:status` : undefined,
});

/** The partner: answers each message after 0-`maxDelayMs` ms, records arrivals and how many were in flight at most. */
const slowPartner = (partnerId: string, maxDelayMs = 8) => {
  const side = {
    arrived: [] as Update[],
    inFlight: 0,
    maxInFlight: 0,
    /** messages of one object in flight together (must never happen) */
    overlaps: [] as string[],
    busy: new Set<string>(),
    send: async (to: string, req: OutboundRequest) => {
      if (to !== partnerId) return;
      const body = req.body as Update;
      // the object and its parents: a Location's PUT and its EVSE's PATCH may not be in flight together
      const parts = body.object.split("/").map((_, i, all) => all.slice(0, i + 1).join("/"));
      for (const busy of side.busy) if (parts.includes(busy) || busy.startsWith(`${body.object}/`)) side.overlaps.push(`${busy} with ${body.object}`);
      side.busy.add(body.object);
      side.inFlight++;
      side.maxInFlight = Math.max(side.maxInFlight, side.inFlight);
      try {
        await pause(Math.random() * maxDelayMs);
        side.arrived.push(body);
      } finally {
        side.inFlight--;
        side.busy.delete(body.object);
      }
    },
  };
  return side;
};

const STORES: { name: string; open: () => Promise<Store> }[] = [
  { name: "SQLite", open: () => openStore({ type: "sqlite", path: path.join(tempDir("ocpi-outbox-conc-"), "outbox.db") }) },
  {
    name: "Redis",
    open: () => {
      if (!process.env.REDIS_URL) throw new Error("REDIS_URL is not set: the jest global setup starts a redis-server");
      return openStore({ type: "redis", url: process.env.REDIS_URL, key_prefix: `test:outbox-conc:${randomUUID()}:` });
    },
  },
];

afterAll(() => removeTempDirs());

describe.each(STORES)("concurrent delivery on $name", ({ open }) => {
  let store: Store;
  const workers: OutboxWorker[] = [];
  const partner = () => `p-${randomUUID().slice(0, 8)}`;
  const startWorker = (outbox: Outbox, send: (p: string, r: OutboundRequest) => Promise<void>, concurrency?: number) => {
    const worker = new OutboxWorker(outbox, store, send, () => FAST, log, {}, { pollMs: 20, concurrencyOf: concurrency ? () => concurrency : undefined });
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

  it("keeps each object's updates in order, and its last state the latest, while objects overtake each other", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = slowPartner(p);
    const OBJECTS = 40;
    const UPDATES = 5;
    // interleaved as changes come: update 1 of every EVSE, then update 2 …; every fifth object is a Location
    // whose EVSEs also change, so parents and parts must keep their order too
    const objectOf = (o: number) => (o % 5 === 0 ? `LOC${o}` : `LOC${o - (o % 5)}/EVSE${o}`);
    const messages: EnqueueRequest[] = [];
    for (let n = 1; n <= UPDATES; n++) for (let o = 0; o < OBJECTS; o++) messages.push(update(p, objectOf(o), n));
    await outbox.enqueueAll(messages);
    startWorker(outbox, side.send);
    await until(() => side.arrived.length === OBJECTS * UPDATES);
    await until(async () => (await outbox.pending(p)).total === 0);

    expect(side.overlaps).toEqual([]);
    for (let o = 0; o < OBJECTS; o++) {
      const object = objectOf(o);
      expect(side.arrived.filter((u) => u.object === object).map((u) => u.n)).toEqual([1, 2, 3, 4, 5]);
    }
    // a Location's update n (queued before its EVSEs' update n) arrives before them, and after their update n - 1
    const at = (object: string, n: number) => side.arrived.findIndex((u) => u.object === object && u.n === n);
    for (let o = 0; o < OBJECTS; o += 5)
      for (let e = o + 1; e < o + 5; e++)
        for (let n = 1; n <= UPDATES; n++) {
          expect(at(objectOf(o), n)).toBeLessThan(at(objectOf(e), n));
          if (n > 1) expect(at(objectOf(o), n)).toBeGreaterThan(at(objectOf(e), n - 1));
        }
    // and it was concurrent: objects overtook each other
    expect(side.maxInFlight).toBeGreaterThan(1);
    const firstRound = side.arrived.slice(0, OBJECTS).map((u) => u.n);
    expect(firstRound.some((n) => n > 1) || side.maxInFlight > 1).toBe(true);
    // counts are written at the end of a delivery pass (README "Pushes"), after the queue's last removal
    await until(async () => (await outbox.counts(p)).delivered === OBJECTS * UPDATES);
    expect(await outbox.counts(p)).toMatchObject({ delivered: OBJECTS * UPDATES, rejected: 0, dropped: 0 });
  });

  it("status updates collapse while others are delivered: each EVSE ends on its newest status, never an older one after it", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = slowPartner(p, 5);
    startWorker(outbox, side.send);
    const EVSES = 30;
    const UPDATES = 8;
    for (let n = 1; n <= UPDATES; n++) {
      await outbox.enqueueAll(Array.from({ length: EVSES }, (_, e) => update(p, `LOC1/EVSE${e}`, n, true)));
      await pause(3);
    }
    await until(async () => (await outbox.pending(p)).total === 0);
    await outbox.enqueue(update(p, "LOC1", 99));
    await until(async () => side.arrived.some((u) => u.n === 99));
    expect(side.overlaps).toEqual([]);
    for (let e = 0; e < EVSES; e++) {
      const seen = side.arrived.filter((u) => u.object === `LOC1/EVSE${e}`).map((u) => u.n);
      // increasing (collapsed ones skipped), ending on the newest
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.at(-1)).toBe(UPDATES);
    }
  });

  it("has at most the partner's concurrency in flight, and reaches it", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = slowPartner(p, 15);
    await outbox.enqueueAll(Array.from({ length: 120 }, (_, o) => update(p, `LOC${o}`, 1)));
    const bounded = startWorker(outbox, side.send, 4);
    await until(() => side.arrived.length === 120);
    expect(side.maxInFlight).toBe(4);
    // (it would take the next partner's messages too, to a partner standing for p only)
    await bounded.stop();

    const q = partner();
    const other = slowPartner(q, 5);
    await outbox.enqueueAll(Array.from({ length: 200 }, (_, o) => update(q, `LOC${o}`, 1)));
    startWorker(outbox, other.send);
    await until(() => other.arrived.length === 200);
    expect(other.maxInFlight).toBeLessThanOrEqual(DEFAULT_PUSH_CONCURRENCY);
    expect(other.maxInFlight).toBeGreaterThan(4);
  });

  it("with a concurrency of 1, delivers strictly in queue order", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = slowPartner(p, 3);
    const messages = [update(p, "LOC1", 1), update(p, "LOC1", 2), update(p, "LOC2", 1), update(p, "LOC1/EVSE1", 1), update(p, "LOC3", 1), update(p, "LOC2", 2)];
    await outbox.enqueueAll(messages);
    startWorker(outbox, side.send, 1);
    await until(() => side.arrived.length === messages.length);
    expect(side.arrived).toEqual(messages.map((m) => m.request.body));
    expect(side.maxInFlight).toBe(1);
  });

  it("a message without an object (a command result) is delivered alone, in its place", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = slowPartner(p, 5);
    const result: EnqueueRequest = {
      partnerId: p,
      request: { method: "POST", target: { url: "http://127.0.0.1:1/result" }, body: { object: "RESULT", n: 0 } satisfies Update },
      label: "POST result",
    };
    await outbox.enqueueAll([
      ...Array.from({ length: 20 }, (_, o) => update(p, `LOC${o}`, 1)),
      result,
      ...Array.from({ length: 20 }, (_, o) => update(p, `LOC${o}`, 2)),
    ]);
    startWorker(outbox, side.send);
    await until(() => side.arrived.length === 41);
    const at = side.arrived.findIndex((u) => u.object === "RESULT");
    expect(side.arrived.slice(0, at).every((u) => u.n === 1)).toBe(true);
    expect(side.arrived.slice(at + 1).every((u) => u.n === 2)).toBe(true);
    expect(at).toBe(20);
  });

  it("a retryable failure stops the pass: what is under way ends, nothing overtakes the failed message's object, it is retried", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = slowPartner(p, 5);
    let failures = 0;
    const send = async (to: string, req: OutboundRequest) => {
      const body = req.body as Update;
      if (to === p && body.object === "LOC7" && body.n === 1 && failures++ < 2) throw new PartnerCallError("http", "HTTP 503", 503);
      await side.send(to, req);
    };
    await outbox.enqueueAll([...Array.from({ length: 30 }, (_, o) => update(p, `LOC${o}`, 1)), ...Array.from({ length: 30 }, (_, o) => update(p, `LOC${o}`, 2))]);
    startWorker(outbox, send);
    await until(() => side.arrived.length === 60);
    expect(failures).toBe(3);
    expect(side.arrived.filter((u) => u.object === "LOC7").map((u) => u.n)).toEqual([1, 2]);
    for (let o = 0; o < 30; o++) expect(side.arrived.filter((u) => u.object === `LOC${o}`).map((u) => u.n)).toEqual([1, 2]);
    await until(async () => (await outbox.counts(p)).delivered === 60);
  });

  it("reads the queue again only when it may hold more: not after every delivery, yet whatever is queued meanwhile, here or by another instance, is delivered", async () => {
    const outbox = new Outbox(store);
    const p = partner();
    const side = slowPartner(p, 4);
    const pending = outbox.pending.bind(outbox);
    const pendingAfter = outbox.pendingAfter.bind(outbox);
    let reads = 0;
    /** messages read (and parsed) by the lane, all reads together */
    let read = 0;
    outbox.pending = async (id: string, limit?: number) => {
      const page = await pending(id, limit);
      if (id === p) (reads++, (read += page.items.length));
      return page;
    };
    outbox.pendingAfter = async (id: string, seq: number, limit: number) => {
      const items = await pendingAfter(id, seq, limit);
      if (id === p) read += items.length;
      return items;
    };
    // queued while the lane delivers, two objects' changes at a time, as changes come
    startWorker(outbox, side.send, 8);
    for (let o = 0; o < 60; o += 2) {
      await outbox.enqueueAll([update(p, `LOC${o}`, 1), update(p, `LOC${o + 1}`, 1)]);
      await pause(1);
    }
    await until(() => side.arrived.length === 60);
    // about one read per delivery that ended was what the lane did before (a queue fed this way is read empty each
    // time); now it reads when this process queued more, or when its deliveries under way have all ended
    expect(reads).toBeLessThan(40);
    // and what this process queued while deliveries were under way is read as the queue's tail past the last
    // read: each message about once, not again with every read while it waits or is under way
    expect(read).toBeLessThan(60 * 1.25);

    // queued while the lane runs: by this process (the worker hears of it), and by another instance's outbox on
    // the same store (it does not: read once the deliveries under way have ended)
    const elsewhere = new Outbox(store);
    await outbox.enqueueAll(Array.from({ length: 30 }, (_, o) => update(p, `LOC${o}`, 2)));
    await until(() => side.arrived.length > 60);
    await elsewhere.enqueueAll(Array.from({ length: 30 }, (_, o) => update(p, `LOC${o}`, 3)));
    await until(() => side.arrived.length === 120);
    for (let o = 0; o < 30; o++) expect(side.arrived.filter((u) => u.object === `LOC${o}`).map((u) => u.n)).toEqual([1, 2, 3]);
  });
});

describe("partners[].push.concurrency", () => {
  const configWith = (push: unknown) => testGatewayConfig({ port: 8080, partners: [{ id: "emsp", push } as never] });

  it("is taken, and checked naming the field", () => {
    expect(configWith({ concurrency: 4 }).partners[0].push).toMatchObject({ concurrency: 4 });
    let error: unknown;
    try {
      configWith({ concurrency: 0 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).errors).toEqual([expect.stringMatching(/^partners\[0\]\.push\.concurrency: must be a whole number between 1 and 256/)]);
  });
});
