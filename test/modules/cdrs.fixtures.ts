/** Set-up shared by the CDRs module tests (test/modules/cdrs*.test.ts): the published examples, the receiver's harness options, requests and translations. */
// the plugin's decorators need reflect-metadata, which the module harness would load (only its types are used here)
import "reflect-metadata";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Harness, HarnessOptions } from "../support/module-harness";
import { EXAMPLES } from "../support/ocpi-examples";
import { CdrsPlugin } from "../../plugins/cdrs/module";
import { localCdrs } from "../../adapters/local/cdrs";
import { cdrType } from "../../plugins/cdrs/translate";
import { silentTranslation } from "../../core/model/object-type";
import type { VersionNumber } from "../../core/protocol/types";
import type { CredentialsRole } from "../../core/protocol/types";

export const PUBLIC_URL = "http://127.0.0.1:9";
export type Json = Record<string, any>;

export const readExample = (folder: string, file: string): Json => JSON.parse(readFileSync(path.join(EXAMPLES, folder, file), "utf8"));
export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

export const cpo = (country_code: string, party_id: string): CredentialsRole => ({
  country_code,
  party_id,
  role: "CPO",
  business_details: { name: `${country_code}${party_id}` },
});

/** We are an eMSP receiving CDRs from a CPO partner that owns BE/BEC (the examples' owner) and NL/CPX. */
export const receiverOptions = (extra: Partial<HarnessOptions> = {}): HarnessOptions => ({
  plugins: [CdrsPlugin],
  localModules: [localCdrs],
  modules: ["cdrs"],
  party: { country_code: "DE", party_id: "TNM", role: "EMSP" },
  partnerRoles: [cpo("BE", "BEC"), cpo("NL", "CPX")],
  ...extra,
});

export const example230 = (): Json => readExample("2.3.0", "cdr_example.json");
export const example221 = (): Json => readExample("2.2.1", "cdr_example.json");
export const example211 = (): Json => readExample("2.1.1-d2_inline-extracted", "mod_cdrs_01_example_of_a_cdr.json");

export const post = (h: Harness, version: VersionNumber, body: unknown) =>
  h.http.post(h.path(version, "RECEIVER", "cdrs")).set("Authorization", h.auth).send(body as object);

export const getPath = (h: Harness, p: string) => h.http.get(p).set("Authorization", h.auth);

export const getCdr = (h: Harness, version: VersionNumber, owner: string, id: string) =>
  getPath(h, h.path(version, "RECEIVER", "cdrs", `/${owner}/${encodeURIComponent(id)}`));

/** Path part of an absolute URL the gateway built on its public URL. */
export const local = (url: string): string => {
  expect(url.startsWith(PUBLIC_URL)).toBe(true);
  return url.slice(PUBLIC_URL.length);
};

export const downTo = (version: VersionNumber, canonical: Json): Json => cdrType.down(canonical as any, version, silentTranslation()) as Json;
export const upFrom = (version: VersionNumber, wire: Json, owner?: { country_code: string; party_id: string }): Json =>
  cdrType.up(wire, version, { ...silentTranslation(), owner }) as Json;
