import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import { request } from "undici";
import { DEFAULT_INBOUND, type GatewayConfig, type InboundServerConfig } from "../config/types";
import { benchLocation } from "./bench-gateway";
import { pacedLoad, type PacedRun } from "./paced-load";
import { HOST, freePort, spawnOnServerCore, stop } from "./support";

/** The targets (#23): the worst accepted body delays the event loop at most this much … */
export const DELAY_TARGET_MS = 50;
/** … and a normal client's p99 while two clients send worst-case bodies is at most this many times its p99 alone. */
export const P99_RATIO_TARGET = 2;
/** the normal client: small GETs at this rate, evenly paced (open loop) */
const NORMAL_RATE = 100;
const ROUNDS = 3;
/** each body PUT this many times before anything is measured: the first few of a process run V8's unoptimized code */
const WARM_UP_ROUNDS = 3;

/** What one kind of body did to the gateway: medians over the rounds; delays are the gateway's event-loop delay (max) while it was served. */
export interface BodyRow {
  name: string;
  bytes: number;
  status: string;
  putMs: number;
  putDelayMs: number;
  /** the gateway's CPU time for the PUT (user + system): what the body costs whatever else the machine runs */
  putCpuMs: number;
  getMs?: number;
  getDelayMs?: number;
  getCpuMs?: number;
}

/** a normal client's run, and how many bodies the two heavy clients sent meanwhile */
type NormalRun = PacedRun & { heavy?: number };

export interface BodyLimitsBench {
  limits: InboundServerConfig;
  /** the machine's 1-minute load average when the run began: other work inflates delays and latencies, not CPU times */
  load: number;
  accepted: BodyRow[];
  refused: BodyRow[];
  normal: { alone: NormalRun; withAccepted: NormalRun; withRefused: NormalRun; worst: string; seconds: number };
}

/** A body to PUT (and then GET) at `path` below /ocpi/2.3.0/receiver, built fresh for each round: new keys are what costs most. */
interface Shape {
  name: string;
  path: string;
  build(): string;
  /** sent chunked, in pieces of 64 KB, without a Content-Length */
  chunked?: boolean;
}

/**
 * Issue #23 (findings D3, D4): what the worst bodies within the body limits
 * (`server.inbound`, core/http/body-limits.ts) cost a gateway process on the
 * server core, and what bodies past them cost. (a) Each kind of body at the
 * limits, PUT and read back, 3 rounds: the gateway's own event-loop delay
 * (perf_hooks, bench/body-limits-gateway.ts), its CPU time and the answer
 * times; the D3 body (a Token with 400,000 unknown members, 6.8 MB) is
 * refused, with its Content-Length and sent chunked. (b) A normal client
 * (Token GETs at a fixed rate) alone, then while two clients send the
 * costliest accepted body (by the gateway's CPU time) back to back, then
 * the D3 body.
 */
export const benchBodyLimits = async (seconds: number): Promise<BodyLimitsBench> => {
  const load = os.loadavg()[0];
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-bench-body-"));
  const port = await freePort();
  // BENCH_BODY_LIMITS='{"max_body_members":50000}': other limits than the defaults, to see what they would cost
  const limits: InboundServerConfig = { ...DEFAULT_INBOUND, ...(JSON.parse(process.env.BENCH_BODY_LIMITS ?? "{}") as Partial<InboundServerConfig>) };
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
  const child = spawnOnServerCore([path.resolve(__dirname, "body-limits-gateway.js"), path.join(dir, "gateway.yaml")]);
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
    const gateway = new Client(`http://${HOST}:${started[1]}/ocpi/2.3.0/receiver`, `http://${HOST}:${started[2]}/`, started[3]);

    // a gateway that has run a while: its code compiled by V8's optimizing tiers, as in production
    for (let round = 0; round < WARM_UP_ROUNDS; round++) for (const shape of acceptedShapes(limits)) await gateway.put(shape.path, shape.build());
    const accepted: BodyRow[] = [];
    for (const shape of acceptedShapes(limits)) accepted.push(await measure(gateway, shape, true));
    const refused = [await measure(gateway, d3Body, false), await measure(gateway, { ...d3Body, name: `${d3Body.name}, sent chunked`, chunked: true }, false)];

    const worstRow = accepted.reduce((a, b) => (b.putCpuMs + (b.getCpuMs ?? 0) > a.putCpuMs + (a.getCpuMs ?? 0) ? b : a));
    const worst = acceptedShapes(limits).find((s) => s.name === worstRow.name)!;
    const normal = await gateway.put("/tokens/DE/EMS/NORMAL", tokenWith("NORMAL", "normal"));
    if (normal.status >= 300) throw new Error(`the normal client's token was refused: ${normal.status}`);
    const run = (): Promise<PacedRun> =>
      pacedLoad(`${gateway.base}/tokens/DE/EMS/NORMAL`, { Authorization: gateway.authorization }, Math.min(seconds, 10), NORMAL_RATE, 10);
    const alone = await run();
    const withAccepted = await whileSending(gateway, worst, run);
    const withRefused = await whileSending(gateway, d3Body, run);
    return { limits, load, accepted, refused, normal: { alone, withAccepted, withRefused, worst: worst.name, seconds: Math.min(seconds, 10) } };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
};

