import "reflect-metadata";
import { byId, cdr, collect, CPO_REF, EMSP_REF, type Json, location, MODULES, type Pair, PATCHES, RUNS, session, startPair, tariff, tokens, viaVersion } from "./roaming.fixtures";
import diagnostics from "node:diagnostics_channel";
import { silentTranslation } from "../../core/model/object-type";
import { Gateway } from "../../app/gateway";
import { removeTempDirs } from "../support/gateway-config";
import { LocationsClient } from "../../plugins/locations/client";
import { TariffsClient } from "../../plugins/tariffs/client";
import { TokensClient } from "../../plugins/tokens/client";
import { SessionsClient } from "../../plugins/sessions/client";
import { CdrsClient } from "../../plugins/cdrs/client";
import { locationType } from "../../plugins/locations/translate";
import { tariffType } from "../../plugins/tariffs/translate";
import { tokenObjectType } from "../../plugins/tokens/translate";
import { sessionType } from "../../plugins/sessions/translate";
import { cdrType } from "../../plugins/cdrs/translate";
import type { Session } from "../../plugins/sessions/model";

/**
 * Issue #3 end to end: a CPO gateway and an eMSP gateway, in-process, each
 * with its own SQLite store and `local` adapter, on loopback ports. The eMSP
 * registers with the CPO through the real credentials handshake; then, using
 * only the public surface (module clients over `gateway.partnerClient`, plain
 * HTTP against the gateways), the roaming flows run in the negotiated version:
 * pull locations and tariffs, push tokens, real-time authorization, push a
 * session (PUT + PATCHes) and a CDR. Once in 2.3.0, once with the eMSP
 * restricted to 2.2.1 (translation at both edges, lossless seeds, the CPO
 * sending ROAMING-* routing headers), and once in 2.1.1 (locations, tariffs,
 * tokens).
 */

/** Every outbound call the gateways make goes through undici (core/client/ocpi-client.ts): record them from its diagnostics channel. */
interface Sent {
  method: string;
  url: string;
  headers: Headers;
}
const sent: Sent[] = [];
interface UndiciRequest {
  origin: string;
  path: string;
  method: string;
  headers: string[];
}
const record = (message: unknown) => {
  const { origin, path, method, headers } = (message as { request: UndiciRequest }).request;
  const recorded = new Headers();
  for (let i = 0; i < headers.length; i += 2) recorded.append(headers[i], headers[i + 1]);
  // this test's own fetch calls (Node's fetch is undici too) carry no X-Request-ID; every gateway call does
  if (recorded.has("x-request-id")) sent.push({ method, url: `${origin}${path}`, headers: recorded });
};

beforeAll(() => diagnostics.subscribe("undici:request:create", record));

afterAll(() => diagnostics.unsubscribe("undici:request:create", record));

const routingOf = (headers: Headers, prefix: string) => ({
  from: { country_code: headers.get(`${prefix}-from-country-code`), party_id: headers.get(`${prefix}-from-party-id`) },
  to: { country_code: headers.get(`${prefix}-to-country-code`), party_id: headers.get(`${prefix}-to-party-id`) },
});
const hasAnyRouting = (headers: Headers, prefix: string): boolean =>
  ["from-country-code", "from-party-id", "to-country-code", "to-party-id"].some((n) => headers.has(`${prefix}-${n}`));

/* ---------------------------------------------------------------- the runs */

