import { z } from "zod";
import { defineObjectType, type VersionedTranslator } from "../../core/model/object-type";
import { type TranslationContext, type TranslationLoss } from "../../core/contract/object-type";
import { mapPriceFields, priceDown, priceFromNumber, priceToNumber, priceUp } from "../../core/model/price";
import { TOKEN_TYPES_22 } from "../../core/model/charging";
import { LOCATION_211, OWN_LOCATION, type ChargingPeriod, type ChargingPreferences, type Session } from "./model";
import { chargingPreferencesSchema, sessionPatchSchema, sessionSchema } from "./schemas";
import { sessionLocation } from "./session-location";
import { locationType } from "../locations/translate";
import type { Location } from "../locations/model";
import { SESSION_REPAIRS } from "./repairs";

/**
 * Session across versions. Canonical = 2.3.0. Every translator maps only the
 * keys present, so it works on PATCH fragments too.
 */

/** Each field a translation cannot carry over; the same names are passed to tx.dropped. */
export const SESSIONS_TRANSLATION_LOSSES: readonly TranslationLoss[] = [
  { object: "Session", field: "total_cost.taxes", versions: ["2.2.1"], why: "2.2.1 Price has only incl_vat: tax names, rates and accounts are summed away" },
  { object: "Session", field: "total_cost.taxes", versions: ["2.1.1"], why: "2.1.1 total_cost is a number excluding VAT: taxes are lost" },
  { object: "Session", field: "cdr_token.type", versions: ["2.2.1"], why: "EMAID and custom 2.3.0 token types do not exist in 2.2.1: sent as OTHER" },
  { object: "Session", field: "charging_periods.dimensions", versions: ["2.2.1"], why: "RESERVATION_EXPIRES/RESERVATION_OVERTIME do not exist in 2.2.1: those dimensions are left out" },
  { object: "Session", field: "charging_periods.dimensions", versions: ["2.1.1"], why: "2.1.1 knows only ENERGY, MAX_CURRENT, MIN_CURRENT, PARKING_TIME, TIME (down: others left out) and FLAT (up: left out, gone since 2.2)" },
  { object: "Session", field: "charging_periods", versions: ["2.2.1", "2.1.1"], why: "a period left without any dimension the version knows is removed (the previous period then seems to last longer)" },
  { object: "Session", field: "charging_periods.tariff_id", versions: ["2.1.1"], why: "2.1.1 ChargingPeriod has no tariff_id" },
  { object: "Session", field: "cdr_token", versions: ["2.1.1"], why: "2.1.1 has only auth_id. Down: auth_id = cdr_token.contract_id; uid, type and the token owner are lost. Up: uid = contract_id = auth_id, type OTHER, and country_code/party_id (the eMSP's in 2.2+) are unknown and filled with the session owner (the CPO of the path/partner) as a placeholder" },
  { object: "Session", field: "authorization_reference", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "Session", field: "status", versions: ["2.1.1"], why: "RESERVATION does not exist in 2.1.1: sent as PENDING (charging has not started)" },
  { object: "Session", field: "auth_method", versions: ["2.1.1"], why: "COMMAND does not exist in 2.1.1: sent as AUTH_REQUEST (the eMSP authorized the remote start)" },
  { object: "Session", field: "location", versions: ["2.1.1"], why: "2.1.1 embeds a full Location. Down: our own session gets its Location from our Locations (only its EVSE and connector); a session received in 2.1.1 gets the original it came with. Without either (our Locations lack it, or the session is a partner's received in 2.2+): only {id, evses:[{uid, connectors:[{id}]}]} is sent, which is NOT a valid 2.1.1 Location. Up: only location.id, evses[0].uid and evses[0].connectors[0].id are taken, the original object is kept aside and returned to 2.1.1 GETs" },
  { object: "Session", field: "location.*", versions: ["2.1.1"], why: "our Location embedded in a 2.1.1 Session loses what a 2.1.1 Location loses (the Location, EVSE and Connector losses), logged as location.<field>" },
  { object: "Session", field: "location.evses", versions: ["2.1.1"], why: "up: only the first EVSE and its first connector name the session's EVSE/connector; further ones are ignored" },
];

/** Optional fields whose `null` means "absent": dropped so the canonical object carries values only. */
const OPTIONAL_FIELDS = [
  "end_date_time", "end_datetime", "authorization_reference", "meter_id", "charging_periods", "total_cost",
] as const;

const clean = (wire: Record<string, unknown>): Record<string, unknown> => {
  // the internal Locations are never taken from a partner
  const { [LOCATION_211]: _internal, [OWN_LOCATION]: _own, ...out } = wire;
  for (const field of OPTIONAL_FIELDS) if (out[field] === null) delete out[field];
  return out;
};

