import type { VersionNumber } from "../../config/types";
import type { Harness } from "../support/module-harness";
import type { Token } from "../../plugins/tokens/model";
import { day, SEED, startTokensModule, tokenRequests, toUrlPath } from "./tokens.fixtures";

describe("tokens module", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTokensModule();
  });
  afterAll(() => h.close());
  const { sender, get, post } = tokenRequests(() => h);

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
});
