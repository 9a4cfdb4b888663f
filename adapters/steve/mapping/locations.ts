import { ciKey, type Connector, type Evse, type GeoLocation, type Location } from "../../kit";
import type { ChargeBoxRow, EvseRow, EvseStatusFacts } from "../db/rows";
import { alpha3 } from "./country";
import { emi3EvseId, evseUid } from "./evse-id";
import type { LocationOverrides, SteveMappingSettings } from "./settings";
import { evseStatus } from "./status";

/** SteVe's facts for building Locations; the read layer's rows as they come. */
export interface SteveLocationFacts {
  chargeBoxes: ChargeBoxRow[];
  evses: EvseRow[];
  statuses: EvseStatusFacts[];
}

export interface MappedLocations {
  locations: Location[];
  /** charge boxes (or groups) that cannot be a valid Location until the YAML fills the gap */
  skipped: { id: string; reason: string }[];
}

const iso = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, "Z");
const newest = (dates: (Date | null | undefined)[], fallback: Date): Date =>
  dates.reduce<Date | null>((max, d) => (d && (!max || d > max) ? d : max), null) ?? fallback;

/** OCPI wants 5–7 decimals; SteVe keeps DECIMAL(11,8). */
const degrees = (value: string): string => Number(value).toFixed(7);

const countryOf = (value: string | undefined | null): string | undefined =>
  value ? (alpha3(value) ?? (/^[A-Za-z]{3}$/.test(value) ? value.toUpperCase() : undefined)) : undefined;

/** OCPI Location id of a charge box: its YAML group, else its own id (one Location per charge box). */
export const locationIdOf = (settings: SteveMappingSettings, chargeBoxId: string): string =>
  settings.locations.find((g) => g.charge_boxes.some((id) => ciKey(id) === ciKey(chargeBoxId)))?.id ?? chargeBoxId;

/** Protocols whose stations take ReserveNow (OCPP 1.5 and later). */
const reservable = (protocol: string | null) => protocol !== null && !/^ocpp1\.2/i.test(protocol);

function mapConnector(row: EvseRow["connectors"][number], settings: SteveMappingSettings, tariffIds: string[] | undefined, fallback: Date): Connector {
  const d = settings.connector_defaults;
  const connector: Connector = {
    id: String(row.connectorId),
    standard: row.connectorType ?? d.standard,
    format: (row.connectorFormat as Connector["format"] | null) ?? d.format,
    power_type: row.powerType ?? d.power_type,
    max_voltage: row.maxVoltage ?? d.max_voltage,
    max_amperage: row.maxAmperage ?? d.max_amperage,
    last_updated: iso(row.updatedAt ?? fallback),
  };
  const power = row.maxElectricPower ?? d.max_electric_power;
  if (power !== undefined) connector.max_electric_power = power;
  if (tariffIds?.length) connector.tariff_ids = tariffIds;
  return connector;
}

function mapEvse(
  row: EvseRow,
  box: ChargeBoxRow,
  facts: EvseStatusFacts | undefined,
  settings: SteveMappingSettings,
  tariffIds: string[] | undefined,
  now: Date,
): Evse {
  const updated = newest(
    [row.updatedAt, ...row.connectors.map((c) => c.updatedAt), facts?.latest?.statusTimestamp, facts?.station?.statusTimestamp, box.updatedAt],
    now,
  );
  const capabilities = [...settings.capabilities];
  if (reservable(box.ocppProtocol) && !capabilities.includes("RESERVABLE")) capabilities.push("RESERVABLE");
  return {
    uid: evseUid(row.chargeBoxId, row.evseId),
    evse_id: row.evseIdExternal ?? emi3EvseId(settings.evse_id_pattern, settings, row.chargeBoxId, row.evseId),
    status: facts ? evseStatus(facts, now, settings.status) : "UNKNOWN",
    capabilities,
    connectors: row.connectors.map((c) => mapConnector(c, settings, tariffIds, updated)),
    last_updated: iso(updated),
  };
}

const streetLine = (box: ChargeBoxRow | undefined): string | undefined => {
  const line = [box?.address?.street, box?.address?.houseNumber].filter(Boolean).join(" ").trim();
  return line || undefined;
};

const coordinatesOf = (box: ChargeBoxRow | undefined): GeoLocation | undefined =>
  box?.address?.latitude && box.address.longitude
    ? { latitude: degrees(box.address.latitude), longitude: degrees(box.address.longitude) }
    : undefined;

/** The facts indexed once per mapping (by box and by EVSE), not searched once per Location. */
interface IndexedFacts {
  evsesByBox: Map<string, EvseRow[]>;
  statusByPk: Map<number, EvseStatusFacts>;
}

const indexed = (facts: SteveLocationFacts): IndexedFacts => {
  const evsesByBox = new Map<string, EvseRow[]>();
  for (const e of facts.evses) {
    const list = evsesByBox.get(e.chargeBoxId);
    if (list) list.push(e);
    else evsesByBox.set(e.chargeBoxId, [e]);
  }
  return { evsesByBox, statusByPk: new Map(facts.statuses.map((s) => [s.evsePk, s])) };
};

/** Where a Location is (YAML overrides first, then SteVe's facts, then the YAML defaults), or why it cannot be one. */
function placeOf(boxes: ChargeBoxRow[], override: LocationOverrides, settings: SteveMappingSettings) {
  const located = boxes.find((b) => b.address) ?? boxes[0];
  const address = override.address ?? streetLine(located) ?? settings.address;
  const city = override.city ?? located?.address?.city ?? settings.city;
  const country = countryOf(override.country) ?? countryOf(located?.address?.country) ?? countryOf(settings.country);
  const coordinates = override.coordinates ?? coordinatesOf(located) ?? settings.coordinates;
  const missing = Object.entries({ address, city, country, coordinates }).filter(([, v]) => v === undefined);
  if (missing.length) return `no ${missing.map(([k]) => k).join(", ")} in SteVe or the YAML`;
  return { located, address, city, country, coordinates };
}

