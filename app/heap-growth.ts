import v8 from "node:v8";
import type { ServerConfig } from "../config/types";
import { DEFAULT_HEAP_GROWTH_PERCENT } from "../config/types";

/**
 * How far V8 lets the heap grow past what its last full collection kept alive before it collects again
 * (`server.heap_growth_percent`), for the process that runs the gateway: the CLI calls this once it has read the
 * config (`start`, `sync` …), not Gateway.create, so a process that embeds the gateway keeps its own V8 settings.
 *
 * Why: V8 picks the growth from the heap's limit, which Node derives from the machine's memory (4 GB on the
 * 24 GB bench machine); with a large limit it lets the heap grow to several times what stayed alive (here from
 * about 36 MB to 156 MB between two full collections of a pull, `--trace-gc`). Garbage that lives a little while
 * before it dies, such as a sync pull's pages waiting for the store's answers, is promoted and kept until then: a
 * 100,000-Location pull into Redis peaked at 215-283 MB RSS, at 182-202 MB with 100 % (the default) and at about
 * 170 MB with 50 %, which cost about 10 % more CPU in the pull and the push benches (bench/RESULTS.md, "Full sync
 * pull"). The cost is more frequent full collections, mostly concurrent; the benches run with the default.
 *
 * V8 reads the flag whenever it sets its next limit, so setting it at start-up takes effect for the whole run
 * (`test/operating/heap-growth.test.ts` measures that it does). 0 leaves V8's own choice.
 */
export const applyHeapGrowth = (server: Pick<ServerConfig, "heap_growth_percent">): void => {
  const percent = server.heap_growth_percent ?? DEFAULT_HEAP_GROWTH_PERCENT;
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
};
