/**
 * Set-up shared by the locations module tests (test/modules/locations-*.test.ts):
 * the spec's example files, Location builders, and the module harness with the
 * owners of every example Location registered.
 */
// the harness first: it loads reflect-metadata, which the plugin's decorators need
import { startHarness, type Harness } from "../support/module-harness";
import { EXAMPLES } from "../support/ocpi-examples";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { VersionNumber } from "../../core/protocol/types";
import type { CredentialsRole } from "../../core/protocol/types";
import { silentTranslation } from "../../core/model/object-type";
import { OwnedCollection } from "../../adapters/local/owned-collection";
import { localLocations } from "../../adapters/local/locations";
import { LocationsPlugin } from "../../plugins/locations/module";
import { locationType } from "../../plugins/locations/translate";
import type { Location } from "../../plugins/locations/model";

export type Json = Record<string, any>;

export const read = (folder: string, file: string): Json => JSON.parse(readFileSync(path.join(EXAMPLES, folder, file), "utf8"));
export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
export const cpo = (country_code: string, party_id: string): CredentialsRole => ({
  country_code,
  party_id,
  role: "CPO",
  business_details: { name: `${country_code}${party_id}` },
});

/** The other version of a 2.2+ pair, and the translation from one to the other. */
export const OTHER: Record<string, VersionNumber> = { "2.3.0": "2.2.1", "2.2.1": "2.3.0" };
export const translate = (object: Json, from: VersionNumber, to: VersionNumber): Json => {
  const canonical = locationType.up(clone(object), from, silentTranslation());
  return locationType.down(clone(canonical), to, silentTranslation()) as Json;
};

/** Example files not used as positive vectors, with the reason (asserted below, so the list cannot drift). */
export const SKIPPED: Record<string, string> = {
  "2.3.0/location_example.json":
    "NOTICE.md DEFECT: EVSE.parking is a list of strings, not EVSEParking objects; the fixed copy from 2.3.0_release-2.3.0-bugfixes is used instead",
  "2.3.0/location_example_parking_garage_opening_hours.json":
    "NOTICE.md DEFECT: EVSE.parking is a list of strings; the fixed copy from 2.3.0_release-2.3.0-bugfixes is used instead",
  "2.2.1/location_put_example_add_evse.json":
    "not a valid EVSE (not listed in NOTICE.md): its connector lacks power_type, max_voltage, max_amperage, last_updated and physical_reference is a number; asserted to be rejected with those pointers, and accepted once repaired",
  "2.3.0/location_put_example_add_evse.json": "same as 2.2.1/location_put_example_add_evse.json",
};

/** Request URLs printed in the spec next to the PATCH examples (NOTICE.md). */
export const PATCH_URLS: Record<string, string> = {
  "location_patch_example_location.json": "/NL/TNM/1012",
  "location_patch_example_remove_evse.json": "/NL/TNM/1012/3256",
  "location_patch_example_status.json": "/NL/TNM/1012/3255",
  "location_patch_example_tariff.json": "/NL/TNM/1012/3255/2",
};

export const kindOf = (file: string): "location" | "patch" | "evse-put" | "hours" | "wrapper" =>
  file.startsWith("location_patch_example_")
    ? "patch"
    : file === "location_put_example_add_evse.json"
      ? "evse-put"
      : file.startsWith("location_hours_")
        ? "hours"
        : file.startsWith("location_energymix_") || file === "location_regularhours_example.json"
          ? "wrapper"
          : "location";

export const exampleFiles = (version: string): string[] => readdirSync(path.join(EXAMPLES, version)).filter((f) => f.startsWith("location_")).sort();

export const connector = (id: string, stamp: string): Json => ({
  id,
  standard: "IEC_62196_T2",
  format: "SOCKET",
  power_type: "AC_3_PHASE",
  max_voltage: 230,
  max_amperage: 16,
  tariff_ids: ["11"],
  last_updated: stamp,
});
export const evse = (uid: string, connectorIds: string[], stamp: string): Json => ({
  uid,
  evse_id: `NL*TNM*E${uid}`,
  status: "AVAILABLE",
  connectors: connectorIds.map((id) => connector(id, stamp)),
  last_updated: stamp,
});
/** A valid 2.3.0 (and 2.2.1) Location. */
export const baseLocation = (cc: string, pid: string, id: string, stamp = "2019-01-01T00:00:00Z"): Json => ({
  country_code: cc,
  party_id: pid,
  id,
  publish: true,
  name: "Base",
  address: "Street 1",
  city: "Town",
  postal_code: "1234 AB",
  country: "NLD",
  coordinates: { latitude: "52.370216", longitude: "4.895168" },
  parking_type: "ON_STREET",
  evses: [evse("3255", ["1", "2"], stamp), evse("3256", ["1"], stamp)],
  time_zone: "Europe/Amsterdam",
  last_updated: stamp,
});

export const logLines = (h: Harness): Json[] => h.logs.map((l) => JSON.parse(l));

/** owners of every example Location, plus NL/TNM (the PATCH examples) and our own party (pushes feeding the sender) */
const owners = new Map<string, CredentialsRole>([["NLTNM", cpo("NL", "TNM")], ["NLGWY", cpo("NL", "GWY")], ["BEBEC", cpo("BE", "BEC")]]);
for (const version of ["2.2.1", "2.3.0", "2.3.0_release-2.3.0-bugfixes"])
  for (const file of exampleFiles(version).filter((f) => kindOf(f) === "location")) {
    const { country_code, party_id } = read(version, file);
    owners.set(`${country_code}${party_id}`, cpo(country_code, party_id));
  }

/** The gateway whose locations RECEIVER the partner, owner of every example Location, pushes to. */
export const startLocationsReceiver = (): Promise<Harness> =>
  // The partner holds NL/GWY, which therefore cannot be one of ours (a party is held by one side): our party is NL/OUR.
  startHarness({ plugins: [LocationsPlugin], localModules: [localLocations], modules: ["locations"], partnerRoles: [...owners.values()], party: { party_id: "OUR" } });

/** The partner's requests to the locations RECEIVER of `harness()`, and what its store holds. */
export const receiverRequests = (harness: () => Harness) => ({
  put: (version: VersionNumber, rest: string, body: unknown) =>
    harness().http.put(harness().path(version, "RECEIVER", "locations", rest)).set("Authorization", harness().auth).send(body as object),
  patch: (version: VersionNumber, rest: string, body: unknown) =>
    harness().http.patch(harness().path(version, "RECEIVER", "locations", rest)).set("Authorization", harness().auth).send(body as object),
  get: (version: VersionNumber, rest: string) => harness().http.get(harness().path(version, "RECEIVER", "locations", rest)).set("Authorization", harness().auth),
  stored: (cc: string, pid: string, id: string) =>
    new OwnedCollection<Location>(harness().gateway.store, "locations").get({ country_code: cc, party_id: pid }, id.toUpperCase()),
});
