#!/usr/bin/env node
// `npm run test:adapter -- <name> [jest options]`: runs the adapter contract suite
// (test/adapter-contract/*.test.ts) against the adapter named, whose fixture is
// test/adapter-contract/fixtures/<name>.ts. Without a name: `$ADAPTER_CONTRACT`, else `local`.
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const args = process.argv.slice(2);
const name = args[0] && !args[0].startsWith("-") ? args.shift() : process.env.ADAPTER_CONTRACT || "local";
const fixtures = fs.readdirSync(path.join(__dirname, "fixtures")).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));
if (!fixtures.includes(name)) {
  console.error(`no contract fixture for adapter "${name}": write test/adapter-contract/fixtures/${name}.ts (available: ${fixtures.join(", ")})`);
  process.exit(2);
}
const run = spawnSync(process.execPath, [path.join(__dirname, "..", "..", "scripts", "run-tests.js"), "test/adapter-contract/", ...args], {
  stdio: "inherit",
  env: { ...process.env, ADAPTER_CONTRACT: name },
});
process.exit(run.status ?? 1);
