import { defineAdapter, type Adapter } from "../kit";
import { proxyPorts } from "./ports";
import { parseProxySettings } from "./settings";

/**
 * The `proxy` adapter: a module sent to a backend that already speaks OCPI
 * for it (a CPO's OCPI-speaking CSMS, another gateway). The gateway still
 * terminates the partner's side (auth, routing headers, envelopes, its
 * version) and calls the backend as an OCPI client in the backend's version
 * (`deps.ocpiBackend`: discovery, outbound policy of `base_url`'s origin,
 * validation and translation of its objects). Which ports: ports.ts.
 */
export const proxyAdapterFactory = defineAdapter({
  type: "proxy",
  portNames: ["locations.SENDER", "locations.RECEIVER", "tariffs.SENDER", "tariffs.RECEIVER", "sessions.RECEIVER", "tokens.RECEIVER"],
  checkSettings(settings, base) {
    const parsed = parseProxySettings(settings, base);
    return parsed.ok ? [] : parsed.errors;
  },
  async create(settings, deps): Promise<Adapter> {
    const parsed = parseProxySettings(settings, "adapters.<proxy>");
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const backend = deps.ocpiBackend(parsed.spec);
    // the backend may be down when the gateway starts: its calls answer 503 until it is back, and /ready says so
    return { ports: proxyPorts(backend), ready: () => backend.ready() };
  },
});
