import { ADMIN, SEEDED_CDRS, startInvoiceWorld, type InvoiceWorld, type Json } from "../../invoicereconciliation/invoices.fixtures";
import { CdrAuditing } from "../../../plugins/cdrs/audit/cdr-auditing";
import type { Cdr } from "../../../plugins/cdrs/model";
import { audit } from "./cdr-audit.fixtures";

/**
 * A CDR's audit with what the invoices say of it (issue #27: the invoice checks' findings are part of the audit):
 * on a CPO gateway serving invoicereconciliation (test/invoicereconciliation/invoices.fixtures.ts), our CDRs
 * CDR-1, CDR-2 and the credit CDR-2-C, audited as sent to emsp-a, and the records we issue to emsp-a naming them.
 */
let w: InvoiceWorld;
beforeEach(async () => {
  w = await startInvoiceWorld();
  const ours = (id: string) => SEEDED_CDRS.find((c) => c.id === id) as Cdr;
  await w.gateway.container.resolve(CdrAuditing).audits.record(["CDR-1", "CDR-2", "CDR-2-C"].map((id) => audit(ours(id), { direction: "sent", partner: "emsp-a" })));
});
afterEach(() => w.close());

const admin = {
  get: (path: string) => w.http.get(`/admin/v1${path}`).set("Authorization", `Bearer ${ADMIN}`),
  post: (path: string, body: unknown) => w.http.post(`/admin/v1${path}`).set("Authorization", `Bearer ${ADMIN}`).send(body as object),
};

it("shows the records naming the CDR and the findings about it: a CDR in two invoices", async () => {
  expect((await admin.post("/invoices/emsp-a", { id: "R1", invoice_id: "INV-1", cdrs: ["CDR-1"] })).status).toBe(201);
  expect((await admin.post("/invoices/emsp-a", { id: "R2", invoice_id: "INV-2", cdrs: ["cdr-1", "CDR-2-C"] })).status).toBe(201);
  const [cdr1] = (await admin.get("/audit/cdrs/CDR-1")).body.data;
  expect(cdr1.invoices.records.map((r: Json) => [r.id, r.invoice_id])).toEqual([
    ["R1", "INV-1"],
    ["R2", "INV-2"],
  ]);
  expect(cdr1.invoices.findings.map((f: Json) => [f.kind, f.record.id])).toEqual([
    ["cdr_in_two_invoices", "R1"],
    ["cdr_in_two_invoices", "R2"],
  ]);
});

it("the CDR a credit CDR credits: its original not invoiced is part of the original's audit", async () => {
  await admin.post("/invoices/emsp-a", { id: "R1", invoice_id: "INV-1", cdrs: ["CDR-2-C"] });
  const [cdr2] = (await admin.get("/audit/cdrs/CDR-2")).body.data;
  expect(cdr2.invoices.records).toEqual([]);
  expect(cdr2.invoices.findings.map((f: Json) => [f.kind, f.cdr_id, f.credit_reference_id])).toEqual([["credit_original_not_invoiced", "CDR-2-C", "CDR-2"]]);
  const [credit] = (await admin.get("/audit/cdrs/CDR-2-C")).body.data;
  expect(credit.invoices.records.map((r: Json) => r.id)).toEqual(["R1"]);
});
