import "reflect-metadata";
import { readFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_INBOUND, type InboundServerConfig } from "../../config/types";
import { ConfigError, parseConfig } from "../../config/load-config";
import { gatewayConfigYaml } from "../support/gateway-config";

/** `server.inbound`: the limits of the HTTP server partners call, their defaults and their checks (enforced: test/core/http-hardening.test.ts). */
describe("server.inbound config", () => {
  const yamlWith = (inbound: unknown) => gatewayConfigYaml({ port: 8080, server: { inbound: inbound as InboundServerConfig } });

  it("defaults to the limits the README states", () => {
    // README "Config reference": one row per key, `| \`server.inbound.<key>\` | <default> | …`
    const readme = readFileSync(path.join(__dirname, "../../README.md"), "utf8");
    const stated = Object.fromEntries([...readme.matchAll(/^\| `server\.inbound\.([a-z_]+)` \| ([0-9.]+) \|/gm)].map((m) => [m[1], Number(m[2])]));
    expect(stated).toEqual(DEFAULT_INBOUND);
  });

  it("fills every limit left out with its default", () => {
    expect(parseConfig(yamlWith({ max_connections_per_client: 0 }), {}).server.inbound).toEqual({ ...DEFAULT_INBOUND, max_connections_per_client: 0 });
  });

  it("refuses a headers timeout above the request timeout, naming the field", () => {
    expect(() => parseConfig(yamlWith({ headers_timeout_ms: 5000, request_timeout_ms: 1000 }), {})).toThrow(ConfigError);
    expect(() => parseConfig(yamlWith({ headers_timeout_ms: 5000, request_timeout_ms: 1000 }), {})).toThrow(/server\.inbound\.headers_timeout_ms: must not exceed request_timeout_ms/);
  });
});
