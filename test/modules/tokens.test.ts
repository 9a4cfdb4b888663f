import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { VersionNumber } from "../../config/types";
import { startHarness, type Harness } from "../support/module-harness";
import { EXAMPLES } from "../support/ocpi-examples";
import { TokensPlugin } from "../../plugins/tokens/module";
import { localTokens } from "../../adapters/local/tokens";
import { tokenObjectType, TOKENS_TRANSLATION_LOSSES } from "../../plugins/tokens/translate";
import { silentTranslation } from "../../core/model/object-type";
import type { Token } from "../../plugins/tokens/model";
import type { TokensReceiverPort } from "../../plugins/tokens/ports";

type Json = Record<string, any>;

const readExample = (folder: string, file: string): Json => JSON.parse(readFileSync(path.join(EXAMPLES, folder, file), "utf8"));

const EMSP = (cc: string, pid: string) => ({ country_code: cc, party_id: pid, role: "EMSP" as const, business_details: { name: `${cc}${pid}` } });

/** Our own (sender side) tokens, one per day, so date filters have exact boundaries. */
const day = (n: number) => `2024-01-0${n}T00:00:00Z`;
const ours = (n: number, extra: Partial<Token> = {}): Token => ({
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
const SEED: Token[] = [
  ours(1, { whitelist: "ALWAYS" }),
  ours(2),
  ours(3, { valid: false }),
  // same uid as S01, different type: a distinct token that needs real-time authorization per location
  ours(4, { uid: "S01", type: "APP_USER", whitelist: "NEVER" }),
  ours(5, { type: "EMAID", group_id: "G1", energy_contract: { supplier_name: "Green" } }),
  ours(6),
  ours(7),
];

const toUrlPath = (link: string) => new URL(/<([^>]+)>/.exec(link)![1]).pathname + new URL(/<([^>]+)>/.exec(link)![1]).search;

describe("tokens module", () => {
  let h: Harness;
  const receiver = (version: VersionNumber, rest: string) => h.path(version, "RECEIVER", "tokens", rest);
  const sender = (version: VersionNumber, rest = "") => h.path(version, "SENDER", "tokens", rest);
  const get = (url: string) => h.http.get(url).set("Authorization", h.auth);
  const put = (url: string, body: unknown) => h.http.put(url).set("Authorization", h.auth).send(body as object);
  const patch = (url: string, body: unknown) => h.http.patch(url).set("Authorization", h.auth).send(body as object);
  const post = (url: string, body?: unknown) => {
    const r = h.http.post(url).set("Authorization", h.auth);
    return body === undefined ? r : r.send(body as object);
  };
  const tokenUrl = (version: VersionNumber, t: Json, withType = true) =>
    receiver(version, `/${t.country_code ?? "NL"}/${t.party_id ?? "TNM"}/${t.uid}${withType && t.type ? `?type=${t.type}` : ""}`);

  beforeAll(async () => {
    h = await startHarness({
      plugins: [TokensPlugin],
      localModules: [localTokens],
      modules: ["tokens"],
      party: { country_code: "NL", party_id: "GWY", role: "EMSP" },
      partnerRoles: [EMSP("DE", "TNM"), EMSP("NL", "TNM")],
      maxPageLimit: 5,
      seed: { tokens: SEED },
    });
  });
  afterAll(() => h.close());

  describe("published examples", () => {
    // NOTICE.md lists no defective token examples; any future skip must name its reason here.
    const SKIPPED: Record<string, string> = {};
    const FULL = [
      "token_example_1_app_user.json",
      "token_example_2_full_rfid.json",
      "token_put_example.json",
      "transport_and_format_get_token_example.json", // envelope: its data is the Token
    ];
    const LISTS = ["transport_and_format_get_token_list_example.json"];
    const PATCHES = { "token_patch_example.json": "token_put_example.json" };
    const objectOf = (folder: string, file: string): Json => {
      const json = readExample(folder, file);
      return file.startsWith("transport_and_format") ? json.data : json;
    };
    const other = (v: VersionNumber): VersionNumber => (v === "2.3.0" ? "2.2.1" : "2.3.0");
    const asVersion = (canonical: Json, v: VersionNumber) => tokenObjectType.down(canonical as Token, v, silentTranslation());

    it.each(["2.2.1", "2.3.0"])("every token example of %s is covered or skipped with a reason", (version) => {
      const files = readdirSync(path.join(EXAMPLES, version)).filter((f) => /token/.test(f) && !f.startsWith("booking"));
      expect(files.sort()).toEqual([...FULL, ...LISTS, ...Object.keys(PATCHES), ...Object.keys(SKIPPED)].sort());
    });

    const fullCases = (["2.2.1", "2.3.0"] as VersionNumber[]).flatMap((v) => FULL.map((f) => [v, f] as const));
    it.each(fullCases)("%s %s: PUT, GET equal in its version and translated in the other", async (version, file) => {
      const example = objectOf(version, file);
      const putRes = await put(tokenUrl(version, example), example);
      expect([200, 201]).toContain(putRes.status);
      expect(putRes.body.status_code).toBe(1000);

      const same = await get(tokenUrl(version, example));
      expect(same.status).toBe(200);
      expect(same.body.data).toEqual(example);

      // 2.2.1 is a subset of 2.3.0: up is identity; down narrows TokenType only.
      const canonical = tokenObjectType.up(example, version, silentTranslation());
      const translated = await get(tokenUrl(other(version), example));
      expect(translated.body.data).toEqual(asVersion(canonical, other(version)));

      if (example.type === "RFID") {
        const old = await get(tokenUrl("2.1.1", example, false));
        expect(old.body.data).toEqual(asVersion(canonical, "2.1.1"));
        expect(old.body.data.auth_id).toBe(example.contract_id);
        expect(old.body.data).not.toHaveProperty("country_code");
      }
    });

    it.each(["2.2.1", "2.3.0"] as VersionNumber[])("%s list example: every token is accepted and read back", async (version) => {
      for (const example of readExample(version, LISTS[0]).data as Json[]) {
        expect((await put(tokenUrl(version, example), example)).body.status_code).toBe(1000);
        expect((await get(tokenUrl(version, example))).body.data).toEqual(example);
      }
    });

    it.each(["2.2.1", "2.3.0"] as VersionNumber[])("%s token_patch_example applies after token_put_example", async (version) => {
      const base = readExample(version, PATCHES["token_patch_example.json"]);
      const fragment = readExample(version, "token_patch_example.json");
      await put(tokenUrl(version, base), base);
      const res = await patch(tokenUrl(version, base), fragment);
      expect(res.status).toBe(200);
      expect(res.body.status_code).toBe(1000);
      const after = await get(tokenUrl(version, base));
      expect(after.body.data).toEqual({ ...base, ...fragment });
      expect(after.body.data.valid).toBe(false);
      expect((await get(tokenUrl(other(version), base))).body.data).toEqual(asVersion({ ...base, ...fragment }, other(version)));
    });
  });

  describe("receiver rules", () => {
    const base = (): Json => ({ ...readExample("2.3.0", "token_put_example.json"), uid: "RULES1" });

    it("PUT answers 201 for a new token and 200 for a replaced one", async () => {
      const t = { ...base(), uid: "NEW1" };
      expect((await put(tokenUrl("2.3.0", t), t)).status).toBe(201);
      expect((await put(tokenUrl("2.3.0", t), { ...t, valid: false })).status).toBe(200);
      expect((await get(tokenUrl("2.3.0", t))).body.data.valid).toBe(false);
    });

    it("?type= defaults to RFID; the same uid as APP_USER is a distinct token", async () => {
      const rfid = { ...base(), uid: "SAME", type: "RFID", contract_id: "C-RFID" };
      const app = { ...base(), uid: "SAME", type: "APP_USER", contract_id: "C-APP" };
      expect((await put(receiver("2.3.0", "/NL/TNM/SAME"), rfid)).status).toBe(201);
      expect((await put(receiver("2.3.0", "/NL/TNM/SAME?type=APP_USER"), app)).status).toBe(201);
      expect((await get(receiver("2.3.0", "/NL/TNM/SAME"))).body.data.contract_id).toBe("C-RFID");
      expect((await get(receiver("2.3.0", "/NL/TNM/SAME?type=RFID"))).body.data.contract_id).toBe("C-RFID");
      expect((await get(receiver("2.3.0", "/NL/TNM/SAME?type=APP_USER"))).body.data.contract_id).toBe("C-APP");
      expect((await get(receiver("2.3.0", "/NL/TNM/SAME?type=AD_HOC_USER"))).status).toBe(404);
      // PATCH of one leaves the other alone
      await patch(receiver("2.3.0", "/NL/TNM/SAME?type=APP_USER"), { valid: false, last_updated: "2024-02-01T00:00:00Z" });
      expect((await get(receiver("2.3.0", "/NL/TNM/SAME"))).body.data.valid).toBe(true);
      expect((await get(receiver("2.3.0", "/NL/TNM/SAME?type=APP_USER"))).body.data.valid).toBe(false);
    });

    it("a body whose uid or type differs from the path is 2001 and not stored", async () => {
      const t = { ...base(), uid: "MISMATCH" };
      const wrongUid = await put(receiver("2.3.0", "/NL/TNM/OTHERUID"), t);
      expect(wrongUid.body.status_code).toBe(2001);
      expect(wrongUid.body.status_message).toMatch(/\/uid/);
      const wrongType = await put(receiver("2.3.0", "/NL/TNM/MISMATCH?type=APP_USER"), t);
      expect(wrongType.body.status_code).toBe(2001);
      expect(wrongType.body.status_message).toMatch(/\/type/);
      expect((await get(receiver("2.3.0", "/NL/TNM/OTHERUID"))).status).toBe(404);
      expect((await get(receiver("2.3.0", "/NL/TNM/MISMATCH?type=APP_USER"))).status).toBe(404);
    });

    it("a ?type= outside the version's TokenType is 2001 (2.2.1 closed, 2.3.0 open)", async () => {
      expect((await get(receiver("2.2.1", "/NL/TNM/X?type=EMAID"))).body.status_code).toBe(2001);
      const plate = { ...base(), uid: "PLATE1", type: "LICENSE_PLATE" };
      expect((await put(receiver("2.3.0", "/NL/TNM/PLATE1?type=LICENSE_PLATE"), plate)).status).toBe(201);
      expect((await get(receiver("2.3.0", "/NL/TNM/PLATE1?type=LICENSE_PLATE"))).body.data).toEqual(plate);
    });

    it("writing under a party that is not the partner's is 2001 and stores nothing", async () => {
      const t = { ...base(), country_code: "FR", party_id: "XYZ", uid: "FOREIGN" };
      const res = await put(receiver("2.3.0", "/FR/XYZ/FOREIGN"), t);
      expect(res.body.status_code).toBe(2001);
      expect(await h.gateway.store.get("local:tokens:FRXYZ", "FOREIGN:RFID")).toBeUndefined();
      // the body's owner must equal the path's too
      const moved = await put(receiver("2.3.0", "/DE/TNM/FOREIGN"), t);
      expect(moved.body.status_code).toBe(2001);
      expect(moved.body.status_message).toMatch(/\/country_code/);
      expect((await get(receiver("2.3.0", "/DE/TNM/FOREIGN"))).status).toBe(404);
    });

    it("2.3.0 keeps unknown properties and returns them", async () => {
      const t = { ...base(), uid: "EXTRA1", loyalty: { tier: "gold" }, note: "kept" };
      await put(tokenUrl("2.3.0", t), t);
      expect((await get(tokenUrl("2.3.0", t))).body.data).toEqual(t);
    });

    it("PATCH of an unknown token is HTTP 404 with 2004 (unknown Token)", async () => {
      const res = await patch(receiver("2.3.0", "/NL/TNM/NOSUCH"), { valid: false, last_updated: "2024-01-01T00:00:00Z" });
      expect(res.status).toBe(404);
      expect(res.body.status_code).toBe(2004);
    });

    it("GET of an unknown token is HTTP 404", async () => {
      expect((await get(receiver("2.3.0", "/NL/TNM/NOSUCH"))).status).toBe(404);
    });

    describe("malformed bodies are 2001 naming the field, and change nothing", () => {
      const long = "x".repeat(65);
      const cases: [string, "PUT" | "PATCH", VersionNumber, (b: Json) => Json, string][] = [
        ["wrong type", "PUT", "2.3.0", (b) => ({ ...b, valid: "yes" }), "/valid"],
        ["too-long string", "PUT", "2.3.0", (b) => ({ ...b, issuer: long }), "/issuer"],
        ["too-long CiString", "PUT", "2.3.0", (b) => ({ ...b, contract_id: "c".repeat(37) }), "/contract_id"],
        ["missing required field", "PUT", "2.3.0", ({ contract_id: _c, ...b }) => b, "/contract_id"],
        ["bad enum", "PUT", "2.3.0", (b) => ({ ...b, whitelist: "SOMETIMES" }), "/whitelist"],
        ["bad date", "PUT", "2.3.0", (b) => ({ ...b, last_updated: "2015-13-29T22:39:09Z" }), "/last_updated"],
        ["offset date", "PUT", "2.2.1", (b) => ({ ...b, last_updated: "2015-06-29T22:39:09+01:00" }), "/last_updated"],
        ["bad profile type", "PUT", "2.3.0", (b) => ({ ...b, default_profile_type: "TURBO" }), "/default_profile_type"],
        ["nested required field", "PUT", "2.3.0", (b) => ({ ...b, energy_contract: { contract_id: "1" } }), "/energy_contract/supplier_name"],
        ["closed TokenType in 2.2.1", "PUT", "2.2.1", (b) => ({ ...b, type: "EMAID" }), "/type"],
        ["bad country code", "PUT", "2.3.0", (b) => ({ ...b, country_code: "NLD" }), "/country_code"],
        ["bad language", "PUT", "2.3.0", (b) => ({ ...b, language: "eng" }), "/language"],
        ["PATCH without last_updated", "PATCH", "2.3.0", () => ({ valid: false }), "/last_updated"],
        ["PATCH wrong type", "PATCH", "2.2.1", () => ({ valid: "no", last_updated: "2024-01-01T00:00:00Z" }), "/valid"],
        ["PATCH bad enum", "PATCH", "2.3.0", () => ({ whitelist: "MAYBE", last_updated: "2024-01-01T00:00:00Z" }), "/whitelist"],
      ];
      const original = { ...readExample("2.3.0", "token_example_2_full_rfid.json"), country_code: "NL", party_id: "TNM", uid: "MALFORMED" };
      beforeAll(async () => {
        expect((await put(tokenUrl("2.3.0", original), original)).body.status_code).toBe(1000);
      });

      it.each(cases)("%s (%s %s)", async (_name, method, version, mutate, pointer) => {
        const url = receiver(version, "/NL/TNM/MALFORMED");
        const body = mutate(method === "PUT" ? { ...original, valid: false } : {});
        const res = method === "PUT" ? await put(url, body) : await patch(url, body);
        expect(res.body.status_code).toBe(2001);
        expect(res.body.status_message).toContain(pointer);
        expect((await get(receiver("2.3.0", "/NL/TNM/MALFORMED"))).body.data).toEqual(original);
      });
    });
  });

  describe("sender list (our party's tokens)", () => {
    const list = (query: string, version: VersionNumber = "2.3.0") => get(sender(version, query));

    it("pages with limit and offset, with X-Total-Count, X-Limit and a Link to the next page", async () => {
      const first = await list("?limit=3");
      expect(first.status).toBe(200);
      expect(first.body.data.map((t: Token) => t.last_updated)).toEqual([day(1), day(2), day(3)]);
      expect(first.headers["x-total-count"]).toBe("7");
      expect(first.headers["x-limit"]).toBe("5");
      expect(first.headers.link).toMatch(/offset=3&limit=3>; rel="next"/);
      const second = await list("?offset=3&limit=3");
      expect(second.body.data.map((t: Token) => t.last_updated)).toEqual([day(4), day(5), day(6)]);
    });

    it("following Link headers returns every token once, and the last page has no Link", async () => {
      const seen: Token[] = [];
      let next: string | undefined = sender("2.3.0", "?limit=2");
      let pages = 0;
      while (next) {
        const res = await get(next);
        seen.push(...res.body.data);
        pages++;
        next = res.headers.link ? toUrlPath(res.headers.link) : undefined;
      }
      expect(pages).toBe(4);
      expect(seen).toEqual(SEED);
    });

    it("date_from is inclusive and date_to exclusive at the exact boundaries, and Link keeps them", async () => {
      const res = await list(`?date_from=${day(3)}&date_to=${day(5)}`);
      expect(res.body.data.map((t: Token) => t.last_updated)).toEqual([day(3), day(4)]);
      expect(res.headers["x-total-count"]).toBe("2");
      const paged = await list(`?date_from=${day(2)}&date_to=${day(7)}&limit=2`);
      expect(paged.headers["x-total-count"]).toBe("5");
      expect(decodeURIComponent(paged.headers.link)).toContain(`date_from=${day(2)}`);
      expect(decodeURIComponent(paged.headers.link)).toContain(`date_to=${day(7)}`);
    });

    it("a limit above the server maximum is capped and X-Limit says so", async () => {
      const res = await list("?limit=1000");
      expect(res.body.data).toHaveLength(5);
      expect(res.headers["x-limit"]).toBe("5");
      expect(res.headers.link).toMatch(/offset=5&limit=5>/);
    });

    it("2.2.1 list narrows the 2.3.0-only TokenType EMAID to OTHER", async () => {
      const res = await list(`?date_from=${day(5)}&date_to=${day(6)}`, "2.2.1");
      expect(res.body.data).toEqual([{ ...SEED[4], type: "OTHER" }]);
    });

    it("2.1.1 list has the 2.1.1 shape: auth_id, no owner, no 2.2 fields", async () => {
      const res = await list("?limit=5", "2.1.1");
      expect(res.status).toBe(200);
      const emaid = res.body.data[4];
      expect(emaid).toEqual({
        uid: "S05",
        type: "OTHER",
        auth_id: "NL-GWY-C05",
        issuer: "Gateway eMSP",
        valid: true,
        whitelist: "ALLOWED",
        last_updated: day(5),
      });
      for (const t of res.body.data) expect(Object.keys(t).sort()).not.toContain("country_code");
      expect(h.logs.some((l) => l.includes("field dropped by version translation") && l.includes("energy_contract"))).toBe(true);
    });
  });

  describe("real-time authorization", () => {
    const authorize = (version: VersionNumber, uidAndQuery: string, body?: unknown) =>
      post(sender(version, `/${uidAndQuery.replace(/^([^?]*)/, "$1/authorize")}`), body);

    it("a known valid token is ALLOWED with the token and an authorization_reference", async () => {
      const res = await authorize("2.3.0", "S01");
      expect(res.status).toBe(200);
      expect(res.body.status_code).toBe(1000);
      expect(res.body.data.allowed).toBe("ALLOWED");
      expect(res.body.data.token).toEqual(SEED[0]);
      expect(res.body.data.authorization_reference).toMatch(/^[\x20-\x7e]{1,36}$/);
      expect(res.body.data).not.toHaveProperty("location");
    });

    it("an unknown token is HTTP 404 with 2004 and no data", async () => {
      const res = await authorize("2.3.0", "NOSUCH");
      expect(res.status).toBe(404);
      expect(res.body.status_code).toBe(2004);
      expect(res.body).not.toHaveProperty("data");
      // same uid, other type: unknown as well
      expect((await authorize("2.3.0", "S02?type=APP_USER")).body.status_code).toBe(2004);
    });

    it("an invalid token is BLOCKED", async () => {
      const res = await authorize("2.3.0", "S03");
      expect(res.body.data.allowed).toBe("BLOCKED");
      expect(res.body.data.token.uid).toBe("S03");
    });

    it("a whitelist NEVER token without LocationReferences is 2002; ?type= selects it over the RFID one", async () => {
      const res = await authorize("2.3.0", "S01?type=APP_USER");
      expect(res.status).toBe(200);
      expect(res.body.status_code).toBe(2002);
      expect(res.body).not.toHaveProperty("data");
    });

    it("with LocationReferences it is ALLOWED and the references come back in location", async () => {
      const refs = { location_id: "LOC1", evse_uids: ["EVSE-1", "EVSE-2"] };
      const res = await authorize("2.3.0", "S01?type=APP_USER", refs);
      expect(res.body.status_code).toBe(1000);
      expect(res.body.data.allowed).toBe("ALLOWED");
      expect(res.body.data.location).toEqual(refs);
      expect(res.body.data.token).toEqual(SEED[3]);
    });

    it("malformed LocationReferences are 2001 naming the field", async () => {
      const missing = await authorize("2.3.0", "S01", { evse_uids: ["E1"] });
      expect(missing.body.status_code).toBe(2001);
      expect(missing.body.status_message).toContain("/location_id");
      const long = await authorize("2.3.0", "S01", { location_id: "L".repeat(37) });
      expect(long.body.status_message).toContain("/location_id");
    });

    it("2.2.1 answers the token in 2.2.1 shape", async () => {
      // S05 is EMAID, which 2.2.1 cannot name: it goes down as OTHER, and OTHER reaches it
      const res = await authorize("2.2.1", "S05?type=OTHER");
      expect(res.status).toBe(200);
      expect(res.body.data.token).toMatchObject({ uid: "S05", type: "OTHER" });
      const ok = await authorize("2.2.1", "S02");
      expect(ok.body.data.allowed).toBe("ALLOWED");
      expect(ok.body.data.token).toEqual(SEED[1]);
    });

    it("2.1.1 answers {allowed, location} without token or authorization_reference; unknown is 404 + 2000", async () => {
      const refs = { location_id: "LOC1", evse_uids: ["E1"], connector_ids: ["1"] };
      const res = await authorize("2.1.1", "S02", refs);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ allowed: "ALLOWED", location: { location_id: "LOC1", evse_uids: ["E1"] } });
      const unknown = await authorize("2.1.1", "NOSUCH");
      expect(unknown.status).toBe(404);
      expect(unknown.body.status_code).toBe(2000);
    });

    it("2.1.1 OTHER reaches tokens whose newer type 2.1.1 cannot name (S05 is EMAID)", async () => {
      const res = await authorize("2.1.1", "S05?type=OTHER");
      expect(res.status).toBe(200);
      expect(res.body.data.allowed).toBe("ALLOWED");
    });
  });

  describe("2.1.1 receiver", () => {
    const OLD = "2.1.1-d2_inline-extracted";

    it("PUT and GET round trip of the 2.1.1 examples; the owner comes from the path", async () => {
      for (const file of ["mod_tokens_01_example_put_a_new_token.json", "mod_tokens_03_example.json"]) {
        const example = readExample(OLD, file);
        const url = receiver("2.1.1", `/NL/TNM/${example.uid}`);
        expect((await put(url, example)).body.status_code).toBe(1000);
        expect((await get(url)).body.data).toEqual(example);
        const canonical = (await get(receiver("2.3.0", `/NL/TNM/${example.uid}`))).body.data;
        expect(canonical).toEqual({ ...tokenObjectType.up(example, "2.1.1", { ...silentTranslation(), owner: { country_code: "NL", party_id: "TNM" } }) });
        expect(canonical).toMatchObject({ country_code: "NL", party_id: "TNM", contract_id: example.auth_id });
        expect(canonical).not.toHaveProperty("auth_id");
      }
    });

    it("the envelope example's token is accepted too", async () => {
      const example = readExample(OLD, "transport_and_format_03_example_tokens_get_response_with_one_token_object_.json").data;
      const url = receiver("2.1.1", `/DE/TNM/${example.uid}`);
      expect((await put(url, example)).body.status_code).toBe(1000);
      expect((await get(url)).body.data).toEqual(example);
    });

    it("the invalidate PATCH example (no last_updated in 2.1.1) applies", async () => {
      const base = readExample(OLD, "mod_tokens_01_example_put_a_new_token.json");
      const url = receiver("2.1.1", `/NL/TNM/${base.uid}`);
      await put(url, base);
      const res = await patch(url, readExample(OLD, "mod_tokens_02_example_invalidate_a_token.json"));
      expect(res.body.status_code).toBe(1000);
      expect((await get(url)).body.data).toEqual({ ...base, valid: false });
    });

    it("an OTHER token is found without ?type=, and 2.1.1 bodies are validated", async () => {
      const other = { ...readExample(OLD, "mod_tokens_03_example.json"), uid: "OTHER1", type: "OTHER" };
      expect((await put(receiver("2.1.1", "/NL/TNM/OTHER1"), other)).status).toBe(201);
      expect((await get(receiver("2.1.1", "/NL/TNM/OTHER1"))).body.data).toEqual(other);
      const bad = await put(receiver("2.1.1", "/NL/TNM/OTHER1"), { ...other, type: "APP_USER", auth_id: undefined });
      expect(bad.body.status_code).toBe(2001);
      expect(bad.body.status_message).toContain("/type");
      expect(bad.body.status_message).toContain("/auth_id");
    });
  });

  it("lists every field a translation drops", () => {
    expect(TOKENS_TRANSLATION_LOSSES.map((l) => l.field)).toEqual(
      expect.arrayContaining(["type", "group_id", "default_profile_type", "energy_contract", "token", "authorization_reference", "connector_ids"]),
    );
  });
});

