/** Set-up shared by the sessions module tests (test/modules/sessions-*.test.ts): example files, a valid Session, the module harness and the partner's requests. */
import "reflect-metadata";
import path from "node:path";
import { readFileSync } from "node:fs";
import type { CredentialsRole } from "../../core/protocol/types";
import type { VersionNumber } from "../../config/types";
import { silentTranslation } from "../../core/model/object-type";
import { startHarness, type Harness, type HarnessOptions } from "../support/module-harness";
import { EXAMPLES } from "../support/ocpi-examples";
import { SessionsPlugin } from "../../plugins/sessions/module";
import { localSessions } from "../../adapters/local/sessions";
import { sessionType } from "../../plugins/sessions/translate";
import type { Session } from "../../plugins/sessions/model";

/** Example payloads, read where they stand at test time. */
export const example = (file: string): Record<string, any> => JSON.parse(readFileSync(path.join(EXAMPLES, file), "utf8"));

export const tx = silentTranslation();
export const up = (wire: unknown, version: VersionNumber) => sessionType.up(wire, version, tx);
export const down = (canonical: Session, version: VersionNumber) => sessionType.down(canonical, version, tx);

export const cpo = (country_code: string, party_id: string): CredentialsRole => ({
  country_code,
  party_id,
  role: "CPO",
  business_details: { name: `${country_code}${party_id}` },
});
/** The partner speaks for the CPOs owning the example sessions, and for an eMSP. */
export const PARTNER_ROLES: CredentialsRole[] = [
  cpo("NL", "STK"),
  cpo("BE", "BEC"),
  { country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "DEEMS" } },
];

export const harness = (options: Partial<HarnessOptions> = {}) =>
  startHarness({
    plugins: [SessionsPlugin],
    localModules: [localSessions],
    modules: ["sessions"],
    partnerRoles: PARTNER_ROLES,
    ...options,
  });

/** A valid 2.3.0 session of `owner`, for crafted tests. */
export const session = (overrides: Record<string, unknown> = {}): Record<string, any> => ({
  country_code: "NL",
  party_id: "STK",
  id: "S1",
  start_date_time: "2024-05-01T10:00:00Z",
  kwh: 1.5,
  cdr_token: { country_code: "DE", party_id: "EMS", uid: "UID1", type: "RFID", contract_id: "DE-EMS-C1" },
  auth_method: "WHITELIST",
  location_id: "LOC1",
  evse_uid: "EVSE1",
  connector_id: "1",
  currency: "EUR",
  charging_periods: [{ start_date_time: "2024-05-01T10:00:00Z", dimensions: [{ type: "ENERGY", volume: 1.5 }] }],
  total_cost: { before_taxes: 1, taxes: [{ name: "VAT", amount: 0.21 }] },
  status: "ACTIVE",
  last_updated: "2024-05-01T10:05:00Z",
  ...overrides,
});

export const receiverPath = (h: Harness, v: VersionNumber, s: { country_code: string; party_id: string; id: string }) =>
  h.path(v, "RECEIVER", "sessions", `/${s.country_code}/${s.party_id}/${s.id}`);
export const put = (h: Harness, v: VersionNumber, s: any, at = s) => h.http.put(receiverPath(h, v, at)).set("Authorization", h.auth).send(s);
export const patch = (h: Harness, v: VersionNumber, at: any, fragment: unknown) =>
  h.http.patch(receiverPath(h, v, at)).set("Authorization", h.auth).send(fragment as object);
export const get = (h: Harness, v: VersionNumber, at: any) => h.http.get(receiverPath(h, v, at)).set("Authorization", h.auth);

/**
 * Defective example files, with the reason; the test below asserts each is
 * rejected and uses the errata copy instead. NOTICE.md does not list these
 * two: the 2.2.1 tag's session examples omit cdr_token.country_code and
 * party_id, both required by the 2.2.1 CdrToken (OCPI 2.2.1 CDRs module "both added
 * in 2.2.1"); branch release-2.2.1-bugfixes carries the corrected files.
 */
export const DEFECTIVE = [
  {
    file: "2.2.1/session_example_1_simple_start.json",
    reason: "cdr_token lacks country_code and party_id (required in 2.2.1)",
    fixed: "2.2.1-d2_release-2.2.1-bugfixes/session_example_1_simple_start.json",
  },
  {
    file: "2.2.1/session_example_2_short_finished.json",
    reason: "cdr_token lacks country_code and party_id (required in 2.2.1)",
    fixed: "2.2.1-d2_release-2.2.1-bugfixes/session_example_2_short_finished.json",
  },
];

export const FULL_EXAMPLES: { version: VersionNumber; file: string }[] = [
  { version: "2.3.0", file: "2.3.0/session_example_1_simple_start.json" },
  { version: "2.3.0", file: "2.3.0/session_example_2_short_finished.json" },
  { version: "2.2.1", file: DEFECTIVE[0].fixed },
  { version: "2.2.1", file: DEFECTIVE[1].fixed },
];
export const OTHER: Record<string, VersionNumber> = { "2.3.0": "2.2.1", "2.2.1": "2.3.0" };
