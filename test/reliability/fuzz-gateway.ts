import "reflect-metadata";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Gateway } from "../../app/gateway";
import type { CredentialsRole, VersionNumber } from "../../core/protocol/types";
import { redisStore, removeTempDirs, sqliteStore, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { ADMIN_TOKEN, seedFile } from "../support/charge-point";
import { captureLogs, type LogCapture } from "../support/log-capture";

export const OURS = { country_code: "NL", party_id: "GWY" };
const VERSIONS: VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];

export interface Answer {
  status: number;
  /** the parsed body, or undefined when it is no JSON */
  body: unknown;
  text: string;
}

/**
 * A partner on loopback as far as the gateway calls it: its versions and
 * version details (credentials handshakes), and receivers of commands and
 * charging profiles answering ACCEPTED with a long timeout, so a request the
 * gateway sent stays pending while its result callback is fuzzed.
 */
const startMockPartner = async (): Promise<{ url: string; close(): Promise<void> }> => {
  let base = "";
  const endpoints = (version: VersionNumber) =>
    ["credentials", "commands", "chargingprofiles"].flatMap((identifier) =>
      version === "2.1.1"
        ? [{ identifier, url: `${base}/${version}/${identifier}` }]
        : [{ identifier, role: "RECEIVER", url: `${base}/${version}/${identifier}` }],
    );
  const dataFor = (path: string): unknown => {
    if (path === "/versions") return VERSIONS.map((version) => ({ version, url: `${base}/details/${version}` }));
    const details = path.match(/^\/details\/(.+)$/);
    if (details) return { version: details[1], endpoints: endpoints(details[1] as VersionNumber) };
    if (/\/(commands|chargingprofiles)\//.test(path)) return { result: "ACCEPTED", timeout: 3600 };
    return undefined;
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const data = dataFor(new URL(req.url ?? "/", base).pathname);
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ status_code: 1000, ...(data === undefined ? {} : { data }), timestamp: new Date().toISOString() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};

export interface FuzzGateway {
  gateway: Gateway;
  logs: LogCapture;
  /** base URL of the partner on loopback (its versions endpoint is `${partnerUrl}/versions`) */
  partnerUrl: string;
  /** a request with a raw body text, as a partner holding `auth` sends it */
  call(method: string, path: string, text: string | undefined, auth: string): Promise<Answer>;
  /** a request to the admin API */
  admin(method: string, path: string, body?: unknown): Promise<Answer>;
  /** registers a partner with these roles and returns its Authorization header (the token is watched by the log scan) */
  register(id: string, roles: CredentialsRole[]): Promise<string>;
  /** a fresh partner that is not registered yet, and its token A (one of `bootPartners`) */
  bootstrap(): { id: string; tokenA: string };
  close(): Promise<void>;
}

export const authOf = (token: string): string => `Token ${Buffer.from(token).toString("base64")}`;

/**
 * One gateway serving every module on the `local` adapter, as CPO (it takes
 * commands and charging profiles for NL/GWY's charge point, which never
 * answers, so nothing settles in the background) and as their sender (it
 * issues them to the mock partner and takes results). Logs are captured at
 * debug level for the secret scan. FUZZ_STORE=redis runs it on Redis.
 *
 * Every partner is in the config with the mock partner's versions URL: the
 * outbound URL policy lets the gateway call a loopback host only when the
 * operator named it. `bootPartners` more wait with a token A each, one per
 * credentials registration the run may complete.
 */
export const startFuzzGateway = async (bootPartners: number): Promise<FuzzGateway> => {
  const partner = await startMockPartner();
  const versionsUrl = `${partner.url}/versions`;
  const boots = Array.from({ length: bootPartners }, (_, i) => ({ id: `boot-${i + 1}`, tokenA: `token-a-${i + 1}-${randomUUID()}` }));
  const [port] = await freePorts(1);
  const logs = captureLogs("debug");
  const config = testGatewayConfig({
    port,
    party: { ...OURS, role: "CPO" },
    store: process.env.FUZZ_STORE === "redis" ? redisStore() : sqliteStore(),
    modules: Object.fromEntries(["locations", "sessions", "cdrs", "tariffs", "tokens", "commands", "chargingprofiles"].map((m) => [m, { adapter: "local" }])),
    adapters: { local: { seed: seedFile(OURS), simulator: { outcome: "NO_ANSWER" } } },
    server: { admin_token: ADMIN_TOKEN, command_timeout_seconds: 3600, log_level: "debug" },
    partners: [
      { id: "partner", versions_url: versionsUrl },
      { id: "cred-partner", versions_url: versionsUrl },
      ...boots.map((b) => ({ id: b.id, token_a: b.tokenA, versions_url: versionsUrl })),
    ],
  });
  const gateway = await Gateway.create(config, { logger: logs.logger });
  await gateway.listen();
  logs.watch(ADMIN_TOKEN, ...boots.map((b) => b.tokenA));
  const base = `http://127.0.0.1:${port}`;

  const call = async (method: string, path: string, text: string | undefined, auth: string): Promise<Answer> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: auth, ...(text === undefined ? {} : { "Content-Type": "application/json" }) },
      body: text,
    });
    const body = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text: body.slice(0, 500) };
  };

  let used = 0;
  return {
    gateway,
    logs,
    partnerUrl: partner.url,
    call,
    admin: (method, path, body) => call(method, `/admin/v1${path}`, body === undefined ? undefined : JSON.stringify(body), `Bearer ${ADMIN_TOKEN}`),
    register: async (id, roles) => {
      const token = await gateway.registry.issueToken(id);
      const tokenToPartner = `to-${id}-${"t".repeat(24)}`;
      logs.watch(token, tokenToPartner);
      await gateway.registry.recordRegistration(id, {
        version: "2.3.0",
        versionsUrl,
        endpoints: ["commands", "chargingprofiles"].map((identifier) => ({ identifier, role: "RECEIVER" as const, url: `${partner.url}/2.3.0/${identifier}` })),
        roles,
        tokenToPartner,
      });
      return authOf(token);
    },
    bootstrap: () => {
      const next = boots[used++];
      if (!next) throw new Error(`all ${bootPartners} bootstrap partners registered: start the fuzz gateway with more`);
      return next;
    },
    close: async () => {
      await gateway.close();
      await partner.close();
      removeTempDirs();
    },
  };
};