const DIMENSIONS_22 = new Set([
  "CURRENT", "ENERGY", "ENERGY_EXPORT", "ENERGY_IMPORT", "MAX_CURRENT", "MIN_CURRENT", "MAX_POWER", "MIN_POWER",
  "PARKING_TIME", "POWER", "RESERVATION_TIME", "STATE_OF_CHARGE", "TIME",
]);
const DIMENSIONS_211 = new Set(["ENERGY", "FLAT", "MAX_CURRENT", "MIN_CURRENT", "PARKING_TIME", "TIME"]);
/** FLAT exists only in 2.1.1 */
const DIMENSIONS_211_TO_22 = new Set([...DIMENSIONS_211].filter((d) => d !== "FLAT"));

/** Keeps the dimensions a version knows; periods left empty are removed. */
const filterPeriods = (periods: ChargingPeriod[], known: Set<string>, version: string, tx: TranslationContext): ChargingPeriod[] => {
  const out: ChargingPeriod[] = [];
  for (const period of periods) {
    const dimensions = period.dimensions.filter((d) => known.has(d.type));
    if (dimensions.length < period.dimensions.length)
      tx.dropped("charging_periods.dimensions", `dimension types unknown in ${version} left out`);
    if (dimensions.length === 0) tx.dropped("charging_periods", `a period with no dimension known in ${version} was removed`);
    else out.push(dimensions.length === period.dimensions.length ? period : { ...period, dimensions });
  }
  return out;
};

/** The internal members as `JSON.stringify` writes their names: stored sessions holding neither go out as they are stored. */
const INTERNAL_NAMES = [`"${LOCATION_211}":`, `"${OWN_LOCATION}":`];
/** what every internal member's name holds at the same place (model.ts: they start with `ocpi`), by which holdsInternal finds them */
const SHARED = "pi";
const SHARED_AT = INTERNAL_NAMES[0].indexOf(SHARED);

/**
 * Whether `json` holds one of INTERNAL_NAMES (exactly `INTERNAL_NAMES.some((name) => json.includes(name))`): found by
 * the `pi` of the `"ocpi` both names start with (a search goes by its first letter, and a `p` is rarer in JSON than
 * the `"` or the `o`): over a page of 50 bench sessions (30 KB, no internal member) 2.2-2.8 µs, where searching by
 * the `o` of `ocpi` took 5.7-6.3 and the two searches about 16. `pi` cannot overlap itself, so each search goes
 * on after the last one found.
 */
export const holdsInternal = (json: string): boolean => {
  for (let at = json.indexOf(SHARED, SHARED_AT); at >= 0; at = json.indexOf(SHARED, at + SHARED.length))
    for (const name of INTERNAL_NAMES) if (json.startsWith(name, at - SHARED_AT)) return true;
  return false;
};

const v230: VersionedTranslator<Session> = {
  up: (wire) => clean(wire) as Session,
  down: ({ [LOCATION_211]: _internal, [OWN_LOCATION]: _own, ...session }) => session,
  wireJson: (json) => (holdsInternal(json) ? undefined : json),
};

const v221: VersionedTranslator<Session> = {
  up: (wire) => mapPriceFields(clean(wire), ["total_cost"], priceUp) as Session,
  down: ({ [LOCATION_211]: _internal, [OWN_LOCATION]: _own, ...session }, tx) => {
    const out: Record<string, unknown> = mapPriceFields(session, ["total_cost"], (p, f) => priceDown(p, tx, f));
    const token = session.cdr_token;
    if (token && !(TOKEN_TYPES_22 as readonly string[]).includes(token.type)) {
      tx.dropped("cdr_token.type", `token type ${token.type} does not exist in 2.2.1: sent as OTHER`);
      out.cdr_token = { ...token, type: "OTHER" };
    }
    if (session.charging_periods) out.charging_periods = filterPeriods(session.charging_periods, DIMENSIONS_22, "2.2.1", tx);
    return out;
  },
};

interface Location211 {
  id?: string;
  evses?: { uid?: string; connectors?: { id?: string }[] }[];
  [extra: string]: unknown;
}

