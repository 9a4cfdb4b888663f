#!/usr/bin/env node
// `npm run soak`: the reliability battery with its full counts, then
// test/RELIABILITY.md. Runs every test file that reports figures through
// recordReliability (test/reliability/, the store-outage and Redis Cluster
// fault tests, …) with SOAK=1 and FUZZ_CASES=10000 (either can be overridden
// from the environment), one file at a time so faults do not overlap.
// Exit code: jest's, or 1 when the report counts a loss.
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

const ROOT = path.join(__dirname, "..");

/** Test files that call recordReliability: new fault tests join the soak by reporting, with no list to keep. */
const reportingTests = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return reportingTests(file);
    return entry.name.endsWith(".test.ts") && fs.readFileSync(file, "utf8").includes("recordReliability(") ? [path.relative(ROOT, file)] : [];
  });

/** The fault tests of issue #8, included whenever they exist, reporting or not. */
const FAULT_TESTS = ["test/e2e/store-outage.test.ts", "test/e2e/redis-cluster.test.ts"];

const out = process.env.RELIABILITY_OUT ?? fs.mkdtempSync(path.join(os.tmpdir(), "ocpi-soak-"));
fs.mkdirSync(out, { recursive: true });
for (const f of fs.readdirSync(out)) if (f.endsWith(".json")) fs.rmSync(path.join(out, f));

const knobs = { SOAK: process.env.SOAK ?? "1", FUZZ_CASES: process.env.FUZZ_CASES ?? "10000" };
for (const [key, value] of Object.entries(process.env)) if (key.endsWith("_SOAK") || key.startsWith("FUZZ_")) knobs[key] = value;
const files = [...new Set([...reportingTests(path.join(ROOT, "test")), ...FAULT_TESTS.filter((f) => fs.existsSync(path.join(ROOT, f)))])].sort();
console.log(`soak: ${files.join(", ")}\n      ${Object.entries(knobs).map(([k, v]) => `${k}=${v}`).join(" ")}; figures in ${out}`);

const started = Date.now();
const jest = spawnSync(process.execPath, [require.resolve("jest/bin/jest"), "--ci", "--runInBand", ...files], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, ...knobs, RELIABILITY_OUT: out },
});
const exitCode = jest.status ?? 1;
fs.writeFileSync(
  path.join(out, "run.json"),
  JSON.stringify({ command: "npm run soak", env: knobs, files, exitCode, seconds: (Date.now() - started) / 1000 }),
);
const report = spawnSync(process.execPath, [path.join(__dirname, "reliability-report.js"), out], { cwd: ROOT, stdio: "inherit" });
process.exit(exitCode || report.status || 0);
