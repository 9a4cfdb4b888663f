/**
 * A copy of the configuration that is safe to log or show (e.g. `config show`,
 * the startup log line): secrets become "***", which reveals neither a part of
 * the value nor its length.
 *
 * Masked: partners[].token_a, credentials in URLs (store.url and .nodes, cache.redis_url and .redis_nodes, versions_url, and
 * any URL string under adapters), and adapter settings whose key name looks
 * secret (contains token, password, passwd, pwd, secret, key, credential).
 */
import type { GatewayConfig } from "./types";

export const MASK = "***";

const SECRET_KEY_RE = /token|passw(or)?d|pwd|secret|key|credential/i;

/** True for setting names that hold secrets: `token`, `api_key`, `clientSecret`, `password`, ... */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY_RE.test(key);
}

/** `redis://user:pw@host` -> `redis://user:***@host`; `https://tok@host` -> `https://***@host`. */
export function maskUrlCredentials(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^@/?#]*)@/, (_all, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(":");
    return colon >= 0 ? `${scheme}${userinfo.slice(0, colon)}:${MASK}@` : `${scheme}${MASK}@`;
  });
}

function maskSettings(value: unknown): unknown {
  if (typeof value === "string") return maskUrlCredentials(value);
  if (Array.isArray(value)) return value.map(maskSettings);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const masked = isSecretKey(k) && v !== null && v !== undefined ? MASK : maskSettings(v);
      Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** Deep copy of `config` with every secret replaced by "***". The input is not modified. */
export function maskSecrets<T extends GatewayConfig>(config: T): T {
  const copy = structuredClone(config);
  if (copy.server?.admin_token !== undefined) copy.server.admin_token = MASK;
  if (copy.store?.type === "redis" && typeof copy.store.url === "string") copy.store.url = maskUrlCredentials(copy.store.url);
  if (copy.store?.type === "redis-cluster" && Array.isArray(copy.store.nodes)) copy.store.nodes = copy.store.nodes.map(maskUrlCredentials);
  if (typeof copy.cache?.redis_url === "string") copy.cache.redis_url = maskUrlCredentials(copy.cache.redis_url);
  if (Array.isArray(copy.cache?.redis_nodes)) copy.cache.redis_nodes = copy.cache.redis_nodes.map(maskUrlCredentials);
  for (const partner of copy.partners ?? []) {
    if (partner.token_a !== undefined) partner.token_a = MASK;
    if (typeof partner.versions_url === "string") partner.versions_url = maskUrlCredentials(partner.versions_url);
  }
  if (copy.adapters) {
    // adapter names themselves are not secret ("keystone" stays readable); their settings are masked
    for (const name of Object.keys(copy.adapters)) {
      copy.adapters[name] = maskSettings(copy.adapters[name]) as Record<string, unknown>;
    }
  }
  return copy;
}
