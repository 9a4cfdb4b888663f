import { z } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import {
  businessDetails,
  ciString,
  country3,
  countryCode,
  dateTime,
  displayText,
  energyMix,
  enumeration,
  geoLocation,
  image,
  nonEmptyArray,
  partyId,
  patchOf,
  perVersion,
  text,
  timeOfDay,
  url,
} from "../../core/model/common-schemas";

/**
 * Wire schemas of Location, EVSE and Connector per version, full and PATCH
 * (OCPI 2.2.1 Locations module). OpenEnums accept custom values only in 2.3.0. Address
 * and state follow the errata lengths (255 and 45) in every version, since
 * the errata only widen what the originals allowed.
 */

export const STATUS = ["AVAILABLE", "BLOCKED", "CHARGING", "INOPERATIVE", "OUTOFORDER", "PLANNED", "REMOVED", "RESERVED", "UNKNOWN"] as const;

export const CAPABILITIES_211 = [
  "CHARGING_PROFILE_CAPABLE",
  "CREDIT_CARD_PAYABLE",
  "REMOTE_START_STOP_CAPABLE",
  "RESERVABLE",
  "RFID_READER",
  "UNLOCK_CAPABLE",
] as const;
export const CAPABILITIES = [
  ...CAPABILITIES_211,
  "CHARGING_PREFERENCES_CAPABLE",
  "CHIP_CARD_SUPPORT",
  "CONTACTLESS_CARD_SUPPORT",
  "DEBIT_CARD_PAYABLE",
  "PED_TERMINAL",
  "START_SESSION_CONNECTOR_REQUIRED",
  "TOKEN_GROUP_CAPABLE",
] as const;

export const CONNECTOR_CAPABILITIES = ["ISO_15118_2_PLUG_AND_CHARGE", "ISO_15118_20_PLUG_AND_CHARGE"] as const;

const letters = (from: string, to: string): string[] => {
  const out: string[] = [];
  for (let c = from.charCodeAt(0); c <= to.charCodeAt(0); c++) out.push(String.fromCharCode(c));
  return out;
};
const IEC = [
  "IEC_60309_2_single_16",
  "IEC_60309_2_three_16",
  "IEC_60309_2_three_32",
  "IEC_60309_2_three_64",
  "IEC_62196_T1",
  "IEC_62196_T1_COMBO",
  "IEC_62196_T2",
  "IEC_62196_T2_COMBO",
  "IEC_62196_T3A",
  "IEC_62196_T3C",
];
export const CONNECTOR_TYPES_211 = ["CHADEMO", ...letters("A", "L").map((l) => `DOMESTIC_${l}`), ...IEC, "TESLA_R", "TESLA_S"] as [
  string,
  ...string[],
];
export const CONNECTOR_TYPES_221 = [
  "CHADEMO",
  "CHAOJI",
  ...letters("A", "O").map((l) => `DOMESTIC_${l}`),
  "GBT_AC",
  "GBT_DC",
  ...IEC,
  "NEMA_5_20",
  "NEMA_6_30",
  "NEMA_6_50",
  "NEMA_10_30",
  "NEMA_10_50",
  "NEMA_14_30",
  "NEMA_14_50",
  "PANTOGRAPH_BOTTOM_UP",
  "PANTOGRAPH_TOP_DOWN",
  "TESLA_R",
  "TESLA_S",
] as [string, ...string[]];
export const CONNECTOR_TYPES_230 = [...CONNECTOR_TYPES_221, "MCS", "SAE_J3400"] as [string, ...string[]];

export const POWER_TYPES_211 = ["AC_1_PHASE", "AC_3_PHASE", "DC"] as const;
export const POWER_TYPES = ["AC_1_PHASE", "AC_2_PHASE", "AC_2_PHASE_SPLIT", "AC_3_PHASE", "DC"] as const;

export const PARKING_TYPES = ["ALONG_MOTORWAY", "PARKING_GARAGE", "PARKING_LOT", "ON_DRIVEWAY", "ON_STREET", "UNDERGROUND_GARAGE"] as const;
/** 2.1.1 `Location.type` (required there). */
export const LOCATION_TYPES_211 = ["ON_STREET", "PARKING_GARAGE", "UNDERGROUND_GARAGE", "PARKING_LOT", "OTHER", "UNKNOWN"] as const;

export const PARKING_RESTRICTIONS = ["EV_ONLY", "PLUGGED", "DISABLED", "CUSTOMERS", "MOTORCYCLES"] as const;
export const PARKING_RESTRICTIONS_230 = [...PARKING_RESTRICTIONS, "EMPLOYEES", "TAXIS", "TENANTS"] as const;

