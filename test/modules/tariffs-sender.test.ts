import { silentTranslation } from "../../core/model/object-type";
import type { Harness } from "../support/module-harness";
import { tariffType } from "../../plugins/tariffs/translate";
import type { Tariff } from "../../plugins/tariffs/model";
import { type Json, seeded, startTariffsModule, tariffRequests } from "./tariffs.fixtures";

describe("tariffs module", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTariffsModule();
  });
  afterAll(() => h.close());
  const { list } = tariffRequests(() => h);

  describe("sender list", () => {
    const ids = (res: { body: Json }) => res.body.data.map((t: Json) => t.id);
    const localPath = (link: string) => new URL(/<([^>]+)>/.exec(link)![1]).pathname + new URL(/<([^>]+)>/.exec(link)![1]).search;

    it("pages with limit and offset, X-Total-Count, X-Limit and Link", async () => {
      const res = await list("2.3.0", "?limit=2");
      expect(ids(res)).toEqual(["T0", "T1"]);
      expect(res.headers["x-total-count"]).toBe("7");
      expect(res.headers["x-limit"]).toBe("5");
      expect(res.headers.link).toMatch(/offset=2/);
      expect(res.headers.link).toMatch(/limit=2/);
      expect(res.headers.link).toMatch(/rel="next"/);
      expect(ids(await list("2.3.0", "?offset=5&limit=2"))).toEqual(["T5", "T6"]);
    });

    it("follows Link headers to the end and lists only our party's tariffs", async () => {
      const seen: string[] = [];
      let next: string | undefined = h.path("2.3.0", "SENDER", "tariffs") + "?limit=3";
      let pages = 0;
      while (next) {
        const res: { body: Json; headers: Record<string, string> } = await h.http.get(next).set("Authorization", h.auth);
        seen.push(...ids(res));
        next = res.headers.link ? localPath(res.headers.link) : undefined;
        pages++;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(seeded.map((t) => t.id));
      expect(seen).not.toContain("FOREIGN");
    });

    it("date_from is inclusive and date_to exclusive at the exact boundaries; Link keeps them", async () => {
      const res = await list("2.3.0", "?date_from=2024-01-03T00:00:00Z&date_to=2024-01-06T00:00:00Z&limit=2");
      expect(ids(res)).toEqual(["T2", "T3"]);
      expect(res.headers["x-total-count"]).toBe("3");
      expect(res.headers.link).toContain("date_from=2024-01-03T00%3A00%3A00Z");
      expect(res.headers.link).toContain("date_to=2024-01-06T00%3A00%3A00Z");
      const rest = await h.http.get(localPath(res.headers.link)).set("Authorization", h.auth);
      expect(ids(rest)).toEqual(["T4"]);
      expect(rest.headers.link).toBeUndefined();
    });

    it("caps a limit above the maximum and says so in X-Limit", async () => {
      const res = await list("2.3.0", "?limit=1000");
      expect(ids(res)).toHaveLength(5);
      expect(res.headers["x-limit"]).toBe("5");
      expect(res.headers.link).toMatch(/offset=5&limit=5|limit=5.*offset=5/);
    });

    it("rejects a malformed date filter with 2001", async () => {
      expect((await list("2.3.0", "?date_from=yesterday")).body.status_code).toBe(2001);
    });

    it("2.2.1 shape: Price min_price, no tax_included", async () => {
      const [first] = (await list("2.2.1", "?limit=1")).body.data;
      expect(first).toEqual(tariffType.down(seeded[0] as Tariff, "2.2.1", silentTranslation()));
      expect(first.min_price).toEqual({ excl_vat: 1, incl_vat: 1.21 });
      expect(first).not.toHaveProperty("tax_included");
    });

    it("2.1.1 shape: no owner, type, min_price or vat", async () => {
      const [first] = (await list("2.1.1", "?limit=1")).body.data;
      expect(first).toEqual({
        id: "T0",
        currency: "EUR",
        elements: [{ price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }] }],
        last_updated: "2024-01-01T00:00:00Z",
      });
    });
  });
});
