/** Set-up shared by the tokens module tests (test/modules/tokens*.test.ts): our seeded tokens, the module harness and the partner's requests. */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { VersionNumber } from "../../config/types";
import { startHarness, type Harness } from "../support/module-harness";
import { EXAMPLES } from "../support/ocpi-examples";
import { TokensPlugin } from "../../plugins/tokens/module";
import { localTokens } from "../../adapters/local/tokens";
import type { Token } from "../../plugins/tokens/model";

export type Json = Record<string, any>;

export const readExample = (folder: string, file: string): Json => JSON.parse(readFileSync(path.join(EXAMPLES, folder, file), "utf8"));

export const EMSP = (cc: string, pid: string) => ({ country_code: cc, party_id: pid, role: "EMSP" as const, business_details: { name: `${cc}${pid}` } });

/** Our own (sender side) tokens, one per day, so date filters have exact boundaries. */
export const day = (n: number) => `2024-01-0${n}T00:00:00Z`;
export const ours = (n: number, extra: Partial<Token> = {}): Token => ({
  country_code: "NL",
  party_id: "GWY",
  uid: `S0${n}`,
  type: "RFID",
  contract_id: `NL-GWY-C0${n}`,
  issuer: "Gateway eMSP",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: day(n),
  ...extra,
});
export const SEED: Token[] = [
  ours(1, { whitelist: "ALWAYS" }),
  ours(2),
  ours(3, { valid: false }),
  // same uid as S01, different type: a distinct token that needs real-time authorization per location
  ours(4, { uid: "S01", type: "APP_USER", whitelist: "NEVER" }),
  ours(5, { type: "EMAID", group_id: "G1", energy_contract: { supplier_name: "Green" } }),
  ours(6),
  ours(7),
];

export const toUrlPath = (link: string) => new URL(/<([^>]+)>/.exec(link)![1]).pathname + new URL(/<([^>]+)>/.exec(link)![1]).search;

/** The gateway the tokens tests talk to: we are the eMSP NL/GWY with the seeded tokens, the partner speaks for DE/TNM and NL/TNM, pages of 5. */
export const startTokensModule = (): Promise<Harness> =>
  startHarness({
    plugins: [TokensPlugin],
    localModules: [localTokens],
    modules: ["tokens"],
    party: { country_code: "NL", party_id: "GWY", role: "EMSP" },
    partnerRoles: [EMSP("DE", "TNM"), EMSP("NL", "TNM")],
    maxPageLimit: 5,
    seed: { tokens: SEED },
  });

/** The partner's requests to the tokens interfaces of `harness()`. */
export const tokenRequests = (harness: () => Harness) => {
  const receiver = (version: VersionNumber, rest: string) => harness().path(version, "RECEIVER", "tokens", rest);
  return {
    receiver,
    sender: (version: VersionNumber, rest = "") => harness().path(version, "SENDER", "tokens", rest),
    get: (url: string) => harness().http.get(url).set("Authorization", harness().auth),
    put: (url: string, body: unknown) => harness().http.put(url).set("Authorization", harness().auth).send(body as object),
    patch: (url: string, body: unknown) => harness().http.patch(url).set("Authorization", harness().auth).send(body as object),
    post: (url: string, body?: unknown) => {
      const r = harness().http.post(url).set("Authorization", harness().auth);
      return body === undefined ? r : r.send(body as object);
    },
    tokenUrl: (version: VersionNumber, t: Json, withType = true) =>
      receiver(version, `/${t.country_code ?? "NL"}/${t.party_id ?? "TNM"}/${t.uid}${withType && t.type ? `?type=${t.type}` : ""}`),
  };
};
