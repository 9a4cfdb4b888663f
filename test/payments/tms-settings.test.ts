import { parseTmsSettings } from "../../adapters/tms/settings";
import { maskSecrets } from "../../config/mask-secrets";
import { Gateway, StartupError } from "../../app/gateway";
import { testGatewayConfig } from "../support/gateway-config";
import pino from "pino";

/** `adapters.tms`: defaults, `path: message` errors that never echo a value, secrets masked. */
describe("adapters.tms settings", () => {
  const valid = { base_url: "http://127.0.0.1:9300", api_key: "key-0123456789", webhook_secret: "secret-0123456789abcdef" };

  it("fills the defaults", () => {
    const parsed = parseTmsSettings(valid);
    expect(parsed).toEqual({ ok: true, settings: { ...valid, poll_interval_ms: 30000, poll_overlap_ms: 1000, request_timeout_ms: 10000, page_limit: 100 } });
  });

  it("names every problem by path without echoing secrets", () => {
    const parsed = parseTmsSettings({ base_url: "ftp://user:pw@tms", api_key: "", webhook_secret: "short-secret", poll_interval_ms: 5, extra: 1 });
    expect(parsed.ok).toBe(false);
    const errors = (parsed as { errors: string[] }).errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^adapters\.tms\.base_url: must be an absolute http/),
        expect.stringMatching(/^adapters\.tms\.api_key: must be a non-empty string/),
        expect.stringMatching(/^adapters\.tms\.webhook_secret: must be at least 16 characters/),
        expect.stringMatching(/^adapters\.tms\.poll_interval_ms: must be a whole number of milliseconds between 100/),
        "adapters.tms: unknown setting extra",
      ]),
    );
    for (const error of errors) for (const secret of ["short-secret", "user:pw"]) expect(error).not.toContain(secret);
  });

  it("refuses to start on bad settings (check-config), and masks api_key and webhook_secret", async () => {
    const config = testGatewayConfig({
      port: 9,
      party: { country_code: "NL", party_id: "PTP", role: "PTP" },
      modules: { payments: { adapter: "tms", roles: ["SENDER"] } },
      adapters: { tms: { ...valid, webhook_secret: "short" } },
    });
    await expect(Gateway.create(config, { logger: pino({ level: "silent" }) })).rejects.toThrow(StartupError);
    const masked = maskSecrets({ ...config, adapters: { tms: valid } });
    expect(masked.adapters.tms).toMatchObject({ base_url: valid.base_url, api_key: "***", webhook_secret: "***" });
  });
});
