import type { TranslationContext } from "../../core/contract/object-type";
import { defineObjectType } from "../../core/model/object-type";
import { type TranslationLoss } from "../../core/contract/object-type";
import { mapPriceFields, priceDown, priceFromNumber, priceToNumber, priceUp, type Price, type Price22 } from "../../core/model/price";
import { TOKEN_TYPES_22 } from "../../core/model/charging";
import type { Cdr, CdrLocation, CdrTariff, ChargingPeriod, PriceLimit } from "./model";
import { CDR_PRICE_FIELDS, LOCATION_211_KEY } from "./model";
import { CDR_SCHEMAS } from "./schemas";
import { CDR_REPAIRS } from "./repairs";

/**
 * CDR translations between the canonical 2.3.0 model and 2.2.1 / 2.1.1.
 * Every loss is reported through tx.dropped with the field names listed in
 * CDR_TRANSLATION_LOSSES. CDRs are never patched, but the translators still
 * map only the keys present, as the ObjectType contract asks.
 */

type Obj = Record<string, any>;

export const CDR_TRANSLATION_LOSSES: readonly TranslationLoss[] = [
  { object: "CDR", field: "total_cost.taxes", versions: ["2.2.1"], why: "2.2.1 Price has only incl_vat: tax names, rates and accounts are summed away" },
  { object: "CDR", field: "total_fixed_cost.taxes", versions: ["2.2.1"], why: "as total_cost.taxes" },
  { object: "CDR", field: "total_energy_cost.taxes", versions: ["2.2.1"], why: "as total_cost.taxes" },
  { object: "CDR", field: "total_time_cost.taxes", versions: ["2.2.1"], why: "as total_cost.taxes" },
  { object: "CDR", field: "total_parking_cost.taxes", versions: ["2.2.1"], why: "as total_cost.taxes" },
  { object: "CDR", field: "total_reservation_cost.taxes", versions: ["2.2.1"], why: "as total_cost.taxes" },
  { object: "CDR", field: "booking_id", versions: ["2.2.1", "2.1.1"], why: "Bookings extension (2.3.0) only" },
  { object: "CDR", field: "cdr_token.type", versions: ["2.2.1"], why: "token types unknown to 2.2.1 (EMAID, custom OpenEnum values) are sent as OTHER" },
  { object: "CDR", field: "charging_periods.dimensions", versions: ["2.2.1", "2.1.1"], why: "dimension types the version lacks (2.2.1: RESERVATION_EXPIRES/OVERTIME; 2.1.1: all but ENERGY, MAX/MIN_CURRENT, PARKING_TIME, TIME; up from 2.1.1: FLAT) are left out, and periods left without dimensions with them" },
  { object: "CDR", field: "tariffs.tax_included", versions: ["2.2.1", "2.1.1"], why: "pre-2.3.0 prices exclude VAT; tax_included YES or N/A cannot be expressed (prices are sent unchanged)" },
  { object: "CDR", field: "total_cost.taxes", versions: ["2.1.1"], why: "2.1.1 costs are numbers excluding VAT" },
  { object: "CDR", field: "total_fixed_cost", versions: ["2.1.1"], why: "2.1.1 CDRs have only total_cost" },
  { object: "CDR", field: "total_energy_cost", versions: ["2.1.1"], why: "2.1.1 CDRs have only total_cost" },
  { object: "CDR", field: "total_time_cost", versions: ["2.1.1"], why: "2.1.1 CDRs have only total_cost" },
  { object: "CDR", field: "total_parking_cost", versions: ["2.1.1"], why: "2.1.1 CDRs have only total_cost" },
  { object: "CDR", field: "total_reservation_cost", versions: ["2.1.1"], why: "2.1.1 CDRs have only total_cost" },
  { object: "CDR", field: "session_id", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "authorization_reference", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "signed_data", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "invoice_reference_id", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "home_charging_compensation", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "credit", versions: ["2.1.1"], why: "2.1.1 has no credit CDRs: a credit CDR reaches a 2.1.1 partner as an ordinary CDR (with its negative costs)" },
  { object: "CDR", field: "credit_reference_id", versions: ["2.1.1"], why: "2.1.1 has no credit CDRs" },
  { object: "CDR", field: "auth_method", versions: ["2.1.1"], why: "2.1.1 has no COMMAND: sent as AUTH_REQUEST" },
  { object: "CDR", field: "cdr_token", versions: ["2.1.1"], why: "2.1.1 has only auth_id (the contract id): token uid, type and owner are dropped. Up from 2.1.1 the token gets uid = contract_id = auth_id and type OTHER, and no owner" },
  { object: "CDR", field: "cdr_location", versions: ["2.1.1"], why: "rebuilt as a 2.1.1 Location with one EVSE and connector: Location type and EVSE status are sent as UNKNOWN, connector voltage/amperage (unknown) are omitted, state is dropped. A CDR received in 2.1.1 keeps its original Location (property location_2_1_1) and is served back with it unchanged" },
  { object: "CDR", field: "charging_periods.tariff_id", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "tariffs.type", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "tariffs.min_price", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "tariffs.max_price", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "tariffs.start_date_time", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "tariffs.end_date_time", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "CDR", field: "tariffs.preauthorize_amount", versions: ["2.2.1", "2.1.1"], why: "2.3.0 Payments only" },
  { object: "CDR", field: "tariffs.elements.price_components.vat", versions: ["2.1.1"], why: "2.1.1 price components have no vat" },
];

