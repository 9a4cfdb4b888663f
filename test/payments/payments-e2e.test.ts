import "reflect-metadata";
import { createHmac } from "node:crypto";
import pino from "pino";
import { removeTempDirs, type PartySpec } from "../support/gateway-config";
import { ocpiRequest } from "../support/gateway-process";
import { SyncStates } from "../../core/sync/sync-state";
import { ocpiTimestamp } from "../../core/http/envelope";
import { eventually } from "../support/charge-point";
import { API_KEY, SECRET, PaymentsNet, adminOf, heldFac, heldTerminal, json, paidSession, settlement, type Cpo } from "./payments-net";

/**
 * Payments end to end over loopback (issue #12): a PTP gateway on the `tms`
 * adapter in front of a TMS v1 simulator, and two CPO gateways on the
 * `local` adapter, one on 2.3.0 and one on 2.2.1 (the direct-payment
 * extension's Price shape, configured for it on both sides). The CPOs' backends act on terminals through
 * their admin API; the PTP pushes what changes (webhook, poll) to them.
 */

const CPO_A: PartySpec = { country_code: "DE", party_id: "CPX", role: "CPO" };
const CPO_B: PartySpec = { country_code: "FR", party_id: "CPB", role: "CPO" };
const POLL_MS = 600;

/** The date_from of the CPO's next incremental pull of the PTP's payments, from its watermark as the puller takes it (core/sync/sync-puller.ts). */
const nextDateFrom = async (cpo: Cpo): Promise<string> => {
  const { watermark } = await new SyncStates(cpo.gateway.store).get("ptp", "payments");
  const record = (await cpo.gateway.registry.get("ptp"))!;
  return ocpiTimestamp(new Date(watermark! - cpo.gateway.registry.profileOf(record).syncOverlapMs));
};

