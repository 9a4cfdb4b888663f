import "reflect-metadata";
import { DEFAULT_INBOUND, type InboundServerConfig } from "../../config/types";
import { ConfigError, parseConfig } from "../../config/load-config";
import { gatewayConfigYaml } from "../support/gateway-config";

/** `server.inbound`: the limits of the HTTP server partners call, their defaults and their checks (enforced: test/core/http-hardening.test.ts). */
describe("server.inbound config", () => {
  const yamlWith = (inbound: unknown) => gatewayConfigYaml({ port: 8080, server: { inbound: inbound as InboundServerConfig } });

  it("defaults to the limits the README states", () => {
    expect(DEFAULT_INBOUND).toEqual({
      headers_timeout_ms: 10_000,
      request_timeout_ms: 30_000,
      keep_alive_timeout_ms: 5_000,
      max_connections_per_client: 64,
      max_header_bytes: 16_384,
      max_body_bytes: 2_097_152,
      max_object_members: 200,
      max_body_members: 50_000,
      max_body_layouts: 1_000,
      max_string_bytes: 65_536,
      heavy_body_bytes: 524_288,
      heavy_body_members: 20_000,
      heavy_body_layouts: 250,
      heavy_body_share: 0.003,
      heavy_body_queue: 2,
      heavy_body_max_wait_ms: 10_000,
      weighty_body_share: 0.5,
      refusals_per_second: 10,
    });
  });

  it("fills every limit left out with its default", () => {
    expect(parseConfig(yamlWith({ max_connections_per_client: 0 }), {}).server.inbound).toEqual({ ...DEFAULT_INBOUND, max_connections_per_client: 0 });
  });

  it("refuses a headers timeout above the request timeout, naming the field", () => {
    expect(() => parseConfig(yamlWith({ headers_timeout_ms: 5000, request_timeout_ms: 1000 }), {})).toThrow(ConfigError);
    expect(() => parseConfig(yamlWith({ headers_timeout_ms: 5000, request_timeout_ms: 1000 }), {})).toThrow(/server\.inbound\.headers_timeout_ms: must not exceed request_timeout_ms/);
  });
});
