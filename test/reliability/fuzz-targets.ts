import { readFileSync } from "node:fs";
import path from "node:path";
import type { CredentialsRole, VersionNumber } from "../../core/protocol/types";
import { partyKey } from "../../core/protocol/types";
import { EXAMPLES } from "../support/ocpi-examples";
import { COMMAND_BODIES, token as commandToken } from "../support/charge-point";
import type { BodyIdentity, Json } from "./mutations";
import { authOf, OURS, type FuzzGateway } from "./fuzz-gateway";

/** One receiver route of one version, with the seed body its mutations start from. */
export interface FuzzTarget {
  version: VersionNumber;
  /** e.g. `PATCH locations EVSE` */
  route: string;
  method: string;
  seed: Json;
  identity: BodyIdentity;
  /** brings the route's object to its seed state when `dirty` (an accepted case may have changed it) and says where to send the case */
  prepare(dirty: boolean): Promise<{ path: string; auth: string }>;
  /** the object the case may write, as stored; for a rejected case it must not change */
  state(): Promise<unknown>;
  /** objects shared between routes: an accepted case on one makes every route with the same key dirty */
  objectKey: string;
  /** sees the data of an accepted answer (credentials: the token issued) */
  accepted?(data: unknown): void;
}

type Obj = { [key: string]: Json };

const F230 = "2.3.0";
const F230_FIXED = "2.3.0_release-2.3.0-bugfixes";
const F221 = "2.2.1";
const F221_FIXED = "2.2.1-d2_release-2.2.1-bugfixes";
const F211 = "2.1.1-d2_inline-extracted";

/** The spec's published example bodies, read where they stand (not copied into the project). */
const example = (folder: string, file: string): Obj => JSON.parse(readFileSync(path.join(EXAMPLES, folder, file), "utf8"));

/** Example files per version: the fixed copies where NOTICE.md lists the original as defective (see test/modules). */
const SEEDS: Record<VersionNumber, Record<string, [string, string]>> = {
  "2.3.0": {
    location: [F230_FIXED, "location_example.json"],
    locationPatch: [F230, "location_patch_example_location.json"],
    evsePatch: [F230, "location_patch_example_status.json"],
    connectorPatch: [F230, "location_patch_example_tariff.json"],
    session: [F230, "session_example_2_short_finished.json"],
    sessionPatch: [F230, "session_patch_example_total_cost.json"],
    cdr: [F230, "cdr_example.json"],
    tariff: [F230, "tariff_1_simple_2hour.json"],
    token: [F230, "token_put_example.json"],
    tokenPatch: [F230, "token_patch_example.json"],
    credentials: [F230, "credentials_example.json"],
  },
  "2.2.1": {
    location: [F221, "location_example.json"],
    locationPatch: [F221, "location_patch_example_location.json"],
    evsePatch: [F221, "location_patch_example_status.json"],
    connectorPatch: [F221, "location_patch_example_tariff.json"],
    session: [F221_FIXED, "session_example_2_short_finished.json"],
    sessionPatch: [F221, "session_patch_example_total_cost.json"],
    cdr: [F221, "cdr_example.json"],
    tariff: [F221, "tariff_1_simple_2hour.json"],
    token: [F221, "token_put_example.json"],
    tokenPatch: [F221, "token_patch_example.json"],
    credentials: [F221, "credentials_example.json"],
  },
  "2.1.1": {
    location: [F211, "mod_locations_06_example.json"],
    locationPatch: [F211, "mod_locations_02_example_change_the_location_name.json"],
    evsePatch: [F211, "mod_locations_01_example_a_simple_status_update.json"],
    connectorPatch: [F211, "mod_locations_03_example_set_tariff_update.json"],
    session: [F211, "mod_sessions_03_simple_session_example_of_a_short_finished_session.json"],
    sessionPatch: [F211, "mod_sessions_01_example_update_the_total_cost.json"],
    cdr: [F211, "mod_cdrs_01_example_of_a_cdr.json"],
    tariff: [F211, "mod_tariffs_03_simple_tariff_example_2_euro_per_hour.json"],
    tariffPatch: [F211, "mod_tariffs_02_example_change_tariff_to_2_50.json"],
    token: [F211, "mod_tokens_01_example_put_a_new_token.json"],
    tokenPatch: [F211, "mod_tokens_02_example_invalidate_a_token.json"],
    credentials: [F211, "credentials_01_example.json"],
  },
};
/**
 * The 2.1.1 session example's Location names its country "BE", where a 2.1.1 Location's country is ISO 3166
 * alpha-3 (test/modules/sessions-211.test.ts): corrected, as 2.1.1 has no later copy that fixed it.
 */
