import { Session } from "node:inspector";
import { readFileSync, writeFileSync } from "node:fs";

/**
 * Where a CDR's CPU goes in the audit bench's drain: the drain is CPU-profiled in its own process (node:inspector,
 * from the drain's start to its end, so queueing the CDRs before it is left out), and each sample is put in the
 * part of the gateway it ran for: the first frame of the gateway's code from the sampled one up. Samples of the
 * process waiting (`(idle)`: on Redis, for its answers) are no CPU of it and left out.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

export const PARTS = ["store", "tariff engine", "audit", "garbage collector", "other"] as const;
export type Part = (typeof PARTS)[number];

export const PART_TEXT: Record<Part, string> = {
  store: "the store: its statements or commands, JSON of the values written and read, its group commit (core/store, libsql, ioredis)",
  "tariff engine": "the tariff engine re-pricing the CDR (plugins/tariffs/engine)",
  audit: "the audit around it: timeline, comparisons, notes, contexts, batches (plugins/cdrs/audit)",
  "garbage collector": "the garbage collector",
  other: "the rest: promises, timers, Node",
};

const partOfFrame = (frame: ProfileNode["callFrame"]): Part | undefined => {
  if (frame.functionName === "(garbage collector)") return "garbage collector";
  const { url, functionName } = frame;
  if (url.includes("/core/store/") || url.includes("/node_modules/libsql/") || url.includes("/node_modules/ioredis/") || functionName.startsWith("libsql_js::"))
    return "store";
  if (url.includes("/plugins/tariffs/engine/")) return "tariff engine";
  if (url.includes("/plugins/cdrs/audit/")) return "audit";
  return undefined;
};

/** Each part's share of the profile's samples. */
export const sharesOf = (file: string): Record<Part, number> => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const parts = new Map<number, Part>();
  const partOf = (id: number): Part => {
    const known = parts.get(id);
    if (known) return known;
    const up = parent.get(id);
    const part = partOfFrame(byId.get(id)!.callFrame) ?? (up === undefined ? "other" : partOf(up));
    parts.set(id, part);
    return part;
  };
  const counts = Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
  const busy = profile.samples.filter((sample) => byId.get(sample)!.callFrame.functionName !== "(idle)");
  for (const sample of busy) counts[partOf(sample)] += 1;
  const total = busy.length || 1;
  return Object.fromEntries(PARTS.map((p) => [p, counts[p] / total])) as Record<Part, number>;
};

/** Runs `work` under the CPU profiler of this process and writes the profile to `file`. */
export const profiled = async <T>(file: string, work: () => Promise<T>): Promise<T> => {
  const session = new Session();
  session.connect();
  const post = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 250 });
  await post("Profiler.start");
  try {
    return await work();
  } finally {
    const { profile } = (await post("Profiler.stop")) as { profile: Profile };
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
};