const v211: VersionedTranslator<Session> = {
  up: (wire, tx) => {
    const { start_datetime, end_datetime, auth_id, location, total_cost, charging_periods, ...rest } = clean(wire);
    const out: Record<string, unknown> = { ...rest };
    // 2.1.1 objects carry no owner: the kernel derives it from the path (receiver) or the partner's role.
    if (tx.owner) Object.assign(out, { country_code: tx.owner.country_code, party_id: tx.owner.party_id });
    if (start_datetime !== undefined) out.start_date_time = start_datetime;
    if (end_datetime !== undefined) out.end_date_time = end_datetime;
    if (auth_id !== undefined) {
      tx.dropped("cdr_token", "2.1.1 auth_id only: cdr_token rebuilt with uid = contract_id = auth_id, type OTHER, owner = session owner");
      out.cdr_token = { ...(tx.owner ?? {}), uid: auth_id, type: "OTHER", contract_id: auth_id };
    }
    if (location !== undefined) {
      const loc = location as Location211;
      const evse = loc.evses?.[0];
      if ((loc.evses?.length ?? 0) > 1 || (evse?.connectors?.length ?? 0) > 1)
        tx.dropped("location.evses", "only the first EVSE/connector names the session's EVSE/connector");
      Object.assign(out, { location_id: loc.id, evse_uid: evse?.uid, connector_id: evse?.connectors?.[0]?.id, [LOCATION_211]: loc });
    }
    if (total_cost !== undefined) out.total_cost = priceFromNumber(total_cost as number);
    if (charging_periods !== undefined) out.charging_periods = filterPeriods(charging_periods as ChargingPeriod[], DIMENSIONS_211_TO_22, "2.2+", tx);
    return out as Session;
  },
  down: (session, tx) => {
    const {
      country_code: _cc, party_id: _pid, start_date_time, end_date_time, cdr_token, authorization_reference,
      location_id, evse_uid, connector_id, [LOCATION_211]: original, [OWN_LOCATION]: own, total_cost, status, auth_method, charging_periods, ...rest
    } = session;
    const out: Record<string, unknown> = { ...rest };
    if (start_date_time !== undefined) out.start_datetime = start_date_time;
    if (end_date_time !== undefined) out.end_datetime = end_date_time;
    if (cdr_token !== undefined) {
      if (cdr_token.uid !== cdr_token.contract_id || cdr_token.type !== "OTHER")
        tx.dropped("cdr_token", "2.1.1 has only auth_id (= contract_id): uid, type and token owner are lost");
      out.auth_id = cdr_token.contract_id;
    }
    if (authorization_reference !== undefined) tx.dropped("authorization_reference", "not in 2.1.1");
    if (location_id !== undefined || evse_uid !== undefined || connector_id !== undefined)
      out.location = location211Of({ own: own as Location | undefined, original: original as Location211 | undefined }, { location_id, evse_uid, connector_id }, tx);
    if (total_cost !== undefined) out.total_cost = priceToNumber(total_cost, tx, "total_cost");
    if (status !== undefined) {
      if (status === "RESERVATION") tx.dropped("status", "RESERVATION does not exist in 2.1.1: sent as PENDING");
      out.status = status === "RESERVATION" ? "PENDING" : status;
    }
    if (auth_method !== undefined) {
      if (auth_method === "COMMAND") tx.dropped("auth_method", "COMMAND does not exist in 2.1.1: sent as AUTH_REQUEST");
      out.auth_method = auth_method === "COMMAND" ? "AUTH_REQUEST" : auth_method;
    }
    if (charging_periods !== undefined) {
      if (charging_periods.some((p) => p.tariff_id !== undefined)) tx.dropped("charging_periods.tariff_id", "not in 2.1.1");
      out.charging_periods = filterPeriods(charging_periods, DIMENSIONS_211, "2.1.1", tx).map(({ tariff_id: _t, ...p }) => p);
    }
    return out;
  },
};

/**
 * The 2.1.1 `location` of a session (OCPI 2.1.1 Sessions module: a Location
 * with only the EVSE and Connector used): our own Location of it when it
 * still names the session's ids (attached by session-location.ts, translated
 * by the Locations module, its losses reported as `location.<field>`); else
 * the original 2.1.1 Location the session came with, when it still names
 * them; else only the ids, which is not a valid 2.1.1 Location (logged).
 */
const location211Of = (
  known: { own?: Location; original?: Location211 },
  ids: { location_id?: string; evse_uid?: string; connector_id?: string },
  tx: TranslationContext,
): unknown => {
  const ours = sessionLocation(known.own, ids);
  if (ours) return locationType.down(ours, "2.1.1", { ...tx, dropped: (field, why) => tx.dropped(`location.${field}`, why) });
  const { original } = known;
  const evse = original?.evses?.[0];
  const same =
    original !== undefined &&
    (ids.location_id === undefined || original.id === ids.location_id) &&
    (ids.evse_uid === undefined || evse?.uid === ids.evse_uid) &&
    (ids.connector_id === undefined || evse?.connectors?.[0]?.id === ids.connector_id);
  if (same) return original;
  tx.dropped("location", "no 2.1.1 Location known for this session: sent its ids only (not a valid 2.1.1 Location)");
  return { id: ids.location_id, evses: [{ uid: ids.evse_uid, connectors: [{ id: ids.connector_id }] }] };
};

export const sessionType = defineObjectType<Session>({
  name: "Session",
  repairs: SESSION_REPAIRS,
  schemas: { "2.3.0": sessionSchema("2.3.0"), "2.2.1": sessionSchema("2.2.1"), "2.1.1": sessionSchema("2.1.1") },
  patchSchemas: { "2.3.0": sessionPatchSchema("2.3.0"), "2.2.1": sessionPatchSchema("2.2.1"), "2.1.1": sessionPatchSchema("2.1.1") },
  translators: { "2.3.0": v230, "2.2.1": v221, "2.1.1": v211 },
});

/**
 * ChargingPreferences: the same object in 2.2.1 and 2.3.0. 2.1.1 has no
 * charging preferences; its schema accepts anything so the route itself
 * can answer 404 (the kernel validates bodies before the handler runs).
 */
export const chargingPreferencesType = defineObjectType<ChargingPreferences>({
  name: "ChargingPreferences",
  schemas: { "2.3.0": chargingPreferencesSchema(), "2.2.1": chargingPreferencesSchema(), "2.1.1": z.any() },
  translators: {},
});
