import { z } from "zod";
import type { GatewayConfig } from "../../config/types";
import type { Credentials, CredentialsRole, Role } from "../../core/protocol/types";
import { defineObjectType } from "../../core/model/object-type";
import { type ObjectType, type TranslationLoss } from "../../core/contract/object-type";
import { businessDetails, countryCode, nonEmptyArray, partyId, role, url } from "../../core/model/common-schemas";

const token = () =>
  z.string().regex(/^[\x21-\x7e]{1,64}$/, { message: "must be 1-64 printable ASCII characters (U+0021-U+007E)" });

const credentialsRole = (version: "2.2.1" | "2.3.0") =>
  z.looseObject({ role: role(version), business_details: businessDetails(version), party_id: partyId(), country_code: countryCode() });

export const CREDENTIALS_TRANSLATION_LOSSES: readonly TranslationLoss[] = [
  { object: "Credentials", field: "hub_party_id", versions: ["2.2.1", "2.1.1"], why: "2.3.0 only" },
  { object: "Credentials", field: "roles[1..]", versions: ["2.1.1"], why: "2.1.1 credentials carry a single party" },
];

/** 2.1.1 credentials name no role: a partner's role is the counterpart of ours. */
const counterpartOf = (ours: Role): Role => (ours === "CPO" ? "EMSP" : ours === "EMSP" ? "CPO" : "OTHER");

/**
 * The Credentials object: 2.1.1 carries one party at the top level, 2.2.1 a
 * `roles` list, 2.3.0 adds `hub_party_id`.
 */
export const credentialsType = (config: GatewayConfig): ObjectType<Credentials> =>
  defineObjectType<Credentials>({
    name: "Credentials",
    schemas: {
      "2.3.0": z.looseObject({
        token: token(),
        url: url(),
        roles: nonEmptyArray(credentialsRole("2.3.0")),
        hub_party_id: z.string().regex(/^[A-Za-z]{2}[A-Za-z0-9]{3}$/, { message: "must be a country code and party id (5 characters)" }).optional(),
      }),
      "2.2.1": z.looseObject({ token: token(), url: url(), roles: nonEmptyArray(credentialsRole("2.2.1")) }),
      "2.1.1": z.looseObject({
        token: token(),
        url: url(),
        business_details: businessDetails("2.1.1"),
        party_id: partyId(),
        country_code: countryCode(),
      }),
    },
    translators: {
      "2.2.1": {
        up: (wire) => wire,
        down: ({ hub_party_id, ...rest }, tx) => {
          if (hub_party_id !== undefined) tx.dropped("hub_party_id", "2.3.0 only");
          return rest;
        },
      },
      "2.1.1": {
        up: ({ token, url, business_details, party_id, country_code, ...extra }) => ({
          ...extra,
          token,
          url,
          roles: [{ role: counterpartOf(config.parties[0].role), business_details, party_id, country_code } as CredentialsRole],
        }),
        down: ({ token, url, roles, hub_party_id }, tx) => {
          if (roles.length > 1) tx.dropped("roles[1..]", "2.1.1 credentials carry a single party");
          if (hub_party_id !== undefined) tx.dropped("hub_party_id", "2.3.0 only");
          const [first] = roles;
          return { token, url, business_details: first.business_details, party_id: first.party_id, country_code: first.country_code };
        },
      },
    },
  });