/** Dimension types each version knows (CdrDimensionType). */
const DIMENSIONS_221 = new Set([
  "CURRENT", "ENERGY", "ENERGY_EXPORT", "ENERGY_IMPORT", "MAX_CURRENT", "MIN_CURRENT", "MAX_POWER", "MIN_POWER",
  "PARKING_TIME", "POWER", "RESERVATION_TIME", "STATE_OF_CHARGE", "TIME",
]);
const DIMENSIONS_211 = new Set(["ENERGY", "FLAT", "MAX_CURRENT", "MIN_CURRENT", "PARKING_TIME", "TIME"]);
const DIMENSIONS_23 = new Set([...DIMENSIONS_221, "RESERVATION_EXPIRES", "RESERVATION_OVERTIME"]);

/** Copies the object without the given keys; `drop` is told about each one present. */
const without = (object: Obj, keys: readonly string[], drop?: (key: string) => void): Obj => {
  const out: Obj = { ...object };
  for (const key of keys) {
    if (!(key in out)) continue;
    if (out[key] !== undefined && out[key] !== null) drop?.(key);
    delete out[key];
  }
  return out;
};

/** Keeps only the dimensions `known` accepts; periods left empty go too. */
const filterDimensions = (periods: ChargingPeriod[], known: Set<string>, tx: TranslationContext, version: string): ChargingPeriod[] => {
  const out: ChargingPeriod[] = [];
  for (const period of periods) {
    const dimensions = period.dimensions?.filter((d) => known.has(d.type)) ?? period.dimensions;
    if (dimensions && dimensions.length !== period.dimensions.length)
      tx.dropped("charging_periods.dimensions", `dimension types unknown to ${version} left out`);
    if (dimensions && dimensions.length === 0) continue;
    out.push({ ...period, dimensions });
  }
  return out;
};

// ---- Price ↔ PriceLimit (embedded tariffs' min_price / max_price) ----

const limitUp = ({ excl_vat, incl_vat, ...extra }: Price22): PriceLimit => {
  const limit: PriceLimit = { ...extra, before_taxes: excl_vat };
  if (incl_vat !== undefined && incl_vat !== null) limit.after_taxes = incl_vat;
  return limit;
};

const limitDown = ({ before_taxes, after_taxes, ...extra }: PriceLimit): Price22 => {
  const price: Price22 = { ...extra, excl_vat: before_taxes };
  if (after_taxes !== undefined && after_taxes !== null) price.incl_vat = after_taxes;
  return price;
};

const mapLimits = (tariff: Obj, map: (limit: any) => unknown): Obj => {
  const out = { ...tariff };
  for (const field of ["min_price", "max_price"]) if (out[field] !== undefined && out[field] !== null) out[field] = map(out[field]);
  return out;
};

/** Pre-2.3.0 price components exclude VAT, which 2.3.0 says with tax_included NO. */
const tariffUp = (tariff: Obj, withLimits: boolean): CdrTariff => {
  const out = withLimits ? mapLimits(tariff, limitUp) : { ...tariff };
  if (out.tax_included === undefined) out.tax_included = "NO";
  return out as CdrTariff;
};

