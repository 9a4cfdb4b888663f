import { Pool } from "undici";

/** What a paced run measured: latencies in ms from when each request was issued to the end of its body. */
export interface PacedRun {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** the scheduler's tick: requests due within it are sent together (Node's timers are good to about a millisecond) */
const TICK_MS = 1;

/**
 * An open-loop load at a fixed rate, requests spaced evenly (every 1000/rate ms, the way wrk2 paces them),
 * each on a free kept-alive connection of a pool. Each latency runs from the time the request was issued,
 * which is when it was due unless this process's own event loop was late (its timers, its garbage
 * collector: about 5 ms at p99 here, more than a server's answer takes), not from when a connection took it:
 * a server that falls behind is charged for the queue it causes, the requests waiting for a connection
 * (coordinated omission: what a closed-loop client would have held back is counted as late).
 *
 * Why not autocannon's `overallRate`: it gives each connection its share of the second and lets it send
 * them back to back from the start of the second (lib/httpClient.js `reqsMadeThisSecond`), so 2,000 req/s
 * arrive as one burst of 2,000 each second and its p99 measures how long a burst takes to drain.
 */
export const pacedLoad = async (url: string, headers: Record<string, string>, seconds: number, rate: number, connections = 50): Promise<PacedRun> => {
  const { origin, pathname, search } = new URL(url);
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const total = Math.round(rate * seconds);
  const latencies = new Float64Array(total);
  let done = 0;
  let non2xx = 0;
  let errors = 0;
  const interval = 1000 / rate;
  const one = async (i: number, issued: number): Promise<void> => {
    try {
      const { statusCode, body } = await pool.request({ path: pathname + search, method: "GET", headers });
      await body.dump({ limit: Infinity });
      if (statusCode < 200 || statusCode > 299) non2xx++;
    } catch {
      errors++;
    }
    latencies[i] = performance.now() - issued;
    done++;
  };
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = () => {
      const now = performance.now();
      while (next < total && started + next * interval <= now) {
        inFlight.push(one(next, now));
        next++;
      }
      if (next >= total) return resolve();
      setTimeout(tick, Math.min(TICK_MS, Math.max(0, started + next * interval - performance.now())));
    };
    tick();
  });
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  const sorted = latencies.slice(0, done).sort();
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { requestsPerSecond: done / elapsed, p50: at(0.5), p99: at(0.99), non2xx, errors };
};

const round = (ms: number): number => Math.round(ms * 100) / 100;
