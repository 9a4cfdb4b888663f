import type { ObjectRepairs } from "../../core/contract/object-type";

/** What `strictness: repair` may do to a partner's Location besides the repairs of every type (core/model/repair.ts). */
export const LOCATION_REPAIRS: ObjectRepairs = {
  fills: {
    // Part B "Hours": regular_hours are given "only when twentyfourseven is false".
    "/opening_times/twentyfourseven": {
      from: "value",
      value: false,
      when: (hours) => Array.isArray(hours.regular_hours) && hours.regular_hours.length > 0,
      why: "regular_hours are given (Part B Hours)",
    },
  },
  // Facility values real partners send for one the enumeration has (Part B Facility); letter case needs no entry.
  synonyms: {
    facilities: {
      SHOPPING_MALL: "MALL",
      SHOPPING_CENTER: "MALL",
      SHOPPING_CENTRE: "MALL",
      PARKING: "PARKING_LOT",
      RAILWAY_STATION: "TRAIN_STATION",
      GAS_STATION: "FUEL_STATION",
      PETROL_STATION: "FUEL_STATION",
    },
  },
};
