import "reflect-metadata";
import type { ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { benchGatewayConfig, registerBenchPartner } from "./bench-gateway";
import { HOST, freePort, load, spawnOnServerCore, stop, waitForOutput, type LoadResult } from "./support";

const CLI = path.resolve(__dirname, "../app/cli.js");
const RAW_SERVER = path.resolve(__dirname, "raw-server.js");

/**
 * Authenticated `GET /locations?limit=50` on a gateway process (local
 * adapter, SQLite, 1,000 locations) against a raw node:http server that
 * answers the same bytes: the ratio is the cost of the whole kernel.
 */
export const benchLocationsList = async (seconds: number): Promise<LoadResult[]> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-bench-"));
  const port = await freePort();
  const config = benchGatewayConfig(dir, port);
  writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
  const token = await registerBenchPartner(config);

  const gateway = spawnOnServerCore([CLI, "start", "--config", path.join(dir, "gateway.yaml")]);
  let raw: ChildProcess | undefined;
  try {
    await waitForOutput(gateway, "listening on");
    const url = `http://${HOST}:${port}/ocpi/2.3.0/sender/locations?limit=50`;
    const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
    const sample = await fetch(url, { headers });
    const body = Buffer.from(await sample.arrayBuffer());
    if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}: ${body.toString()}`);
    const sampleHeaders = Object.fromEntries([...sample.headers].filter(([k]) => k !== "content-length" && k !== "date" && k !== "connection" && k !== "keep-alive"));

    const rawPort = await freePort();
    writeFileSync(path.join(dir, "body"), body);
    writeFileSync(path.join(dir, "headers.json"), JSON.stringify(sampleHeaders));
    raw = spawnOnServerCore([RAW_SERVER, String(rawPort), path.join(dir, "body"), path.join(dir, "headers.json")]);
    await waitForOutput(raw, "listening on");

    const baseline = await load("raw node:http, same bytes", `http://${HOST}:${rawPort}/`, headers, seconds);
    const gatewayResult = await load("gateway GET /locations?limit=50 (SQLite, local adapter, default cache)", url, headers, seconds);
    return [baseline, gatewayResult];
  } finally {
    if (raw) await stop(raw);
    await stop(gateway);
    rmSync(dir, { recursive: true, force: true });
  }
};
