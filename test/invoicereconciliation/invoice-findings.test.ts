import { AAA, ADMIN, RECEIVER, recordOf, startInvoiceWorld, type InvoiceWorld, type Json } from "./invoices.fixtures";
import { removeTempDirs } from "../support/gateway-config";
import { checkInvoiceRecords } from "../../plugins/invoicereconciliation/checks";
import type { Cdr } from "../../plugins/cdrs/model";
import type { InvoiceReconciliationRecord } from "../../plugins/invoicereconciliation/model";

/**
 * The invoice checks (plugins/invoicereconciliation/checks.ts) as the operator sees them on the admin API,
 * `GET /admin/v1/invoices/<partner>`, for records we issued (CDRs of ours) and records a partner sent us (its
 * CDRs); and the pure function the CDR audit calls.
 */

let w: InvoiceWorld;
beforeEach(async () => {
  w = await startInvoiceWorld();
});
afterEach(() => w.close());
afterAll(() => removeTempDirs());

const admin = {
  post: (path: string, body: unknown) => w.http.post(`/admin/v1${path}`).set("Authorization", `Bearer ${ADMIN}`).send(body as object),
  get: (path: string) => w.http.get(`/admin/v1${path}`).set("Authorization", `Bearer ${ADMIN}`),
};
const kindsOf = (view: Json) => view.findings.map((f: Json) => `${f.kind} ${f.cdr_id}`);

it("finds, in records we issued, an unknown CDR, a CDR in two invoices, and credit CDRs whose original is not invoiced or unknown", async () => {
  const first = await admin.post("/invoices/emsp-a", { id: "R1", invoice_id: "INV-1", cdrs: ["CDR-1", "NOPE", "CDR-2-C", "CDR-X-C"] });
  expect(first.status).toBe(201);
  expect(kindsOf(first.body.data)).toEqual(["unknown_cdr NOPE", "credit_original_not_invoiced CDR-2-C", "credit_original_unknown CDR-X-C"]);
  await admin.post("/invoices/emsp-a", { id: "R2", invoice_id: "INV-2", cdrs: ["cdr-1", "CDR-2"] });

  const { data } = (await admin.get("/invoices/emsp-a")).body;
  expect(data.partner).toBe("emsp-a");
  const [r1, r2] = data.issued;
  expect(r1.to).toEqual(AAA);
  expect(kindsOf(r1)).toEqual(["cdr_in_two_invoices CDR-1", "unknown_cdr NOPE", "credit_original_unknown CDR-X-C"]);
  expect(kindsOf(r2)).toEqual(["cdr_in_two_invoices cdr-1"]);
  expect(r1.findings[0]).toEqual({
    kind: "cdr_in_two_invoices",
    record: { country_code: "NL", party_id: "GWY", id: "R1", invoice_id: "INV-1" },
    cdr_id: "CDR-1",
    others: [{ country_code: "NL", party_id: "GWY", id: "R2", invoice_id: "INV-2" }],
    message: "CDR CDR-1 is in record NL/GWY/R1 (invoice INV-1) and also in record NL/GWY/R2 (invoice INV-2)",
  });
  expect(r1.findings[2].message).toBe("credit CDR CDR-X-C of record NL/GWY/R1 (invoice INV-1) credits CDR CDR-GONE, which is not known");
});

it("checks the records a partner sent us against its CDRs and ours", async () => {
  const post = (record: Json) => w.http.post(RECEIVER).set("Authorization", w.auth["emsp-a"]).send(record);
  expect((await post(recordOf(AAA, "P1", "A-INV-1", ["A-CDR-1", "CDR-1", "A-NOPE"]))).status).toBe(201);
  const { data } = (await admin.get("/invoices/emsp-a")).body;
  expect(data.issued).toEqual([]);
  expect(data.received).toHaveLength(1);
  expect(data.received[0].record.id).toBe("P1");
  expect(kindsOf(data.received[0])).toEqual(["unknown_cdr A-NOPE"]);
});

it("the checks as a function: one record naming a CDR twice names it once; the same invoice twice is no conflict", async () => {
  const record = (id: string, invoice: string, cdrs: string[]): InvoiceReconciliationRecord => ({ country_code: "NL", party_id: "GWY", id, invoice_id: invoice, cdrs, last_updated: "2025-03-02T08:00:00Z" });
  const known = new Map<string, Partial<Cdr>>([["C1", { id: "C1" }], ["C2", { id: "C2", credit: true }]]);
  const findings = await checkInvoiceRecords(
    [record("R1", "INV-1", ["C1", "c1", "C2"]), record("R2", "inv-1", ["C1"])],
    (id) => known.get(id.toUpperCase()) as Cdr | undefined,
  );
  expect(findings.map((f) => `${f.record.id} ${f.kind} ${f.cdr_id}`)).toEqual(["R1 credit_original_unknown C2"]);
  expect(findings[0].message).toBe("credit CDR C2 of record NL/GWY/R1 (invoice INV-1) names no credit_reference_id");
});
