import http from "node:http";
import { spawn } from "node:child_process";
import { CLI, freePorts, writeGatewayConfig } from "../support/gateway-process";
import { removeTempDirs } from "../support/gateway-config";

/**
 * Every request's access line reaches the log, also the last ones before
 * the process stops: pino's default destination (core/logging/logger.ts:
 * none given) writes stdout asynchronously, many lines in one write(2) while
 * one is under way, and writes what it still holds when the process exits.
 * A gateway process at log level info answers a burst of requests and is
 * stopped (SIGTERM, SIGINT) as soon as the last answer arrived; its stdout,
 * read to its end, holds one access line for each.
 */

const REQUESTS = 2000;
const CONCURRENCY = 50;

/** One GET; resolves with its HTTP status once the answer is read. */
const get = (agent: http.Agent, url: string): Promise<number> =>
  new Promise((resolve, reject) =>
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
      })
      .once("error", reject),
  );

describe("access lines when the gateway stops", () => {
  afterEach(() => removeTempDirs());

  it.each(["SIGTERM", "SIGINT"] as const)(`writes one for each of ${REQUESTS} requests answered just before %s`, async (signal) => {
    const [port] = await freePorts(1);
    const written = writeGatewayConfig({ port, modules: { locations: { adapter: "local" } }, server: { log_level: "info" } });
    const child = spawn(process.execPath, [CLI, "start", "--config", written.file], { cwd: written.dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.resume();
    // every byte written, once the process has exited and its stdout is closed
    const closed = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const started = setInterval(() => stdout.includes("listening on") && (clearInterval(started), resolve()), 20);
        child.once("exit", (code) => (clearInterval(started), reject(new Error(`exited with ${code} before listening:\n${stdout}`))));
      });
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const url = `http://127.0.0.1:${port}/ocpi/versions`;
      let sent = 0;
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (sent < REQUESTS) {
            sent++;
            statuses.push(await get(agent, url));
          }
        }),
      );
      child.kill(signal);
      expect(await closed).toBe(0);
      agent.destroy();
      // no token: 401, each with its access line
      expect(statuses).toHaveLength(REQUESTS);
      expect(new Set(statuses)).toEqual(new Set([401]));
      const lines = stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { msg?: string; path?: string; status?: number });
      const access = lines.filter((line) => line.msg === "request");
      expect(access).toHaveLength(REQUESTS);
      expect(access.every((line) => line.path === "/ocpi/versions" && line.status === 401)).toBe(true);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await closed;
    }
  });
});
