import "reflect-metadata";
import pino from "pino";
import request from "supertest";
import { stringify } from "yaml";
import type { AdapterFactory } from "../../core/contract/adapter";
import type { CredentialsRole, PartyRef, VersionNumber } from "../../core/protocol/types";
import { partyKey } from "../../core/protocol/types";
import type { Page, PageRequest } from "../../core/contract/page";
import type { LocationsReceiverPort, LocationsSenderPort, Location } from "../../plugins/locations/ports";
import { parseDateTime } from "../../core/protocol/datetime";
import { parseConfig } from "../../config/load-config";
import { Gateway } from "../../app/gateway";
import { CredentialsPlugin } from "../../plugins/credentials/module";
import { LocationsPlugin } from "../../plugins/locations/module";
import { gatewayConfigData, type StoreSpec } from "./gateway-config";

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A test backend for the cache: the locations SENDER and RECEIVER ports over
 * one in-memory map, shared by every gateway created with it (like one
 * legacy system behind several instances). It counts the sender calls that
 * reach it and answers after `delayMs`, like a slow legacy system.
 */
export class LocationsBackend {
  private readonly locations = new Map<string, Location>();
  /** sender calls (list and get) that reached the backend */
  senderCalls = 0;

  constructor(public delayMs = 0) {}

  /** Writes directly, as the legacy system would behind the gateway's back. */
  store(location: Location): void {
    this.locations.set(`${partyKey(location)}/${location.id}`, location);
  }

  factory(): AdapterFactory {
    return {
      type: "counting",
      portNames: ["locations.SENDER", "locations.RECEIVER"],
      create: async () => ({ ports: { "locations.SENDER": this.sender(), "locations.RECEIVER": this.receiver() } }),
    };
  }

  private sender(): LocationsSenderPort {
    return {
      list: async (page, ctx) => {
        await this.reached();
        return this.page(ctx.party, page);
      },
      get: async (id, ctx) => {
        await this.reached();
        return this.locations.get(`${partyKey(ctx.party)}/${id}`);
      },
    };
  }

  private receiver(): LocationsReceiverPort {
    return {
      get: async (owner, id) => this.locations.get(`${partyKey(owner)}/${id}`),
      put: async (owner, location) => {
        const key = `${partyKey(owner)}/${location.id}`;
        const outcome = this.locations.has(key) ? "updated" : "created";
        this.locations.set(key, location);
        return outcome;
      },
      update: async (owner, id, change) => {
        const current = this.locations.get(`${partyKey(owner)}/${id}`);
        if (!current) return undefined;
        const changed = change(current);
        this.locations.set(`${partyKey(owner)}/${id}`, changed);
        return changed;
      },
    };
  }

  private async reached(): Promise<void> {
    this.senderCalls++;
    if (this.delayMs > 0) await pause(this.delayMs);
  }

  private page(owner: PartyRef, page: PageRequest): Page<Location> {
    const time = (l: Location) => parseDateTime(l.last_updated) ?? 0;
    const matching = [...this.locations.values()]
      .filter((l) => partyKey(l) === partyKey(owner))
      .filter((l) => (page.dateFrom === undefined || time(l) >= page.dateFrom) && (page.dateTo === undefined || time(l) < page.dateTo))
      .sort((a, b) => time(a) - time(b) || a.id.localeCompare(b.id));
    return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length };
  }
}

/** A Location of our party NL/GWY with a 2.3.0-only field (help_phone) and a connector whose fields 2.1.1 names differently. */
export const testLocation = (n: number, name = `Site ${n}`, owner: PartyRef = { country_code: "NL", party_id: "GWY" }): Location => ({
  country_code: owner.country_code,
  party_id: owner.party_id,
  id: `LOC${n}`,
  publish: true,
  name,
  address: `Teststraat ${n}`,
  city: "Utrecht",
  postal_code: "3500AA",
  country: "NLD",
  coordinates: { latitude: "52.090730", longitude: "5.121420" },
  time_zone: "Europe/Amsterdam",
  help_phone: "+31301234567",
  evses: [
    {
      uid: `EVSE${n}`,
      evse_id: `NL*GWY*E${n}`,
      status: "AVAILABLE",
      connectors: [
        { id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 32, last_updated: "2026-01-01T00:00:00Z" },
      ],
      last_updated: "2026-01-01T00:00:00Z",
    },
  ],
  last_updated: `2026-01-01T00:00:0${n}Z`,
});

export interface TestPartner {
  id: string;
  version: VersionNumber;
  role: CredentialsRole;
}

export const partner = (id: string, version: VersionNumber, cc: string, pid: string): TestPartner => ({
  id,
  version,
  role: { country_code: cc, party_id: pid, role: "EMSP", business_details: { name: `${cc}${pid}` } },
});

export interface CacheGatewayOptions {
  backend: LocationsBackend;
  partners: TestPartner[];
  /** the `cache:` section of the YAML */
  cache?: Record<string, unknown>;
  store?: StoreSpec;
  /** register the partners (false: a second instance on a store where they are registered already) */
  register?: boolean;
}

export interface CacheGateway {
  gateway: Gateway;
  http: ReturnType<typeof request>;
  /** Authorization header per partner id (when registered by this instance) */
  auth: Record<string, string>;
  logs: string[];
  close(): Promise<void>;
}

/**
 * An in-process gateway (our party NL/GWY, CPO) serving locations from the
 * backend, its config parsed from YAML the way the product reads it, and its
 * partners registered the way a credentials exchange leaves them.
 */
export const startCacheGateway = async (options: CacheGatewayOptions): Promise<CacheGateway> => {
  const data = gatewayConfigData({
    port: 9,
    store: options.store,
    modules: { locations: { adapter: "counting" } },
    adapters: { counting: {} },
    partners: options.partners.map((p) => ({ id: p.id, versions: [p.version] })),
    server: { log_level: "info" },
  });
  const config = parseConfig(stringify({ ...data, ...(options.cache ? { cache: options.cache } : {}) }), {}, "<cache test config>");
  const logs: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void logs.push(line) });
  const gateway = await Gateway.create(config, { logger, plugins: [CredentialsPlugin, LocationsPlugin], adapters: [options.backend.factory()] });
  const auth: Record<string, string> = {};
  if (options.register ?? true) {
    for (const p of options.partners) {
      const token = await gateway.registry.issueToken(p.id);
      await gateway.registry.recordRegistration(p.id, {
        version: p.version,
        versionsUrl: "http://127.0.0.1:9/versions",
        endpoints: [],
        roles: [p.role],
        tokenToPartner: "unused-token-to-partner",
      });
      auth[p.id] = `Token ${Buffer.from(token).toString("base64")}`;
    }
  }
  return { gateway, http: request(gateway.app.callback()), auth, logs, close: () => gateway.close() };
};

/** Log lines (pino JSON) whose message contains `text`. */
export const logLines = (logs: string[], text: string): string[] => logs.filter((line) => (JSON.parse(line) as { msg?: string }).msg?.includes(text));
