import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { stringify } from "yaml";
import { parseConfig } from "../../config/load-config";
import type { GatewayConfig } from "../../config/types";
import { openStore } from "../../core/store/open-store";
import { PARTNERS } from "../../core/partners/partner-record";
import { type PartnerRecord } from "../../core/contract/partner-record";
import { freePorts } from "./free-ports";
import { gatewayConfigData, tempDir, type GatewayConfigOptions } from "./gateway-config";

export const REPO_ROOT = path.join(__dirname, "..", "..");
/**
 * The built CLI: the jest global setup builds the sources into a directory of
 * its own and names it in OCPI_GATEWAY_DIST, so this is the code under test;
 * dist/ is only the fallback outside jest.
 */
export const CLI = path.join(process.env.OCPI_GATEWAY_DIST ?? path.join(REPO_ROOT, "dist"), "app", "cli.js");

/** generous: on a busy two-core machine a start can take several seconds */
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const CLI_TIMEOUT_MS = 30_000;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

/** Ports below the ephemeral range, so nothing else on the machine takes one before the test binds it (free-ports.ts). */
export { freePorts };

const live = new Set<ChildProcess>();
// A test run that dies without its afterAll must not leave gateways behind.
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

const track = (child: ChildProcess): void => {
  live.add(child);
  child.once("exit", () => live.delete(child));
};

/** Runs `node <build>/app/cli.js <args>` to completion (`--config <file>` is appended when a file is given). */
export const runCli = (args: string[], configFile?: string, options: CliOptions = {}): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const argv = [CLI, ...args, ...(configFile ? ["--config", configFile] : [])];
    const child = spawn(process.execPath, argv, {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    track(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timeoutMs = options.timeoutMs ?? CLI_TIMEOUT_MS;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`ocpi-gateway ${args.join(" ")} did not finish within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

export interface WrittenConfig {
  dir: string;
  file: string;
  /** the validated config, as the gateway will load it */
  config: GatewayConfig;
}

/** Writes the YAML of a test config into a fresh temp dir. */
export const writeGatewayConfig = (options: GatewayConfigOptions, dir = tempDir("ocpi-gw-")): WrittenConfig => {
  const data = gatewayConfigData(options);
  const yamlText = stringify(data);
  const file = path.join(dir, "gateway.config.yaml");
  fs.writeFileSync(file, yamlText);
  return { dir, file, config: parseConfig(yamlText, {}, file) };
};

export interface GatewayProcess extends WrittenConfig {
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** <url>/ocpi/versions */
  readonly versionsUrl: string;
  readonly pid: number;
  /** everything the process wrote to stdout and stderr so far */
  output(): string;
  /** SIGTERM, then wait for the exit; resolves with the exit code (null when it died by a signal). */
  stop(): Promise<number | null>;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
  /** `ocpi-gateway <args> --config <this gateway's config file>` as a separate process. */
  cli(args: string[], options?: CliOptions): Promise<CliResult>;
}

/** Starts `node <build>/app/cli.js start --config <file>` and resolves once it prints "listening on". */
export const startGatewayProcess = async (written: WrittenConfig, options: CliOptions = {}): Promise<GatewayProcess> => {
  const port = written.config.server.port;
  const child = spawn(process.execPath, [CLI, "start", "--config", written.file], {
    cwd: options.cwd ?? written.dir,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  track(child);
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  await new Promise<void>((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`gateway on port ${port} ${reason}\n${output}`));
    };
    const timer = setTimeout(() => fail(`did not print "listening on" within ${READY_TIMEOUT_MS} ms`), options.timeoutMs ?? READY_TIMEOUT_MS);
    const onExit = (code: number | null) => fail(`exited with code ${code} before listening`);
    const onOutput = (chunk: string) => {
      output += chunk;
      if (!output.includes("listening on")) return;
      clearTimeout(timer);
      child.off("exit", onExit);
      resolve();
    };
    child.once("exit", onExit);
    child.once("error", (error) => fail(`could not be spawned: ${error.message}`));
    child.stdout!.setEncoding("utf8").on("data", onOutput);
    child.stderr!.setEncoding("utf8").on("data", onOutput);
  });
  // Keep collecting (and draining the pipes: a full pipe would block the gateway's logging).
  child.stdout!.removeAllListeners("data").on("data", (chunk: string) => (output += chunk));
  child.stderr!.removeAllListeners("data").on("data", (chunk: string) => (output += chunk));

  const running = () => child.exitCode === null && child.signalCode === null;
  const url = `http://127.0.0.1:${port}`;
  return {
    ...written,
    port,
    url,
    versionsUrl: `${url}/ocpi/versions`,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (running()) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
        const code = await exited;
        clearTimeout(timer);
        return code;
      }
      return exited;
    },
    async kill() {
      if (running()) child.kill("SIGKILL");
      await exited;
    },
    cli: (args, cliOptions) => runCli(args, written.file, { cwd: written.dir, ...cliOptions }),
  };
};

/** Writes the config and starts the gateway (a free port is picked when `port` is 0). */
export const startGateway = async (options: GatewayConfigOptions): Promise<GatewayProcess> => {
  const port = options.port || (await freePorts(1))[0];
  return startGatewayProcess(writeGatewayConfig({ ...options, port }));
};

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** the parsed JSON body, or undefined when it is not JSON */
  body: any;
}

export interface OcpiRequestOptions {
  /** credentials token, written as `Authorization: Token …` */
  token?: string;
  /** how to write the token; default base64 (OCPI 2.2+) */
  encoding?: "raw" | "base64";
  body?: unknown;
  headers?: Record<string, string>;
}

/** Authorization header value for a token. */
export const tokenHeader = (token: string, encoding: "raw" | "base64" = "base64"): string =>
  `Token ${encoding === "base64" ? Buffer.from(token, "utf8").toString("base64") : token}`;

/**
 * One HTTP request to a gateway (loopback only), on its own connection
 * (`agent: false`), so no keep-alive socket outlives the test.
 */
export const ocpiRequest = (method: string, url: string, options: OcpiRequestOptions = {}): Promise<HttpResult> =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    if (target.hostname !== "127.0.0.1" && target.hostname !== "localhost") {
      reject(new Error(`tests only call loopback addresses, not ${target.hostname}`));
      return;
    }
    const payload = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.Authorization = tokenHeader(options.token, options.encoding);
    if (payload !== undefined) {
      headers["Content-Type"] ??= "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    const req = http.request(target, { method, headers, agent: false, timeout: 10_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        let body: unknown;
        try {
          body = text === "" ? undefined : JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.on("error", reject);
    req.end(payload);
  });

/**
 * A partner's registration as the gateway persisted it (store collection
 * `partners`), read through the product's own store; only read, never written.
 */
export const partnerRecordOf = async (config: GatewayConfig, partnerId: string): Promise<PartnerRecord | undefined> => {
  const store = await openStore(config.store);
  try {
    return await store.get<PartnerRecord>(PARTNERS, partnerId);
  } finally {
    await store.close();
  }
};
