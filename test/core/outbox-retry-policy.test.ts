import { DEFAULT_RETRY_POLICY, retryPolicyOf } from "../../core/partners/partner-settings";
import { isRetryable, retryDelay } from "../../core/outbox/retry-policy";
import { type RetryPolicy } from "../../core/contract/partner-profile";
import { PartnerCallError } from "../../core/client/ocpi-client";
import { testGatewayConfig } from "../support/gateway-config";
import { ConfigError } from "../../config/load-config";

/** Which failures the outbox retries, how it backs off, and a partner's push settings as its retry policy. */
describe("retry classification", () => {
  it.each([
    ["network error", true, new PartnerCallError("unreachable", "ECONNREFUSED")],
    ["timeout", true, new PartnerCallError("timeout", "timed out")],
    ["HTTP 500 without envelope", true, new PartnerCallError("http", "HTTP 500", 500)],
    ["HTTP 502 with a 1000 envelope", true, new PartnerCallError("http", "HTTP 502", 502, 1000)],
    ["OCPI 3000", true, new PartnerCallError("ocpi", "3000", 200, 3000)],
    ["OCPI 3001 on HTTP 500", true, new PartnerCallError("ocpi", "3001", 500, 3001)],
    ["HTTP 429", true, new PartnerCallError("http", "HTTP 429", 429)],
    ["OCPI 2001", false, new PartnerCallError("ocpi", "2001", 200, 2001)],
    ["HTTP 404 with 2003", false, new PartnerCallError("ocpi", "2003", 404, 2003)],
    ["HTTP 400 without envelope", false, new PartnerCallError("http", "HTTP 400", 400)],
    ["any other error", true, new Error("socket hang up")],
  ])("%s: retried %s", (_name, expected, error) => {
    expect(isRetryable(error)).toBe(expected);
  });

  it("backs off exponentially up to the maximum, with jitter", () => {
    const policy: RetryPolicy = { baseDelayMs: 100, maxDelayMs: 1000, backlogWindowMs: 0 };
    const delays = [0, 1, 2, 3, 10].map((attempts) => retryDelay(policy, attempts));
    expect(delays[0]).toBeGreaterThanOrEqual(80);
    expect(delays[0]).toBeLessThanOrEqual(120);
    expect(delays[2]).toBeGreaterThanOrEqual(320);
    expect(delays[2]).toBeLessThanOrEqual(480);
    expect(delays[4]).toBeLessThanOrEqual(1200);
    expect(delays[4]).toBeGreaterThanOrEqual(800);
  });
});

describe("push settings (partners[].push)", () => {
  const configWith = (push: unknown) => testGatewayConfig({ port: 8080, partners: [{ id: "emsp", push } as never] });

  it("become the partner's retry policy, over the defaults", () => {
    const config = configWith({ base_delay_ms: 50, backlog_window_ms: "2000" });
    expect(retryPolicyOf(config.partners[0].push)).toEqual({ baseDelayMs: 50, maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs, backlogWindowMs: 2000 });
    expect(retryPolicyOf(undefined)).toEqual(DEFAULT_RETRY_POLICY);
  });

  it("are checked, naming the field", () => {
    let error: unknown;
    try {
      configWith({ base_delay_ms: 0, max_delay_ms: "soon", retries: 3 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const errors = (error as ConfigError).errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^partners\[0\]\.push\.base_delay_ms: must be a whole number of milliseconds/),
        expect.stringMatching(/^partners\[0\]\.push\.max_delay_ms: must be a whole number of milliseconds/),
        expect.stringMatching(/^partners\[0\]\.push\.retries: unknown key/),
      ]),
    );
  });
});
