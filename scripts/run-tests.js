#!/usr/bin/env node
// Runs jest and closes with the plain "N passed, N failed" line CI reads.
// Extra arguments go to jest (e.g. `npm test -- test/core`).
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const results = path.join(__dirname, "..", ".jest-results.json");
fs.rmSync(results, { force: true });
const jest = require.resolve("jest/bin/jest");
const run = spawnSync(process.execPath, [jest, "--ci", "--json", `--outputFile=${results}`, ...process.argv.slice(2)], {
  stdio: "inherit",
});
let passed = 0;
let failed = 0;
if (fs.existsSync(results)) {
  const summary = JSON.parse(fs.readFileSync(results, "utf8"));
  passed = summary.numPassedTests;
  failed = summary.numFailedTests;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status ?? 1);
