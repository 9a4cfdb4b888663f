import type { TranslationContext } from "../../core/contract/object-type";
import { defineObjectType } from "../../core/model/object-type";
import { type TranslationLoss } from "../../core/contract/object-type";
import type { Connector, Evse, Location } from "./model";
import {
  CAPABILITIES,
  CAPABILITIES_211,
  CONNECTOR_SCHEMAS,
  CONNECTOR_PATCH_SCHEMAS,
  EVSE_PATCH_SCHEMAS,
  EVSE_SCHEMAS,
  FACILITIES,
  FACILITIES_211,
  LOCATION_PATCH_SCHEMAS,
  LOCATION_SCHEMAS,
  PARKING_RESTRICTIONS,
  PARKING_TYPES,
} from "./schemas";
import { LOCATION_REPAIRS } from "./repairs";

/**
 * Location, EVSE and Connector across versions. Canonical is 2.3.0.
 * 2.2.1 lacks the 2.3.0 additions and the OpenEnums' custom values; 2.1.1
 * differs in shape (end of the OCPI 2.2.1 Locations module). Every translator maps only the
 * keys present, so PATCH fragments go through the same code. Nested
 * translators report drops prefixed with their path in the parent
 * (`evses[].`, `connectors[].`).
 */

type Rec = Record<string, any>;
type Drop = (field: string, why: string) => void;

export const LOCATIONS_TRANSLATION_LOSSES: readonly TranslationLoss[] = [
  { object: "Location", field: "parking_places", versions: ["2.2.1", "2.1.1"], why: "2.3.0 only" },
  { object: "Location", field: "help_phone", versions: ["2.2.1", "2.1.1"], why: "2.3.0 only" },
  { object: "Location", field: "parking_type", versions: ["2.2.1", "2.1.1"], why: "custom (2.3.0 OpenEnum) value, or no 2.1.1 LocationType for it" },
  { object: "Location", field: "facilities", versions: ["2.2.1", "2.1.1"], why: "values unknown to the version are left out" },
  { object: "Location", field: "energy_mix.environ_impact", versions: ["2.2.1", "2.1.1"], why: "custom (2.3.0 OpenEnum) categories are left out" },
  { object: "Location", field: "publish", versions: ["2.1.1"], why: "2.1.1 has no publish flag: a non-published Location looks public" },
  { object: "Location", field: "publish_allowed_to", versions: ["2.1.1"], why: "2.1.1 has no publish_allowed_to" },
  { object: "Location", field: "state", versions: ["2.1.1"], why: "2.1.1 Location has no state" },
  { object: "Location", field: "type", versions: ["2.1.1"], why: "2.1.1 LocationType OTHER/UNKNOWN has no ParkingType (taken up as absent)" },
  { object: "EVSE", field: "parking", versions: ["2.2.1", "2.1.1"], why: "2.3.0 only" },
  { object: "EVSE", field: "accepted_service_providers", versions: ["2.2.1", "2.1.1"], why: "2.3.0 only" },
  { object: "EVSE", field: "capabilities", versions: ["2.2.1", "2.1.1"], why: "values unknown to the version are left out" },
  { object: "EVSE", field: "parking_restrictions", versions: ["2.2.1", "2.1.1"], why: "values unknown to the version are left out" },
  { object: "Connector", field: "capabilities", versions: ["2.2.1", "2.1.1"], why: "2.3.0 only" },
  { object: "Connector", field: "max_electric_power", versions: ["2.1.1"], why: "2.1.1 Connector has no max_electric_power" },
  { object: "Connector", field: "tariff_ids", versions: ["2.1.1"], why: "2.1.1 tariff_id holds one tariff: only the first is kept" },
];

const has = (o: Rec, key: string): boolean => o[key] !== undefined;

/** Drops a 2.3.0-only key when present. */
const without = (o: Rec, keys: readonly string[], drop: Drop, why = "2.3.0 only"): Rec => {
  const out = { ...o };
  for (const key of keys)
    if (has(out, key)) {
      delete out[key];
      drop(key, why);
    }
  return out;
};

/** Keeps only the enumeration values a version knows. */
const keepKnown = (o: Rec, key: string, known: readonly string[], drop: Drop): Rec => {
  if (!Array.isArray(o[key])) return o;
  const kept = (o[key] as string[]).filter((v) => known.includes(v));
  if (kept.length !== o[key].length) drop(key, "values unknown to the version are left out");
  return { ...o, [key]: kept };
};

