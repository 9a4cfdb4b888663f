import type { ObjectRepairs } from "../../core/contract/object-type";

/**
 * What `strictness: repair` may do to a partner's CDR besides the repairs of every type (core/model/repair.ts):
 * a CdrToken without its owner is the sending party's token, and a CdrLocation's missing address fields are
 * those of the Location the gateway holds under the CDR's owner and the CdrLocation's id.
 */
export const CDR_REPAIRS: ObjectRepairs = {
  fills: {
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
