import "reflect-metadata";
import request from "supertest";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { BUILT_IN_PLUGINS } from "../../app/built-ins";
import { ModuleCatalog } from "../../core/modules/module-catalog";
import { defineAdapter, type AdapterFactory, type PartyRef, type PortContext, type PortMap, type PortName } from "../../adapters/kit";
import type { CredentialsRole, InterfaceRole, VersionNumber } from "../../core/protocol/types";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { CONTRACT_PARTY, loadFixture, adapterName, type ContractData, type ContractFixture, type StartedBackend } from "./fixture";
import { contractData, IN_SCOPE, PARTNER_CPO } from "./data";

/** An outcome the adapter reported to the gateway's sink (commands, charging profiles), and what the sink answered. */
export interface Reported {
  port: "commands.RECEIVER" | "chargingprofiles.RECEIVER";
  id: string;
  result: unknown;
  taken: boolean;
}

/** What the adapter was handed through a port method the suite watches. */
export interface Submitted {
  port: "commands.RECEIVER" | "chargingprofiles.RECEIVER";
  id: string;
}

export interface ContractGateway {
  name: string;
  fixture: ContractFixture;
  backend: StartedBackend;
  /** what the backend holds (`backend.holds`) */
  holds: ContractData;
  /** our party: the owner of the backend's data */
  party: PartyRef;
  gateway: Gateway;
  http: ReturnType<typeof request>;
  /** Authorization header of the registered partner (acting for IN_SCOPE as eMSP and PARTNER_CPO as CPO) */
  auth: string;
  /** e.g. path("SENDER", "locations", "/LOC-01"); 2.3.0 unless given */
  path(role: InterfaceRole, module: string, rest?: string, version?: VersionNumber): string;
  /** does the adapter implement this port? */
  has(port: PortName): boolean;
  /** the port the gateway serves a module with, as the gateway holds it */
  port<P extends PortName>(name: P): PortMap[P];
  /** a port context for our party, optionally with a partner's scope of these parties */
  ctx(scopeParties?: PartyRef[]): PortContext;
  reported: Reported[];
  submitted: Submitted[];
  close(): Promise<void>;
}

const role = (party: PartyRef, r: "CPO" | "EMSP"): CredentialsRole => ({ ...party, role: r, business_details: { name: `${party.country_code}${party.party_id}` } });

/** The modules the suite has checks for; an adapter's other ports are not routed. */
const CHECKED_MODULES = ["locations", "sessions", "cdrs", "tariffs", "tokens", "commands", "chargingprofiles"];

/** The modules and roles an adapter implements (of CHECKED_MODULES), from its port names. */
const routedModules = (factory: AdapterFactory): Record<string, { roles: InterfaceRole[] }> => {
  const modules: Record<string, { roles: InterfaceRole[] }> = {};
  for (const name of factory.portNames) {
    const [module, portRole] = name.split(".");
    if (!CHECKED_MODULES.includes(module) || (portRole !== "SENDER" && portRole !== "RECEIVER")) continue;
    (modules[module] ??= { roles: [] }).roles.push(portRole);
  }
  return modules;
};

const WATCHED = ["commands.RECEIVER", "chargingprofiles.RECEIVER"] as const;

/**
 * The adapter's factory with its asynchronous Receiver ports watched: what
 * `submit` is handed and every outcome the adapter reports to the gateway's
 * sink are recorded, then passed on unchanged. Every other port is the
 * adapter's own object.
 */
const watched = (factory: AdapterFactory, reported: Reported[], submitted: Submitted[]): AdapterFactory =>
  defineAdapter({
    ...factory,
    async create(settings, deps) {
      const adapter = await factory.create(settings, deps);
      const ports: Record<string, unknown> = { ...adapter.ports };
      for (const name of WATCHED) {
        const port = ports[name] as Record<string, any> | undefined;
        if (!port) continue;
        ports[name] = new Proxy(port, {
          get(target, key) {
            const value = Reflect.get(target, key);
            if (key === "connect")
              return (sink: { report(id: string, result: unknown): Promise<boolean> }) =>
                value.call(target, {
                  report: async (id: string, result: unknown) => {
                    const taken = await sink.report(id, result);
                    reported.push({ port: name, id, result, taken });
                    return taken;
                  },
                });
            if (key === "submit")
              return (what: { id: string }, ctx: PortContext) => {
                submitted.push({ port: name, id: what.id });
                return value.call(target, what, ctx);
              };
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
      }
      return { ...adapter, ports: ports as Partial<PortMap>, start: adapter.start?.bind(adapter), stop: adapter.stop?.bind(adapter) };
    },
  });

/**
 * A gateway serving every module the adapter under test implements, on a
 * backend its fixture started with the suite's data, with one partner
 * registered (as the credentials exchange would leave it): an eMSP
 * (IN_SCOPE) and a CPO (PARTNER_CPO), on 2.3.0.
 */
export const startContractGateway = async (): Promise<ContractGateway> => {
  const name = adapterName();
  const fixture = loadFixture(name);
  const backend = await fixture.start(contractData(CONTRACT_PARTY));
  const party = backend.party ?? CONTRACT_PARTY;
  const reported: Reported[] = [];
  const submitted: Submitted[] = [];
  let gateway: Gateway;
  try {
    const config = testGatewayConfig({
      port: 9,
      party: { ...party, role: "CPO" },
      modules: Object.fromEntries(Object.entries(routedModules(fixture.factory)).map(([m, r]) => [m, { adapter: fixture.factory.type, ...r }])),
      adapters: { [fixture.factory.type]: backend.settings },
      partners: [{ id: "partner", versions: ["2.3.0", "2.2.1", "2.1.1"] }],
      server: { log_level: "silent" },
    });
    gateway = await Gateway.create(config, {
      logger: pino({ level: "silent" }),
      plugins: BUILT_IN_PLUGINS,
      adapters: [watched(backend.factory ?? fixture.factory, reported, submitted)],
    });
  } catch (error) {
    await backend.close();
    throw error;
  }
  const token = await gateway.registry.issueToken("partner");
  await gateway.registry.recordRegistration("partner", {
    version: "2.3.0",
    versionsUrl: "http://127.0.0.1:9/versions",
    endpoints: [],
    roles: [role(IN_SCOPE, "EMSP"), role(PARTNER_CPO, "CPO")],
    tokenToPartner: "unused-token-to-partner",
  });
  const served = gateway.container.resolve(ModuleCatalog).served;
  return {
    name,
    fixture,
    backend,
    holds: backend.holds,
    party,
    gateway,
    http: request(gateway.app.callback()),
    auth: `Token ${Buffer.from(token).toString("base64")}`,
    path: (r, module, rest = "", version = "2.3.0") => `/ocpi/${version}/${r.toLowerCase()}/${module}${rest}`,
    has: (port) => fixture.factory.portNames.includes(port),
    port: <P extends PortName>(portName: P) => {
      const found = served.find((s) => `${s.plugin.module}.${s.role}` === portName);
      if (!found) throw new Error(`the gateway serves no ${portName}`);
      return found.port as PortMap[P];
    },
    ctx: (scopeParties) => ({
      party,
      ...(scopeParties ? { partnerId: "partner", scope: { parties: scopeParties, relay: false, excluded: [party] } } : {}),
    }),
    reported,
    submitted,
    close: async () => {
      await gateway.close();
      await backend.close();
      removeTempDirs();
    },
  };
};

/** Waits until `check` returns something truthy, or fails after `ms`. */
export const eventually = async <T>(check: () => T | undefined | false, ms = 10_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
};
