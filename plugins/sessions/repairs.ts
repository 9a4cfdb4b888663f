import type { ObjectRepairs } from "../../core/contract/object-type";

/**
 * What `strictness: repair` may do to a partner's Session besides the repairs of every type (core/model/repair.ts):
 * a CdrToken without its owner is the sending party's token (2.1.1 sessions name none).
 */
export const SESSION_REPAIRS: ObjectRepairs = {
  fills: {
    "/cdr_token/country_code": { from: "sender" },
    "/cdr_token/party_id": { from: "sender" },
  },
};
