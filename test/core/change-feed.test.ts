import { ChangeFeed, type DataChange } from "../../core/contract/change-feed";

/**
 * The ChangeFeed runs its listeners in order. A listener answering Staged
 * lets the next one start once it has `sent` what must come first, and
 * publish() still resolves only when it is `done` (Issue #11: the cache's
 * invalidation and the push enqueue share one round trip to Redis).
 */

const change: DataChange = { module: "locations", owner: { country_code: "NL", party_id: "GWY" }, path: ["LOC1"], kind: "delete" };

const deferred = () => {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

describe("ChangeFeed", () => {
  it("starts a listener when the one before has finished", async () => {
    const feed = new ChangeFeed();
    const events: string[] = [];
    const first = deferred();
    feed.subscribe(async () => {
      events.push("first started");
      await first.promise;
      events.push("first finished");
    });
    feed.subscribe(() => void events.push("second started"));
    const published = feed.publish(change);
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(["first started"]);
    first.resolve();
    await published;
    expect(events).toEqual(["first started", "first finished", "second started"]);
  });

  it("starts the next listener once a Staged one has sent, and resolves only when it is done", async () => {
    const feed = new ChangeFeed();
    const events: string[] = [];
    const sent = deferred();
    const done = deferred();
    feed.subscribe(() => ({ sent: sent.promise, done: done.promise }));
    feed.subscribe(() => void events.push("second started"));
    let resolved = false;
    const published = feed.publish(change).then(() => (resolved = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([]);
    sent.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(["second started"]);
    expect(resolved).toBe(false);
    done.resolve();
    await published;
    expect(resolved).toBe(true);
  });

  it("reports a Staged listener that fails after it sent, and still runs the others", async () => {
    const feed = new ChangeFeed();
    let second = false;
    feed.subscribe(() => ({ sent: Promise.resolve(), done: Promise.reject(new Error("renewal lost")) }));
    feed.subscribe(() => void (second = true));
    await expect(feed.publish(change)).rejects.toThrow(/1 change listener\(s\) failed/);
    expect(second).toBe(true);
  });
});
