/**
 * What `strictness: repair` knows that the schemas cannot tell: defaults
 * the spec implies, where owner and address fields may be filled from, and
 * the synonyms of enumeration values real partners send. Data only; the
 * rules that use it are in core/model/repair.ts. Keys are object type names
 * (ObjectType.name) and field pointers with list indexes as `*`.
 */

/**
 * Language of a DisplayText made from a plain string. The partner did not
 * say; OCPI's own examples and most roaming text are English, and a wrong
 * language tag is harmless to the reader where a refused Location is not.
 */
export const DISPLAY_TEXT_LANGUAGE = "en";

/** Where a missing field may be filled from, when the schema asks for it. */
export type FieldFill =
  /** a constant, when the spec implies it (and `when` holds for the field's parent object) */
  | { from: "value"; value: unknown; when: (parent: Record<string, unknown>) => boolean; why: string }
  /** the same-named field of the party the object came from (its owner, else the partner's party) */
  | { from: "sender" }
  /** the same-named field of the Location the gateway holds under the object's owner and the parent's `id` */
  | { from: "held-location" };

export const FIELD_FILLS: Readonly<Record<string, Readonly<Record<string, FieldFill>>>> = {
  Location: {
    // Part B "Hours": regular_hours are given "only when twentyfourseven is false".
    "/opening_times/twentyfourseven": {
      from: "value",
      value: false,
      when: (hours) => Array.isArray(hours.regular_hours) && hours.regular_hours.length > 0,
      why: "regular_hours are given (Part B Hours)",
    },
  },
  Session: {
    "/cdr_token/country_code": { from: "sender" },
    "/cdr_token/party_id": { from: "sender" },
  },
  CDR: {
    "/cdr_token/country_code": { from: "sender" },
    "/cdr_token/party_id": { from: "sender" },
    "/cdr_location/name": { from: "held-location" },
    "/cdr_location/address": { from: "held-location" },
    "/cdr_location/city": { from: "held-location" },
    "/cdr_location/postal_code": { from: "held-location" },
    "/cdr_location/state": { from: "held-location" },
    "/cdr_location/country": { from: "held-location" },
    "/cdr_location/coordinates": { from: "held-location" },
  },
};

/**
 * Values of closed enumerations that partners send for a known one, by the
 * field's name (the last key of its pointer). Explicit pairs only: no
 * guessing from spelling. Case differences need no entry (core/model/repair.ts).
 */
export const ENUM_SYNONYMS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  facilities: {
    SHOPPING_MALL: "MALL",
    SHOPPING_CENTER: "MALL",
    SHOPPING_CENTRE: "MALL",
    PARKING: "PARKING_LOT",
    RAILWAY_STATION: "TRAIN_STATION",
    GAS_STATION: "FUEL_STATION",
    PETROL_STATION: "FUEL_STATION",
  },
};