const prefixed = (tx: TranslationContext, prefix: string): Drop => (field, why) => tx.dropped(prefix + field, why);

// ---------- Connector ----------

const connectorDown221 = (c: Rec, drop: Drop): Rec => without(c, ["capabilities"], drop);

const connectorUp211 = ({ voltage, amperage, tariff_id, ...rest }: Rec): Rec => {
  const out: Rec = { ...rest };
  if (voltage !== undefined) out.max_voltage = voltage;
  if (amperage !== undefined) out.max_amperage = amperage;
  if (tariff_id !== undefined && tariff_id !== null) out.tariff_ids = [tariff_id];
  return out;
};

const connectorDown211 = (c: Rec, drop: Drop): Rec => {
  const { max_voltage, max_amperage, max_electric_power, tariff_ids, ...rest } = without(c, ["capabilities"], drop);
  const out: Rec = { ...rest };
  if (max_voltage !== undefined) out.voltage = max_voltage;
  if (max_amperage !== undefined) out.amperage = max_amperage;
  if (max_electric_power !== undefined) drop("max_electric_power", "2.1.1 Connector has no max_electric_power");
  if (Array.isArray(tariff_ids)) {
    if (tariff_ids.length > 0) out.tariff_id = tariff_ids[0];
    if (tariff_ids.length > 1) drop("tariff_ids", "2.1.1 tariff_id holds one tariff: only the first is kept");
  }
  return out;
};

// ---------- EVSE ----------

const mapConnectors = (e: Rec, map: (c: Rec) => Rec): Rec =>
  Array.isArray(e.connectors) ? { ...e, connectors: e.connectors.map((c: unknown) => (c && typeof c === "object" ? map(c as Rec) : c)) } : e;

const evseDown = (e: Rec, drop: Drop, capabilities: readonly string[], connector: (c: Rec, drop: Drop) => Rec): Rec => {
  let out = without(e, ["parking", "accepted_service_providers"], drop);
  out = keepKnown(out, "capabilities", capabilities, drop);
  out = keepKnown(out, "parking_restrictions", PARKING_RESTRICTIONS, drop);
  const connectorDrop: Drop = (field, why) => drop(`connectors[].${field}`, why);
  return mapConnectors(out, (c) => connector(c, connectorDrop));
};

const evseDown221 = (e: Rec, drop: Drop): Rec => evseDown(e, drop, CAPABILITIES, connectorDown221);
const evseDown211 = (e: Rec, drop: Drop): Rec => evseDown(e, drop, CAPABILITIES_211, connectorDown211);
const evseUp211 = (e: Rec): Rec => mapConnectors(e, connectorUp211);

// ---------- Location ----------

const mapEvses = (l: Rec, map: (e: Rec) => Rec): Rec =>
  Array.isArray(l.evses) ? { ...l, evses: l.evses.map((e: unknown) => (e && typeof e === "object" ? map(e as Rec) : e)) } : l;

const IMPACTS = ["NUCLEAR_WASTE", "CARBON_DIOXIDE"];

/** 2.2.1 and 2.1.1 know only the two published impact categories; 2.1.1 names the field `source`. */
const energyMixDown = (mix: Rec, drop: Drop, categoryKey: "category" | "source"): Rec => {
  if (!Array.isArray(mix.environ_impact)) return mix;
  const known = mix.environ_impact.filter((i: Rec) => IMPACTS.includes(i.category));
  if (known.length !== mix.environ_impact.length) drop("energy_mix.environ_impact", "custom (2.3.0 OpenEnum) categories are left out");
  return {
    ...mix,
    environ_impact: known.map(({ category, ...rest }: Rec) => ({ ...rest, [categoryKey]: category })),
  };
};

const energyMixUp211 = (mix: Rec): Rec =>
  Array.isArray(mix.environ_impact)
    ? { ...mix, environ_impact: mix.environ_impact.map(({ source, ...rest }: Rec) => ({ ...rest, category: source })) }
    : mix;

const locationDownCommon = (l: Rec, drop: Drop): Rec => {
  let out = without(l, ["parking_places", "help_phone"], drop);
  out = keepKnown(out, "facilities", FACILITIES, drop);
  if (has(out, "parking_type") && !PARKING_TYPES.includes(out.parking_type)) {
    drop("parking_type", "custom (2.3.0 OpenEnum) value");
    delete out.parking_type;
  }
  return out;
};