/** One Location from its charge boxes: YAML overrides first, then SteVe's facts, then the YAML defaults. */
function mapLocation(
  id: string,
  boxes: ChargeBoxRow[],
  override: LocationOverrides,
  facts: IndexedFacts,
  settings: SteveMappingSettings,
  now: Date,
): Location | string {
  const place = placeOf(boxes, override, settings);
  if (typeof place === "string") return place;
  const { located, address, city, country, coordinates } = place;

  const evses = boxes.flatMap((box) => {
    const tariffIds = settings.charge_boxes[box.chargeBoxId]?.tariff_ids ?? override.tariff_ids ?? settings.tariff_ids;
    return (facts.evsesByBox.get(box.chargeBoxId) ?? []).map((e) => mapEvse(e, box, facts.statusByPk.get(e.evsePk), settings, tariffIds, now));
  });
  const pick = <K extends keyof LocationOverrides>(key: K) => override[key] ?? settings[key];
  const location: Location = {
    country_code: settings.country_code,
    party_id: settings.party_id,
    id,
    publish: settings.publish,
    address: address!,
    city: city!,
    country: country!,
    coordinates: coordinates!,
    evses,
    time_zone: override.time_zone ?? located?.address?.timeZone ?? settings.time_zone,
    last_updated: iso(newest([...boxes.map((b) => b.updatedAt), ...evses.map((e) => new Date(e.last_updated))], now)),
  };
  const name = override.name ?? located?.description?.split("\n")[0].trim();
  if (name) location.name = name;
  const postalCode = override.postal_code ?? located?.address?.zipCode;
  if (postalCode) location.postal_code = postalCode;
  for (const key of ["state", "parking_type", "facilities", "opening_times", "charging_when_closed", "operator", "suboperator", "owner", "help_phone"] as const) {
    const value = pick(key);
    if (value !== undefined) (location as Record<string, unknown>)[key] = value;
  }
  return location;
}

/** The Locations of these charge boxes: one per YAML group, one per ungrouped charge box, with the boxes and overrides of each. */
function locationsOf<B extends ChargeBoxRow>(chargeBoxes: B[], settings: SteveMappingSettings): { id: string; boxes: B[]; override: LocationOverrides }[] {
  const out: { id: string; boxes: B[]; override: LocationOverrides }[] = [];
  const byId = new Map(chargeBoxes.map((b) => [ciKey(b.chargeBoxId), b]));
  const grouped = new Set<string>();
  for (const group of settings.locations) {
    const boxes = group.charge_boxes.map((id) => byId.get(ciKey(id))).filter((b): b is B => b !== undefined);
    group.charge_boxes.forEach((id) => grouped.add(ciKey(id)));
    if (boxes.length) out.push({ id: group.id, boxes, override: group });
  }
  for (const box of chargeBoxes) if (!grouped.has(ciKey(box.chargeBoxId))) out.push({ id: box.chargeBoxId, boxes: [box], override: settings.charge_boxes[box.chargeBoxId] ?? {} });
  return out;
}

/** Locations from SteVe's charge boxes: one per YAML group, one per ungrouped charge box. */
export function mapLocations(facts: SteveLocationFacts, settings: SteveMappingSettings, now: Date): MappedLocations {
  const out: MappedLocations = { locations: [], skipped: [] };
  const index = indexed(facts);
  for (const { id, boxes, override } of locationsOf(facts.chargeBoxes, settings)) {
    const result = mapLocation(id, boxes, override, index, settings, now);
    if (typeof result === "string") out.skipped.push({ id, reason: result });
    else out.locations.push(result);
  }
  return out;
}

/** A Location as a list orders it, before it is read whole. */
export interface LocationKey {
  id: string;
  /**
   * its last_updated, epoch ms (whole seconds, as the mapped DateTime); null
   * when nothing in SteVe dates it (before 3.13: a box without EVSEs, or an
   * EVSE without any status row), so that mapLocations gives it the time of
   * reading
   */
  lastUpdated: number | null;
}

/** The charge boxes a Location list is built from: one row each (db/charge-boxes.ts `chargeBoxKeys`). */
export type ChargeBoxKeyFacts = ChargeBoxRow & { newestStatus: Date | null; hasEvses: boolean; silentEvse: boolean };

/**
 * The Locations these charge boxes make, with the last_updated mapLocations
 * gives them: the newest of the boxes' update times (3.13+: box, address,
 * EVSEs, plugs) and, for a box with EVSEs, its newest status row. Locations
 * mapLocations would skip are left out the same way.
 */
export function locationKeys(chargeBoxes: ChargeBoxKeyFacts[], settings: SteveMappingSettings): { keys: LocationKey[]; skipped: { id: string; reason: string }[] } {
  const out: { keys: LocationKey[]; skipped: { id: string; reason: string }[] } = { keys: [], skipped: [] };
  for (const { id, boxes, override } of locationsOf(chargeBoxes, settings)) {
    const place = placeOf(boxes, override, settings);
    if (typeof place === "string") {
      out.skipped.push({ id, reason: place });
      continue;
    }
    const dates = boxes.flatMap((b) => [b.updatedAt, b.hasEvses ? b.newestStatus : null]).filter((d): d is Date => d instanceof Date);
    const undated = boxes.some((b) => b.silentEvse && !b.updatedAt) || dates.length === 0;
    out.keys.push({ id, lastUpdated: undated ? null : Math.floor(Math.max(...dates.map((d) => d.getTime())) / 1000) * 1000 });
  }
  return out;
}
