import type { ModulePlugin } from "../../core/contract/module-plugin";
import type { PartnerRegistry } from "../../core/partners/partner-registry";
import type { GatewayConfig } from "../../config/types";
import { forwardedEndpoints } from "../../core/hub/forwarded-endpoints";
import { settingsOf } from "../../core/partners/partner-profile";
import { ModuleOffers } from "../../core/partners/module-offers";
import { testGatewayConfig } from "../support/gateway-config";

/**
 * Issue #13: what a hub's version details list for the modules it forwards
 * (core/hub/forwarded-endpoints.ts), by each partner's `forward` and
 * `modules`, whoever has registered.
 */

const plugin = (module: string, extra: Partial<ModulePlugin> = {}) =>
  ({ module, versions: ["2.2.1", "2.3.0"], roles: ["SENDER", "RECEIVER"], ...extra }) as unknown as ModulePlugin;
const PLUGINS = [
  plugin("locations"),
  plugin("commands"),
  plugin("payments", { versions: ["2.3.0"] }),
  plugin("hubclientinfo", { configurationModule: true }),
];

const hubConfig = (): GatewayConfig =>
  testGatewayConfig({
    port: 9000,
    party: { country_code: "NL", party_id: "HUB", role: "OTHER" },
    server: { hub_party_id: "NLHUB" },
    partners: [
      { id: "cpo", roles: [{ role: "CPO", party: "NLCPO" }], modules: ["locations", "commands"] },
      { id: "emsp", roles: [{ role: "EMSP", party: "DEEMS" }], forward: ["cpo"] },
      { id: "lonely", roles: [{ role: "EMSP", party: "DELON" }], forward: false },
      { id: "narrow", roles: [{ role: "EMSP", party: "DENAR" }], modules: ["commands"] },
      { id: "open", roles: [{ role: "EMSP", party: "DEOPN" }] },
    ],
  });

/** what forwardedEndpoints reads of the registry: the partners' settings and the modules they are offered */
const registryOf = (config: GatewayConfig): PartnerRegistry => {
  const modules = new ModuleOffers();
  modules.know(PLUGINS);
  return { settingsOf: (id: string) => settingsOf(config, config.partners.find((p) => p.id === id)!), modules } as unknown as PartnerRegistry;
};

const listed = (partnerId: string, version: "2.2.1" | "2.3.0" = "2.3.0"): string[] => {
  const config = hubConfig();
  const registry = registryOf(config);
  return forwardedEndpoints(config, registry, PLUGINS, version, partnerId, config.partners.map((p) => p.id)).map((e) => `${e.identifier}.${e.role}`);
};

describe("a hub's version details list the modules it forwards", () => {
  it("lists both interfaces of each functional module a reachable partner may use, never configuration modules", () => {
    expect(listed("emsp")).toEqual(["locations.SENDER", "locations.RECEIVER", "commands.SENDER", "commands.RECEIVER"]);
  });

  it("follows the asker's own modules and versions", () => {
    expect(listed("narrow")).toEqual(["commands.SENDER", "commands.RECEIVER"]);
    expect(listed("cpo", "2.3.0")).toEqual(["locations.SENDER", "locations.RECEIVER", "commands.SENDER", "commands.RECEIVER"]);
    // payments exists in 2.3.0 only, and only "open" reaches a partner (emsp) that may use it
    expect(listed("open", "2.3.0")).toContain("payments.RECEIVER");
    expect(listed("open", "2.2.1")).not.toContain("payments.RECEIVER");
    expect(listed("emsp", "2.3.0")).not.toContain("payments.RECEIVER");
  });

  it("lists nothing for a partner that may reach nobody", () => {
    expect(listed("lonely")).toEqual([]);
  });

  it("gives the hub's own URL of each interface", () => {
    const config = hubConfig();
    const registry = registryOf(config);
    const [first] = forwardedEndpoints(config, registry, PLUGINS, "2.3.0", "emsp", ["cpo"]);
    expect(first.url).toBe(`${config.server.public_url}/ocpi/2.3.0/sender/locations`);
  });
});
