
import { downTo, example211, example230, getCdr, getPath, type Json, local, post, PUBLIC_URL, receiverOptions, upFrom } from "./cdrs.fixtures";
import { startHarness, type Harness } from "../support/module-harness";

describe("CDRs: 2.1.1", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(receiverOptions({ partnerVersion: "2.1.1" }));
  });
  afterAll(() => h.close());

  it("POSTs the 2.1.1 example: owner from the partner's role, Location header, GET returns it unchanged", async () => {
    const res = await post(h, "2.1.1", example211());
    expect(res.body.status_code).toBe(1000);
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${PUBLIC_URL}/ocpi/2.1.1/receiver/cdrs/BE/BEC/12345`);
    expect((await getPath(h, local(res.headers.location))).body.data).toEqual(example211());
  });

  it("the same CDR read in 2.3.0 carries a CdrLocation, a token from auth_id and the original Location", async () => {
    const posted = { ...example211(), id: "READ230" };
    expect((await post(h, "2.1.1", posted)).status).toBe(201);
    const got = (await getCdr(h, "2.3.0", "BE/BEC", "READ230")).body.data;
    expect(got).toEqual(upFrom("2.1.1", posted, { country_code: "BE", party_id: "BEC" }));
    expect(got).toMatchObject({
      country_code: "BE",
      party_id: "BEC",
      end_date_time: "2015-06-29T23:37:32Z",
      cdr_token: { uid: "DE8ACC12E46L89", type: "OTHER", contract_id: "DE8ACC12E46L89" },
      cdr_location: { id: "LOC1", evse_uid: "3256", evse_id: "BE-BEC-E041503003", connector_id: "1", connector_standard: "IEC_62196_T2" },
      total_cost: { before_taxes: 4 },
      location_2_1_1: example211().location,
    });
  });

  it("a 2.3.0 CDR read through 2.1.1 gets a Location rebuilt from its CdrLocation", async () => {
    const cdr = { ...example230(), id: "FROM23" };
    expect((await post(h, "2.3.0", cdr)).status).toBe(201);
    const got = (await getCdr(h, "2.1.1", "BE/BEC", "FROM23")).body.data;
    expect(got).toEqual(downTo("2.1.1", cdr));
    expect(got.location).toMatchObject({
      id: "LOC1",
      type: "UNKNOWN",
      country: "BEL",
      evses: [{ uid: "3256", evse_id: "BE*BEC*E041503003", status: "UNKNOWN", connectors: [{ id: "1", standard: "IEC_62196_T2" }] }],
    });
  });

  it("refuses a second 2.1.1 POST of the same id", async () => {
    const first = { ...example211(), id: "TWICE211" };
    expect((await post(h, "2.1.1", first)).status).toBe(201);
    const res = await post(h, "2.1.1", { ...first, total_energy: 1 });
    expect(res.body.status_code).toBe(2001);
    expect((await getCdr(h, "2.1.1", "BE/BEC", "TWICE211")).body.data).toEqual(first);
  });

  it("validates 2.1.1 bodies (stop_date_time, location, total_cost as number)", async () => {
    const bad = { ...example211(), id: "BAD211", total_cost: { excl_vat: 4 } } as Json;
    delete bad.stop_date_time;
    bad.location = { ...bad.location, evses: [] };
    const res = await post(h, "2.1.1", bad);
    expect(res.body.status_code).toBe(2001);
    for (const pointer of ["/total_cost", "/stop_date_time", "/location/evses"]) expect(res.body.status_message).toContain(pointer);
    expect((await getCdr(h, "2.1.1", "BE/BEC", "BAD211")).status).toBe(404);
  });
});