export const FACILITIES_211 = [
  "HOTEL",
  "RESTAURANT",
  "CAFE",
  "MALL",
  "SUPERMARKET",
  "SPORT",
  "RECREATION_AREA",
  "NATURE",
  "MUSEUM",
  "BUS_STOP",
  "TAXI_STAND",
  "TRAIN_STATION",
  "AIRPORT",
  "CARPOOL_PARKING",
  "FUEL_STATION",
  "WIFI",
] as const;
export const FACILITIES = [...FACILITIES_211, "BIKE_SHARING", "TRAM_STOP", "METRO_STATION", "PARKING_LOT"] as const;

const TOKEN_TYPES = ["AD_HOC_USER", "APP_USER", "OTHER", "RFID"] as const;
const TOKEN_TYPES_230 = [...TOKEN_TYPES, "EMAID"] as const;
const VEHICLE_TYPES = [
  "MOTORCYCLE",
  "PERSONAL_VEHICLE",
  "PERSONAL_VEHICLE_WITH_TRAILER",
  "VAN",
  "SEMI_TRACTOR",
  "RIGID",
  "TRUCK_WITH_TRAILER",
  "BUS",
  "DISABLED",
] as const;

const is230 = (v: VersionNumber) => v === "2.3.0";
const idOf = (v: VersionNumber) => ciString(v === "2.1.1" ? 39 : 36);

const regularHours = () =>
  z.looseObject({
    weekday: z.int().min(1).max(7),
    period_begin: timeOfDay(),
    period_end: timeOfDay(),
  });
const exceptionalPeriod = () => z.looseObject({ period_begin: dateTime(), period_end: dateTime() });

const hours = (v: VersionNumber) =>
  z
    .looseObject({
      // 2.1.1 offers regular_hours or twentyfourseven; 2.2+ always has twentyfourseven
      twentyfourseven: v === "2.1.1" ? z.boolean().optional() : z.boolean(),
      regular_hours: z.array(regularHours()).optional(),
      exceptional_openings: z.array(exceptionalPeriod()).optional(),
      exceptional_closings: z.array(exceptionalPeriod()).optional(),
    })
    .superRefine((h, ctx) => {
      // Not open around the clock means the opening hours must say when it is open.
      if (h.twentyfourseven !== true && !h.regular_hours?.length)
        ctx.addIssue({ code: "custom", path: ["regular_hours"], message: "at least one entry is required when twentyfourseven is not true" });
    });

/** At least one of uid, visual_number, group_id; uid needs type; visual_number needs issuer. */
const publishToken = (v: VersionNumber) =>
  z
    .looseObject({
      uid: ciString(36).optional(),
      type: enumeration(is230(v) ? TOKEN_TYPES_230 : TOKEN_TYPES, is230(v)).optional(),
      visual_number: text(64).optional(),
      issuer: text(64).optional(),
      group_id: ciString(36).optional(),
    })
    .superRefine((t, ctx) => {
      if (t.uid === undefined && t.visual_number === undefined && t.group_id === undefined)
        ctx.addIssue({ code: "custom", message: "needs at least one of uid, visual_number, group_id" });
      if (t.uid !== undefined && t.type === undefined) ctx.addIssue({ code: "custom", path: ["type"], message: "is required with uid" });
      if (t.visual_number !== undefined && t.issuer === undefined)
        ctx.addIssue({ code: "custom", path: ["issuer"], message: "is required with visual_number" });
    });

const additionalGeoLocation = (v: VersionNumber) => geoLocation(v).extend({ name: displayText().optional() });

const parkingPlace = () =>
  z.looseObject({
    id: ciString(36),
    physical_reference: text(12).optional(),
    vehicle_types: nonEmptyArray(enumeration(VEHICLE_TYPES, true)),
    max_vehicle_weight: z.number().optional(),
    max_vehicle_height: z.number().optional(),
    max_vehicle_length: z.number().optional(),
    max_vehicle_width: z.number().optional(),
    parking_space_length: z.number().optional(),
    parking_space_width: z.number().optional(),
    dangerous_goods_allowed: z.boolean().optional(),
    direction: enumeration(["PARALLEL", "PERPENDICULAR", "ANGLE"] as const).optional(),
    drive_through: z.boolean().optional(),
    restricted_to_type: z.boolean(),
    reservation_required: z.boolean(),
    time_limit: z.number().optional(),
    roofed: z.boolean().optional(),
    images: z.array(image("2.3.0")).optional(),
    lighting: z.boolean().optional(),
    refrigeration_outlet: z.boolean().optional(),
    standards: z.array(ciString(36)).optional(),
    apds_reference: ciString(255).optional(),
  });

