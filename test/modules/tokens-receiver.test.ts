import type { VersionNumber } from "../../config/types";
import { startHarness, type Harness } from "../support/module-harness";
import { TokensPlugin } from "../../plugins/tokens/module";
import { localTokens } from "../../adapters/local/tokens";
import { tokenObjectType } from "../../plugins/tokens/translate";
import { silentTranslation } from "../../core/model/object-type";
import { EMSP, type Json, readExample, startTokensModule, tokenRequests } from "./tokens.fixtures";

describe("tokens module", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTokensModule();
  });
  afterAll(() => h.close());
  const { receiver, get, put, patch, tokenUrl } = tokenRequests(() => h);

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

    it("nulls are absence wherever a member is null, and only there (the body scanner tells a parsed body without any)", async () => {
      const t = { ...base(), uid: "NULLS1", visual_number: null, group_id: "null", energy_contract: { supplier_name: "Greenpower", contract_id: null } };
      expect((await put(tokenUrl("2.3.0", t), t)).status).toBe(201);
      const { visual_number: _dropped, ...kept } = t;
      expect((await get(tokenUrl("2.3.0", t))).body.data).toEqual({ ...kept, energy_contract: { supplier_name: "Greenpower" } });
      const plain = { ...base(), uid: "NULLS2", group_id: "null", visual_number: "nullnull" };
      expect((await put(tokenUrl("2.3.0", plain), plain)).status).toBe(201);
      expect((await get(tokenUrl("2.3.0", plain))).body.data).toEqual(plain);
      const required = await put(tokenUrl("2.3.0", { ...base(), uid: "NULLS3" }), { ...base(), uid: "NULLS3", valid: null });
      expect(required.body.status_code).toBe(2001);
      expect(required.body.status_message).toMatch(/valid/);
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