describe("tokens module with a strictness: log partner", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      plugins: [TokensPlugin],
      localModules: [localTokens],
      modules: ["tokens"],
      partnerRoles: [EMSP("NL", "TNM")],
      strictness: "log",
    });
  });
  afterAll(() => h.close());

  it("accepts a slightly-off token and logs a warning", async () => {
    const token = { ...readExample("2.3.0", "token_put_example.json"), whitelist: "SOMETIMES" };
    const url = h.path("2.3.0", "RECEIVER", "tokens", "/NL/TNM/012345678");
    const res = await h.http.put(url).set("Authorization", h.auth).send(token);
    expect(res.status).toBe(201);
    expect(res.body.status_code).toBe(1000);
    expect((await h.http.get(url).set("Authorization", h.auth)).body.data).toEqual(token);
    expect(h.logs.some((l) => l.includes("accepted an invalid Token") && l.includes("/whitelist"))).toBe(true);
  });

  it("a PATCH leaving an invalid merged Token is stored with a warning, not refused", async () => {
    // a uid of its own: the test above expects to create the example's Token (201)
    const token = { ...readExample("2.3.0", "token_put_example.json"), uid: "012345679" };
    const url = h.path("2.3.0", "RECEIVER", "tokens", "/NL/TNM/012345679");
    await h.http.put(url).set("Authorization", h.auth).send(token);
    const res = await h.http.patch(url).set("Authorization", h.auth).send({ valid: "no", last_updated: "2024-01-01T00:00:00Z" });
    expect(res.body.status_code).toBe(1000);
    expect(h.logs.some((l) => l.includes("stored a PATCHed Token that is not valid") && l.includes("/valid"))).toBe(true);
  });
});

describe("local tokens adapter", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ plugins: [TokensPlugin], localModules: [localTokens], modules: ["tokens"] });
  });
  afterAll(() => h.close());

  it("an atomic update whose change throws stores nothing; an unknown token is undefined", async () => {
    const port = localTokens.create(h.gateway.store).ports["tokens.RECEIVER"] as TokensReceiverPort;
    const owner = { country_code: "NL", party_id: "TNM" };
    const ctx = { party: owner };
    const token = readExample("2.3.0", "token_put_example.json") as Token;
    expect(await port.put(owner, token, ctx)).toBe("created");
    const refuse = () => {
      throw new Error("merged token is invalid");
    };
    await expect(port.update!(owner, token, refuse, ctx)).rejects.toThrow("invalid");
    expect(await port.get(owner, token, ctx)).toEqual(token);
    expect(await port.update!(owner, { uid: token.uid, type: "APP_USER" }, (current) => ({ ...current, valid: false }), ctx)).toBeUndefined();
  });

  it("seed refuses a token without an owner", async () => {
    const { seed } = localTokens.create(h.gateway.store);
    await expect(seed({ uid: "X", type: "RFID", last_updated: "2024-01-01T00:00:00Z" })).rejects.toThrow(/country_code/);
  });
});