export const connectorShape = (v: VersionNumber) => {
  const common = {
    id: ciString(36),
    standard: enumeration(v === "2.1.1" ? CONNECTOR_TYPES_211 : is230(v) ? CONNECTOR_TYPES_230 : CONNECTOR_TYPES_221, is230(v)),
    format: enumeration(["SOCKET", "CABLE"] as const),
    power_type: enumeration(v === "2.1.1" ? POWER_TYPES_211 : POWER_TYPES),
    terms_and_conditions: url().optional(),
    last_updated: dateTime(),
  };
  if (v === "2.1.1")
    return { ...common, voltage: z.int(), amperage: z.int(), tariff_id: ciString(36).optional() };
  return {
    ...common,
    max_voltage: z.int(),
    max_amperage: z.int(),
    max_electric_power: z.int().optional(),
    tariff_ids: z.array(ciString(36)).optional(),
    ...(is230(v) ? { capabilities: z.array(enumeration(CONNECTOR_CAPABILITIES, true)).optional() } : {}),
  };
};

export const evseShape = (v: VersionNumber) => ({
  uid: idOf(v),
  evse_id: ciString(48).optional(),
  status: enumeration(STATUS),
  status_schedule: z.array(z.looseObject({ period_begin: dateTime(), period_end: dateTime().optional(), status: enumeration(STATUS) })).optional(),
  capabilities: z.array(enumeration(v === "2.1.1" ? CAPABILITIES_211 : CAPABILITIES, is230(v))).optional(),
  connectors: nonEmptyArray(z.looseObject(connectorShape(v))),
  floor_level: text(4).optional(),
  coordinates: geoLocation(v).optional(),
  physical_reference: text(16).optional(),
  directions: z.array(displayText()).optional(),
  parking_restrictions: z.array(enumeration(is230(v) ? PARKING_RESTRICTIONS_230 : PARKING_RESTRICTIONS, is230(v))).optional(),
  ...(is230(v)
    ? {
        parking: z.array(z.looseObject({ parking_id: ciString(36), evse_position: enumeration(["LEFT", "RIGHT", "CENTER"] as const).optional() })).optional(),
        accepted_service_providers: z.array(text(50)).optional(),
      }
    : {}),
  images: z.array(image(v)).optional(),
  last_updated: dateTime(),
});

export const locationShape = (v: VersionNumber) => {
  const common = {
    id: idOf(v),
    name: text(255).optional(),
    address: text(255),
    city: text(45),
    country: country3(),
    coordinates: geoLocation(v),
    related_locations: z.array(additionalGeoLocation(v)).optional(),
    evses: z.array(z.looseObject(evseShape(v))).optional(),
    directions: z.array(displayText()).optional(),
    operator: businessDetails(v).optional(),
    suboperator: businessDetails(v).optional(),
    owner: businessDetails(v).optional(),
    facilities: z.array(enumeration(v === "2.1.1" ? FACILITIES_211 : FACILITIES, is230(v))).optional(),
    opening_times: hours(v).optional(),
    charging_when_closed: z.boolean().optional(),
    images: z.array(image(v)).optional(),
    energy_mix: energyMix(v).optional(),
    last_updated: dateTime(),
  };
  if (v === "2.1.1")
    return { ...common, type: enumeration(LOCATION_TYPES_211), postal_code: text(10), time_zone: text(255).optional() };
  return {
    ...common,
    country_code: countryCode(),
    party_id: partyId(),
    publish: z.boolean(),
    publish_allowed_to: z.array(publishToken(v)).optional(),
    postal_code: text(10).optional(),
    state: text(45).optional(),
    parking_type: enumeration(PARKING_TYPES, is230(v)).optional(),
    time_zone: text(255),
    ...(is230(v) ? { parking_places: z.array(parkingPlace()).optional(), help_phone: ciString(25).optional() } : {}),
  };
};

/** publish_allowed_to is only usable when publish is false. */
const publishRule = (l: Record<string, unknown>, ctx: z.RefinementCtx) => {
  if (l.publish === true && Array.isArray(l.publish_allowed_to) && l.publish_allowed_to.length)
    ctx.addIssue({ code: "custom", path: ["publish_allowed_to"], message: "is only allowed when publish is false" });
};

export const LOCATION_SCHEMAS = perVersion((v) => z.looseObject(locationShape(v)).superRefine(publishRule));
export const EVSE_SCHEMAS = perVersion((v) => z.looseObject(evseShape(v)));
export const CONNECTOR_SCHEMAS = perVersion((v) => z.looseObject(connectorShape(v)));

/**
 * PATCH fragments: every field optional, `last_updated` required from 2.2 on.
 * A Location PATCH may carry `evses` (whole EVSEs, merged by uid).
 */
export const LOCATION_PATCH_SCHEMAS = perVersion((v) => patchOf(locationShape(v), v).superRefine(publishRule));
export const EVSE_PATCH_SCHEMAS = perVersion((v) => patchOf(evseShape(v), v));
export const CONNECTOR_PATCH_SCHEMAS = perVersion((v) => patchOf(connectorShape(v), v));