const corrected = (version: VersionNumber, name: string, seed: Obj): Obj =>
  version === "2.1.1" && name === "session" ? { ...seed, location: { ...(seed.location as Obj), country: "BEL" } } : seed;
const seedOf = (version: VersionNumber, name: string): Obj => corrected(version, name, example(...SEEDS[version][name]));

/** Owners of the seed objects (2.1.1 bodies have none: their path names the same owner as the 2.2.1 seed). */
const OWNER = {
  location: { country_code: "BE", party_id: "BEC" },
  session: { country_code: "BE", party_id: "BEC" },
  cdr: { country_code: "BE", party_id: "BEC" },
  tariff: { country_code: "DE", party_id: "ALL" },
  token: { country_code: "NL", party_id: "TNM" },
};
/** Every party a case may name (wrong-owner mutations included), so a write under any of them shows in the state. */
const WATCHED_OWNERS = [
  ...Object.values(OWNER),
  OURS,
  { country_code: "DE", party_id: "EMS" },
  { country_code: "XX", party_id: "ZZZ" },
  { country_code: "NLD", party_id: "TOOLONG" },
];

const role = (party: { country_code: string; party_id: string }, r: "CPO" | "EMSP"): CredentialsRole => ({
  ...party,
  role: r,
  business_details: { name: `${party.country_code}${party.party_id}` },
});
/** The fuzzing partner's parties: the CPOs owning the seed objects, and the eMSPs owning the tokens. */
export const PARTNER_ROLES: CredentialsRole[] = [
  role(OWNER.location, "CPO"),
  role(OWNER.tariff, "CPO"),
  role(OWNER.token, "EMSP"),
  role({ country_code: "DE", party_id: "EMS" }, "EMSP"),
];

const base = (version: VersionNumber, role: "sender" | "receiver", module: string) => `/ocpi/${version}/${role}/${module}`;
const ownerPath = (o: { country_code: string; party_id: string }) => `/${o.country_code}/${o.party_id}`;

/**
 * What the local adapter stored: every watched owner's collection of the
 * module (store collections `local:<module>:<CC><PID>`), so a write under a
 * wrong id or owner shows as much as one to the seed object.
 */
const moduleState = (env: FuzzGateway, module: string) => async () =>
  Promise.all(
    WATCHED_OWNERS.map(async (owner) => (await env.gateway.store.range(`local:${module}:${partyKey(owner)}`, { offset: 0, limit: 100_000 })).items),
  );

const collectionState = (env: FuzzGateway, collection: string) => async () =>
  (await env.gateway.store.range(collection, { offset: 0, limit: 100_000 })).items;

/** Fails the run when a seed body the fuzzer restores is itself refused: the cases would then test nothing. */
const expectAccepted = async (what: string, answer: Promise<{ status: number; body: unknown; text: string }>) => {
  const res = await answer;
  if ((res.body as { status_code?: number } | undefined)?.status_code !== 1000) throw new Error(`restoring ${what} failed: HTTP ${res.status} ${res.text}`);
  return res;
};

const dataTargets = (env: FuzzGateway, auth: string, version: VersionNumber): FuzzTarget[] => {
  const targets: FuzzTarget[] = [];
  const putSeed = (module: string, rest: string, body: Obj) =>
    expectAccepted(`${module}${rest} (${version})`, env.call("PUT", `${base(version, "receiver", module)}${rest}`, JSON.stringify(body), auth));
  const add = (module: string, route: string, method: string, seed: Obj, identity: BodyIdentity, rest: string, restore: () => Promise<unknown>) =>
    targets.push({
      version,
      route: `${method} ${module} ${route}`,
      method,
      seed,
      identity,
      // one object per module whatever the version: the versions' seeds share ids
      objectKey: module,
      prepare: async (dirty) => {
        if (dirty) await restore();
        return { path: `${base(version, "receiver", module)}${rest}`, auth };
      },
      state: moduleState(env, module),
    });

  const location = seedOf(version, "location");
  const evses = location.evses as Obj[];
  const evse = evses[0];
  const connector = (evse.connectors as Obj[])[0];
  const loc = `${ownerPath(OWNER.location)}/${location.id}`;
  const restoreLocation = () => putSeed("locations", loc, location);
  for (const [depth, seed, patch, rest, idKey] of [
    ["Location", location, seedOf(version, "locationPatch"), loc, "id"],
    ["EVSE", evse, seedOf(version, "evsePatch"), `${loc}/${evse.uid}`, "uid"],
    ["Connector", connector, seedOf(version, "connectorPatch"), `${loc}/${evse.uid}/${connector.id}`, "id"],
  ] as const) {
    add("locations", depth, "PUT", seed, { idKey }, rest, restoreLocation);
    add("locations", depth, "PATCH", patch, { idKey }, rest, restoreLocation);
  }

  const session = seedOf(version, "session");
  const ses = `${ownerPath(OWNER.session)}/${session.id}`;
  add("sessions", "", "PUT", session, { idKey: "id" }, ses, () => putSeed("sessions", ses, session));
  add("sessions", "", "PATCH", seedOf(version, "sessionPatch"), { idKey: "id" }, ses, () => putSeed("sessions", ses, session));

  // CDRs cannot be replaced: the seed is never stored beforehand, so every case meets validation and not "already held"
  add("cdrs", "", "POST", seedOf(version, "cdr"), { idKey: "id" }, "", async () => undefined);

  const tariff = seedOf(version, "tariff");
  const tar = `${ownerPath(OWNER.tariff)}/${tariff.id}`;
  add("tariffs", "", "PUT", tariff, { idKey: "id" }, tar, () => putSeed("tariffs", tar, tariff));
  add("tariffs", "", "DELETE", tariff, { idKey: "id" }, tar, () => putSeed("tariffs", tar, tariff));
  if (version === "2.1.1") add("tariffs", "", "PATCH", seedOf(version, "tariffPatch"), { idKey: "id" }, tar, () => putSeed("tariffs", tar, tariff));

  const token = seedOf(version, "token");
  const tok = `${ownerPath(OWNER.token)}/${token.uid}?type=${token.type}`;
  add("tokens", "", "PUT", token, { idKey: "uid" }, tok, () => putSeed("tokens", tok, token));
  add("tokens", "", "PATCH", seedOf(version, "tokenPatch"), { idKey: "uid" }, tok, () => putSeed("tokens", tok, token));
  return targets;
};