describe.each(RUNS)("roaming CPO <-> eMSP in $version", (run) => {
  const v = run.version;
  const TOKEN_A = `roaming-token-A-${v}-0123456789`;
  const locations = [1, 2, 3].map((n) => location(n, run.rich));
  const tariffs = [1, 2, 3].map((n) => tariff(n, run.rich));
  const emspTokens = tokens(v);
  const encoding = v === "2.1.1" ? "raw" : "base64";

  let cpo: Gateway;
  let emsp: Gateway;
  let cpoUrl: string;
  let emspUrl: string;
  let logs: Pair["logs"];
  let pair: Pair | undefined;
  /** the authorization_reference the eMSP handed out for the session's token */
  let authorizationReference: string;

  const authHeader = (tokenValue: string) => `Token ${encoding === "base64" ? Buffer.from(tokenValue).toString("base64") : tokenValue}`;
  /** the token `side` presents to the other gateway */
  const tokenOf = async (side: Gateway, partnerId: string): Promise<string> => (await side.registry.get(partnerId))!.tokenToPartner!;
  const get = async (url: string, tokenValue: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url, { headers: { Authorization: authHeader(tokenValue), ...headers } });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
  };
  const drops = (lines: string[]): Json[] => lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "field dropped by version translation");

  // Each test has its own two gateways, stores, logs and record of calls (ports may be handed out again).
  beforeEach(async () => {
    sent.length = 0;
    authorizationReference = "AUTHREF-FALLBACK";
    pair = await startPair(run, TOKEN_A, { locations, tariffs, tokens: emspTokens });
    ({ cpo, emsp, cpoUrl, emspUrl, logs } = pair);
    expect(await cpo.listen()).toBe(pair.cpoPort);
    expect(await emsp.listen()).toBe(pair.emspPort);
  });

  afterEach(async () => {
    await pair?.close();
    pair = undefined;
    removeTempDirs();
  });

  /**
   * The roaming story's steps, in order. Each is a test that first runs every step before it (with its
   * checks) on its own gateways: later steps read what earlier ones did (the registration, the
   * authorization_reference, the session the routing test asks for, every call and log line so far).
   */
  const story: (() => Promise<void>)[] = [];
  const step = (name: string, body: () => Promise<void> | void) => {
    const before = [...story];
    story.push(async () => body());
    it(name, async () => {
      for (const earlier of before) await earlier();
      await body();
    });
  };

  step(`registers through the credentials handshake and both sides settle on ${v}`, async () => {
    const record = await emsp.credentials.register("cpo");
    expect(record).toMatchObject({ status: "registered", version: v });
    const cpoSide = await cpo.registry.get("emsp");
    expect(cpoSide).toMatchObject({ status: "registered", version: v });
    expect(cpoSide!.roles).toEqual([expect.objectContaining(EMSP_REF)]);
    expect(record.roles).toEqual([expect.objectContaining(CPO_REF)]);
    // each side knows the other's module endpoints
    for (const side of [record, cpoSide!])
      expect(new Set(side.endpoints.map((e) => e.identifier))).toEqual(new Set(["credentials", ...MODULES]));
  });

  step("the eMSP pulls the CPO's locations: every one exactly once, equal to the seeds", async () => {
    const invalid: string[] = [];
    const pulled = await collect(new LocationsClient(emsp.partnerClient).list("cpo", {}, (_o, problems) => void invalid.push(problems)));
    expect(invalid).toEqual([]);
    expect(pulled.pages).toBe(2);
    const expected = locations.map((l) => viaVersion(locationType, l, v, CPO_REF));
    if (v !== "2.1.1") expect(expected).toEqual(locations); // no 2.3.0-only fields in the 2.2.1 seeds: lossless
    expect(byId(pulled.items)).toEqual(byId(expected));
    // one object too, and one EVSE of it
    const client = new LocationsClient(emsp.partnerClient);
    expect(await client.get("cpo", "LOC2")).toEqual(expected[1]);
    expect(await client.getEvse("cpo", "LOC2", "EVSE2-1")).toEqual(expected[1].evses![0]);
    expect(await client.get("cpo", "NOPE")).toBeUndefined();
  });

  step("the eMSP pulls the CPO's tariffs: every one exactly once, equal to the seeds", async () => {
    const invalid: string[] = [];
    const pulled = await collect(new TariffsClient(emsp.partnerClient).list("cpo", {}, (_o, problems) => void invalid.push(problems)));
    expect(invalid).toEqual([]);
    expect(pulled.pages).toBe(2);
    const expected = tariffs.map((t) => viaVersion(tariffType, t, v, CPO_REF));
    if (v !== "2.1.1") expect(expected).toEqual(tariffs);
    expect(byId(pulled.items)).toEqual(byId(expected));
  });

  step("the eMSP pushes its tokens to the CPO's receiver, which shows them", async () => {
    const client = new TokensClient(emsp.partnerClient);
    for (const t of emspTokens) await client.put("cpo", t);
    for (const t of emspTokens) {
      const expected = viaVersion(tokenObjectType, t, v, EMSP_REF);
      if (v === "2.2.1" && t.type !== "EMAID") expect(expected).toEqual(t);
      // asked for by its canonical identity, whatever the version calls its type
      expect(await client.get("cpo", EMSP_REF, t)).toEqual(expected);
    }
    if (v !== "2.3.0") {
      // the types the version lacks arrived as OTHER
      const emaid = await client.get("cpo", EMSP_REF, { uid: "NL-EMS-000001-X", type: "OTHER" });
      expect(emaid).toMatchObject({ type: "OTHER", contract_id: "DE-EMS-CNL-EMS-000001-X" });
    }
    // the same over plain HTTP with the eMSP's token, on the CPO's receiver endpoint in the version's wire form
    const endpoint = (await emsp.registry.get("cpo"))!.endpoints.find((e) => e.identifier === "tokens" && e.role === "RECEIVER")!;
    const first = emspTokens[0];
    const response = await get(`${endpoint.url}/DE/EMS/${first.uid}${v === "2.1.1" ? "" : "?type=RFID"}`, await tokenOf(emsp, "cpo"));
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(tokenObjectType.down(first, v, silentTranslation()));
    // and nothing of another owner
    expect(await client.get("cpo", EMSP_REF, { uid: "NOSUCHTOKEN", type: "RFID" })).toBeUndefined();
  });

  step("the CPO authorizes tokens in real time at the eMSP's sender", async () => {
    const client = new TokensClient(cpo.partnerClient);
    const allowed = await client.authorize("emsp", { uid: "A1B2C3D4", type: "RFID" });
    expect(allowed).toMatchObject({ kind: "answered", info: { allowed: "ALLOWED" } });
    if (allowed.kind === "answered" && v !== "2.1.1") {
      expect(allowed.info.token).toEqual(viaVersion(tokenObjectType, emspTokens[0], v, EMSP_REF));
      expect(allowed.info.authorization_reference).toEqual(expect.any(String));
      authorizationReference = String(allowed.info.authorization_reference);
    }
    expect(await client.authorize("emsp", { uid: "B10CKED1", type: "RFID" })).toMatchObject({ kind: "answered", info: { allowed: "BLOCKED" } });
    expect(await client.authorize("emsp", { uid: "UNKNOWN1", type: "RFID" })).toEqual({ kind: "unknown_token" });
    // whitelist NEVER: only with LocationReferences (2002 without)
    const app = emspTokens[2];
    expect(await client.authorize("emsp", { uid: app.uid, type: app.type })).toMatchObject({ kind: "location_required" });
    const atLocation = await client.authorize("emsp", { uid: app.uid, type: app.type }, { location_id: "LOC1", evse_uids: ["EVSE1-1"] });
    expect(atLocation).toMatchObject({ kind: "answered", info: { allowed: "ALLOWED", location: { location_id: "LOC1", evse_uids: ["EVSE1-1"] } } });
  });

  // 2.1.1 sessions and CDRs embed a full 2.1.1 Location, which a canonical session pushed from 2.3.0 form cannot rebuild (SESSIONS_TRANSLATION_LOSSES)
  if (run.sessions) {
    step("the CPO pushes a session (PUT + PATCHes) to the eMSP, whose receiver shows it", async () => {
      const client = new SessionsClient(cpo.partnerClient);
      const created = session(authorizationReference);
      await client.put("emsp", created);
      expect(await client.get("emsp", CPO_REF, created.id)).toEqual(viaVersion(sessionType, created, v, CPO_REF));
      for (const fragment of PATCHES) await client.patch("emsp", CPO_REF, created.id, fragment);

      const { charging_periods: _none, ...fields } = PATCHES[2];
      const expected: Session = {
        ...created,
        ...fields,
        charging_periods: [...PATCHES[0].charging_periods!, ...PATCHES[1].charging_periods!],
      };
      expect(viaVersion(sessionType, expected, v, CPO_REF)).toEqual(expected); // lossless in 2.2.1
      expect(await client.get("emsp", CPO_REF, created.id)).toEqual(expected);

      // over plain HTTP with the CPO's token, in the version's wire form
      const endpoint = (await cpo.registry.get("emsp"))!.endpoints.find((e) => e.identifier === "sessions" && e.role === "RECEIVER")!;
      const response = await get(`${endpoint.url}/NL/CPO/${created.id}`, await tokenOf(cpo, "emsp"));
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(sessionType.down(expected, v, silentTranslation()));
      expect(response.body.data.charging_periods).toHaveLength(2);
    });

    step("the CPO posts a CDR to the eMSP; its Location URL answers the CDR", async () => {
      const client = new CdrsClient(cpo.partnerClient);
      const posted = cdr(authorizationReference, run.rich);
      const expected = viaVersion(cdrType, posted, v, CPO_REF);
      if (v === "2.2.1") expect(expected).toEqual(posted);

      const location = await client.post("emsp", posted);
      expect(location).toBe(`${emspUrl}/ocpi/${v}/receiver/cdrs/NL/CPO/CDR-0001`);
      const below = await client.pathOf("emsp", location!);
      expect(below).toBe("/NL/CPO/CDR-0001");
      expect(await client.get("emsp", below!)).toEqual(expected);

      const response = await get(location!, await tokenOf(cpo, "emsp"));
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(cdrType.down(expected, v, silentTranslation()));
      // posting the same CDR again is an idempotent retry
      expect(await client.post("emsp", posted)).toBe(location);
    });
  }

  step("routing headers: requests name sender and receiver, responses swap them, in each partner's prefix", async () => {
    const emspToCpo = sent.filter((s) => s.url.startsWith(`${cpoUrl}/ocpi/${v}/`) && !s.url.includes("/credentials"));
    const cpoToEmsp = sent.filter((s) => s.url.startsWith(`${emspUrl}/ocpi/${v}/`) && !s.url.includes("/credentials"));
    expect(emspToCpo.length).toBeGreaterThan(5);
    expect(cpoToEmsp.length).toBeGreaterThan(4);
    // configuration modules (versions, credentials) never carry routing headers
    const configuration = sent.filter((s) => [cpoUrl, emspUrl].some((u) => s.url.startsWith(u)) && !emspToCpo.includes(s) && !cpoToEmsp.includes(s));
    expect(configuration.map((s) => new URL(s.url).pathname)).toEqual(expect.arrayContaining(["/ocpi/versions", `/ocpi/${v}`, `/ocpi/${v}/credentials`]));
    for (const s of configuration) for (const p of ["OCPI", "ROAMING"]) expect(hasAnyRouting(s.headers, p)).toBe(false);

    if (v === "2.1.1") {
      // 2.1.1 has no routing headers
      for (const s of [...emspToCpo, ...cpoToEmsp]) for (const p of ["OCPI", "ROAMING"]) expect(hasAnyRouting(s.headers, p)).toBe(false);
    } else {
      for (const s of emspToCpo) {
        expect(routingOf(s.headers, "OCPI")).toEqual({ from: EMSP_REF, to: CPO_REF });
        expect(hasAnyRouting(s.headers, "ROAMING")).toBe(false);
      }
      const other = run.cpoPrefix === "OCPI" ? "ROAMING" : "OCPI";
      for (const s of cpoToEmsp) {
        expect(routingOf(s.headers, run.cpoPrefix)).toEqual({ from: CPO_REF, to: EMSP_REF });
        expect(hasAnyRouting(s.headers, other)).toBe(false);
      }
    }

    // a GET by the eMSP on the CPO's sender, with OCPI-* request headers: the CPO answers in the prefix it uses with the eMSP
    const endpoint = (await emsp.registry.get("cpo"))!.endpoints.find((e) => e.identifier === "locations" && e.role === "SENDER")!;
    const emspToken = await tokenOf(emsp, "cpo");
    const requestHeaders = {
      "OCPI-from-country-code": "DE",
      "OCPI-from-party-id": "EMS",
      "OCPI-to-country-code": "NL",
      "OCPI-to-party-id": "CPO",
    };
    const response = await get(`${endpoint.url}/LOC1`, emspToken, v === "2.1.1" ? {} : requestHeaders);
    expect(response.status).toBe(200);
    expect(response.body.data.id).toBe("LOC1");
    if (v === "2.1.1") {
      for (const p of ["OCPI", "ROAMING"]) expect(hasAnyRouting(response.headers, p)).toBe(false);
    } else {
      expect(routingOf(response.headers, run.cpoPrefix)).toEqual({ from: CPO_REF, to: EMSP_REF });
      // the CPO also accepts ROAMING-* request headers, whatever prefix it sends
      const roaming = await get(`${endpoint.url}/LOC1`, emspToken, {
        "ROAMING-from-country-code": "DE",
        "ROAMING-from-party-id": "EMS",
        "ROAMING-to-country-code": "NL",
        "ROAMING-to-party-id": "CPO",
      });
      expect(roaming.status).toBe(200);
      expect(routingOf(roaming.headers, run.cpoPrefix)).toEqual({ from: CPO_REF, to: EMSP_REF });
      // and the eMSP, with OCPI for its partner, answers the CPO's requests in OCPI-*, swapped
      const sessions = (await cpo.registry.get("emsp"))!.endpoints.find((e) => e.identifier === "sessions" && e.role === "RECEIVER")!;
      const fromCpo = await get(`${sessions.url}/NL/CPO/SES-0001`, await tokenOf(cpo, "emsp"), {
        [`${run.cpoPrefix}-from-country-code`]: "NL",
        [`${run.cpoPrefix}-from-party-id`]: "CPO",
        [`${run.cpoPrefix}-to-country-code`]: "DE",
        [`${run.cpoPrefix}-to-party-id`]: "EMS",
      });
      expect(fromCpo.status).toBe(200);
      expect(routingOf(fromCpo.headers, "OCPI")).toEqual({ from: EMSP_REF, to: CPO_REF });
      // a sender naming a party that is not the partner's is refused (in the OCPI layer: HTTP 200, 2001)
      const spoofed = await get(`${endpoint.url}/LOC1`, emspToken, { ...requestHeaders, "OCPI-from-party-id": "XXX" });
      expect(spoofed.body).toMatchObject({ status_code: 2001, status_message: expect.stringContaining("DE/XXX") });
      expect(spoofed.body.data).toBeUndefined();
    }
  });

  step("translation losses are logged only where the version cannot carry a field", () => {
    const dropped = [...drops(logs.cpo), ...drops(logs.emsp)];
    const fields = [...new Set(dropped.map((d) => `${d.object}.${d.field}`))].sort();
    if (v === "2.3.0") expect(fields).toEqual([]);
    // 2.2.1: the seeds carry nothing 2.2.1 lacks, except the EMAID token's type
    if (v === "2.2.1") expect(fields).toEqual(["Token.type"]);
    if (v === "2.1.1")
      expect(fields).toEqual(
        expect.arrayContaining([
          "Location.evses[].connectors[].max_electric_power",
          "Tariff.type",
          "Tariff.min_price",
          "Tariff.elements.price_components.vat",
          "Token.type",
          "Token.group_id",
          "AuthorizationInfo.token",
        ]),
      );
  });
});
