import "reflect-metadata";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { eventually } from "../support/charge-point";
import type { Json } from "./invoices.fixtures";

/**
 * Records we issue reach the partner (issue #27 item 1), between two gateways on loopback in 2.3.0: a CPO
 * gateway issuing invoices (invoicereconciliation SENDER, direct billing) and an eMSP gateway taking them
 * (RECEIVER). A new record is POSTed to the eMSP's module URL, a replaced one PUT, a withdrawn one DELETEd
 * (plugins/invoicereconciliation/push.ts); the eMSP may also pull the CPO's Sender list (`sync`).
 */

const CPO: PartySpec = { country_code: "NL", party_id: "CPI", role: "CPO" };
const EMSP: PartySpec = { country_code: "DE", party_id: "EMI", role: "EMSP" };
const ADMIN = "invoices-push-admin-token-0123";

let cpo: Gateway;
let emsp: Gateway;
let urls: { cpo: string; emsp: string };

beforeEach(async () => {
  const [cpoPort, emspPort] = await freePorts(2);
  urls = { cpo: `http://127.0.0.1:${cpoPort}`, emsp: `http://127.0.0.1:${emspPort}` };
  const silent = { logger: pino({ level: "silent" }) };
  cpo = await Gateway.create(
    testGatewayConfig({
      port: cpoPort,
      party: CPO,
      modules: { invoicereconciliation: { adapter: "local", roles: ["SENDER"] }, cdrs: { adapter: "local" } },
      server: { admin_token: ADMIN },
      partners: [{ id: "emsp", token_a: "invoices-token-a-0123", versions: ["2.3.0"], callback_hosts: [`127.0.0.1:${emspPort}`] }],
    }),
    silent,
  );
  await cpo.listen();
  emsp = await Gateway.create(
    testGatewayConfig({
      port: emspPort,
      party: EMSP,
      modules: { invoicereconciliation: { adapter: "local", roles: ["RECEIVER"] }, cdrs: { adapter: "local" } },
      server: { admin_token: ADMIN },
      partners: [{ id: "cpo", token_a: "invoices-token-a-0123", versions_url: versionsUrlOf(cpoPort), versions: ["2.3.0"] }],
    }),
    silent,
  );
  await emsp.listen();
  await emsp.credentials.register("cpo");
});

afterEach(async () => {
  await Promise.all([cpo?.close(), emsp?.close()]);
});
afterAll(() => removeTempDirs());

const admin = (base: string) => ({
  call: (method: string, path: string, body?: unknown) => ocpiRequest(method, `${base}/admin/v1${path}`, { headers: { Authorization: `Bearer ${ADMIN}` }, body }),
});
const received = async (): Promise<Json[]> => ((await admin(urls.emsp).call("GET", "/invoices/cpo")).body as Json).data.received.map((v: Json) => v.record);

it("POSTs a new record to the eMSP, PUTs it when replaced and DELETEs it when withdrawn", async () => {
  const issued = await admin(urls.cpo).call("POST", "/invoices/emsp", { id: "R1", invoice_id: "INV-1", cdrs: ["CDR-1"] });
  expect([issued.status, (issued.body as Json).data.to]).toEqual([201, { country_code: "DE", party_id: "EMI" }]);
  await eventually(async () => expect(await received()).toEqual([expect.objectContaining({ country_code: "NL", party_id: "CPI", id: "R1", invoice_id: "INV-1", cdrs: ["CDR-1"] })]));

  expect((await admin(urls.cpo).call("PUT", "/invoices/emsp/R1", { invoice_id: "INV-1b", cdrs: ["CDR-1", "CDR-2"] })).status).toBe(200);
  await eventually(async () => expect(await received()).toEqual([expect.objectContaining({ id: "R1", invoice_id: "INV-1b", cdrs: ["CDR-1", "CDR-2"] })]));

  expect((await admin(urls.cpo).call("DELETE", "/invoices/emsp/R1")).status).toBe(200);
  await eventually(async () => expect(await received()).toEqual([]));
  expect(((await admin(urls.cpo).call("GET", "/invoices/emsp")).body as Json).data.issued).toEqual([]);
});

it("the eMSP pulls the CPO's Sender list into its Receiver", async () => {
  await admin(urls.cpo).call("POST", "/invoices/emsp", { id: "R2", invoice_id: "INV-2", cdrs: ["CDR-9"] });
  await eventually(async () => expect(await received()).toHaveLength(1));
  // what the pull finds is what the pushes already stored: the same record, replaced by itself
  const pull = await admin(urls.emsp).call("POST", "/sync/cpo/invoicereconciliation?full=true");
  expect((pull.body as Json).data).toMatchObject({ partner: "cpo", module: "invoicereconciliation", objects: 1, pages: 1 });
  expect(await received()).toEqual([expect.objectContaining({ id: "R2", invoice_id: "INV-2" })]);
});
