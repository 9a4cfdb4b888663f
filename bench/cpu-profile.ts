import "reflect-metadata";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { benchGatewayConfig, registerBenchPartner } from "./bench-gateway";
import { HOST, freePort, load, spawnOnServerCore, stop, waitForOutput } from "./support";

const CLI = path.resolve(__dirname, "../app/cli.js");

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface Frame {
  frame: string;
  selfPercent: number;
}

/**
 * `npm run bench -- profile`: the bench gateway (SQLite, 1,000 Locations,
 * default cache) under `node --cpu-prof` while autocannon sends the cached
 * `GET /ocpi/2.3.0/sender/locations?limit=50`; the frames with the most self
 * time, as a share of all samples (idle and GC included, so the shares show
 * where the core goes).
 */
export const profileCachedLocations = async (seconds: number, top = 20): Promise<{ frames: Frame[]; requestsPerSecond: number }> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-profile-"));
  try {
    const port = await freePort();
    const config = benchGatewayConfig(dir, port);
    writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
    const token = await registerBenchPartner(config);
    const profiles = path.join(dir, "profiles");
    const gateway = spawnOnServerCore(["--cpu-prof", "--cpu-prof-dir", profiles, CLI, "start", "--config", path.join(dir, "gateway.yaml")]);
    let requestsPerSecond = 0;
    try {
      await waitForOutput(gateway, "listening on");
      const url = `http://${HOST}:${port}/ocpi/2.3.0/sender/locations?limit=50`;
      const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
      const sample = await fetch(url, { headers });
      if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}`);
      await sample.arrayBuffer();
      requestsPerSecond = (await load("profile", url, headers, seconds)).requestsPerSecond;
    } finally {
      await stop(gateway);
    }
    const file = readdirSync(profiles).find((f) => f.endsWith(".cpuprofile"));
    if (!file) throw new Error("the gateway wrote no CPU profile");
    return { frames: topFrames(JSON.parse(readFileSync(path.join(profiles, file), "utf8")) as { nodes: ProfileNode[] }, top), requestsPerSecond };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** Self time by function and place (file:line, shortened to the project or package), largest first. */
export const topFrames = (profile: { nodes: ProfileNode[] }, top: number): Frame[] => {
  const byFrame = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    total += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    const frame = `${functionName || "(anonymous)"} ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ""}`.trim();
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + hits);
  }
  return [...byFrame.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, hits]) => ({ frame, selfPercent: (100 * hits) / Math.max(1, total) }));
};

const shortUrl = (url: string): string => {
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) return url.slice(modules + "node_modules/".length);
  const dist = url.indexOf("/dist/");
  if (dist >= 0) return url.slice(dist + "/dist/".length);
  return url.replace(/^file:\/\//, "");
};

export const profileTable = (result: { frames: Frame[]; requestsPerSecond: number }): string[] => [
  `${Math.round(result.requestsPerSecond)} requests/s under the profiler (which slows the gateway down).`,
  "",
  "| frame | self % |",
  "|---|---:|",
  ...result.frames.map((f) => `| \`${f.frame.replace(/\|/g, "\\|")}\` | ${f.selfPercent.toFixed(1)} |`),
  ];