const dropTaxIncluded = (tariff: Obj, tx: TranslationContext): Obj =>
  without(tariff, ["tax_included"], () => {
    if (tariff.tax_included !== "NO") tx.dropped("tariffs.tax_included", "pre-2.3.0 prices exclude VAT; tax_included YES/N/A cannot be expressed");
  });

const tariffDown221 = (tariff: CdrTariff, tx: TranslationContext): Obj => {
  const out = dropTaxIncluded(mapLimits(tariff, limitDown), tx);
  return without(out, ["preauthorize_amount"], (f) => tx.dropped(`tariffs.${f}`, "2.3.0 Payments only"));
};

const tariffDown211 = (tariff: CdrTariff, tx: TranslationContext): Obj => {
  // the owner is implied by the CDR's in 2.1.1: not a loss
  let out = without(dropTaxIncluded(tariff, tx), ["country_code", "party_id"]);
  out = without(out, ["type", "min_price", "max_price", "start_date_time", "end_date_time", "preauthorize_amount"], (f) =>
    tx.dropped(`tariffs.${f}`, "not in 2.1.1"),
  );
  if (Array.isArray(out.elements))
    out.elements = out.elements.map((element: Obj) =>
      Array.isArray(element?.price_components)
        ? {
            ...element,
            price_components: element.price_components.map((pc: Obj) =>
              without(pc, ["vat"], () => tx.dropped("tariffs.elements.price_components.vat", "2.1.1 price components have no vat")),
            ),
          }
        : element,
    );
  return out;
};

// ---- 2.2.1 ----

const up221 = (wire: Obj, _tx: TranslationContext): Cdr => {
  const cdr: Obj = mapPriceFields(wire, CDR_PRICE_FIELDS, (p: Price22) => priceUp(p));
  if (Array.isArray(cdr.tariffs)) cdr.tariffs = cdr.tariffs.map((t: Obj) => tariffUp(t, true));
  return cdr as Cdr;
};

const TOKEN_TYPES_221 = new Set<string>(TOKEN_TYPES_22);

const down221 = (canonical: Cdr, tx: TranslationContext): Obj => {
  let cdr: Obj = mapPriceFields(canonical as Obj, CDR_PRICE_FIELDS, (p: Price, field) => priceDown(p, tx, field));
  cdr = without(cdr, ["booking_id"], () => tx.dropped("booking_id", "Bookings extension (2.3.0) only"));
  if (cdr.cdr_token && cdr.cdr_token.type !== undefined && !TOKEN_TYPES_221.has(cdr.cdr_token.type)) {
    tx.dropped("cdr_token.type", `token type ${cdr.cdr_token.type} unknown to 2.2.1: sent as OTHER`);
    cdr.cdr_token = { ...cdr.cdr_token, type: "OTHER" };
  }
  if (Array.isArray(cdr.charging_periods)) cdr.charging_periods = filterDimensions(cdr.charging_periods, DIMENSIONS_221, tx, "2.2.1");
  if (Array.isArray(cdr.tariffs)) cdr.tariffs = cdr.tariffs.map((t: CdrTariff) => tariffDown221(t, tx));
  return cdr;
};

// ---- 2.1.1 ----

/** The relevant EVSE and connector of a 2.1.1 CDR's Location (it includes only those). */
const cdrLocationFrom211 = (location: Obj): CdrLocation => {
  const evse = location.evses?.[0] ?? {};
  const connector = evse.connectors?.[0] ?? {};
  const out: Obj = {
    id: location.id,
    name: location.name,
    address: location.address,
    city: location.city,
    postal_code: location.postal_code,
    country: location.country,
    coordinates: location.coordinates,
    evse_uid: evse.uid,
    evse_id: evse.evse_id,
    connector_id: connector.id,
    connector_standard: connector.standard,
    connector_format: connector.format,
    connector_power_type: connector.power_type,
  };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out as CdrLocation;
};

/** A 2.1.1 Location built from a CdrLocation; what a CdrLocation does not know is UNKNOWN or left out. */
const location211From = (location: CdrLocation, lastUpdated: string, tx: TranslationContext): Obj => {
  tx.dropped("cdr_location", "rebuilt as a 2.1.1 Location: type and EVSE status UNKNOWN, voltage/amperage omitted, state dropped");
  const { id, name, address, city, postal_code, country, coordinates } = location;
  const out: Obj = {
    id,
    type: "UNKNOWN",
    name,
    address,
    city,
    postal_code,
    country,
    coordinates,
    evses: [
      {
        uid: location.evse_uid,
        evse_id: location.evse_id,
        status: "UNKNOWN",
        connectors: [
          {
            id: location.connector_id,
            standard: location.connector_standard,
            format: location.connector_format,
            power_type: location.connector_power_type,
            last_updated: lastUpdated,
          },
        ],
        last_updated: lastUpdated,
      },
    ],
    last_updated: lastUpdated,
  };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
};

