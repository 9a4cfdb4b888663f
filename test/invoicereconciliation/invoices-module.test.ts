import { AAA, ADMIN, OURS, RECEIVER, SENDER, recordOf, startInvoiceWorld, type InvoiceWorld } from "./invoices.fixtures";
import { removeTempDirs } from "../support/gateway-config";

/**
 * The invoicereconciliation module through HTTP (issue #27 item 1; OCPI 2.3.0 edition 2, Invoice
 * Reconciliation module): the Receiver a partner posts its records to, the Sender list of the records we issue
 * through the admin API, partners kept apart, 2001 naming the field, and 2.3.0 only.
 */

let w: InvoiceWorld;
beforeEach(async () => {
  w = await startInvoiceWorld();
});
afterEach(() => w.close());
afterAll(() => removeTempDirs());

const as = (partner: string) => ({
  post: (path: string, body: unknown) => w.http.post(path).set("Authorization", w.auth[partner]).send(body as object),
  put: (path: string, body: unknown) => w.http.put(path).set("Authorization", w.auth[partner]).send(body as object),
  get: (path: string) => w.http.get(path).set("Authorization", w.auth[partner]),
  del: (path: string) => w.http.delete(path).set("Authorization", w.auth[partner]),
  patch: (path: string, body: unknown) => w.http.patch(path).set("Authorization", w.auth[partner]).send(body as object),
});
const admin = {
  post: (path: string, body: unknown) => w.http.post(`/admin/v1${path}`).set("Authorization", `Bearer ${ADMIN}`).send(body as object),
  get: (path: string) => w.http.get(`/admin/v1${path}`).set("Authorization", `Bearer ${ADMIN}`),
};
const a = () => as("emsp-a");
const b = () => as("emsp-b");
const AAA_R1 = `${RECEIVER}/DE/AAA/R1`;

describe("Receiver", () => {
  it("takes a new record by POST to the module URL (201), then GET, PUT (200) and DELETE by its path", async () => {
    const record = recordOf(AAA, "R1", "INV-1", ["A-CDR-1"]);
    const created = await a().post(RECEIVER, record);
    expect([created.status, created.body.status_code, created.body.data]).toEqual([201, 1000, null]);
    expect((await a().get(AAA_R1)).body.data).toEqual(record);

    const changed = { ...record, cdrs: ["A-CDR-1", "A-CDR-2"], last_updated: "2025-03-03T08:00:00Z" };
    const replaced = await a().put(AAA_R1, changed);
    expect([replaced.status, replaced.body.status_code]).toEqual([200, 1000]);
    expect((await a().get(AAA_R1)).body.data).toEqual(changed);

    const deleted = await a().del(AAA_R1);
    expect([deleted.status, deleted.body.status_code]).toEqual([200, 1000]);
    expect((await a().get(AAA_R1)).status).toBe(404);
    expect((await a().del(AAA_R1)).status).toBe(404);
  });

  it("takes a POST of a record it holds as a retry (200), and a PUT of an unknown one as a creation (201); has no PATCH", async () => {
    const record = recordOf(AAA, "R1", "INV-1", ["A-CDR-1"]);
    expect((await a().post(RECEIVER, record)).status).toBe(201);
    expect((await a().post(RECEIVER, record)).status).toBe(200);
    expect((await a().put(`${RECEIVER}/DE/AAA/R2`, { ...record, id: "R2" })).status).toBe(201);
    expect((await a().patch(AAA_R1, { cdrs: ["A-CDR-9"], last_updated: "2025-03-03T08:00:00Z" })).status).toBe(405);
    expect((await a().get(AAA_R1)).body.data).toEqual(record);
  });

  const spoiled: [string, (r: Record<string, unknown>) => void, string][] = [
    ["no invoice_id", (r) => delete r.invoice_id, "/invoice_id"],
    ["no cdrs", (r) => delete r.cdrs, "/cdrs"],
    ["empty cdrs", (r) => (r.cdrs = []), "/cdrs"],
    ["a CDR id over 36 characters", (r) => (r.cdrs = ["A-CDR-1", "C".repeat(37)]), "/cdrs/1"],
    ["an id over 36 characters", (r) => (r.id = "R".repeat(37)), "/id"],
    ["an invoice_id over 255 characters", (r) => (r.invoice_id = "I".repeat(256)), "/invoice_id"],
    ["no last_updated", (r) => delete r.last_updated, "/last_updated"],
    ["a bad country_code", (r) => (r.country_code = "DEU"), "/country_code"],
  ];

  it.each(spoiled)("refuses a POST with %s: 2001 naming the field, nothing stored", async (_name, spoil, pointer) => {
    const record = recordOf(AAA, "R1", "INV-1", ["A-CDR-1"]);
    spoil(record);
    const res = await a().post(RECEIVER, record);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain(`${pointer}:`);
    expect((await a().get(AAA_R1)).status).toBe(404);
  });

  it("refuses a PUT whose body names another record than its path (2001)", async () => {
    const res = await a().put(AAA_R1, recordOf(AAA, "R9", "INV-1", ["A-CDR-1"]));
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/id R9 differs from the URL's R1");
  });

  it("keeps partners apart: emsp-b neither reads, replaces, deletes nor posts DE/AAA's records", async () => {
    const record = recordOf(AAA, "R1", "INV-1", ["A-CDR-1"]);
    await a().post(RECEIVER, record);
    const attempts = [
      await b().get(AAA_R1),
      await b().put(AAA_R1, { ...record, invoice_id: "TAKEN" }),
      await b().del(AAA_R1),
      await b().post(RECEIVER, { ...record, invoice_id: "TAKEN" }),
    ];
    for (const res of attempts) expect(res.body.status_code).not.toBe(1000);
    expect((await a().get(AAA_R1)).body.data).toEqual(record);
  });
});

