import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_INBOUND, type InboundServerConfig } from "../config/types";
import { acceptedShapes, d3Body, tokenWith, type Shape } from "./body-shapes";
import { pacedLoad, type PacedRun } from "./paced-load";
import type { SentBodies } from "./body-senders";
import { startGateway, type Client, type GatewayMeasure } from "./body-limits-client";
import { median, stop } from "./support";

/** The issue's targets (#23): the worst accepted body delays the event loop at most this much … */
export const DELAY_TARGET_MS = 50;
/** … and a normal client's p99 while two clients send worst-case bodies is at most this many times its p99 alone. */
export const P99_RATIO_TARGET = 2;
/** the normal client: small GETs at this rate, evenly paced (open loop) */
const NORMAL_RATE = 100;
const ROUNDS = 3;
/** the normal client's rounds (alone, then beside each kind of sender), each of three times the bench's seconds, at most 30 s: a p99 of 10 s is the 10th slowest of 1,000 requests, at the mercy of a stall or two (over eleven runs of 10 s rounds on a quiet machine, a round's p99 alone was anywhere from 1.6 to 6.4 ms), of 30 s the 30th of 3,000 */
const NORMAL_ROUNDS = 3;
const normalSeconds = (seconds: number): number => Math.min(seconds * 3, 30);
/**
 * The senders' niceness: ten steps below the bench's own (at most 19), where the scheduler gives the normal
 * client about nine tenths of a core they both want (weights 1024 and 110 at nice 0 and 10). Relative, so that a
 * bench run at a higher priority beside other work (`nice -n -10`) keeps its senders above that work.
 */
const SENDERS_NICENESS = Math.min(19, os.getPriority() + 10);
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

/** a normal client's run, the gateway's CPU time and event-loop delay meanwhile (ms), and what the two heavy clients sent */
type NormalRun = PacedRun & { gateway: GatewayMeasure; heavy?: SentBodies };
/** One round of the normal client: alone, then beside the two senders of each kind of body. */
interface NormalRound {
  alone: NormalRun;
  withAccepted: NormalRun;
  withLight: NormalRun;
  withRefused: NormalRun;
}
export interface BodyLimitsBench {
  limits: InboundServerConfig;
  /** the machine's 1-minute load average when the run began: other work inflates delays and latencies, not CPU times */
  load: number;
  accepted: BodyRow[];
  /** the same kinds of body, at the heavy thresholds instead of the limits */
  light: BodyRow[];
  refused: BodyRow[];
  normal: { rounds: NormalRound[]; worst: string; worstLight: string; seconds: number };
}

/**
 * Issue #23 (findings D3, D4, item 2): what the worst bodies within the body
 * limits (`server.inbound`, core/http/body-limits.ts) cost a gateway process
 * on the server core, and what bodies past them cost. (a) Each kind of body
 * at the limits, and at the heavy thresholds (the costliest bodies the heavy
 * lane, core/http/heavy-lane.ts, does not take), PUT and read back, 3
 * rounds: the gateway's own event-loop delay (perf_hooks,
 * bench/body-limits-gateway.ts), its CPU time and the answer times, on a
 * gateway whose lane does not pause (`heavy_body_share: 1`), so that each
 * row is what the body costs by itself; the D3 body (a Token with 400,000
 * unknown members, 6.8 MB) is refused, with its Content-Length and sent
 * chunked. (b) On a gateway with the limits as configured: a normal client
 * (Token GETs at a fixed rate) alone, then while two clients send back to
 * back the costliest accepted body (by the gateway's CPU time), the
 * costliest body below the heavy thresholds, and the D3 body; three rounds
 * of these, each ratio to the same round's run alone.
 */