class Client {
  readonly authorization: string;
  constructor(
    readonly base: string,
    private readonly probe: string,
    token: string,
  ) {
    this.authorization = `Token ${Buffer.from(token).toString("base64")}`;
  }

  /** the gateway's event-loop delay (max) and CPU time since the last call, ms */
  async delay(): Promise<{ max: number; cpuMs: number }> {
    const { body } = await request(this.probe);
    return (await body.json()) as { max: number; cpuMs: number };
  }

  async put(where: string, json: string, chunked = false): Promise<{ status: number; statusCode?: number; ms: number }> {
    const began = performance.now();
    const bytes = Buffer.from(json);
    const pieces = async function* () {
      for (let at = 0; at < bytes.length; at += 65_536) yield bytes.subarray(at, at + 65_536);
    };
    const { statusCode, body } = await request(this.base + where, {
      method: "PUT",
      headers: { authorization: this.authorization, "content-type": "application/json" },
      body: chunked ? Readable.from(pieces()) : bytes,
    });
    const answer = (await body.json().catch(() => ({}))) as { status_code?: number };
    return { status: statusCode, statusCode: answer.status_code, ms: performance.now() - began };
  }

  async get(where: string): Promise<{ status: number; ms: number }> {
    const began = performance.now();
    const { statusCode, body } = await request(this.base + where, { headers: { authorization: this.authorization } });
    await body.dump({ limit: Infinity });
    return { status: statusCode, ms: performance.now() - began };
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** ROUNDS times: a fresh body PUT (and, if accepted, read back), each with the gateway's event-loop delay while it was served. */
const measure = async (gateway: Client, shape: Shape, accept: boolean): Promise<BodyRow> => {
  const rounds: { bytes: number; status: string; putMs: number; putDelayMs: number; putCpuMs: number; getMs: number; getDelayMs: number; getCpuMs: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const json = shape.build();
    await gateway.delay();
    const put = await gateway.put(shape.path, json, shape.chunked);
    const afterPut = await gateway.delay();
    const status = `${put.status} ${put.statusCode ?? "-"}`;
    if ((put.statusCode === 1000) !== accept) throw new Error(`${shape.name}: answered ${status}`);
    const get = accept ? await gateway.get(shape.path) : undefined;
    const afterGet = accept ? await gateway.delay() : { max: 0, cpuMs: 0 };
    rounds.push({
      bytes: Buffer.byteLength(json),
      status,
      putMs: put.ms,
      putDelayMs: afterPut.max,
      putCpuMs: afterPut.cpuMs,
      getMs: get?.ms ?? 0,
      getDelayMs: afterGet.max,
      getCpuMs: afterGet.cpuMs,
    });
  }
  const of = (key: keyof (typeof rounds)[number]) => median(rounds.map((r) => r[key] as number));
  return {
    name: shape.name,
    bytes: rounds[0].bytes,
    status: rounds[0].status,
    putMs: of("putMs"),
    putDelayMs: of("putDelayMs"),
    putCpuMs: of("putCpuMs"),
    ...(accept ? { getMs: of("getMs"), getDelayMs: of("getDelayMs"), getCpuMs: of("getCpuMs") } : {}),
  };
};

/** `run` while two clients (bench/body-senders.ts, a thread of their own) PUT `shape` back to back: four fresh bodies, built beforehand, in turn. */
const whileSending = async (gateway: Client, shape: Shape, run: () => Promise<PacedRun>): Promise<NormalRun> => {
  const bodies = Array.from({ length: 4 }, () => shape.build());
  const senders = new Worker(path.resolve(__dirname, "body-senders.js"), { workerData: { url: gateway.base + shape.path, authorization: gateway.authorization, bodies } });
  const sent = new Promise<number>((resolve, reject) => senders.once("message", resolve).once("error", reject));
  let result: PacedRun | undefined;
  try {
    result = await run();
  } finally {
    senders.postMessage("stop");
  }
  const heavy = await sent;
  await senders.terminate();
  return { ...result, heavy };
};

const tokenWith = (uid: string, extra: unknown): string =>
  JSON.stringify({ country_code: "DE", party_id: "EMS", uid, type: "RFID", contract_id: "DE-EMS-C1", issuer: "EMS", valid: true, whitelist: "ALLOWED", last_updated: "2025-01-01T00:00:00Z", extra });

/** member names no body has used before: each new name (and each new order of names) is a new hidden class for V8 */
let fresh = 0;
const freshKey = (): string => `k${(fresh++).toString(36)}`;

/**
 * `count` objects of `members` members each: as many as the layout limit
 * allows with new member names, the rest repeating those objects' names in
 * the same order (layouts already seen in this body).
 */
const objects = (count: number, members: number, layouts: number, value: () => unknown = () => 1): Record<string, unknown>[] => {
  const names = Array.from({ length: Math.max(1, Math.min(count, Math.floor(layouts / members))) }, () => Array.from({ length: members }, freshKey));
  return Array.from({ length: count }, (_, i) => Object.fromEntries(names[i % names.length].map((name) => [name, value()])));
};

/** room the Token around `extra` takes: its members, layouts and bytes, with a margin */
const WRAPPER = { members: 20, layouts: 20, bytes: 400 };

/** The costliest bodies within the limits we know of, as a Token's unknown member `extra`, and a Location of as many EVSEs as fit. */
const acceptedShapes = (limits: InboundServerConfig): Shape[] => {
  const members = limits.max_body_members - WRAPPER.members;
  const layouts = limits.max_body_layouts - WRAPPER.layouts;
  const bytes = limits.max_body_bytes - WRAPPER.bytes;
  const perObject = Math.min(limits.max_object_members, members - 1, layouts);
  const string = limits.max_string_bytes;
  const token = (name: string, extra: () => unknown): Shape => ({ name, path: "/tokens/DE/EMS/HEAVY", build: () => tokenWith("HEAVY", extra()) });
  const small = Math.floor(members / 11);
  const wide = Math.floor(members / (perObject + 1));
  const single = Math.floor(members / 2);
  const longValue = Math.min(string, Math.floor(bytes / single) - 16);
  const longStrings = Math.min(members, Math.floor(bytes / (string + 3)));
  const shortString = Math.min(string, Math.floor(bytes / members) - 3);
  return [
    token(`${small} objects of 10 members, ${Math.min(layouts, small * 10)} new layouts`, () => objects(small, 10, layouts)),
    token(`${wide} objects of ${perObject} members, ${Math.min(layouts, wide * perObject)} new layouts`, () => objects(wide, perObject, layouts)),
    token(`${single} objects of one member of ${longValue} bytes, ${Math.min(layouts, single)} new layouts`, () => objects(single, 1, layouts, () => "v".repeat(longValue))),
    token(`${longStrings} strings of ${string} bytes`, () => Array.from({ length: longStrings }, () => "s".repeat(string))),
    token(`${members} strings of ${shortString} bytes`, () => Array.from({ length: members }, () => "s".repeat(shortString))),
    locationShape(limits),
  ];
};

/** A Location whose EVSEs have three connectors each and most optional fields: as many as the limits allow. */
const locationShape = (limits: InboundServerConfig): Shape => {
  const evse = (i: number) => ({
    uid: `EVSE${i}`,
    evse_id: `DE*CPX*E${i}`,
    status: "AVAILABLE",
    capabilities: ["RFID_READER", "REMOTE_START_STOP_CAPABLE", "RESERVABLE"],
    floor_level: "1",
    physical_reference: String(i),
    coordinates: { latitude: "52.09074", longitude: "5.12142" },
    parking_restrictions: ["EV_ONLY"],
    connectors: ["1", "2", "3"].map((id) => ({
      id,
      standard: "IEC_62196_T2",
      format: "SOCKET",
      power_type: "AC_3_PHASE",
      max_voltage: 230,
      max_amperage: 32,
      max_electric_power: 22000,
      tariff_ids: ["T1", "T2"],
      last_updated: "2026-01-01T00:00:00Z",
    })),
    last_updated: "2026-01-01T00:00:00Z",
  });
  const valuesOf = (json: string) => (json.match(/[:,[]/g) ?? []).length;
  const perEvse = valuesOf(JSON.stringify(evse(1)));
  const count = Math.min(Math.floor((limits.max_body_members - 40) / (perEvse + 1)), Math.floor((limits.max_body_bytes - 1000) / JSON.stringify(evse(99999)).length));
  return {
    name: `a Location with ${count} EVSEs of 3 connectors (same member names throughout)`,
    path: "/locations/DE/CPX/BIG",
    build: () => JSON.stringify({ ...benchLocation(1), country_code: "DE", party_id: "CPX", id: "BIG", evses: Array.from({ length: count }, (_, i) => evse(i)) }),
  };
};

/** Finding D3: a Token with 400,000 unknown members (6.8 MB). */
const d3Body: Shape = {
  name: "the D3 body: a Token with 400,000 unknown members",
  path: "/tokens/DE/EMS/D3",
  build: () => tokenWith("D3", undefined).replace(/}$/, `,${Array.from({ length: 400_000 }, () => `"m${String(fresh++).padStart(11, "0")}":1`).join(",")}}`),
};

export const bodyLimitsTable = (result: BodyLimitsBench): { title: string; lines: string[] } => {
  const { limits, load, accepted, refused, normal } = result;
  const mb = (bytes: number) => (bytes / 1e6).toFixed(2);
  const ms = (value: number | undefined) => (value === undefined ? "—" : value.toFixed(0));
  const delayOf = (r: BodyRow) => Math.max(r.putDelayMs, r.getDelayMs ?? 0);
  const worst = accepted.reduce((a, b) => (delayOf(b) > delayOf(a) ? b : a));
  const worstDelay = delayOf(worst);
  const ratio = (run: NormalRun) => run.p99 / normal.alone.p99;
  return {
    title: "Request bodies at the body limits: the gateway's event-loop delay, and a normal client beside two clients sending the worst",
    lines: [
      `Limits (\`server.inbound\`${process.env.BENCH_BODY_LIMITS ? ", set by BENCH_BODY_LIMITS" : ": the defaults"}): ${limits.max_body_bytes} bytes, ${limits.max_object_members} members an object, ${limits.max_body_members} members and array elements in all, ${limits.max_body_layouts} layouts, strings and numbers of ${limits.max_string_bytes} bytes. ` +
        `One gateway process on the server core (SQLite, local adapter; bench/body-limits-gateway.ts measures its own event loop with perf_hooks at 1 ms resolution), warmed up by ${WARM_UP_ROUNDS} unmeasured rounds of every body. Each body ${ROUNDS} times, built fresh (new member names each time); medians. ` +
        `Load average when the run began: ${load.toFixed(1)} on ${os.cpus().length} cores. ` +
        "Delay: the longest the gateway's event loop was held up while the body was served (PUT) or read back (GET); CPU: the gateway's CPU time meanwhile (user + system), which other work on the machine does not inflate; ms: the answer's time at the client.",
      "",
      "| body | MB | answer | PUT ms | PUT delay ms | PUT CPU ms | GET ms | GET delay ms | GET CPU ms |",
      "|---|---:|---|---:|---:|---:|---:|---:|---:|",
      ...[...accepted, ...refused].map(
        (r) => `| ${r.name} | ${mb(r.bytes)} | ${r.status} | ${ms(r.putMs)} | ${ms(r.putDelayMs)} | ${ms(r.putCpuMs)} | ${ms(r.getMs)} | ${ms(r.getDelayMs)} | ${ms(r.getCpuMs)} |`,
      ),
      "",
      `A normal client: GET of a small Token, ${NORMAL_RATE} a second evenly paced over 10 connections (bench/paced-load.ts), ${normal.seconds} s each; then the same while two clients PUT the costliest accepted body above by the gateway's CPU time (${normal.worst}) back to back, then the D3 body (with its Content-Length).`,
      "",
      "| normal client | requests/s | p50 ms | p99 ms | p99 / alone | errors | heavy bodies sent meanwhile |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...(
        [
          ["alone (baseline)", normal.alone],
          ["while two clients send the costliest accepted body", normal.withAccepted],
          ["while two clients send the D3 body (refused)", normal.withRefused],
        ] as const
      ).map(([name, run]) => `| ${name} | ${Math.round(run.requestsPerSecond)} | ${run.p50} | ${run.p99} | ${ratio(run).toFixed(2)} | ${run.errors + run.non2xx} | ${run.heavy ?? "—"} |`),
      "",
      `Targets (issue #23): the worst accepted body's delay at most ${DELAY_TARGET_MS} ms — measured ${worstDelay.toFixed(0)} ms, ${worst.name} (${worstDelay <= DELAY_TARGET_MS ? "met" : "not met"}); ` +
        `the normal client's p99 beside two clients sending worst-case bodies at most ${P99_RATIO_TARGET}× its p99 alone — measured ${ratio(normal.withAccepted).toFixed(2)}× with the costliest accepted body (${ratio(normal.withAccepted) <= P99_RATIO_TARGET ? "met" : "not met"}), ${ratio(normal.withRefused).toFixed(2)}× with the D3 body (${ratio(normal.withRefused) <= P99_RATIO_TARGET ? "met" : "not met"}).`,
    ],
  };
};