describe("Sender", () => {
  it("lists the records we issued to a partner to that partner only, paginated and filtered on last_updated", async () => {
    for (const [id, invoice] of [["S1", "INV-1"], ["S2", "INV-2"], ["S3", "INV-3"]])
      expect((await admin.post("/invoices/emsp-a", { id, invoice_id: invoice, cdrs: ["CDR-1"] })).status).toBe(201);
    await admin.post("/invoices/emsp-b", { id: "SB", invoice_id: "INV-B", cdrs: ["CDR-2"] });

    const page = await a().get(`${SENDER}?limit=2`);
    expect(page.body.data.map((r: { id: string }) => r.id)).toEqual(["S1", "S2"]);
    expect(page.headers["x-total-count"]).toBe("3");
    expect(page.headers.link).toContain("offset=2");
    expect(page.body.data[0]).toMatchObject({ ...OURS, id: "S1", invoice_id: "INV-1", cdrs: ["CDR-1"] });
    expect(Object.keys(page.body.data[0]).sort()).toEqual(["cdrs", "country_code", "id", "invoice_id", "last_updated", "party_id"]);

    const theirs = await b().get(SENDER);
    expect(theirs.body.data.map((r: { id: string }) => r.id)).toEqual(["SB"]);

    const future = await a().get(`${SENDER}?date_from=2999-01-01T00:00:00Z`);
    expect([future.body.data, future.headers["x-total-count"]]).toEqual([[], "0"]);
    const past = await a().get(`${SENDER}?date_to=2000-01-01T00:00:00Z`);
    expect(past.body.data).toEqual([]);
  });

  it("refuses an admin record without cdrs or naming a party the partner does not have: 2001 naming the field", async () => {
    const noCdrs = await admin.post("/invoices/emsp-a", { invoice_id: "INV-1", cdrs: [] });
    expect([noCdrs.body.status_code, noCdrs.body.status_message]).toEqual([2001, expect.stringContaining("/cdrs:")]);
    const noInvoice = await admin.post("/invoices/emsp-a", { cdrs: ["CDR-1"] });
    expect(noInvoice.body.status_message).toContain("/invoice_id:");
    const wrongParty = await admin.post("/invoices/emsp-a", { invoice_id: "INV-1", cdrs: ["CDR-1"], to: "FRBBB" });
    expect(wrongParty.body.status_message).toContain("/to: FRBBB is not one of the partner's parties");
    expect((await a().get(SENDER)).body.data).toEqual([]);
  });
});

describe("2.3.0 only, offered by config", () => {
  it("is listed in 2.3.0's version details, in no other version, and not to a partner whose modules leave it out", async () => {
    const identifiers = async (partner: string, version: string) =>
      ((await as(partner).get(`/ocpi/${version}`)).body.data.endpoints as { identifier: string; role: string }[])
        .filter((e) => e.identifier === "invoicereconciliation")
        .map((e) => e.role)
        .sort();
    expect(await identifiers("emsp-a", "2.3.0")).toEqual(["RECEIVER", "SENDER"]);
    expect(await identifiers("emsp-a", "2.2.1")).toEqual([]);
    expect(await identifiers("without-ir", "2.3.0")).toEqual([]);
    expect((await as("old").get("/ocpi/2.2.1/sender/invoicereconciliation")).status).toBe(404);
    expect((await as("without-ir").get(SENDER)).status).toBe(404);
  });

  it("refuses to issue a record to a partner on 2.2.1 or not offered the module (2001 naming the partner)", async () => {
    for (const partner of ["old", "without-ir", "nobody"]) {
      const res = await admin.post(`/invoices/${partner}`, { invoice_id: "INV-1", cdrs: ["CDR-1"] });
      expect([res.body.status_code, res.body.status_message]).toEqual([2001, expect.stringMatching(new RegExp(`^partner: ${partner} is not`))]);
    }
  });
});
