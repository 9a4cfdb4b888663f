import { spawnSync } from "node:child_process";
import path from "node:path";
import { stringify } from "yaml";
import { ConfigError, parseConfig } from "../../config/load-config";
import { CLI } from "../support/gateway-process";

/**
 * server.heap_growth_percent (app/heap-growth.ts): a process of the CLI (`ocpi-gateway start`, `sync` …) lets V8's heap grow only
 * that far past what its last full collection kept before collecting again, so garbage that lives a little while
 * (a sync pull's pages) does not pile up to several times what is alive.
 */

const HEAP_GROWTH = path.join(path.dirname(CLI), "heap-growth.js");

/**
 * The peak heap (MB) of a process that keeps a steady live set and makes pages of objects that live across a few
 * turns, then die, as a pull's pages do; `server` is passed to applyHeapGrowth as the CLI passes
 * config.server. A 4 GB heap limit, so that V8's own choice is the one it makes on a machine with much memory.
 */
const peakHeapMb = (server: Record<string, unknown>): number => {
  const script = `
    const v8 = require("node:v8");
    require(${JSON.stringify(HEAP_GROWTH)}).applyHeapGrowth(${JSON.stringify(server)});
    const live = Array.from({ length: 300000 }, (_, i) => ({ i, s: "live-" + i }));
    let peak = 0;
    (async () => {
      const held = [];
      for (let page = 0; page < 150; page++) {
        held.push(Array.from({ length: 10000 }, (_, i) => ({ id: "LOC" + page + "-" + i, n: i, nested: { a: i, b: "x" } })));
        if (held.length > 3) held.shift();
        await new Promise((resolve) => setImmediate(resolve));
        peak = Math.max(peak, v8.getHeapStatistics().total_heap_size);
      }
      console.log(JSON.stringify({ peakMb: peak / 1048576, live: live.length }));
    })();`;
  const run = spawnSync(process.execPath, ["--max-old-space-size=4096", "-e", script], { encoding: "utf8" });
  expect(run.status).toBe(0);
  return (JSON.parse(run.stdout.trim()) as { peakMb: number }).peakMb;
};

describe("server.heap_growth_percent", () => {
  it("keeps the heap of a process making short-lived garbage well below what V8's own growth lets it reach", () => {
    const own = peakHeapMb({ heap_growth_percent: 0 });
    const byDefault = peakHeapMb({});
    // measured on the bench machine: about 180 MB with V8's own growth, about 105-110 MB with the default 100 %
    expect(byDefault).toBeLessThan(own * 0.75);
    // a tighter growth keeps it lower still: the setting is what decides
    expect(peakHeapMb({ heap_growth_percent: 10 })).toBeLessThan(own * 0.75);
  });

  it("defaults to 100, and is checked naming the field", () => {
    const base = {
      server: { public_url: "https://gw.example.com/ocpi" },
      parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Example CPO" } }],
      adapters: { local: {} },
    };
    expect(parseConfig(stringify(base), {}).server.heap_growth_percent).toBe(100);
    expect(parseConfig(stringify({ ...base, server: { ...base.server, heap_growth_percent: 0 } }), {}).server.heap_growth_percent).toBe(0);
    for (const bad of [-1, 401, 12.5, "lots"]) {
      let error: unknown;
      try {
        parseConfig(stringify({ ...base, server: { ...base.server, heap_growth_percent: bad } }), {});
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain("server.heap_growth_percent: must be a whole number of per cent between 0 and 400 (0: V8's own choice)");
    }
  });
});
