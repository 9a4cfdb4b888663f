import type { PartyRef } from "../kit";

/**
 * The narrow shapes the steve engine (its poller, REST client and mapping)
 * works against, so that it can be driven by tests without a gateway: the
 * factory (factory.ts) hands over the gateway's implementations from the
 * kit, whose shapes they match (pino's Logger is a SteveLog, the change
 * feed's `publish` is a ChangeSink, a store namespace is a KeyValue).
 * Parties and their keys are the kit's.
 */

/** One change to publish: EVSE status PATCH, Session PUT/PATCH, CDR, Location PUT. */
export interface SteveChange {
  module: "locations" | "sessions" | "cdrs";
  /** our CPO party: the data owner */
  owner: PartyRef;
  /** below the owner, e.g. [location_id, evse_uid] or [session_id] */
  path: string[];
  kind: "upsert" | "patch";
  object: Record<string, unknown>;
}

/** Resolves once the change is durably taken (written to the outbox); the poller advances only then. */
export type ChangeSink = (change: SteveChange) => Promise<void>;

/**
 * Durable string key-value storage (the gateway's store backs it): tag
 * ownership, uid aliases, reservation ids and the poller's watermarks.
 * One writer per key is assumed (one poller per SteVe database).
 */
export interface KeyValue {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** In-process KeyValue: tests, and a gateway that accepts losing the adapter's memory on restart. */
export function memoryKeyValue(): KeyValue & { readonly map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get: async (key) => map.get(key),
    set: async (key, value) => void map.set(key, value),
    delete: async (key) => void map.delete(key),
  };
}

export async function getJson<T>(kv: KeyValue, key: string): Promise<T | undefined> {
  const raw = await kv.get(key);
  return raw === undefined ? undefined : (JSON.parse(raw) as T);
}

export const setJson = (kv: KeyValue, key: string, value: unknown): Promise<void> => kv.set(key, JSON.stringify(value));

/** pino's Logger fits; messages never carry passwords or Authorization values. */
export interface SteveLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export const silentLog: SteveLog = { info() {}, warn() {}, error() {} };