const locationDown221 = (l: Rec, tx: TranslationContext): Rec => {
  const drop = prefixed(tx, "");
  let out = locationDownCommon(l, drop);
  if (out.energy_mix && typeof out.energy_mix === "object") out = { ...out, energy_mix: energyMixDown(out.energy_mix, drop, "category") };
  return mapEvses(out, (e) => evseDown221(e, prefixed(tx, "evses[].")));
};

/** 2.1.1 LocationType values with a ParkingType of the same name; OTHER and UNKNOWN have none. */
const SHARED_TYPES = ["ON_STREET", "PARKING_GARAGE", "UNDERGROUND_GARAGE", "PARKING_LOT"];

/** A whole Location (not a PATCH fragment): only then are required 2.1.1/2.2+ fields defaulted. */
const isWhole = (o: Rec): boolean => ["id", "address", "city", "country", "coordinates"].every((k) => has(o, k));

const locationUp211 = ({ type, ...rest }: Rec, tx: TranslationContext): Rec => {
  let out: Rec = { ...rest };
  if (isWhole(rest)) {
    // 2.1.1 has no owner fields: the path's owner (or the partner's party) owns the object
    if (tx.owner && !has(out, "country_code")) out.country_code = tx.owner.country_code;
    if (tx.owner && !has(out, "party_id")) out.party_id = tx.owner.party_id;
    if (!has(out, "publish")) out.publish = true;
  }
  if (type !== undefined) {
    if (SHARED_TYPES.includes(type)) out.parking_type = type;
    else tx.dropped("type", "2.1.1 LocationType OTHER/UNKNOWN has no ParkingType (taken up as absent)");
  }
  if (out.energy_mix && typeof out.energy_mix === "object") out.energy_mix = energyMixUp211(out.energy_mix);
  const hours = out.opening_times;
  // 2.1.1 Hours give regular_hours or twentyfourseven; without the flag the hours are regular ones
  if (hours && typeof hours === "object" && hours.twentyfourseven === undefined) out.opening_times = { ...hours, twentyfourseven: false };
  return mapEvses(out, evseUp211);
};

const locationDown211 = (l: Rec, tx: TranslationContext): Rec => {
  const drop = prefixed(tx, "");
  const whole = isWhole(l);
  const { country_code, party_id, publish, parking_type, ...rest } = locationDownCommon(l, drop);
  let out = without(rest, ["publish_allowed_to", "state"], drop, "not in 2.1.1");
  out = keepKnown(out, "facilities", FACILITIES_211, drop);
  if (publish === false) drop("publish", "2.1.1 has no publish flag: a non-published Location looks public");
  if (parking_type !== undefined) {
    if (SHARED_TYPES.includes(parking_type)) out.type = parking_type;
    else {
      out.type = "OTHER";
      drop("parking_type", "no 2.1.1 LocationType for it (sent as OTHER)");
    }
  } else if (whole) out.type = "UNKNOWN";
  if (out.energy_mix && typeof out.energy_mix === "object") out.energy_mix = energyMixDown(out.energy_mix, drop, "source");
  return mapEvses(out, (e) => evseDown211(e, prefixed(tx, "evses[].")));
};

// ---------- Object types ----------

export const locationType = defineObjectType<Location>({
  name: "Location",
  repairs: LOCATION_REPAIRS,
  schemas: LOCATION_SCHEMAS,
  patchSchemas: LOCATION_PATCH_SCHEMAS,
  translators: {
    "2.2.1": { up: (wire) => wire, down: (l, tx) => locationDown221(l, tx) },
    "2.1.1": { up: (wire, tx) => locationUp211(wire, tx) as Location, down: (l, tx) => locationDown211(l, tx) },
  },
});

export const evseType = defineObjectType<Evse>({
  name: "EVSE",
  schemas: EVSE_SCHEMAS,
  patchSchemas: EVSE_PATCH_SCHEMAS,
  translators: {
    "2.2.1": { up: (wire) => wire, down: (e, tx) => evseDown221(e, prefixed(tx, "")) },
    "2.1.1": { up: (wire) => evseUp211(wire) as Evse, down: (e, tx) => evseDown211(e, prefixed(tx, "")) },
  },
});

export const connectorType = defineObjectType<Connector>({
  name: "Connector",
  schemas: CONNECTOR_SCHEMAS,
  patchSchemas: CONNECTOR_PATCH_SCHEMAS,
  translators: {
    "2.2.1": { up: (wire) => wire, down: (c, tx) => connectorDown221(c, prefixed(tx, "")) },
    "2.1.1": { up: (wire) => connectorUp211(wire) as Connector, down: (c, tx) => connectorDown211(c, prefixed(tx, "")) },
  },
});