/** Commands and charging profiles our CPO receives: a rejected one must leave no pending request behind. */
const asyncReceiverTargets = (env: FuzzGateway, auth: string, version: VersionNumber): FuzzTarget[] => {
  const responseUrl = `${env.partnerUrl}/callbacks/${version}`;
  // 2.1.1 Tokens have no owner and call the contract id auth_id
  const { country_code: _cc, party_id: _pid, contract_id, ...token211 } = commandToken;
  const tokenFor = version === "2.1.1" ? { ...token211, auth_id: contract_id } : commandToken;
  const targets: FuzzTarget[] = Object.entries(COMMAND_BODIES).map(([type, body]) => {
    const seed = { ...body, ...("token" in body ? { token: tokenFor } : {}), response_url: responseUrl } as Obj;
    // 2.1.1's reservation_id is an integer
    if (version === "2.1.1" && "reservation_id" in seed) seed.reservation_id = Number(seed.reservation_id);
    const idKey = "location_id" in seed ? "location_id" : "session_id" in seed ? "session_id" : "reservation_id";
    return {
      version,
      route: `POST commands ${type}`,
      method: "POST",
      seed,
      identity: { idKey, ownerAt: "token" in seed ? ["token"] : [] },
      objectKey: "commands.received",
      prepare: async () => ({ path: `${base(version, "receiver", "commands")}/${type}`, auth }),
      state: collectionState(env, "async:commands.received"),
    };
  });
  if (version !== "2.1.1")
    targets.push({
      version,
      route: "PUT chargingprofiles",
      method: "PUT",
      seed: { charging_profile: PROFILE, response_url: responseUrl },
      identity: {},
      objectKey: "chargingprofiles.received",
      prepare: async () => ({ path: `${base(version, "receiver", "chargingprofiles")}/SES1`, auth }),
      state: collectionState(env, "async:chargingprofiles.received"),
    });
  return targets;
};

const PROFILE = { charging_rate_unit: "A", charging_profile_period: [{ start_period: 0, limit: 16 }] };

/**
 * Results the partner posts to the response_urls of requests we (as eMSP)
 * sent it: each case goes to a request still pending, issued through the
 * admin API; a rejected result must leave it pending and unchanged.
 */
