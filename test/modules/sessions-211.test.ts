import "reflect-metadata";
import { example, get, harness, patch, put, session } from "./sessions.fixtures";
import type { Harness } from "../support/module-harness";
import { LOCATION_211 } from "../../plugins/sessions/model";

describe("sessions: 2.1.1", () => {
  let h: Harness;
  beforeEach(async () => (h = await harness()));
  afterEach(async () => h.close());

  const START = "2.1.1-d2_inline-extracted/mod_sessions_02_simple_session_example_of_a_just_starting_session.json";
  const FINISHED = "2.1.1-d2_inline-extracted/mod_sessions_03_simple_session_example_of_a_short_finished_session.json";
  const COST = "2.1.1-d2_inline-extracted/mod_sessions_01_example_update_the_total_cost.json";
  const at = { country_code: "BE", party_id: "BEC", id: "101" };
  /**
   * Both 2.1.1 session examples are defective (not listed in NOTICE.md): their Location's country is "BE", where a
   * 2.1.1 Location's country is ISO 3166 alpha-3 (OCPI 2.1.1 Locations module, Location object); corrected here.
   */
  const example211 = (file: string): Record<string, any> => {
    const wire = example(file);
    return { ...wire, location: { ...wire.location, country: "BEL" } };
  };

  it.each([START, FINISHED])("rejects the defective %s with 2001 naming /location/country, storing nothing", async (file) => {
    const res = await put(h, "2.1.1", example(file), at);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/location/country");
    expect((await get(h, "2.1.1", at)).status).toBe(404);
  });

  it("PUT and GET round trip through the 2.1.1 receiver, full Location kept", async () => {
    const start = example211(START);
    expect((await put(h, "2.1.1", start, at)).status).toBe(201);
    expect((await get(h, "2.1.1", at)).body.data).toEqual(start);

    const finished = example211(FINISHED);
    expect((await put(h, "2.1.1", finished, at)).status).toBe(200);
    expect((await get(h, "2.1.1", at)).body.data).toEqual(finished);
  });

  it("a 2.1.1 session seen in 2.3.0 and 2.2.1: owner from the path, ids from the Location, cdr_token from auth_id", async () => {
    await put(h, "2.1.1", example211(START), at);
    const canonical = (await get(h, "2.3.0", at)).body.data;
    expect(canonical).toMatchObject({
      country_code: "BE",
      party_id: "BEC",
      id: "101",
      start_date_time: "2015-06-29T22:39:09Z",
      cdr_token: { country_code: "BE", party_id: "BEC", uid: "DE8ACC12E46L89", type: "OTHER", contract_id: "DE8ACC12E46L89" },
      location_id: "LOC1",
      evse_uid: "3256",
      connector_id: "1",
      total_cost: { before_taxes: 2.5 },
      status: "PENDING",
    });
    expect(canonical).not.toHaveProperty(LOCATION_211);
    expect(canonical).not.toHaveProperty("location");
    expect(canonical).not.toHaveProperty("start_datetime");
    expect((await get(h, "2.2.1", at)).body.data.total_cost).toEqual({ excl_vat: 2.5 });
  });

  it("PATCH with the 2.1.1 example (no last_updated in 2.1.1) changes total_cost only", async () => {
    const start = example211(START);
    await put(h, "2.1.1", start, at);
    const res = await patch(h, "2.1.1", at, example(COST));
    expect(res.body.status_code).toBe(1000);
    expect((await get(h, "2.1.1", at)).body.data).toEqual({ ...start, total_cost: 0.6 });
  });

  it("2.1.1 PATCH appends charging periods too", async () => {
    const finished = example211(FINISHED);
    await put(h, "2.1.1", finished, at);
    const more = { start_date_time: "2015-06-29T23:50:16Z", dimensions: [{ type: "TIME", volume: 0.01 }] };
    await patch(h, "2.1.1", at, { charging_periods: [more], last_updated: "2015-06-29T23:51:00Z" });
    const after = (await get(h, "2.1.1", at)).body.data;
    expect(after.charging_periods).toEqual([...finished.charging_periods, more]);
  });

  it("2.1.1 rejects what 2.1.1 lacks: RESERVATION status, COMMAND auth, a cost object", async () => {
    const start = example211(START);
    for (const [field, value] of [
      ["status", "RESERVATION"],
      ["auth_method", "COMMAND"],
      ["total_cost", { excl_vat: 1 }],
    ] as const) {
      const res = await put(h, "2.1.1", { ...start, [field]: value }, at);
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain(`/${field}`);
    }
    expect((await get(h, "2.1.1", at)).status).toBe(404);
  });

  it("a 2.3.0 session with 2.1.1-less values goes down mapped (RESERVATION→PENDING, COMMAND→AUTH_REQUEST)", async () => {
    const s = session({ status: "RESERVATION", auth_method: "COMMAND", authorization_reference: "AR1", evse_uid: "#NA", connector_id: "#NA" });
    await put(h, "2.3.0", s);
    const old = (await get(h, "2.1.1", s)).body.data;
    expect(old.status).toBe("PENDING");
    expect(old.auth_method).toBe("AUTH_REQUEST");
    expect(old).not.toHaveProperty("authorization_reference");
    expect(old.charging_periods[0]).not.toHaveProperty("tariff_id");
  });
});
