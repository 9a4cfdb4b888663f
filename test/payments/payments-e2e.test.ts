import "reflect-metadata";
import { createHmac } from "node:crypto";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import type { Session } from "../../plugins/sessions/model";
import type { FinancialAdviceConfirmation, Terminal } from "../../plugins/payments/model";
import { removeTempDirs, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { eventually } from "../support/charge-point";
import { TmsSimulator } from "../support/tms-simulator";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Payments end to end over loopback (issue #12): a PTP gateway on the `tms`
 * adapter in front of a TMS v1 simulator, and two CPO gateways on the
 * `local` adapter, one on 2.3.0 and one on 2.2.1 (the direct-payment
 * extension's Price shape). The CPOs' backends act on terminals through
 * their admin API; the PTP pushes what changes (webhook, poll) to them.
 */

type Json = Record<string, any>;

const PTP: PartySpec = { country_code: "NL", party_id: "PTP", role: "PTP" };
const CPO_A: PartySpec = { country_code: "DE", party_id: "CPX", role: "CPO" };
const CPO_B: PartySpec = { country_code: "FR", party_id: "CPB", role: "CPO" };
const ADMIN = "payments-e2e-admin-token-0123456789";
const API_KEY = "tms-api-key-e2e-0123";
const SECRET = "tms-webhook-secret-e2e-0123456789";
const POLL_MS = 600;
const quiet = () => pino({ level: "silent" });

const session: Session = {
  country_code: "DE",
  party_id: "CPX",
  id: "SES-PAID",
  start_date_time: "2024-05-01T10:00:00Z",
  kwh: 4,
  cdr_token: { country_code: "NL", party_id: "PTP", uid: "TERMINAL-SER-1", type: "AD_HOC_USER", contract_id: "NL-PTP-ADHOC" },
  auth_method: "COMMAND",
  authorization_reference: "AUTH-42",
  location_id: "LOC1",
  evse_uid: "EVSE1",
  connector_id: "1",
  currency: "EUR",
  status: "COMPLETED",
  last_updated: "2024-05-01T11:00:00Z",
};

describe("payments: a PTP gateway over a terminal system and CPO gateways using it", () => {
  const tms = new TmsSimulator(API_KEY, SECRET);
  let ptp: Gateway;
  let cpoA: Gateway;
  let cpoB: Gateway;
  let ptpUrl: string;
  let cpoAUrl: string;
  let cpoBUrl: string;
  /** the PTP gateway's log lines at debug level: scanned for the adapter's secrets */
  const ptpLogs: string[] = [];

  const admin = (base: string) => ({
    get: (p: string) => ocpiRequest("GET", `${base}/admin/v1${p}`, { headers: { Authorization: `Bearer ${ADMIN}` } }),
    post: (p: string, body?: unknown) => ocpiRequest("POST", `${base}/admin/v1${p}`, { headers: { Authorization: `Bearer ${ADMIN}` }, body: body ?? {} }),
    put: (p: string, body: unknown) => ocpiRequest("PUT", `${base}/admin/v1${p}`, { headers: { Authorization: `Bearer ${ADMIN}` }, body }),
  });
  /** What a CPO's `local` adapter holds of the PTP's terminals and FACs (its backend's view). */
  const heldTerminal = (cpo: Gateway, id: string) => cpo.store.get<Terminal>("local:payments.terminals:NLPTP", id.toUpperCase());
  const heldFac = (cpo: Gateway, id: string) => cpo.store.get<FinancialAdviceConfirmation>("local:payments.facs:NLPTP", id.toUpperCase());
  const json = (r: { body: unknown }) => r.body as Json;

  beforeAll(async () => {
    await tms.start();
    const [ptpPort, aPort, bPort] = await freePorts(3);
    [ptpUrl, cpoAUrl, cpoBUrl] = [ptpPort, aPort, bPort].map((p) => `http://127.0.0.1:${p}`);
    const dir = mkdtempSync(path.join(os.tmpdir(), "payments-e2e-"));
    const seed = path.join(dir, "seed.json");
    writeFileSync(seed, JSON.stringify({ sessions: [session] }));

    ptp = await Gateway.create(
      testGatewayConfig({
        port: ptpPort,
        party: PTP,
        modules: { payments: { adapter: "tms", roles: ["SENDER"] } },
        adapters: { tms: { base_url: tms.baseUrl, api_key: API_KEY, webhook_secret: SECRET, poll_interval_ms: POLL_MS } },
        partners: [
          { id: "cpo-a", token_a: "token-a-cpo-a-0123", versions_url: versionsUrlOf(aPort), push: { base_delay_ms: 50, max_delay_ms: 200 } },
          { id: "cpo-b", token_a: "token-a-cpo-b-0123", versions_url: versionsUrlOf(bPort), versions: ["2.2.1"], push: { base_delay_ms: 50, max_delay_ms: 200 } },
        ],
      }),
      { logger: pino({ level: "debug" }, { write: (line: string) => void ptpLogs.push(line) }) },
    );
    const cpo = (port: number, party: PartySpec, token: string, extra: Json = {}) =>
      Gateway.create(
        testGatewayConfig({
          port,
          party,
          modules: { payments: { adapter: "local", roles: ["RECEIVER"] }, sessions: { adapter: "local", roles: ["SENDER"] } },
          adapters: { local: { seed } },
          server: { admin_token: ADMIN },
          partners: [{ id: "ptp", token_a: token, versions_url: versionsUrlOf(ptpPort), sync_retry: { retries: 1, base_delay_ms: 10, max_delay_ms: 20 }, ...extra }],
        }),
        { logger: quiet() },
      );
    cpoA = await cpo(aPort, CPO_A, "token-a-cpo-a-0123");
    cpoB = await cpo(bPort, CPO_B, "token-a-cpo-b-0123", { versions: ["2.2.1"] });
    for (const g of [ptp, cpoA, cpoB]) await g.listen();
    tms.setWebhook(`${ptpUrl}/adapters/tms/webhook`);
    expect(await cpoA.credentials.register("ptp")).toMatchObject({ status: "registered", version: "2.3.0" });
    expect(await cpoB.credentials.register("ptp")).toMatchObject({ status: "registered", version: "2.2.1" });
  });

  afterAll(async () => {
    await Promise.all([ptp?.close(), cpoA?.close(), cpoB?.close()]);
    await tms.stop();
    removeTempDirs();
  });

  it("the PTP lists one payments endpoint and declares itself OTHER in its credentials (ocpi-notes §3.10)", async () => {
    const record = (await cpoA.registry.get("ptp"))!;
    expect(record.roles).toEqual([expect.objectContaining({ country_code: "NL", party_id: "PTP", role: "OTHER" })]);
    expect(record.endpoints.filter((e) => e.identifier === "payments")).toEqual([
      { identifier: "payments", role: "SENDER", url: `${ptpUrl}/ocpi/2.3.0/sender/payments` },
    ]);
  });

  it("activates a named terminal: the system activates the device for the CPO, which gets the Terminal pushed; a second activation is refused naming the conflict", async () => {
    tms.ship("SER-1");
    const res = await admin(cpoAUrl).post("/payments/ptp/terminals/activate", { terminal_id: "SER-1", location_ids: ["LOC1"] });
    expect(json(res)).toMatchObject({ status_code: 1000, data: { terminal_id: "SER-1", country_code: "DE", party_id: "CPX", location_ids: ["LOC1"] } });
    expect(tms.devices.get("SER-1")).toMatchObject({ state: "active", operator: { country: "DE", party: "CPX" }, assigned: { sites: ["LOC1"], points: [] } });
    await eventually(async () => expect(await heldTerminal(cpoA, "SER-1")).toMatchObject({ terminal_id: "SER-1", reference: "SER-1", location_ids: ["LOC1"] }));
    // Terminals go to the CPO they name only
    expect(await heldTerminal(cpoB, "SER-1")).toBeUndefined();

    const again = json(await admin(cpoAUrl).post("/payments/ptp/terminals/activate", { terminal_id: "SER-1" }));
    expect(again.status_code).toBe(2001);
    expect(again.status_message).toMatch(/\/terminal_id: conflict: the terminal is already active/);
  });

  it("activates without terminal_id: the system allocates a pending device for the merchant; with none left, no_stock is a clear 2001", async () => {
    tms.ship("SER-2", { merchant_ref: "CPX-7" });
    const res = json(await admin(cpoAUrl).post("/payments/ptp/terminals/activate", { customer_reference: "CPX-7" }));
    expect(res.data).toMatchObject({ terminal_id: "SER-2", customer_reference: "CPX-7", country_code: "DE", party_id: "CPX" });
    await eventually(async () => expect(await heldTerminal(cpoA, "SER-2")).toMatchObject({ customer_reference: "CPX-7" }));
    const none = json(await admin(cpoAUrl).post("/payments/ptp/terminals/activate", { customer_reference: "CPX-7" }));
    expect(none.status_code).toBe(2001);
    expect(none.status_message).toMatch(/\/terminal_id: no terminal in stock/);
  });

  it("assigns EVSEs as a union, updates the invoice fields and deactivates; the CPO holds each state", async () => {
    expect(json(await admin(cpoAUrl).post("/payments/ptp/terminals/SER-1/assignment", { evse_uids: ["EVSE1"] })).status_code).toBe(1000);
    expect(tms.devices.get("SER-1")!.assigned).toEqual({ sites: ["LOC1"], points: ["EVSE1"] });
    await eventually(async () => expect(await heldTerminal(cpoA, "SER-1")).toMatchObject({ location_ids: ["LOC1"], evse_uids: ["EVSE1"] }));

    const update = { invoice_base_url: "https://cpx.example/invoices", invoice_creator: "CPO" };
    expect(json(await admin(cpoAUrl).put("/payments/ptp/terminals/SER-1", update)).status_code).toBe(1000);
    expect(tms.devices.get("SER-1")).toMatchObject({ receipts: { issuer: "operator", base_url: "https://cpx.example/invoices" }, assigned: { sites: ["LOC1"], points: ["EVSE1"] } });
    await eventually(async () => expect(await heldTerminal(cpoA, "SER-1")).toMatchObject({ ...update, evse_uids: ["EVSE1"] }));

    expect(json(await admin(cpoAUrl).post("/payments/ptp/terminals/SER-2/deactivate")).status_code).toBe(1000);
    expect(tms.devices.get("SER-2")!.state).toBe("inactive");
    // another CPO's terminal is unknown to cpo-b
    const foreign = await admin(cpoBUrl).post("/payments/ptp/terminals/SER-1/deactivate");
    expect([foreign.status, json(foreign).status_code]).toEqual([404, 2001]);
    expect(tms.devices.get("SER-1")!.state).toBe("active");
  });

  it("a capture after a session with an authorization_reference: the FAC reaches both CPOs (2.3.0 and the 2.2.1 Price) and is linked to the session", async () => {
    await tms.capture({
      settlement_id: "SET-1",
      auth_ref: "AUTH-42",
      amount_minor: 440,
      vat_minor: 40,
      vat_rate: 10,
      currency: "EUR",
      outcome: "captured",
      outcome_text: null,
      receipt_lines: ["Mastercard", "Nr: **** 1234", "Amount: EUR 4.40"],
    });
    const fac = await eventually(async () => {
      const held = await heldFac(cpoA, "SET-1");
      expect(held).toBeDefined();
      return held!;
    });
    expect(fac).toMatchObject({
      id: "SET-1",
      authorization_reference: "AUTH-42",
      total_costs: { before_taxes: 4, taxes: [{ name: "VAT", percentage: 10, amount: 0.4 }] },
      currency: "EUR",
      capture_status_code: "SUCCESS",
    });
    const linked = json(await admin(cpoAUrl).get("/payments/ptp/financial-advice-confirmations/SET-1"));
    expect(linked.data.linked).toEqual([{ module: "sessions", country_code: "DE", party_id: "CPX", id: "SES-PAID" }]);

    // cpo-b speaks 2.2.1: the Price came as excl_vat/incl_vat, the rate is lost on the way
    await eventually(async () => expect((await heldFac(cpoB, "SET-1"))?.total_costs).toEqual({ before_taxes: 4, taxes: [{ name: "VAT", amount: 0.4 }] }));
    const token = (await cpoB.registry.get("ptp"))!.tokenToPartner!;
    const wire = await ocpiRequest("GET", `${ptpUrl}/ocpi/2.2.1/sender/payments/financial-advice-confirmations/SET-1`, { token });
    expect(json(wire).data.total_costs).toEqual({ excl_vat: 4, incl_vat: 4.4 });
  });

  it("a webhook with a bad or missing signature is refused with 401 and changes nothing", async () => {
    const body = JSON.stringify({ event: "device.updated", id: "SER-1", at: Date.now() });
    const fetchesOf = () => tms.requests.filter((r) => r === "GET /v1/devices/SER-1").length;
    const before = { fetches: fetchesOf(), held: await heldTerminal(cpoA, "SER-1") };
    const forged = ["sha256=" + "0".repeat(64), "sha256=zz", `sha256=${"a".repeat(63)}`, "md5=abc", undefined];
    for (const signature of forged) {
      const headers: Record<string, string> = signature ? { "X-Tms-Signature": signature } : {};
      const res = await ocpiRequest("POST", `${ptpUrl}/adapters/tms/webhook`, { headers, body });
      expect([res.status, json(res).status_code]).toEqual([401, 2000]);
    }
    // signed with another secret
    const other = createHmac("sha256", "not-the-shared-secret-0123").update(body).digest("hex");
    expect((await ocpiRequest("POST", `${ptpUrl}/adapters/tms/webhook`, { headers: { "X-Tms-Signature": `sha256=${other}` }, body })).status).toBe(401);
    // the device was never fetched, so nothing was reported or pushed
    expect(fetchesOf()).toBe(before.fetches);
    expect(await heldTerminal(cpoA, "SER-1")).toEqual(before.held);
    // the same body, signed with the shared secret, is taken
    const good = await ocpiRequest("POST", `${ptpUrl}/adapters/tms/webhook`, { headers: { "X-Tms-Signature": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}` }, body });
    expect(good.status).toBe(200);
    expect(fetchesOf()).toBe(before.fetches + 1);
  });

  it("a lost webhook is caught by the poll within one interval", async () => {
    tms.webhooks = false;
    const started = Date.now();
    await tms.change("SER-1", { merchant_ref: "CPX-POLLED" });
    await eventually(async () => expect((await heldTerminal(cpoA, "SER-1"))?.customer_reference).toBe("CPX-POLLED"), 5000, 20);
    // one poll interval, plus the push's delivery (with room for a loaded test machine)
    expect(Date.now() - started).toBeLessThan(POLL_MS + 2500);
    tms.webhooks = true;
  });

  it("the system in maintenance during a pull: the pull fails (503 at the PTP), the watermark stays, and the next pull resumes from it and loses nothing", async () => {
    const first = json(await admin(cpoAUrl).post("/sync/ptp/payments"));
    expect(first.data).toMatchObject({ full: true, rejected: 0 });
    const second = json(await admin(cpoAUrl).post("/sync/ptp/payments"));
    const dateFrom = second.data.date_from as string;

    // changes made while webhooks are lost and the system then goes into maintenance
    tms.webhooks = false;
    tms.ship("SER-3", { operator: { country: "DE", party: "CPX" }, merchant_ref: "CPX-8" });
    await tms.capture({ settlement_id: "SET-2", auth_ref: "AUTH-43", amount_minor: 1210, vat_minor: 210, vat_rate: 21, currency: "EUR", outcome: "declined", outcome_text: "insufficient funds", receipt_lines: ["Visa"] });
    tms.maintenance = true;
    const failed = await admin(cpoAUrl).post("/sync/ptp/payments");
    expect([failed.status, json(failed).status_code]).toEqual([502, 3001]);
    expect(json(failed).status_message).toMatch(/503/);
    // the PTP answers 503 + 3000 while the system is down, never a 500
    const token = (await cpoA.registry.get("ptp"))!.tokenToPartner!;
    const down = await ocpiRequest("GET", `${ptpUrl}/ocpi/2.3.0/sender/payments/terminals`, { token });
    expect([down.status, json(down).status_code]).toEqual([503, 3000]);

    tms.maintenance = false;
    const resumed = json(await admin(cpoAUrl).post("/sync/ptp/payments"));
    expect(resumed.data.date_from).toBe(dateFrom);
    expect(await heldTerminal(cpoA, "SER-3")).toMatchObject({ customer_reference: "CPX-8", country_code: "DE", party_id: "CPX" });
    expect(await heldFac(cpoA, "SET-2")).toMatchObject({ capture_status_code: "FAILED", capture_status_message: "insufficient funds", total_costs: { before_taxes: 10 } });
    tms.webhooks = true;
  });

  it("never logs the api_key or the webhook_secret", () => {
    expect(ptpLogs.length).toBeGreaterThan(10);
    for (const line of ptpLogs) {
      expect(line).not.toContain(API_KEY);
      expect(line).not.toContain(SECRET);
    }
  });
});
