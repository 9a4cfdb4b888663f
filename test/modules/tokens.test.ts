import { readdirSync } from "node:fs";
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
import { type Json, readExample, startTokensModule, tokenRequests } from "./tokens.fixtures";

describe("tokens module", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTokensModule();
  });
  afterAll(() => h.close());
  const { get, put, patch, tokenUrl } = tokenRequests(() => h);

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

  it("lists every field a translation drops", () => {
    expect(TOKENS_TRANSLATION_LOSSES.map((l) => l.field)).toEqual(
      expect.arrayContaining(["type", "group_id", "default_profile_type", "energy_contract", "token", "authorization_reference", "connector_ids"]),
    );
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