const callbackTargets = (env: FuzzGateway, auth: string, version: VersionNumber): FuzzTarget[] => {
  const pendingTarget = (
    route: string,
    seed: Obj,
    kind: string,
    issue: () => Promise<string>,
    pathOf: (uid: string) => string,
  ): FuzzTarget => {
    let uid = "";
    return {
      version,
      route,
      method: "POST",
      seed,
      identity: {},
      objectKey: `${kind}:${version}`,
      prepare: async (dirty) => {
        if (dirty || !uid) uid = await issue();
        return { path: pathOf(uid), auth };
      },
      state: async () => env.gateway.store.get(`async:${kind}`, uid),
    };
  };
  const issued = async (what: string, answer: Promise<{ status: number; body: unknown; text: string }>): Promise<string> =>
    ((await expectAccepted(what, answer)).body as { data: { uid: string } }).data.uid;

  const targets = [
    pendingTarget(
      "POST commands result (sender)",
      { result: "ACCEPTED", message: [{ language: "en", text: "Charging started" }] },
      "commands.sent",
      () => issued("a command to the partner", env.admin("POST", "/commands/partner/START_SESSION", COMMAND_BODIES.START_SESSION)),
      (uid) => `${base(version, "sender", "commands")}/START_SESSION/${uid}`,
    ),
  ];
  if (version === "2.1.1") return targets;
  targets.push(
    pendingTarget(
      "POST chargingprofiles result (sender)",
      { result: "ACCEPTED" },
      "chargingprofiles.sent",
      () => issued("a charging profile to the partner", env.admin("PUT", "/chargingprofiles/partner/SES1", PROFILE)),
      (uid) => `${base(version, "sender", "chargingprofiles")}/results/${uid}`,
    ),
  );
  targets.push({
    version,
    route: "PUT chargingprofiles active profile (sender)",
    method: "PUT",
    seed: { start_date_time: "2025-06-01T12:00:00Z", charging_profile: PROFILE },
    identity: {},
    objectKey: `active-profiles`,
    prepare: async () => ({ path: `${base(version, "sender", "chargingprofiles")}/SES1`, auth }),
    state: collectionState(env, "local:chargingprofiles:active"),
  });
  return targets;
};

/** The party the credentials PUT claims: the one cred-partner registered with, so the claim is its own. */
const CRED_PARTY = { country_code: "NL", party_id: "CRD" };

/**
 * Credentials: POST by a partner holding a token A, PUT by a registered
 * partner (the token it is given replaces the one it used). The partner's
 * record must not change when the exchange is refused. After an accepted
 * POST the new partner unregisters (DELETE), which frees the party it
 * claimed, and the next case starts from another token A.
 */
const credentialsTargets = (env: FuzzGateway, version: VersionNumber): FuzzTarget[] => {
  const example = seedOf(version, "credentials");
  const seed: Obj = { ...example, url: `${env.partnerUrl}/versions`, token: `partner-side-token-${version}-0123456789` };
  env.logs.watch(seed.token as string);
  const claim = (party: typeof CRED_PARTY): Obj =>
    version === "2.1.1" ? { ...seed, ...party } : { ...seed, roles: (seed.roles as Obj[]).map((r) => ({ ...r, ...party })) };
  const path = `/ocpi/${version}/credentials`;
  let boot: { id: string; tokenA: string } | undefined;
  let registered: string | undefined;
  let credAuth = "";
  const ownerAt = version === "2.1.1" ? [] : ["roles", 0];
  return [
    {
      version,
      route: "POST credentials",
      method: "POST",
      seed,
      identity: { ownerAt },
      objectKey: `credentials-post:${version}`,
      prepare: async (dirty) => {
        if (registered) await expectAccepted("unregistering a fuzzed registration", env.call("DELETE", path, undefined, registered));
        registered = undefined;
        if (dirty || !boot) boot = env.bootstrap();
        return { path, auth: authOf(boot.tokenA) };
      },
      state: async () => env.gateway.registry.get(boot!.id),
      accepted: (data) => void (registered = issuedAuth(env, data)),
    },
    {
      version,
      route: "PUT credentials",
      method: "PUT",
      seed: claim(CRED_PARTY),
      identity: { ownerAt },
      objectKey: `credentials-put:${version}`,
      prepare: async () => {
        if (!credAuth) credAuth = await env.register("cred-partner", [role(CRED_PARTY, "CPO")]);
        return { path, auth: credAuth };
      },
      state: async () => env.gateway.registry.get("cred-partner"),
      accepted: (data) => void (credAuth = issuedAuth(env, data) ?? credAuth),
    },
  ];
};

/** The token an accepted credentials exchange hands out: it is watched by the log scan, and used for the next PUT. */
const issuedAuth = (env: FuzzGateway, data: unknown): string | undefined => {
  const token = (data as { token?: unknown } | undefined)?.token;
  if (typeof token !== "string") return undefined;
  env.logs.watch(token);
  return authOf(token);
};

/** Every receiver route of every version, and the sender's result callbacks. */
export const fuzzTargets = async (env: FuzzGateway): Promise<FuzzTarget[]> => {
  const auth = await env.register("partner", PARTNER_ROLES);
  return (["2.3.0", "2.2.1", "2.1.1"] as VersionNumber[]).flatMap((version) => [
    ...dataTargets(env, auth, version),
    ...asyncReceiverTargets(env, auth, version),
    ...callbackTargets(env, auth, version),
    ...credentialsTargets(env, version),
  ]);
};