export const benchBodyLimits = async (seconds: number): Promise<BodyLimitsBench> => {
  const load = os.loadavg()[0];
  // BENCH_BODY_LIMITS='{"max_body_members":50000}': other limits than the defaults, to see what they would cost
  const limits: InboundServerConfig = { ...DEFAULT_INBOUND, ...(JSON.parse(process.env.BENCH_BODY_LIMITS ?? "{}") as Partial<InboundServerConfig>) };
  const heavyShapes = acceptedShapes(limits);
  const lightShapes = acceptedShapes(belowHeavy(limits)).map((shape) => ({ ...shape, name: `${shape.name} (below the heavy thresholds)` }));
  const costliest = (rows: BodyRow[], shapes: Shape[]): Shape => {
    const row = rows.reduce((a, b) => (b.putCpuMs + (b.getCpuMs ?? 0) > a.putCpuMs + (a.getCpuMs ?? 0) ? b : a));
    return shapes.find((s) => s.name === row.name)!;
  };

  let rows = await startGateway({ ...limits, heavy_body_share: 1 });
  let accepted: BodyRow[];
  let light: BodyRow[];
  let refused: BodyRow[];
  try {
    // a gateway that has run a while: its code compiled by V8's optimizing tiers, as in production
    for (let round = 0; round < WARM_UP_ROUNDS; round++) for (const shape of [...heavyShapes, ...lightShapes]) await rows.client.put(shape.path, shape.build());
    accepted = [];
    for (const shape of heavyShapes) accepted.push(await measure(rows.client, shape, true));
    light = [];
    for (const shape of lightShapes) light.push(await measure(rows.client, shape, true));
    refused = [await measure(rows.client, d3Body, false), await measure(rows.client, { ...d3Body, name: `${d3Body.name}, sent chunked`, chunked: true }, false)];
  } finally {
    await rows.stop();
  }

  const worst = costliest(accepted, heavyShapes);
  const worstLight = costliest(light, lightShapes);
  rows = await startGateway(limits);
  try {
    const gateway = rows.client;
    // warmed up by bodies the lane does not take, so that warming it does not wait for the lane's pauses
    for (let round = 0; round < WARM_UP_ROUNDS; round++) for (const shape of lightShapes) await gateway.put(shape.path, shape.build());
    const normal = await gateway.put("/tokens/DE/EMS/NORMAL", tokenWith("NORMAL", "normal"));
    if (normal.status >= 300) throw new Error(`the normal client's token was refused: ${normal.status}`);
    const run = async (): Promise<NormalRun> => {
      await gateway.delay();
      const paced = await pacedLoad(`${gateway.base}/tokens/DE/EMS/NORMAL`, { Authorization: gateway.authorization }, normalSeconds(seconds), NORMAL_RATE, 10);
      return { ...paced, gateway: await gateway.delay() };
    };
    // each round's runs next to each other, so that each ratio is to an alone measured under the same load
    const rounds: NormalRound[] = [];
    for (let round = 0; round < NORMAL_ROUNDS; round++) {
      const alone = await run();
      const withAccepted = await whileSending(gateway, worst, run);
      const withLight = await whileSending(gateway, worstLight, run);
      const withRefused = await whileSending(gateway, d3Body, run);
      rounds.push({ alone, withAccepted, withLight, withRefused });
    }
    return {
      limits,
      load,
      accepted,
      light,
      refused,
      normal: { rounds, worst: worst.name, worstLight: worstLight.name, seconds: normalSeconds(seconds) },
    };
  } finally {
    await rows.stop();
  }
};

/** the limits shrunk to just below the heavy thresholds: the costliest bodies the heavy lane does not take */
const belowHeavy = (limits: InboundServerConfig): InboundServerConfig => ({
  ...limits,
  max_body_bytes: Math.min(limits.max_body_bytes, limits.heavy_body_bytes - 1),
  max_body_members: Math.min(limits.max_body_members, limits.heavy_body_members - 1),
  max_body_layouts: Math.min(limits.max_body_layouts, limits.heavy_body_layouts - 1),
});

