import { z } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import {
  ciString,
  country3,
  countryCode,
  currency,
  dateTime,
  enumeration,
  geoLocation,
  nonEmptyArray,
  partyId,
  price,
  priceLimit,
  text,
} from "../../core/model/common-schemas";
import { authMethod, cdrToken, chargingPeriod } from "../../core/model/charging";

/**
 * Wire schemas of the CDR per version (OCPI 2.2.1 CDRs module, Part B "CDR").
 * A CDR is only ever received whole (POST), so there are no PATCH schemas.
 */

const CONNECTOR_TYPES_22 = [
  "CHADEMO", "CHAOJI",
  "DOMESTIC_A", "DOMESTIC_B", "DOMESTIC_C", "DOMESTIC_D", "DOMESTIC_E", "DOMESTIC_F", "DOMESTIC_G", "DOMESTIC_H",
  "DOMESTIC_I", "DOMESTIC_J", "DOMESTIC_K", "DOMESTIC_L", "DOMESTIC_M", "DOMESTIC_N", "DOMESTIC_O",
  "GBT_AC", "GBT_DC",
  "IEC_60309_2_single_16", "IEC_60309_2_three_16", "IEC_60309_2_three_32", "IEC_60309_2_three_64",
  "IEC_62196_T1", "IEC_62196_T1_COMBO", "IEC_62196_T2", "IEC_62196_T2_COMBO", "IEC_62196_T3A", "IEC_62196_T3C",
  "NEMA_5_20", "NEMA_6_30", "NEMA_6_50", "NEMA_10_30", "NEMA_10_50", "NEMA_14_30", "NEMA_14_50",
  "PANTOGRAPH_BOTTOM_UP", "PANTOGRAPH_TOP_DOWN", "TESLA_R", "TESLA_S",
] as const;
const CONNECTOR_TYPES_23 = [...CONNECTOR_TYPES_22, "MCS", "SAE_J3400"] as const;
export const CONNECTOR_TYPES_211 = [
  "CHADEMO",
  "DOMESTIC_A", "DOMESTIC_B", "DOMESTIC_C", "DOMESTIC_D", "DOMESTIC_E", "DOMESTIC_F", "DOMESTIC_G", "DOMESTIC_H",
  "DOMESTIC_I", "DOMESTIC_J", "DOMESTIC_K", "DOMESTIC_L",
  "IEC_60309_2_single_16", "IEC_60309_2_three_16", "IEC_60309_2_three_32", "IEC_60309_2_three_64",
  "IEC_62196_T1", "IEC_62196_T1_COMBO", "IEC_62196_T2", "IEC_62196_T2_COMBO", "IEC_62196_T3A", "IEC_62196_T3C",
  "TESLA_R", "TESLA_S",
] as const;
const CONNECTOR_FORMATS = ["SOCKET", "CABLE"] as const;
const POWER_TYPES_22 = ["AC_1_PHASE", "AC_2_PHASE", "AC_2_PHASE_SPLIT", "AC_3_PHASE", "DC"] as const;
export const POWER_TYPES_211 = ["AC_1_PHASE", "AC_3_PHASE", "DC"] as const;

const connectorType = (version: VersionNumber) =>
  version === "2.3.0"
    ? enumeration(CONNECTOR_TYPES_23, true)
    : version === "2.2.1"
      ? enumeration(CONNECTOR_TYPES_22)
      : enumeration(CONNECTOR_TYPES_211);
const powerType = (version: VersionNumber) => (version === "2.1.1" ? enumeration(POWER_TYPES_211) : enumeration(POWER_TYPES_22));

/** `#NA` ids mark a reservation that never became a session; its connector_* values are then ignored (Part B CdrLocation). */
const NOT_APPLICABLE = "#NA";

const cdrLocation = (version: VersionNumber) => {
  const connectorFields = {
    connector_standard: connectorType(version),
    connector_format: enumeration(CONNECTOR_FORMATS),
    connector_power_type: powerType(version),
  } as const;
  return z
    .looseObject({
      id: ciString(36),
      name: text(255).optional(),
      address: text(45),
      city: text(45),
      postal_code: text(10).optional(),
      state: text(20).optional(),
      country: country3(),
      coordinates: geoLocation(version),
      evse_uid: ciString(36),
      evse_id: ciString(48),
      connector_id: ciString(36),
      // checked against their enumerations below unless the ids are #NA
      connector_standard: text(),
      connector_format: text(),
      connector_power_type: text(),
    })
    .superRefine((location, ctx) => {
      const reservationOnly = [location.evse_uid, location.evse_id, location.connector_id].includes(NOT_APPLICABLE);
      if (reservationOnly) return;
      for (const [field, schema] of Object.entries(connectorFields)) {
        const result = schema.safeParse(location[field as keyof typeof connectorFields]);
        if (!result.success) ctx.addIssue({ code: "custom", path: [field], message: result.error.issues[0].message });
      }
    });
};

