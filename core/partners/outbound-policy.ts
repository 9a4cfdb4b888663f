import { BlockList, isIP } from "node:net";
import type { PartnerConfig } from "../../config/types";
import type { OutboundPolicy } from "../contract/partner-profile";

/** The URL, or undefined when it is none: what every check here reads (a caller that checks one URL several times parses it once). */
export const parseUrl = (url: string | undefined): URL | undefined => {
  if (url === undefined) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
};

/**
 * The partner's policy: the origin of `versions_url` when configured, each
 * `callback_hosts` entry (`host`: the scheme's default port; `host:port`)
 * over http and https, and, for a partner with no `versions_url` in config,
 * the origin of the versions URL it registered with.
 */
export const outboundPolicy = (config: Pick<PartnerConfig, "versions_url" | "callback_hosts">, registeredVersionsUrl?: string): OutboundPolicy => {
  // every call to a partner asks for its policy: built once per config object (the loaded config is never changed) and registered URL
  let byUrl = policies.get(config);
  if (!byUrl) policies.set(config, (byUrl = new Map()));
  let policy = byUrl.get(registeredVersionsUrl ?? "");
  if (!policy) byUrl.set(registeredVersionsUrl ?? "", (policy = policyOf(config, registeredVersionsUrl)));
  return policy;
};

const policies = new WeakMap<object, Map<string, OutboundPolicy>>();

const policyOf = (config: Pick<PartnerConfig, "versions_url" | "callback_hosts">, registeredVersionsUrl?: string): OutboundPolicy => {
  const namedOrigins = new Set<string>();
  const configured = parseUrl(config.versions_url);
  if (configured) namedOrigins.add(configured.origin);
  for (const entry of config.callback_hosts) {
    for (const scheme of ["http:", "https:"]) {
      const url = parseUrl(`${scheme}//${entry}`);
      if (url) namedOrigins.add(url.origin);
    }
  }
  const origins = new Set(namedOrigins);
  if (!configured) {
    const registered = parseUrl(registeredVersionsUrl);
    if (registered) origins.add(registered.origin);
  }
  return { origins, namedOrigins };
};

/**
 * Addresses no partner host outside the config may resolve to: loopback,
 * private, link-local, CGNAT, unique-local, unspecified, multicast,
 * broadcast and reserved ranges. An IPv6 address that carries an IPv4
 * address is also checked by the IPv4 address it carries (embeddedIPv4).
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, "ipv6");

/** The eight 16-bit groups of an IPv6 address isIP has accepted (no zone id), a dotted IPv4 tail included. */
const ipv6Groups = (address: string): number[] => {
  const tail: number[] = [];
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, dotted.index);
    if (text.endsWith(":") && !text.endsWith("::")) text = text.slice(0, -1);
  }
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const [head, rest] = text.split("::");
  const front = groups(head);
  const back = rest === undefined ? [] : groups(rest);
  return [...front, ...Array<number>(8 - front.length - back.length - tail.length).fill(0), ...back, ...tail];
};

const ipv4Of = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 addresses an IPv6 address carries, by the forms that reach an IPv4
 * host through the address: a socket (IPv4-mapped), a tunnel or a translator
 * on the way. A prefix of an operator's own (an RFC 6052 network-specific
 * NAT64 prefix) cannot be told from any other address and is not seen.
 */
const embeddedIPv4 = (g: number[]): string[] => {
  const zero = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const found: string[] = [];
  // IPv4-mapped ::ffff:0:0/96 and IPv4-compatible ::/96 (RFC 4291, the latter deprecated); IPv4-translated ::ffff:0:0:0/96 (RFC 2765)
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0)) found.push(ipv4Of(g[6], g[7]));
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) found.push(ipv4Of(g[6], g[7]));
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052) and local-use 64:ff9b:1::/48 (RFC 8215): the last 32 bits
  if (g[0] === 0x64 && g[1] === 0xff9b && (zero(2, 6) || g[2] === 1)) found.push(ipv4Of(g[6], g[7]));
  // 6to4 2002::/16 (RFC 3056): the relay's IPv4 address in bits 16-47
  if (g[0] === 0x2002) found.push(ipv4Of(g[1], g[2]));
  // Teredo 2001::/32 (RFC 4380): the server in bits 32-63, the client's address inverted in the last 32 bits
  if (g[0] === 0x2001 && g[1] === 0) found.push(ipv4Of(g[2], g[3]), ipv4Of(g[6] ^ 0xffff, g[7] ^ 0xffff));
  // ISATAP interface identifier ::0:5efe:a.b.c.d or ::200:5efe:a.b.c.d, under any prefix (RFC 5214)
  if ((g[4] & 0xfcff) === 0 && g[5] === 0x5efe) found.push(ipv4Of(g[6], g[7]));
  return found;
};

/**
 * Whether an IP address (IPv6 with or without brackets) is globally
 * routable: the address itself, and every IPv4 address it carries; anything
 * that is not an IP address is not. A zone id scopes an address to one link:
 * never public (URL parsing takes none; an address a lookup answers might).
 */
export const isPublicAddress = (address: string): boolean => {
  const bare = address.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 4) return !NOT_PUBLIC.check(bare, "ipv4");
  if (bare.includes("%") || NOT_PUBLIC.check(bare, "ipv6")) return false;
  return embeddedIPv4(ipv6Groups(bare)).every((ipv4) => !NOT_PUBLIC.check(ipv4, "ipv4"));
};

/**
 * What is wrong with calling `url` under `policy`, checked before any
 * connection: scheme, userinfo, origin, and an IP-literal host outside the
 * config that is not public. Host names are checked again after DNS
 * resolution, at connect time (core/client/guarded-dispatcher.ts).
 * `originOnly` leaves the address out, for URLs checked when a partner
 * hands them to us. Messages name hosts and origins, never paths or queries.
 */
export const outboundProblem = (url: string | URL, policy: OutboundPolicy, originOnly = false): string | undefined => {
  const parsed = typeof url === "string" ? parseUrl(url) : url;
  if (!parsed) return "must be an absolute http(s) URL";
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "must use http or https";
  if (parsed.username || parsed.password) return "must not carry a user name or password";
  if (!policy.origins.has(parsed.origin)) {
    const knownHost = [...policy.origins].some((origin) => new URL(origin).hostname === parsed.hostname);
    return knownHost
      ? `origin ${parsed.origin} is not allowed for this partner (see partners[].callback_hosts)`
      : `host ${parsed.hostname} is not allowed for this partner (see partners[].callback_hosts)`;
  }
  if (originOnly || policy.namedOrigins.has(parsed.origin)) return undefined;
  if (isIP(parsed.hostname.replace(/^\[(.*)\]$/, "$1")) !== 0 && !isPublicAddress(parsed.hostname))
    return `host ${parsed.hostname} is not a public address (see partners[].callback_hosts)`;
  return undefined;
};

/** Whether connections to `url` must be limited to public addresses: its origin is not one the operator named. */
export const needsPublicAddress = (url: string | URL, policy: OutboundPolicy): boolean => {
  const parsed = typeof url === "string" ? parseUrl(url) : url;
  return !parsed || !policy.namedOrigins.has(parsed.origin);
};
