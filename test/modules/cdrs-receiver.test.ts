
import { example230, getCdr, getPath, type Json, local, post, PUBLIC_URL, receiverOptions } from "./cdrs.fixtures";
import { startHarness, type Harness } from "../support/module-harness";

describe("CDRs: receiver rules", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(receiverOptions());
  });
  afterAll(() => h.close());

  const cdr = (id: string, changes: Json = {}): Json => ({ ...example230(), id, ...changes });

  it("a second POST of the same id is refused with 2001 and the stored CDR is unchanged", async () => {
    expect((await post(h, "2.3.0", cdr("IMM1"))).status).toBe(201);
    const again = await post(h, "2.3.0", cdr("IMM1", { total_energy: 99, remark: "changed" }));
    expect(again.body.status_code).toBe(2001);
    expect(again.body.status_message).toMatch(/already exists/);
    expect(again.headers.location).toBeUndefined();
    const got = await getCdr(h, "2.3.0", "BE/BEC", "IMM1");
    expect(got.body.data).toEqual(cdr("IMM1"));
  });

  it("the identical CDR posted again (a sender's retry) succeeds without a change", async () => {
    expect((await post(h, "2.3.0", cdr("RETRY1"))).status).toBe(201);
    const again = await post(h, "2.3.0", cdr("RETRY1"));
    expect(again.status).toBe(200);
    expect(again.body.status_code).toBe(1000);
    expect(again.headers.location).toMatch(/\/receiver\/cdrs\/BE\/BEC\/RETRY1$/);
    expect((await getCdr(h, "2.3.0", "BE/BEC", "RETRY1")).body.data).toEqual(cdr("RETRY1"));
  });

  it("the same id under another owner of the partner is a different CDR", async () => {
    expect((await post(h, "2.3.0", cdr("OWNED1"))).status).toBe(201);
    expect((await post(h, "2.3.0", cdr("OWNED1", { country_code: "NL", party_id: "CPX" }))).status).toBe(201);
    expect((await getCdr(h, "2.3.0", "NL/CPX", "OWNED1")).body.data.country_code).toBe("NL");
    expect((await getCdr(h, "2.3.0", "BE/BEC", "OWNED1")).body.data.country_code).toBe("BE");
  });

  it("accepts a credit CDR (own id, credit_reference_id) and leaves the original untouched", async () => {
    expect((await post(h, "2.3.0", cdr("ORIG1"))).status).toBe(201);
    const credit = cdr("ORIG1-C", {
      credit: true,
      credit_reference_id: "ORIG1",
      total_cost: { before_taxes: -4, taxes: [{ name: "VAT", amount: -0.4 }] },
      total_time_cost: { before_taxes: -4, taxes: [{ name: "VAT", amount: -0.4 }] },
    });
    const res = await post(h, "2.3.0", credit);
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${PUBLIC_URL}/ocpi/2.3.0/receiver/cdrs/BE/BEC/ORIG1-C`);
    expect((await getPath(h, local(res.headers.location))).body.data).toEqual(credit);
    expect((await getCdr(h, "2.3.0", "BE/BEC", "ORIG1")).body.data).toEqual(cdr("ORIG1"));
  });

  it("a credit CDR may use up to 39 characters; a normal one only 36", async () => {
    const id39 = "C".repeat(36) + "-CR";
    expect((await post(h, "2.3.0", cdr(id39, { credit: true, credit_reference_id: "ORIG1" }))).status).toBe(201);
    const res = await post(h, "2.3.0", cdr("N".repeat(37)));
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/id");
    expect((await getCdr(h, "2.3.0", "BE/BEC", "N".repeat(37))).status).toBe(404);
  });

  it("a credit CDR without credit_reference_id is refused with 2001 and not stored", async () => {
    const res = await post(h, "2.3.0", cdr("CRED-NOREF", { credit: true }));
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/credit_reference_id");
    expect((await getCdr(h, "2.3.0", "BE/BEC", "CRED-NOREF")).status).toBe(404);
  });

  it("a credit CDR for a CDR we do not hold is accepted with a warning", async () => {
    const res = await post(h, "2.3.0", cdr("LOST-C", { credit: true, credit_reference_id: "LOST" }));
    expect(res.status).toBe(201);
    expect(h.logs.some((l) => l.includes("credit CDR references a CDR we do not hold"))).toBe(true);
  });

  it("GET of an unknown CDR answers HTTP 404", async () => {
    const res = await getCdr(h, "2.3.0", "BE/BEC", "NOPE");
    expect(res.status).toBe(404);
    expect(res.body.status_code).toBe(2001);
  });

  it("has no PUT, PATCH or DELETE", async () => {
    expect((await post(h, "2.3.0", cdr("FIXED1"))).status).toBe(201);
    for (const method of ["put", "patch", "delete"] as const) {
      const res = await h.http[method](h.path("2.3.0", "RECEIVER", "cdrs", "/BE/BEC/FIXED1")).set("Authorization", h.auth).send(cdr("FIXED1"));
      expect([404, 405]).toContain(res.status);
    }
    expect((await getCdr(h, "2.3.0", "BE/BEC", "FIXED1")).body.data).toEqual(cdr("FIXED1"));
  });

  it("refuses a CDR owned by a party that is not the partner's, and stores nothing", async () => {
    const res = await post(h, "2.3.0", cdr("FOREIGN", { country_code: "DE", party_id: "TNM" }));
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toMatch(/DE\/TNM is not one of the partner's parties/);
    // DE/TNM is our own party: had it been stored, our sender list would show it.
    const list = await getPath(h, h.path("2.3.0", "SENDER", "cdrs"));
    expect(list.body.data).toEqual([]);
    // GET under a foreign owner is refused as well
    expect((await getCdr(h, "2.3.0", "DE/TNM", "FOREIGN")).body.status_code).toBe(2001);
  });

  describe("malformed bodies are refused with 2001 naming the field, and nothing is stored", () => {
    const cases: [string, (c: Json) => void, string][] = [
      ["wrong type", (c) => (c.total_energy = "15.342"), "/total_energy"],
      ["wrong type in a price", (c) => (c.total_cost.before_taxes = "4.00"), "/total_cost/before_taxes"],
      ["too-long string", (c) => (c.cdr_location.address = "x".repeat(46)), "/cdr_location/address"],
      ["missing required field", (c) => delete c.cdr_location.evse_uid, "/cdr_location/evse_uid"],
      ["missing required top-level field", (c) => delete c.total_cost, "/total_cost"],
      ["bad enum", (c) => (c.auth_method = "PIN_CODE"), "/auth_method"],
      ["bad connector enum", (c) => (c.cdr_location.connector_format = "PLUG"), "/cdr_location/connector_format"],
      ["bad date", (c) => (c.end_date_time = "2024-13-05T19:37:32Z"), "/end_date_time"],
      ["date with an offset", (c) => (c.last_updated = "2024-12-05T20:02:13+01:00"), "/last_updated"],
      ["empty charging_periods", (c) => (c.charging_periods = []), "/charging_periods"],
      ["bad dimension type", (c) => (c.charging_periods[0].dimensions[0].type = "FLAT"), "/charging_periods/0/dimensions/0/type"],
      ["embedded tariff without elements", (c) => (c.tariffs[0].elements = []), "/tariffs/0/elements"],
      ["bad token owner", (c) => (c.cdr_token.party_id = "TOOLONG"), "/cdr_token/party_id"],
      ["bad signed_data", (c) => (c.signed_data = { encoding_method: "OCMF", signed_values: [] }), "/signed_data/signed_values"],
    ];
    it.each(cases)("%s", async (_name, spoil, pointer) => {
      const id = `BAD-${pointer.replace(/\//g, "_")}`;
      const body = cdr(id);
      spoil(body);
      const res = await post(h, "2.3.0", body);
      expect(res.status).toBe(200);
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain(pointer);
      expect((await getCdr(h, "2.3.0", "BE/BEC", id)).status).toBe(404);
    });

    it("names every violating field at once", async () => {
      const body = cdr("BAD-MANY", { auth_method: "X", total_time: "long" });
      const res = await post(h, "2.3.0", body);
      expect(res.body.status_message).toContain("/auth_method");
      expect(res.body.status_message).toContain("/total_time");
    });
  });

  it("keeps unknown properties (2.3.0 extensibility)", async () => {
    const body = cdr("EXT1", { emission_grams: 1234, cdr_location: { ...example230().cdr_location, roof: true } });
    expect((await post(h, "2.3.0", body)).status).toBe(201);
    expect((await getCdr(h, "2.3.0", "BE/BEC", "EXT1")).body.data).toEqual(body);
  });

  it("accepts #NA ids of a reservation-only CDR with any connector values", async () => {
    const body = cdr("RES1", {
      cdr_location: { ...example230().cdr_location, evse_uid: "#NA", evse_id: "#NA", connector_id: "#NA", connector_format: "ANY" },
    });
    expect((await post(h, "2.3.0", body)).status).toBe(201);
  });
});

describe("CDRs: strictness log", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(receiverOptions({ strictness: "log" }));
  });
  afterAll(() => h.close());

  it("accepts a slightly-off CDR and logs a warning", async () => {
    const body = { ...example230(), id: "OFF1", remark: "r".repeat(300) };
    const res = await post(h, "2.3.0", body);
    expect(res.status).toBe(201);
    expect((await getCdr(h, "2.3.0", "BE/BEC", "OFF1")).body.data).toEqual(body);
    expect(h.logs.some((l) => l.includes("strictness: log") && l.includes("/remark"))).toBe(true);
  });
});
