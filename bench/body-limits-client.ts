import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { request } from "undici";
import { stringify } from "yaml";
import type { GatewayConfig, InboundServerConfig } from "../config/types";
import { HOST, freePort, spawnOnServerCore, stop } from "./support";

/** the gateway's garbage collections over a run: how many, their pauses in all and the longest (ms) */
export interface GcPauses {
  count: number;
  ms: number;
  maxMs: number;
}

/**
 * What bench/body-limits-gateway.ts measured since it was last asked (ms): its event loop's delay (max, p99), its
 * CPU time, its garbage collections, and its own time serving each GET of the partner API (from the request's head
 * parsed to the answer's end: without the wait for its event loop before it)
 */
export interface GatewayMeasure {
  max: number;
  p99: number;
  cpuMs: number;
  gc: GcPauses;
  served: { count: number; p50: number; p99: number };
}
/** A bench gateway process on the server core (bench/body-limits-gateway.ts) with these inbound limits, and a client of it. */
export const startGateway = async (limits: InboundServerConfig): Promise<{ client: Client; stop(): Promise<void> }> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-bench-body-"));
  const port = await freePort();
  const config: GatewayConfig = {
    server: {
      port,
      host: HOST,
      public_url: `http://${HOST}:${port}`,
      max_page_limit: 100,
      token_grace_seconds: 0,
      request_timeout_ms: 5000,
      log_level: "warn",
      inbound: limits,
    },
    parties: [
      { country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Bench CPO" } },
      { country_code: "NL", party_id: "EMP", role: "EMSP", business_details: { name: "Bench eMSP" } },
    ],
    store: { type: "sqlite", path: path.join(dir, "gateway.db") },
    modules: { tokens: { adapter: "local" }, locations: { adapter: "local" } },
    adapters: { local: {} },
    partners: [{ id: "bench", versions: ["2.3.0"], token_encoding: "auto", header_prefix: "OCPI", strictness: "reject", callback_hosts: [] }],
  };
  writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
  // BENCH_CPU_PROF=<dir>: each gateway writes a CPU profile there (node --cpu-prof), as the other scenarios do
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF] : [];
  const child = spawnOnServerCore([...profile, path.resolve(__dirname, "body-limits-gateway.js"), path.join(dir, "gateway.yaml")]);
  const stopIt = async () => {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const started = await new Promise<RegExpExecArray>((resolve, reject) => {
      let seen = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /listening on (\d+) delay on (\d+) token (\S+)/.exec(seen);
        if (match) resolve(match);
      });
      child.stderr!.on("data", (chunk: Buffer) => (seen += chunk.toString()));
      child.once("exit", (code) => reject(new Error(`gateway exited with ${code}: ${seen}`)));
    });
    return { client: new Client(`http://${HOST}:${started[1]}/ocpi/2.3.0/receiver`, `http://${HOST}:${started[2]}/`, started[3]), stop: stopIt };
  } catch (error) {
    await stopIt();
    throw error;
  }
};

export class Client {
  readonly authorization: string;
  constructor(
    readonly base: string,
    private readonly probe: string,
    token: string,
  ) {
    this.authorization = `Token ${Buffer.from(token).toString("base64")}`;
  }

  /** the gateway's event-loop delay (max, p99) and CPU time since the last call, ms */
  async delay(): Promise<GatewayMeasure> {
    const { body } = await onceMore(() => request(this.probe));
    return (await body.json()) as GatewayMeasure;
  }

  async put(where: string, json: string, chunked = false): Promise<{ status: number; statusCode?: number; ms: number }> {
    const began = performance.now();
    const bytes = Buffer.from(json);
    const pieces = async function* () {
      for (let at = 0; at < bytes.length; at += 65_536) yield bytes.subarray(at, at + 65_536);
    };
    try {
      const { statusCode, body } = await request(this.base + where, {
        method: "PUT",
        headers: { authorization: this.authorization, "content-type": "application/json" },
        body: chunked ? Readable.from(pieces()) : bytes,
      });
      const answer = (await body.json().catch(() => ({}))) as { status_code?: number };
      return { status: statusCode, statusCode: answer.status_code, ms: performance.now() - began };
    } catch {
      // a refused body the gateway stopped reading before this client had read the answer (EPIPE, ECONNRESET)
      return { status: 0, ms: performance.now() - began };
    }
  }

  async get(where: string): Promise<{ status: number; ms: number }> {
    const began = performance.now();
    const { statusCode, body } = await onceMore(() => request(this.base + where, { headers: { authorization: this.authorization } }));
    await body.dump({ limit: Infinity });
    return { status: statusCode, ms: performance.now() - began };
  }
}

/**
 * A GET sent again once when its kept-alive connection was closed under it (undici's "other side closed": the
 * server's keep-alive timeout ending as the request went out, seen on a loaded machine); GETs change nothing.
 */
const onceMore = async <T>(send: () => Promise<T>): Promise<T> => {
  try {
    return await send();
  } catch (error) {
    if ((error as { code?: string }).code !== "UND_ERR_SOCKET") throw error;
    return send();
  }
};
