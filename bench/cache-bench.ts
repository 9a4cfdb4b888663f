import "reflect-metadata";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { CacheConfig } from "../config/types";
import { DEFAULT_CACHE_CONFIG } from "../config/types";
import { benchGatewayConfig, registerBenchPartner } from "./bench-gateway";
import { HOST, freePort, load, spawnOnServerCore, startRedis, stop, waitForOutput, type LoadResult } from "./support";

const SLOW_GATEWAY = path.resolve(__dirname, "slow-locations-gateway.js");
const ADAPTER_DELAY_MS = 50;

interface Variant {
  name: string;
  cache: CacheConfig;
}

/**
 * Authenticated `GET /locations?limit=50` on a gateway whose locations
 * adapter takes 50 ms per call (1,000 locations behind it): uncached (TTL
 * 0), cached in process, and cached in process plus Redis (when
 * redis-server is installed). Every variant is its own gateway process on
 * the same store, run one after the other in the same run. Each row says
 * how many calls reached the adapter.
 */
export const benchCachedLocations = async (seconds: number): Promise<LoadResult[]> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-cache-bench-"));
  const port = await freePort();
  const base = benchGatewayConfig(dir, port);
  const token = await registerBenchPartner({ ...base, cache: { ...DEFAULT_CACHE_CONFIG, redis: false } });

  const ttl = { ...DEFAULT_CACHE_CONFIG.ttl_seconds, locations: 600 };
  const variants: Variant[] = [
    { name: "uncached (cache TTL 0)", cache: { ...DEFAULT_CACHE_CONFIG, ttl_seconds: { ...ttl, locations: 0 }, redis: false } },
    { name: "cached, in-process tier", cache: { ...DEFAULT_CACHE_CONFIG, ttl_seconds: ttl, redis: false } },
  ];
  const redis = await startRedis(dir);
  if (redis) variants.push({ name: "cached, in-process + Redis tiers", cache: { ...DEFAULT_CACHE_CONFIG, ttl_seconds: ttl, redis: true, redis_url: redis.url } });

  const url = `http://${HOST}:${port}/ocpi/2.3.0/sender/locations?limit=50`;
  const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
  const rows: LoadResult[] = [];
  try {
    for (const [i, variant] of variants.entries()) {
      const file = path.join(dir, `gateway-${i}.yaml`);
      writeFileSync(file, stringify({ ...base, cache: variant.cache }));
      const gateway = spawnOnServerCore([SLOW_GATEWAY, file, String(ADAPTER_DELAY_MS)]);
      let output = "";
      gateway.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      let result: LoadResult;
      try {
        await waitForOutput(gateway, "listening on");
        const sample = await fetch(url, { headers });
        if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}: ${await sample.text()}`);
        result = await load(variant.name, url, headers, seconds);
      } finally {
        // the gateway prints its adapter call count as it stops
        await stop(gateway);
      }
      const stdout = gateway.stdout;
      if (stdout && !stdout.closed) await new Promise((resolve) => stdout.once("close", resolve));
      const calls = /adapter calls: (\d+)/.exec(output)?.[1] ?? "?";
      rows.push({ ...result, name: `${variant.name}; calls reaching the adapter: ${calls}` });
    }
    return rows;
  } finally {
    if (redis) await stop(redis.process);
    rmSync(dir, { recursive: true, force: true });
  }
};