/** ROUNDS times: a fresh body PUT (and, if accepted, read back), each with the gateway's event-loop delay while it was served. */
const measure = async (gateway: Client, shape: Shape, accept: boolean): Promise<BodyRow> => {
  const rounds: { bytes: number; status: string; putMs: number; putDelayMs: number; putCpuMs: number; getMs: number; getDelayMs: number; getCpuMs: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const json = shape.build();
    await gateway.delay();
    const put = await gateway.put(shape.path, json, shape.chunked);
    const afterPut = await gateway.delay();
    const status = put.status === 0 ? "reset before the answer was read" : `${put.status} ${put.statusCode ?? "-"}`;
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

/**
 * `run` while two clients (bench/body-senders.ts) PUT `shape` back to back: four fresh bodies, built beforehand,
 * in turn. The senders are a process of their own at a lower priority (SENDERS_NICENESS), on this process's core
 * (the load generator's: forked, it inherits the affinity), so that their sending takes that core only when the
 * normal client does not want it.
 */
const whileSending = async (gateway: Client, shape: Shape, run: () => Promise<NormalRun>): Promise<NormalRun> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-bench-senders-"));
  for (let i = 0; i < 4; i++) writeFileSync(path.join(dir, `${i}.json`), shape.build());
  const senders = fork(path.resolve(__dirname, "body-senders.js"), [], {
    env: { ...process.env, SENDERS_URL: gateway.base + shape.path, SENDERS_AUTHORIZATION: gateway.authorization, SENDERS_BODIES: dir },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const ready = new Promise<void>((resolve, reject) => {
      senders.once("message", () => resolve());
      senders.once("exit", (code) => reject(new Error(`the senders exited with ${code}`)));
    });
    os.setPriority(senders.pid!, SENDERS_NICENESS);
    await ready;
    const sent = new Promise<SentBodies>((resolve, reject) => {
      senders.once("message", (message) => resolve(message as SentBodies));
      senders.once("exit", (code) => reject(new Error(`the senders exited with ${code}`)));
    });
    sent.catch(() => undefined); // awaited below unless run() fails first
    let result: NormalRun;
    try {
      result = await run();
    } finally {
      senders.send("stop");
    }
    return { ...result, heavy: await sent };
  } finally {
    await stop(senders);
    rmSync(dir, { recursive: true, force: true });
  }
};

export const bodyLimitsTable = (result: BodyLimitsBench): { title: string; lines: string[] } => {
  const { limits, load, accepted, light, refused, normal } = result;
  const mb = (bytes: number) => (bytes / 1e6).toFixed(2);
  const ms = (value: number | undefined) => (value === undefined ? "—" : value.toFixed(0));
  const delayOf = (r: BodyRow) => Math.max(r.putDelayMs, r.getDelayMs ?? 0);
  const worst = [...accepted, ...light].reduce((a, b) => (delayOf(b) > delayOf(a) ? b : a));
  const worstDelay = delayOf(worst);
  // per kind of run: each round's p99 / that round's p99 alone, and the run of the median round
  const ratiosOf = (kind: keyof NormalRound) => normal.rounds.map((round) => round[kind].p99 / round.alone.p99);
  const medianRound = (kind: keyof NormalRound): { run: NormalRun; ratio: number } => {
    const order = (kind === "alone" ? normal.rounds.map((round) => round.alone.p99) : ratiosOf(kind)).map((value, i) => [value, i]).sort((a, b) => a[0] - b[0]);
    const i = order[Math.floor(order.length / 2)][1];
    return { run: normal.rounds[i][kind], ratio: ratiosOf(kind)[i] };
  };
  const verdict = (kind: keyof NormalRound) => {
    const { ratio } = medianRound(kind);
    return `${ratio.toFixed(2)}× (${ratio <= P99_RATIO_TARGET ? "met" : "not met"}; rounds ${ratiosOf(kind)
      .map((r) => r.toFixed(2))
      .join(", ")})`;
  };
  const cpu = (run: NormalRun) => `${((run.gateway.cpuMs / (normal.seconds * 1000)) * 100).toFixed(0)} %`;
  const sent = (run: NormalRun) =>
    run.heavy
      ? `${run.heavy.sent}: ${Object.entries(run.heavy.answers)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([answer, count]) => `${count} × ${answer}`)
          .join(", ")}`
      : "—";
  return {
    title: "Request bodies at the body limits: the gateway's event-loop delay, and a normal client beside two clients sending the worst",
    lines: [
      `Limits (\`server.inbound\`${process.env.BENCH_BODY_LIMITS ? ", set by BENCH_BODY_LIMITS" : ": the defaults"}): ${limits.max_body_bytes} bytes, ${limits.max_object_members} members an object, ${limits.max_body_members} members and array elements in all, ${limits.max_body_layouts} layouts, strings and numbers of ${limits.max_string_bytes} bytes. ` +
        `Heavy (the heavy lane's): from ${limits.heavy_body_bytes} bytes, ${limits.heavy_body_members} members and elements or ${limits.heavy_body_layouts} layouts on; share ${limits.heavy_body_share}, ${limits.heavy_body_queue} read at once a client, a wait of at most ${limits.heavy_body_max_wait_ms} ms; refusals ${limits.refusals_per_second} a second per address. ` +
        `The bodies' rows: one gateway process on the server core whose lane does not pause (\`heavy_body_share: 1\`: what each body costs by itself; SQLite, local adapter; bench/body-limits-gateway.ts measures its own event loop with perf_hooks at 1 ms resolution), warmed up by ${WARM_UP_ROUNDS} unmeasured rounds of every body. Each body ${ROUNDS} times, built fresh (new member names each time); medians. ` +
        `Load average when the run began: ${load.toFixed(1)} on ${os.cpus().length} cores. ` +
        "Delay: the longest the gateway's event loop was held up while the body was served (PUT) or read back (GET); CPU: the gateway's CPU time meanwhile (user + system), which other work on the machine does not inflate; ms: the answer's time at the client.",
      "",
      "| body | MB | answer | PUT ms | PUT delay ms | PUT CPU ms | GET ms | GET delay ms | GET CPU ms |",
      "|---|---:|---|---:|---:|---:|---:|---:|---:|",
      ...[...accepted, ...light, ...refused].map(
        (r) => `| ${r.name} | ${mb(r.bytes)} | ${r.status} | ${ms(r.putMs)} | ${ms(r.putDelayMs)} | ${ms(r.putCpuMs)} | ${ms(r.getMs)} | ${ms(r.getDelayMs)} | ${ms(r.getCpuMs)} |`,
      ),
      "",
      `A normal client: GET of a small Token, ${NORMAL_RATE} a second evenly paced over 10 connections (bench/paced-load.ts), ${normal.seconds} s each, ${normal.rounds.length} rounds, on a second gateway process with the limits above (its lane pausing as configured), warmed up by the bodies below the heavy thresholds; alone, then while two clients (one partner; a process of their own ${SENDERS_NICENESS - os.getPriority()} steps of niceness below the bench's, on the load generator's core, so that their sending does not take the normal client's CPU) PUT back to back, each the next as soon as the last is answered (a 429's Retry-After not waited for): the costliest accepted body above by the gateway's CPU time (${normal.worst}), the costliest below the heavy thresholds (${normal.worstLight.replace(" (below the heavy thresholds)", "")}), then the D3 body (with its Content-Length); each round alone first, then beside each kind of sender. Each row is its median round (by p99 / alone, the alone row by p99), its ratio that round's p99 over that round's p99 alone; every round's ratio in the last column. Gateway CPU: its CPU time during the run (user + system) as a share of one core; loop delay: its event loop's delay over the run (perf_hooks), p99 and max; served: the gateway's own time on each normal GET (node's diagnostics channels, from the request's head parsed to the answer's end, so without the wait before its event loop got to it), p50 and p99; GC: its garbage collections over the run (perf_hooks \`gc\` entries): how many, their pauses in all and the longest.`,
      "",
      "| normal client | requests/s | p50 ms | p99 ms | p99 / alone | errors | gateway CPU | gateway loop delay p99 / max ms | served p50 / p99 ms | GC: count, ms in all, longest ms | bodies the two clients sent meanwhile: answers | p99 / alone, each round (the alone row: p99 ms) |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
      ...(
        [
          ["alone (baseline)", "alone"],
          ["while two clients send the costliest accepted body (heavy)", "withAccepted"],
          ["while two clients send the costliest body below the heavy thresholds", "withLight"],
          ["while two clients send the D3 body (refused)", "withRefused"],
        ] as const
      ).map(([name, kind]) => {
        const { run, ratio } = medianRound(kind);
        const each = kind === "alone" ? normal.rounds.map((round) => round.alone.p99) : ratiosOf(kind);
        return `| ${name} | ${Math.round(run.requestsPerSecond)} | ${run.p50} | ${run.p99} | ${ratio.toFixed(2)} | ${run.errors + run.non2xx} | ${cpu(run)} | ${run.gateway.p99.toFixed(0)} / ${run.gateway.max.toFixed(0)} | ${run.gateway.served.p50.toFixed(2)} / ${run.gateway.served.p99.toFixed(2)} | ${run.gateway.gc.count}, ${run.gateway.gc.ms.toFixed(0)}, ${run.gateway.gc.maxMs.toFixed(1)} | ${sent(run)} | ${each.map((value) => value.toFixed(2)).join(", ")} |`;
      }),
      "",
      `Targets (issue #23): the worst accepted body's delay at most ${DELAY_TARGET_MS} ms — measured ${worstDelay.toFixed(0)} ms, ${worst.name} (${worstDelay <= DELAY_TARGET_MS ? "met" : "not met"}); ` +
        `the normal client's p99 beside two clients sending worst-case bodies at most ${P99_RATIO_TARGET}× its p99 alone — measured (median round) ${verdict("withAccepted")} with the costliest accepted body, ${verdict("withLight")} with the costliest below the heavy thresholds, ${verdict("withRefused")} with the D3 body.`,
    ],
  };
};
