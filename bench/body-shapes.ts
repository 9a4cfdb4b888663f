import type { InboundServerConfig } from "../config/types";
import { benchLocation } from "./bench-gateway";

/**
 * The bodies of the body-limits benchmark (bench/body-limits-bench.ts): the
 * costliest bodies within a set of limits we know of, and finding D3's.
 */

/** A body to PUT (and then GET) at `path` below /ocpi/2.3.0/receiver, built fresh for each round: new keys are what costs most. */
export interface Shape {
  name: string;
  path: string;
  build(): string;
  /** sent chunked, in pieces of 64 KB, without a Content-Length */
  chunked?: boolean;
}

export const tokenWith = (uid: string, extra: unknown): string =>
  JSON.stringify({ country_code: "DE", party_id: "EMS", uid, type: "RFID", contract_id: "DE-EMS-C1", issuer: "EMS", valid: true, whitelist: "ALLOWED", last_updated: "2025-01-01T00:00:00Z", extra });

/** member names no body has used before: each new name (and each new order of names) is a new hidden class for V8 */
let fresh = 0;
const freshKey = (): string => `k${(fresh++).toString(36)}`;

/**
 * `count` objects of `members` members each: as many as the layout limit
 * allows with new member names, the rest repeating those objects' names in
 * the same order (layouts already seen in this body).
 */
const objects = (count: number, members: number, layouts: number, value: () => unknown = () => 1): Record<string, unknown>[] => {
  const names = Array.from({ length: Math.max(1, Math.min(count, Math.floor(layouts / members))) }, () => Array.from({ length: members }, freshKey));
  return Array.from({ length: count }, (_, i) => Object.fromEntries(names[i % names.length].map((name) => [name, value()])));
};

/** room the Token around `extra` takes: its members, layouts and bytes, with a margin */
const WRAPPER = { members: 20, layouts: 20, bytes: 400 };

/** The costliest bodies within the limits we know of, as a Token's unknown member `extra`, and a Location of as many EVSEs as fit. */
export const acceptedShapes = (limits: InboundServerConfig): Shape[] => {
  const members = limits.max_body_members - WRAPPER.members;
  const layouts = limits.max_body_layouts - WRAPPER.layouts;
  const bytes = limits.max_body_bytes - WRAPPER.bytes;
  const perObject = Math.min(limits.max_object_members, members - 1, layouts);
  const string = limits.max_string_bytes;
  const token = (name: string, extra: () => unknown): Shape => ({ name, path: "/tokens/DE/EMS/HEAVY", build: () => tokenWith("HEAVY", extra()) });
  const small = Math.floor(members / 11);
  const wide = Math.floor(members / (perObject + 1));
  const single = Math.floor(members / 2);
  const longValue = Math.min(string, Math.floor(bytes / single) - 16);
  const longStrings = Math.min(members, Math.floor(bytes / (string + 3)));
  const shortString = Math.min(string, Math.floor(bytes / members) - 3);
  return [
    token(`${small} objects of 10 members, ${Math.min(layouts, small * 10)} new layouts`, () => objects(small, 10, layouts)),
    token(`${wide} objects of ${perObject} members, ${Math.min(layouts, wide * perObject)} new layouts`, () => objects(wide, perObject, layouts)),
    token(`${single} objects of one member of ${longValue} bytes, ${Math.min(layouts, single)} new layouts`, () => objects(single, 1, layouts, () => "v".repeat(longValue))),
    token(`${longStrings} strings of ${string} bytes`, () => Array.from({ length: longStrings }, () => "s".repeat(string))),
    token(`${members} strings of ${shortString} bytes`, () => Array.from({ length: members }, () => "s".repeat(shortString))),
    locationShape(limits),
  ];
};

/** A Location whose EVSEs have three connectors each and most optional fields: as many as the limits allow. */
const locationShape = (limits: InboundServerConfig): Shape => {
  const evse = (i: number) => ({
    uid: `EVSE${i}`,
    evse_id: `DE*CPX*E${i}`,
    status: "AVAILABLE",
    capabilities: ["RFID_READER", "REMOTE_START_STOP_CAPABLE", "RESERVABLE"],
    floor_level: "1",
    physical_reference: String(i),
    coordinates: { latitude: "52.09074", longitude: "5.12142" },
    parking_restrictions: ["EV_ONLY"],
    connectors: ["1", "2", "3"].map((id) => ({
      id,
      standard: "IEC_62196_T2",
      format: "SOCKET",
      power_type: "AC_3_PHASE",
      max_voltage: 230,
      max_amperage: 32,
      max_electric_power: 22000,
      tariff_ids: ["T1", "T2"],
      last_updated: "2026-01-01T00:00:00Z",
    })),
    last_updated: "2026-01-01T00:00:00Z",
  });
  const valuesOf = (json: string) => (json.match(/[:,[]/g) ?? []).length;
  const perEvse = valuesOf(JSON.stringify(evse(1)));
  const count = Math.min(Math.floor((limits.max_body_members - 40) / (perEvse + 1)), Math.floor((limits.max_body_bytes - 1000) / JSON.stringify(evse(99999)).length));
  return {
    name: `a Location with ${count} EVSEs of 3 connectors (same member names throughout)`,
    path: "/locations/DE/CPX/BIG",
    build: () => JSON.stringify({ ...benchLocation(1), country_code: "DE", party_id: "CPX", id: "BIG", evses: Array.from({ length: count }, (_, i) => evse(i)) }),
  };
};

/** Finding D3: a Token with 400,000 unknown members (6.8 MB). */
export const d3Body: Shape = {
  name: "the D3 body: a Token with 400,000 unknown members",
  path: "/tokens/DE/EMS/D3",
  build: () => tokenWith("D3", undefined).replace(/}$/, `,${Array.from({ length: 400_000 }, () => `"m${String(fresh++).padStart(11, "0")}":1`).join(",")}}`),
};
