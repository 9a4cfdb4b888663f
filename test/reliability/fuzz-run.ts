import { isDeepStrictEqual } from "node:util";
import { Prng } from "./prng";
import { MUTATION_KINDS, mutate, type MutationKind } from "./mutations";
import type { FuzzTarget } from "./fuzz-targets";
import type { FuzzGateway } from "./fuzz-gateway";

/**
 * Mutations that break an invariant because of a defect someone is fixing
 * now. Their cases still run and count; their violations are reported as
 * known and do not fail the run. Delete an entry (or the list) once its fix
 * has landed.
 */
export const KNOWN_OPEN_BUGS: { issue: string; matches: (kind: MutationKind, detail: string) => boolean }[] = [
];

export interface Violation {
  index: number;
  version: string;
  route: string;
  detail: string;
  problems: string[];
  status: number;
  answer: string;
  body: string;
  known?: string;
}

export interface FuzzTotals {
  cases: number;
  accepted: number;
  rejected: number;
  violations: Violation[];
  /** cases per mutation kind */
  byKind: Record<string, number>;
  /** accepted cases per route (`<version> <route>`) */
  acceptedByRoute: Record<string, number>;
}

/** The (target, kind) of case `index`: the first targets × kinds cases cover every pair once, later ones are drawn at random. */
const caseAt = (index: number, targets: number, rng: Prng): [number, MutationKind] => {
  const kinds = MUTATION_KINDS.length;
  if (index < targets * kinds) return [Math.floor(index / kinds), MUTATION_KINDS[index % kinds]];
  return [rng.int(targets), rng.pick(MUTATION_KINDS)];
};

const isEnvelope = (body: unknown): body is { status_code: number; timestamp: string; data?: unknown } => {
  const b = body as { status_code?: unknown; timestamp?: unknown } | undefined;
  return typeof b === "object" && b !== null && typeof b.status_code === "number" && typeof b.timestamp === "string" && !Number.isNaN(Date.parse(b.timestamp));
};

const short = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

/**
 * Runs `count` cases (at least one per route and mutation kind) against the
 * gateway and checks every invariant: HTTP status below 500, an OCPI
 * envelope, HTTP 413 for a body over the limit, and for every refused case
 * (status_code ≠ 1000) the stored object exactly as before.
 */
export const runFuzz = async (env: Pick<FuzzGateway, "call">, targets: FuzzTarget[], seed: number, indices: Iterable<number>): Promise<FuzzTotals> => {
  const totals: FuzzTotals = { cases: 0, accepted: 0, rejected: 0, violations: [], byKind: {}, acceptedByRoute: {} };
  const dirty = new Set(targets.map((t) => t.objectKey));
  for (const index of indices) {
    const rng = Prng.forCase(seed, index);
    const [t, kind] = caseAt(index, targets.length, rng);
    const target = targets[t];
    const mutated = mutate(target.seed, kind, rng, target.identity);
    const { path, auth } = await target.prepare(dirty.has(target.objectKey));
    dirty.delete(target.objectKey);
    const before = await target.state();
    const answer = await env.call(target.method, path, mutated.text, auth);

    const problems: string[] = [];
    if (answer.status >= 500) problems.push(`HTTP ${answer.status}`);
    const envelope = isEnvelope(answer.body) ? answer.body : undefined;
    if (!envelope) problems.push("the answer is no OCPI envelope");
    // DELETE takes no body: the gateway does not read one, so there is nothing to refuse
    if (kind === "body-over-10mb" && target.method !== "DELETE" && answer.status !== 413) problems.push(`HTTP ${answer.status} for a body over the limit, not 413`);
    if (envelope?.status_code === 1000) {
      totals.accepted++;
      totals.acceptedByRoute[`${target.version} ${target.route}`] = (totals.acceptedByRoute[`${target.version} ${target.route}`] ?? 0) + 1;
      dirty.add(target.objectKey);
      target.accepted?.(envelope.data);
    } else {
      totals.rejected++;
      const after = await target.state();
      if (!isDeepStrictEqual(before, after)) {
        problems.push("partial write: refused, but the stored state changed");
        dirty.add(target.objectKey);
      }
    }
    if (process.env.FUZZ_CASE) console.warn(`${target.version} ${target.route} ${mutated.detail}\n${short(mutated.text)}\nHTTP ${answer.status} ${answer.text}`);
    totals.cases++;
    totals.byKind[kind] = (totals.byKind[kind] ?? 0) + 1;
    if (problems.length)
      totals.violations.push({
        index,
        version: target.version,
        route: target.route,
        detail: mutated.detail,
        problems,
        status: answer.status,
        answer: short(answer.text),
        body: short(mutated.text),
        known: KNOWN_OPEN_BUGS.find((bug) => bug.matches(kind, mutated.detail))?.issue,
      });
  }
  return totals;
};

/** The first few violations as minimal reproductions: route, version, mutation, body excerpt, answer. */
export const describeViolations = (violations: Violation[], seed: number, max = 5): string =>
  violations
    .slice(0, max)
    .map(
      (v) =>
        `case ${v.index} (FUZZ_SEED=${seed} FUZZ_CASE=${v.index}): ${v.route} in ${v.version}, ${v.detail}\n` +
        `  problems: ${v.problems.join("; ")}\n  body: ${v.body}\n  answer: HTTP ${v.status} ${v.answer}` +
        (v.known ? `\n  known open bug: ${v.known}` : ""),
    )
    .join("\n\n");
