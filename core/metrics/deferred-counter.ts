import { Counter, type Registry } from "prom-client";

/**
 * A prom-client Counter whose counts are kept in a map by label set and
 * handed to it when it is read (scraped). prom-client hashes and checks the
 * labels on every inc(), which cost a cached GET a noticeable share of its
 * few microseconds; here a count is one lookup by a key the caller builds
 * from the label values. Memory is bounded as the counter's own is: by the
 * label sets.
 */
export class DeferredCounter<L extends string> {
  private readonly uncounted = new Map<string, { labels: Record<L, string>; count: number }>();

  constructor(registry: Registry, config: { name: string; help: string; labelNames: readonly L[] }) {
    const counter: Counter<L> = new Counter({
      ...config,
      registers: [registry],
      collect: () => {
        for (const { labels, count } of this.uncounted.values()) counter.inc(labels, count);
        this.uncounted.clear();
      },
    });
  }

  /** One more of the label set `key` stands for (one key per set of values); `labels` gives the set the first time. */
  inc(key: string, labels: () => Record<L, string>): void {
    const entry = this.uncounted.get(key);
    if (entry) entry.count++;
    else this.uncounted.set(key, { labels: labels(), count: 1 });
  }
}
