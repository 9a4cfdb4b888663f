import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startRedis, type RedisServer } from "./redis-server";

declare global {
  // Shared with the global teardown, which jest runs in the same process.
  var __REDIS_SERVER__: RedisServer | undefined;
  var __TEST_DIST__: string | undefined;
}

const ROOT = path.join(__dirname, "..", "..");
/** Per-run builds live here (git-ignored), one directory per jest process: test-dist-<pid>. */
const BUILDS = path.join(ROOT, ".tmp");

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Builds the product (`tsc -p tsconfig.build.json`) so tests that run the CLI
 * as a real process (test/e2e, test/cli) exercise the current sources; a type
 * error fails the whole run. The output goes to a directory of this run, not
 * to dist/: a concurrent run rebuilding dist/ would otherwise rewrite files
 * under gateways that are starting. test/support/gateway-process.ts finds it
 * through OCPI_GATEWAY_DIST, which the workers inherit.
 */
const buildDist = (): string => {
  fs.mkdirSync(BUILDS, { recursive: true });
  for (const name of fs.readdirSync(BUILDS)) {
    const pid = /^test-dist-(\d+)$/.exec(name)?.[1];
    if (pid && !isAlive(Number(pid))) fs.rmSync(path.join(BUILDS, name), { recursive: true, force: true });
  }
  const outDir = path.join(BUILDS, `test-dist-${process.pid}`);
  fs.rmSync(outDir, { recursive: true, force: true });
  const tsc = path.join(ROOT, "node_modules", ".bin", "tsc");
  try {
    execFileSync(tsc, ["-p", "tsconfig.build.json", "--outDir", outDir], { cwd: ROOT, stdio: "pipe" });
  } catch (error) {
    const e = error as { stdout?: Buffer; stderr?: Buffer; message: string };
    const details = `${e.stdout?.toString() ?? ""}${e.stderr?.toString() ?? ""}`.trim() || e.message;
    // tsc still emits JavaScript on type errors. Outside CI a run may go on with it (work in progress elsewhere in
    // the tree); in CI (CI=true) a type error fails the run.
    const emitted = fs.existsSync(path.join(outDir, "app", "gateway.js"));
    if (!process.env.CI && emitted) {
      process.stderr.write(`\nwarning: the build has type errors (tests run on the emitted JavaScript):\n${details}\n`);
      return outDir;
    }
    fs.rmSync(outDir, { recursive: true, force: true });
    throw new Error(`Build (tsc -p tsconfig.build.json) failed; the tests need a fresh build:\n${details}`);
  }
  return outDir;
};

/** Builds the product, then starts a throwaway redis-server for the whole run unless REDIS_URL points at one already. */
export default async function globalSetup(): Promise<void> {
  const dist = buildDist();
  globalThis.__TEST_DIST__ = dist;
  process.env.OCPI_GATEWAY_DIST = dist;
  if (process.env.REDIS_URL) return;
  const server = await startRedis();
  globalThis.__REDIS_SERVER__ = server;
  // Set before jest forks its workers, so they inherit it.
  process.env.REDIS_URL = server.url;
}