const signedData = () =>
  z.looseObject({
    encoding_method: ciString(36),
    encoding_method_version: z.int().optional(),
    public_key: text(512).optional(),
    signed_values: nonEmptyArray(
      z.looseObject({ nature: ciString(32), plain_data: text(5000), signed_data: text(5000) }),
    ),
    url: text(512).optional(),
  });

/**
 * A Tariff embedded in a CDR, checked loosely on purpose: the tariffs module
 * owns the full Tariff rules, and the 2.3.0 example's embedded tariff lacks
 * the (otherwise required) tax_included, which must not make the CDR fail.
 */
const embeddedTariff = (version: VersionNumber) => {
  const limit = version === "2.3.0" ? priceLimit() : price(version);
  return z.looseObject({
    ...(version === "2.1.1"
      ? {}
      : {
          country_code: countryCode().optional(),
          party_id: partyId().optional(),
          min_price: limit.optional(),
          max_price: limit.optional(),
        }),
    id: ciString(36),
    currency: currency(),
    elements: nonEmptyArray(z.looseObject({})),
    last_updated: dateTime(),
  });
};

/** 2.2.1's own example CDR omits the token owner (added in 2.2.1, in the example only from 2.2.1-d2 on): tolerated. */
const token = (version: VersionNumber) =>
  version === "2.2.1"
    ? cdrToken(version).extend({ country_code: countryCode().optional(), party_id: partyId().optional() })
    : cdrToken(version);

/** Credit CDRs need credit_reference_id; only they may use the 37-39 characters of an id. */
const creditRules = (cdr: { id: string; credit?: boolean; credit_reference_id?: string }, ctx: z.RefinementCtx) => {
  if (cdr.credit === true && (cdr.credit_reference_id === undefined || cdr.credit_reference_id === ""))
    ctx.addIssue({ code: "custom", path: ["credit_reference_id"], message: "is required when credit is true" });
  if (cdr.credit !== true && cdr.id.length > 36)
    ctx.addIssue({ code: "custom", path: ["id"], message: "must be at most 36 characters (39 only for credit CDRs)" });
};

const cdr22 = (version: "2.2.1" | "2.3.0") =>
  z
    .looseObject({
      country_code: countryCode(),
      party_id: partyId(),
      id: ciString(39),
      start_date_time: dateTime(),
      end_date_time: dateTime(),
      session_id: ciString(36).optional(),
      ...(version === "2.3.0" ? { booking_id: ciString(36).optional() } : {}),
      cdr_token: token(version),
      auth_method: authMethod(version),
      authorization_reference: ciString(36).optional(),
      cdr_location: cdrLocation(version),
      meter_id: text(255).optional(),
      currency: currency(),
      tariffs: z.array(embeddedTariff(version)).optional(),
      charging_periods: nonEmptyArray(chargingPeriod(version)),
      signed_data: signedData().optional(),
      total_cost: price(version),
      total_fixed_cost: price(version).optional(),
      total_energy: z.number(),
      total_energy_cost: price(version).optional(),
      total_time: z.number(),
      total_time_cost: price(version).optional(),
      total_parking_time: z.number().optional(),
      total_parking_cost: price(version).optional(),
      total_reservation_cost: price(version).optional(),
      remark: text(255).optional(),
      invoice_reference_id: ciString(39).optional(),
      credit: z.boolean().optional(),
      credit_reference_id: ciString(39).optional(),
      home_charging_compensation: z.boolean().optional(),
      last_updated: dateTime(),
    })
    .superRefine(creditRules);

/** The full 2.1.1 Location a 2.1.1 CDR carries; only what the CdrLocation needs is checked beyond its own required fields. */
const location211 = () =>
  z.looseObject({
    id: text(39),
    type: text(),
    name: text(255).optional(),
    address: text(45),
    city: text(45),
    postal_code: text(10),
    country: text(3),
    coordinates: geoLocation("2.1.1"),
    evses: nonEmptyArray(
      z.looseObject({
        uid: text(39),
        evse_id: text(48).optional(),
        connectors: nonEmptyArray(
          z.looseObject({
            id: text(36),
            standard: enumeration(CONNECTOR_TYPES_211),
            format: enumeration(CONNECTOR_FORMATS),
            power_type: enumeration(POWER_TYPES_211),
          }),
        ),
      }),
    ),
    last_updated: dateTime(),
  });

const cdr211 = () =>
  z.looseObject({
    id: text(36),
    start_date_time: dateTime(),
    stop_date_time: dateTime(),
    auth_id: text(36),
    auth_method: authMethod("2.1.1"),
    location: location211(),
    meter_id: text(255).optional(),
    currency: currency(),
    tariffs: z.array(embeddedTariff("2.1.1")).optional(),
    charging_periods: nonEmptyArray(chargingPeriod("2.1.1")),
    total_cost: z.number(),
    total_energy: z.number(),
    total_time: z.number(),
    total_parking_time: z.number().optional(),
    remark: text(255).optional(),
    last_updated: dateTime(),
  });

export const CDR_SCHEMAS: Record<VersionNumber, z.ZodType> = {
  "2.3.0": cdr22("2.3.0"),
  "2.2.1": cdr22("2.2.1"),
  "2.1.1": cdr211(),
};