const up211 = (wire: Obj, tx: TranslationContext): Cdr => {
  const { stop_date_time, auth_id, location, total_cost, ...rest } = wire;
  const cdr: Obj = { ...rest };
  if (tx.owner) {
    cdr.country_code = tx.owner.country_code;
    cdr.party_id = tx.owner.party_id;
  }
  if (stop_date_time !== undefined) cdr.end_date_time = stop_date_time;
  if (auth_id !== undefined) cdr.cdr_token = { uid: auth_id, type: "OTHER", contract_id: auth_id };
  if (location !== undefined) {
    cdr.cdr_location = cdrLocationFrom211(location);
    cdr[LOCATION_211_KEY] = location;
  }
  if (total_cost !== undefined) cdr.total_cost = priceFromNumber(total_cost);
  if (Array.isArray(cdr.tariffs)) cdr.tariffs = cdr.tariffs.map((t: Obj) => tariffUp(t, false));
  if (Array.isArray(cdr.charging_periods)) cdr.charging_periods = filterDimensions(cdr.charging_periods, DIMENSIONS_23, tx, "2.3.0");
  return cdr as Cdr;
};

/** True when the token is exactly what up211 makes of an auth_id: nothing to lose going back. */
const isAuthIdToken = (token: Obj): boolean =>
  token.uid === token.contract_id && token.type === "OTHER" && token.country_code === undefined && token.party_id === undefined &&
  Object.keys(token).length === 3;

const down211 = (canonical: Cdr, tx: TranslationContext): Obj => {
  const { country_code: _cc, party_id: _pid, end_date_time, cdr_token, cdr_location, total_cost, ...rest } = canonical as Obj;
  const preserved = rest[LOCATION_211_KEY];
  let cdr: Obj = without(rest, [LOCATION_211_KEY]);
  cdr = without(
    cdr,
    [
      "total_fixed_cost", "total_energy_cost", "total_time_cost", "total_parking_cost", "total_reservation_cost",
      "session_id", "booking_id", "authorization_reference", "signed_data", "invoice_reference_id",
      "home_charging_compensation", "credit", "credit_reference_id",
    ],
    (field) => tx.dropped(field, "not in 2.1.1"),
  );
  if (end_date_time !== undefined) cdr.stop_date_time = end_date_time;
  if (cdr_token !== undefined) {
    if (!isAuthIdToken(cdr_token)) tx.dropped("cdr_token", "2.1.1 has only auth_id (the contract id)");
    cdr.auth_id = cdr_token.contract_id;
  }
  if (cdr.auth_method === "COMMAND") {
    tx.dropped("auth_method", "2.1.1 has no COMMAND: sent as AUTH_REQUEST");
    cdr.auth_method = "AUTH_REQUEST";
  }
  if (preserved !== undefined) cdr.location = preserved;
  else if (cdr_location !== undefined) cdr.location = location211From(cdr_location, canonical.last_updated, tx);
  if (total_cost !== undefined) cdr.total_cost = priceToNumber(total_cost, tx, "total_cost");
  if (Array.isArray(cdr.charging_periods)) {
    const periods: ChargingPeriod[] = cdr.charging_periods.map((p: Obj) => without(p, ["tariff_id"], () => tx.dropped("charging_periods.tariff_id", "not in 2.1.1")) as ChargingPeriod);
    cdr.charging_periods = filterDimensions(periods, DIMENSIONS_211, tx, "2.1.1");
  }
  if (Array.isArray(cdr.tariffs)) cdr.tariffs = cdr.tariffs.map((t: CdrTariff) => tariffDown211(t, tx));
  return cdr;
};

export const cdrType = defineObjectType<Cdr>({
  name: "CDR",
  repairs: CDR_REPAIRS,
  schemas: CDR_SCHEMAS,
  translators: {
    "2.2.1": { up: up221, down: down221 },
    "2.1.1": { up: up211, down: down211 },
  },
});
