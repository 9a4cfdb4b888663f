import fs from "node:fs";
import path from "node:path";

/** The figures one reliability test reports for test/RELIABILITY.md. */
export interface ReliabilityFigures {
  /** cases tried (requests, mutated bodies, operations under fault) */
  cases: number;
  /** faults injected (mutations, killed processes, outages); 0 where the section injects none */
  faults: number;
  /** invariant violations: 5xx, non-envelope answers, partial or lost writes, leaked secrets. Must be 0. */
  losses: number;
  /** one line each, e.g. "accepted 812, rejected 9188" */
  notes?: string[];
}

/**
 * Records a section of the reliability report. A no-op unless RELIABILITY_OUT
 * names a directory (`npm run soak` sets it); then it writes
 * `<section>.json` there, which scripts/reliability-report.js renders into
 * test/RELIABILITY.md. One line in a test:
 *
 *   afterAll(() => recordReliability("Redis Cluster failover", { cases, faults: killed, losses: lost.length }));
 *
 * Record the figures even when the test fails: a loss must show in the report.
 */
export const recordReliability = (section: string, figures: ReliabilityFigures): void => {
  const dir = process.env.RELIABILITY_OUT;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${section.replace(/[^A-Za-z0-9._-]+/g, "-")}.json`);
  const entry = { section, ...figures, notes: figures.notes ?? [], file: path.relative(process.cwd(), testFileOf(new Error().stack)), at: new Date().toISOString() };
  fs.writeFileSync(file, `${JSON.stringify(entry, null, 2)}\n`);
};

/** The *.test.ts that called recordReliability, read off the stack, so the report says where each figure comes from. */
const testFileOf = (stack: string | undefined): string => stack?.match(/\(?([^\s(]+\.test\.ts)/)?.[1] ?? "";
