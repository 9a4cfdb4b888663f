import path from "node:path";
import { readdirSync } from "node:fs";
import type { AdapterFactory, PartyRef } from "../../adapters/kit";

type Json = Record<string, any>;

/**
 * The objects the suite asks a backend to hold, canonical (2.3.0), per module.
 * Our own data (owner = `party`): Locations, Sessions and CDRs, Tariffs, and
 * Tokens (our party as their eMSP). Sessions and CDRs carry tokens of two
 * eMSPs, one in the test partner's scope and one outside it.
 */
export interface ContractData {
  locations: Json[];
  sessions: Json[];
  cdrs: Json[];
  tariffs: Json[];
  tokens: Json[];
}

/** A backend started by a fixture, and how the gateway reaches it. */
export interface StartedBackend {
  /** the adapter's settings (`adapters.<name>` of the config) */
  settings: Record<string, unknown>;
  /**
   * What the backend holds now, as the adapter is expected to answer it: the given data when the
   * backend can take arbitrary objects (`local`), else what its own seed maps to. Every expectation
   * of the suite (ids, counts, dates, whole objects) is computed from this.
   */
  holds: ContractData;
  /** our party, the owner of `holds`; default CONTRACT_PARTY */
  party?: PartyRef;
  /**
   * the adapter as this backend needs it, when it differs from `ContractFixture.factory` (same type and
   * port names), e.g. wrapped to provision state in the gateway's store before it starts
   */
  factory?: AdapterFactory;
  /** makes the backend unreachable and back (required when the fixture sets `outage`) */
  halt?(): Promise<void>;
  resume?(): Promise<void>;
  /** stops the backend; called after the gateway is closed */
  close(): Promise<void>;
}

/** What `test/adapter-contract/fixtures/<name>.ts` exports as `fixture`. */
export interface ContractFixture {
  /** the adapter under test, as the gateway takes it (its `defineAdapter` factory) */
  factory: AdapterFactory;
  /** starts the backend holding `data`, or the nearest it can (see `StartedBackend.holds`) */
  start(data: ContractData): Promise<StartedBackend>;
  /**
   * false when the backend cannot hold an unpublished Location next to published ones (steve: one
   * `publish` setting for all): the checks that need one are skipped; default true
   */
  holdsUnpublishedLocations?: boolean;
  /** the backend can be halted: the suite then checks that its Sender GETs answer 503 with 3000 meanwhile */
  outage?: boolean;
}

export const CONTRACT_PARTY: PartyRef = { country_code: "NL", party_id: "GWY" };

/** The adapter the suite runs against: `ADAPTER_CONTRACT` (set by `npm run test:adapter -- <name>`), default `local`. */
export const adapterName = (): string => process.env.ADAPTER_CONTRACT || "local";

const FIXTURES = path.join(__dirname, "fixtures");

/** The fixture of the adapter under test; an unknown name fails naming the fixtures there are. */
export const loadFixture = (name = adapterName()): ContractFixture => {
  const available = readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => f.slice(0, -3));
  if (!available.includes(name))
    throw new Error(`no contract fixture for adapter "${name}": write test/adapter-contract/fixtures/${name}.ts (available: ${available.join(", ")})`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(path.join(FIXTURES, name)) as { fixture: ContractFixture }).fixture;
};