describe("payments: a PTP gateway over a terminal system and CPO gateways using it", () => {
  let net: PaymentsNet;
  let a: Cpo;
  let b: Cpo;
  let ptpUrl: string;
  let cpoAUrl: string;
  let cpoBUrl: string;
  /** the PTP gateway's log lines at debug level: scanned for the adapter's secrets */
  let ptpLogs: string[] = [];
  const admin = adminOf;

  // a network of its own per test: each step changes the terminal system's devices and settlements, the PTP's watermarks and what the CPOs hold
  beforeEach(async () => {
    // this network's own lines: a closing one's last lines stay out of the next test's
    const lines: string[] = [];
    ptpLogs = lines;
    net = await PaymentsNet.start(
      [
        { id: "cpo-a", party: CPO_A },
        // 2.2.1 payments is the direct-payment extension's: configured on both sides (partners[].extensions)
        { id: "cpo-b", party: CPO_B, versions: ["2.2.1"], extensions: ["direct_payment"] },
      ],
      { pollMs: POLL_MS, ptpLogger: pino({ level: "debug" }, { write: (line: string) => void lines.push(line) }) },
    );
    [a, b] = net.cpos;
    [ptpUrl, cpoAUrl, cpoBUrl] = [net.ptpUrl, a.url, b.url];
    expect(await a.gateway.registry.get("ptp")).toMatchObject({ status: "registered", version: "2.3.0" });
    expect(await b.gateway.registry.get("ptp")).toMatchObject({ status: "registered", version: "2.2.1" });
  });

  afterEach(() => net?.close());
  afterAll(() => removeTempDirs());

  /**
   * The story's steps, in its order, each with its checks: a test whose step
   * reads what an earlier one left (a terminal active, a session paid) runs
   * that one first on its own network, never counting on another test.
   */
  const step = {
    named: async () => {
      net.tms.ship("SER-1");
      const res = await admin(cpoAUrl).post("/payments/ptp/terminals/activate", { terminal_id: "SER-1", location_ids: ["LOC1"] });
      expect(json(res)).toMatchObject({ status_code: 1000, data: { terminal_id: "SER-1", country_code: "DE", party_id: "CPX", location_ids: ["LOC1"] } });
      expect(net.tms.devices.get("SER-1")).toMatchObject({ state: "active", operator: { country: "DE", party: "CPX" }, assigned: { sites: ["LOC1"], points: [] } });
      await eventually(async () => expect(await heldTerminal(a, "SER-1")).toMatchObject({ terminal_id: "SER-1", reference: "SER-1", location_ids: ["LOC1"] }));
      // Terminals go to the CPO they name only
      expect(await heldTerminal(b, "SER-1")).toBeUndefined();

      const again = json(await admin(cpoAUrl).post("/payments/ptp/terminals/activate", { terminal_id: "SER-1" }));
      expect(again.status_code).toBe(2001);
      expect(again.status_message).toMatch(/\/terminal_id: conflict: the terminal is already active/);
    },
    stock: async () => {
      net.tms.ship("SER-2", { merchant_ref: "CPX-7" });
      const res = json(await admin(cpoAUrl).post("/payments/ptp/terminals/activate", { customer_reference: "CPX-7" }));
      expect(res.data).toMatchObject({ terminal_id: "SER-2", customer_reference: "CPX-7", country_code: "DE", party_id: "CPX" });
      await eventually(async () => expect(await heldTerminal(a, "SER-2")).toMatchObject({ customer_reference: "CPX-7" }));
      const none = json(await admin(cpoAUrl).post("/payments/ptp/terminals/activate", { customer_reference: "CPX-7" }));
      expect(none.status_code).toBe(2001);
      expect(none.status_message).toMatch(/\/terminal_id: no terminal in stock/);
    },
    assign: async () => {
      expect(json(await admin(cpoAUrl).post("/payments/ptp/terminals/SER-1/assignment", { evse_uids: ["EVSE1"] })).status_code).toBe(1000);
      expect(net.tms.devices.get("SER-1")!.assigned).toEqual({ sites: ["LOC1"], points: ["EVSE1"] });
      await eventually(async () => expect(await heldTerminal(a, "SER-1")).toMatchObject({ location_ids: ["LOC1"], evse_uids: ["EVSE1"] }));

      const update = { invoice_base_url: "https://cpx.example/invoices", invoice_creator: "CPO" };
      expect(json(await admin(cpoAUrl).put("/payments/ptp/terminals/SER-1", update)).status_code).toBe(1000);
      expect(net.tms.devices.get("SER-1")).toMatchObject({ receipts: { issuer: "operator", base_url: "https://cpx.example/invoices" }, assigned: { sites: ["LOC1"], points: ["EVSE1"] } });
      await eventually(async () => expect(await heldTerminal(a, "SER-1")).toMatchObject({ ...update, evse_uids: ["EVSE1"] }));

      expect(json(await admin(cpoAUrl).post("/payments/ptp/terminals/SER-2/deactivate")).status_code).toBe(1000);
      expect(net.tms.devices.get("SER-2")!.state).toBe("inactive");
      // another CPO's terminal is unknown to cpo-b
      const foreign = await admin(cpoBUrl).post("/payments/ptp/terminals/SER-1/deactivate");
      expect([foreign.status, json(foreign).status_code]).toEqual([404, 2001]);
      expect(net.tms.devices.get("SER-1")!.state).toBe("active");
    },
    capture: async () => {
      // each CPO's backend reports the session; it is pushed to the PTP (its token's owner) and indexed on both sides
      await net.report(a, "sessions", paidSession(CPO_A, "SES-PAID", "AUTH-42"));
      await net.report(b, "sessions", paidSession(CPO_B, "SES-B", "AUTH-B1"));
      await net.tms.capture(settlement("SET-1", "AUTH-42"));
      const fac = await eventually(async () => {
        const held = await heldFac(a, "SET-1");
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

      // cpo-b speaks 2.2.1: its own FAC came as excl_vat/incl_vat, the rate is lost on the way
      await net.tms.capture(settlement("SET-B", "AUTH-B1"));
      await eventually(async () => expect((await heldFac(b, "SET-B"))?.total_costs).toEqual({ before_taxes: 4, taxes: [{ name: "VAT", amount: 0.4 }] }));
      const wire = await net.atPtp(b, "/financial-advice-confirmations/SET-B");
      expect(json(wire).data.total_costs).toEqual({ excl_vat: 4, incl_vat: 4.4 });
      // and never cpo-a's FAC (pushes of one partner are in order: SET-1 would have come before SET-B)
      expect(await heldFac(b, "SET-1")).toBeUndefined();
    },
    webhook: async () => {
      const body = JSON.stringify({ event: "device.updated", id: "SER-1", at: Date.now() });
      const fetchesOf = () => net.tms.requests.filter((r) => r === "GET /v1/devices/SER-1").length;
      const before = { fetches: fetchesOf(), held: await heldTerminal(a, "SER-1") };
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
      expect(await heldTerminal(a, "SER-1")).toEqual(before.held);
      // the same body, signed with the shared secret, is taken
      const good = await ocpiRequest("POST", `${ptpUrl}/adapters/tms/webhook`, { headers: { "X-Tms-Signature": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}` }, body });
      expect(good.status).toBe(200);
      expect(fetchesOf()).toBe(before.fetches + 1);
    },
    poll: async () => {
      net.tms.webhooks = false;
      const started = Date.now();
      await net.tms.change("SER-1", { merchant_ref: "CPX-POLLED" });
      await eventually(async () => expect((await heldTerminal(a, "SER-1"))?.customer_reference).toBe("CPX-POLLED"), 5000, 20);
      // one poll interval, plus the push's delivery (with room for a loaded test machine)
      expect(Date.now() - started).toBeLessThan(POLL_MS + 2500);
      net.tms.webhooks = true;
    },
    maintenance: async () => {
      const first = json(await admin(cpoAUrl).post("/sync/ptp/payments"));
      expect(first.data).toMatchObject({ full: true, rejected: 0 });
      // the next pull asks from the watermark (the start of the last completed pull) minus the partner's overlap; a second
      // pull's date_from was taken for it before, but that is the first pull's start, another second whenever they straddle one
      const dateFrom = await nextDateFrom(a);

      // changes made while webhooks are lost and the system then goes into maintenance
      net.tms.webhooks = false;
      net.tms.ship("SER-3", { operator: { country: "DE", party: "CPX" }, merchant_ref: "CPX-8" });
      await net.tms.capture({ settlement_id: "SET-2", auth_ref: "AUTH-42", amount_minor: 1210, vat_minor: 210, vat_rate: 21, currency: "EUR", outcome: "declined", outcome_text: "insufficient funds", receipt_lines: ["Visa"] });
      net.tms.maintenance = true;
      const failed = await admin(cpoAUrl).post("/sync/ptp/payments");
      expect([failed.status, json(failed).status_code]).toEqual([502, 3001]);
      expect(json(failed).status_message).toMatch(/503/);
      // the PTP answers 503 + 3000 while the system is down, never a 500
      const down = await net.atPtp(a, "/terminals");
      expect([down.status, json(down).status_code]).toEqual([503, 3000]);

      net.tms.maintenance = false;
      const resumed = json(await admin(cpoAUrl).post("/sync/ptp/payments"));
      expect(resumed.data.date_from).toBe(dateFrom);
      expect(await heldTerminal(a, "SER-3")).toMatchObject({ customer_reference: "CPX-8", country_code: "DE", party_id: "CPX" });
      expect(await heldFac(a, "SET-2")).toMatchObject({ capture_status_code: "FAILED", capture_status_message: "insufficient funds", total_costs: { before_taxes: 10 } });
      net.tms.webhooks = true;
    },
  };

  it("the PTP lists one payments endpoint and declares itself OTHER in its credentials (OCPI 2.3.0 Payments module)", async () => {
    const record = (await a.gateway.registry.get("ptp"))!;
    expect(record.roles).toEqual([expect.objectContaining({ country_code: "NL", party_id: "PTP", role: "OTHER" })]);
    expect(record.endpoints.filter((e) => e.identifier === "payments")).toEqual([
      { identifier: "payments", role: "SENDER", url: `${ptpUrl}/ocpi/2.3.0/sender/payments` },
    ]);
  });

  it("activates a named terminal: the system activates the device for the CPO, which gets the Terminal pushed; a second activation is refused naming the conflict", () => step.named());

  it("activates without terminal_id: the system allocates a pending device for the merchant; with none left, no_stock is a clear 2001", () => step.stock());

  it("assigns EVSEs as a union, updates the invoice fields and deactivates; the CPO holds each state", async () => {
    await step.named();
    await step.stock();
    await step.assign();
  });

  it("a capture after a session with an authorization_reference: the FAC reaches the CPO whose session it paid for (2.3.0, and the 2.2.1 Price) and is linked to the session", () => step.capture());

  it("a webhook with a bad or missing signature is refused with 401 and changes nothing", async () => {
    // the webhook names SER-1: a terminal the CPO holds, which the forged ones must leave as it is
    await step.named();
    await step.webhook();
  });

  it("a lost webhook is caught by the poll within one interval", async () => {
    await step.named();
    await step.poll();
  });

  it("the system in maintenance during a pull: the pull fails (503 at the PTP), the watermark stays, and the next pull resumes from it and loses nothing", async () => {
    // SET-2 is captured for AUTH-42: the FAC reaches cpo-a by its paid session
    await net.report(a, "sessions", paidSession(CPO_A, "SES-PAID", "AUTH-42"));
    await step.maintenance();
  });

  it("never logs the api_key or the webhook_secret", async () => {
    // the whole story first: every call to the system, forged and signed webhooks, a poll, pulls failing and resuming
    for (const run of Object.values(step)) await run();
    expect(ptpLogs.length).toBeGreaterThan(10);
    for (const line of ptpLogs) {
      expect(line).not.toContain(API_KEY);
      expect(line).not.toContain(SECRET);
    }
  });
});
