
import { downTo, example230, getPath, type Json, local, PUBLIC_URL } from "./cdrs.fixtures";
import { startHarness, type Harness } from "../support/module-harness";
import { CdrsPlugin } from "../../plugins/cdrs/module";
import { localCdrs } from "../../adapters/local/cdrs";
import type { VersionNumber } from "../../core/protocol/types";

describe("CDRs: sender list", () => {
  let h: Harness;
  const T0 = Date.parse("2024-01-01T00:00:00Z");
  const at = (i: number) => new Date(T0 + i * 60_000).toISOString().replace(".000Z", "Z");
  const ours = (i: number): Json => ({ ...example230(), country_code: "NL", party_id: "GWY", id: `S${i}`, last_updated: at(i) });

  beforeAll(async () => {
    h = await startHarness({
      plugins: [CdrsPlugin],
      localModules: [localCdrs],
      modules: ["cdrs"],
      maxPageLimit: 5,
      // the token owner of the example CDRs: a partner lists only CDRs of its own tokens
      partnerRoles: [{ country_code: "DE", party_id: "TNM", role: "EMSP", business_details: { name: "TNM" } }],
      // seeded out of order; another party's CDR must never be listed
      seed: { cdrs: [3, 0, 6, 1, 5, 2, 4].map(ours).concat([{ ...example230(), id: "THEIRS" }]) },
    });
  });
  afterAll(() => h.close());

  const list = (version: VersionNumber, query = "") => getPath(h, h.path(version, "SENDER", "cdrs") + query);
  const ids = (res: { body: Json }) => res.body.data.map((c: Json) => c.id);

  it("pages with limit and offset, oldest first, with X-Total-Count, X-Limit and a Link", async () => {
    const first = await list("2.3.0", "?limit=2");
    expect(ids(first)).toEqual(["S0", "S1"]);
    expect(first.headers["x-total-count"]).toBe("7");
    expect(first.headers["x-limit"]).toBe("5");
    expect(first.headers.link).toBe(`<${PUBLIC_URL}/ocpi/2.3.0/sender/cdrs?offset=2&limit=2>; rel="next"`);
    const last = await list("2.3.0", "?offset=5&limit=2");
    expect(ids(last)).toEqual(["S5", "S6"]);
    expect(last.headers.link).toBeUndefined();
  });

  it("follows Link headers through every page", async () => {
    const seen: string[] = [];
    let next: string | undefined = h.path("2.3.0", "SENDER", "cdrs") + "?limit=3";
    let pages = 0;
    while (next) {
      const res = await getPath(h, next);
      seen.push(...ids(res));
      pages++;
      const match = /<([^>]+)>; rel="next"/.exec(res.headers.link ?? "");
      next = match ? local(match[1]) : undefined;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(["S0", "S1", "S2", "S3", "S4", "S5", "S6"]);
  });

  it("filters date_from inclusive and date_to exclusive at the exact boundaries, and keeps them in the Link", async () => {
    const res = await list("2.3.0", `?date_from=${at(2)}&date_to=${at(5)}`);
    expect(ids(res)).toEqual(["S2", "S3", "S4"]);
    expect(res.headers["x-total-count"]).toBe("3");
    const paged = await list("2.3.0", `?date_from=${at(2)}&date_to=${at(5)}&limit=2`);
    expect(paged.headers.link).toContain(`date_from=${encodeURIComponent(at(2))}`);
    expect(paged.headers.link).toContain(`date_to=${encodeURIComponent(at(5))}`);
    expect(paged.headers.link).toContain("offset=2&limit=2");
  });

  it("caps a limit above the maximum and says so in X-Limit and the Link", async () => {
    const res = await list("2.3.0", "?limit=1000");
    expect(res.body.data).toHaveLength(5);
    expect(res.headers["x-limit"]).toBe("5");
    expect(res.headers.link).toBe(`<${PUBLIC_URL}/ocpi/2.3.0/sender/cdrs?offset=5&limit=5>; rel="next"`);
  });

  it("serves the 2.2.1 shape", async () => {
    const res = await list("2.2.1", "?limit=1");
    expect(res.body.data[0]).toEqual(downTo("2.2.1", ours(0)));
    expect(res.body.data[0].total_cost).toEqual({ excl_vat: 4, incl_vat: 4.4 });
  });

  it("serves the 2.1.1 shape", async () => {
    const res = await list("2.1.1", "?limit=1");
    const cdr = res.body.data[0];
    expect(cdr).toEqual(downTo("2.1.1", ours(0)));
    expect(cdr).not.toHaveProperty("country_code");
    expect(cdr).not.toHaveProperty("end_date_time");
    expect(cdr).not.toHaveProperty("cdr_token");
    expect(cdr).not.toHaveProperty("cdr_location");
    expect(cdr.stop_date_time).toBe("2024-12-05T19:37:32Z");
    expect(cdr.auth_id).toBe("DE8ACC12E46L89");
    expect(cdr.total_cost).toBe(4);
    expect(cdr.location.evses[0].connectors[0]).toMatchObject({ id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_1_PHASE" });
    expect(h.logs.some((l) => l.includes("field dropped by version translation") && l.includes("total_time_cost"))).toBe(true);
  });
});
