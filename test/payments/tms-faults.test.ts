import "reflect-metadata";
import { createHmac } from "node:crypto";
import pino from "pino";
import request from "supertest";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { eventually } from "../support/charge-point";
import { TmsSimulator, type TmsFault } from "../support/tms-simulator";
import { PTP, paidSession, settlement, type Json } from "./payments-net";

/**
 * The `tms` adapter when the payment-terminal system misbehaves
 * (docs/tms-v1.md, "Errors and how they are answered"), through the PTP
 * gateway's payments Sender interface and the adapter's webhook: a busy
 * system (429), a refusal of a call the gateway built (400, 422, 410 on a
 * list), a body that stalls past request_timeout_ms, a body that is not
 * JSON or not TMS v1's shape each answer HTTP 503 + 3000 with Retry-After
 * and never a 500; a write refused for a field the partner gave is 2001
 * naming the Terminal's field; and every call works again once the system
 * is back. Amounts follow the minor unit of their currency (ISO 4217).
 */

const API_KEY = "tms-api-key-faults-0123";
const SECRET = "tms-webhook-secret-faults-0123456789";
const CPO = { country_code: "DE", party_id: "CPX", role: "CPO" as const };
const TIMEOUT_MS = 1000;
const BASE = "/ocpi/2.3.0/sender/payments";

describe("tms adapter: the payment-terminal system failing", () => {
  const tms = new TmsSimulator(API_KEY, SECRET);
  let gateway: Gateway;
  let auth: string;
  const logs: string[] = [];

  const ocpi = (method: "get" | "put" | "patch" | "post", path: string, body?: object) => {
    const req = request(gateway.app.callback())[method](path).set("Authorization", auth);
    return body === undefined ? req : req.send(body);
  };
  /** the payments Sender interface, as the CPO partner calls it */
  const call = (method: "get" | "put" | "patch" | "post", path: string, body?: object) => ocpi(method, `${BASE}${path}`, body);
  /** the system's webhook call for one object, signed with the shared secret */
  const webhook = (event: "device.updated" | "settlement.created", id: string) => {
    const body = JSON.stringify({ event, id, at: Date.now() });
    const signature = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
    return request(gateway.app.callback()).post("/adapters/tms/webhook").set("Content-Type", "application/json").set("X-Tms-Signature", signature).send(body);
  };
  /** every read a partner and the system's webhook make */
  const reads = () => [
    call("get", "/terminals"),
    call("get", "/terminals/SER-1"),
    call("get", "/financial-advice-confirmations"),
    call("get", "/financial-advice-confirmations/SET-1"),
    webhook("device.updated", "SER-1"),
    webhook("settlement.created", "SET-1"),
  ];
  const answerOf = (res: request.Response) => ({ http: res.status, status_code: (res.body as Json).status_code as number, retry_after: res.headers["retry-after"] as string | undefined });
  const unavailable = (retryAfter = "5") => ({ http: 503, status_code: 3000, retry_after: retryAfter });
  const expectEach = async (calls: Promise<request.Response>[], expected: ReturnType<typeof answerOf>) => {
    for (const res of await Promise.all(calls)) expect(answerOf(res)).toEqual(expected);
  };
  /** with the system back, every read answers as before */
  const expectRecovered = async () => {
    tms.fault = undefined;
    const [list, one, facs, fac, device, captured] = await Promise.all(reads());
    expect([list.status, (list.body as Json).data.map((t: Json) => t.terminal_id)]).toEqual([200, expect.arrayContaining(["SER-1"])]);
    expect([one.status, (one.body as Json).data.terminal_id]).toEqual([200, "SER-1"]);
    expect([facs.status, (facs.body as Json).data.map((f: Json) => f.id)]).toEqual([200, expect.arrayContaining(["SET-1"])]);
    expect([fac.status, (fac.body as Json).data.id]).toEqual([200, "SET-1"]);
    expect([device.status, captured.status]).toEqual([200, 200]);
  };
  const withFault = (fault: TmsFault) => {
    tms.fault = fault;
  };

  beforeAll(async () => {
    await tms.start();
    tms.ship("SER-1", { state: "active", operator: { country: "DE", party: "CPX" } });
    await tms.capture(settlement("SET-1", "AUTH-1"));
    gateway = await Gateway.create(
      testGatewayConfig({
        port: 9,
        party: PTP,
        modules: { payments: { adapter: "tms", roles: ["SENDER"] }, sessions: { adapter: "local", roles: ["RECEIVER"] } },
        adapters: { tms: { base_url: tms.baseUrl, api_key: API_KEY, webhook_secret: SECRET, request_timeout_ms: TIMEOUT_MS, poll_interval_ms: 86_400_000 }, local: {} },
        partners: [{ id: "cpo", versions: ["2.3.0"] }],
      }),
      { logger: pino({ level: "debug" }, { write: (line: string) => void logs.push(line) }) },
    );
    const token = await gateway.registry.issueToken("cpo");
    await gateway.registry.recordRegistration("cpo", {
      version: "2.3.0",
      versionsUrl: "http://127.0.0.1:9/versions",
      endpoints: [],
      roles: [{ ...CPO, business_details: { name: "CPO X" } }],
      tokenToPartner: "unused-token-to-partner",
    });
    auth = `Token ${Buffer.from(token).toString("base64")}`;
    // the start's baseline poll is over before any fault is set
    await eventually(async () => expect(await gateway.store.get("tms:watermark", "settlements")).toBeDefined());
    // the CPO's Session with the settlement's reference makes SET-1 its FAC
    const session = await ocpi("put", "/ocpi/2.3.0/receiver/sessions/DE/CPX/SES-1", paidSession(CPO, "SES-1", "AUTH-1"));
    expect((session.body as Json).status_code).toBe(1000);
    await expectRecovered();
  });

  afterAll(async () => {
    await gateway?.close();
    await tms.stop();
    removeTempDirs();
  });

  it("a busy system (429) answers 503 + 3000 with its Retry-After on every read and write, and the gateway recovers", async () => {
    const busy = { status: 429, body: { error: "rate_limited", message: "slow down" }, headers: { "Retry-After": "30" } };
    withFault(busy);
    await expectEach(reads(), unavailable("30"));
    // writes: the read before each succeeds, the write itself is refused as busy
    withFault({ ...busy, on: /^(PUT|POST) \/v1\/(devices|activations)/ });
    await expectEach(
      [
        call("put", "/terminals/SER-1", { customer_reference: "CPX-1" }),
        call("patch", "/terminals/SER-1", { evse_uids: ["EVSE-1"] }),
        call("post", "/terminals/SER-1/deactivate"),
        call("post", "/terminals/activate", { customer_reference: "CPX-9" }),
      ],
      unavailable("30"),
    );
    expect(tms.devices.get("SER-1")).toMatchObject({ state: "active", merchant_ref: null });
    await expectRecovered();
  });

  it("a 400, 422 or 410 on a list, a 400 or 422 on a GET by id or the webhook's fetch: the system refused a call the gateway built, 503 + 3000, logged for the operator", async () => {
    for (const status of [400, 422]) {
      withFault({ status, body: { error: "bad_request", message: "cursor is malformed" } });
      await expectEach(reads(), unavailable());
    }
    withFault({ status: 410, body: { error: "gone" }, on: /^GET \/v1\/(devices|settlements)$/ });
    await expectEach([call("get", "/terminals"), call("get", "/financial-advice-confirmations")], unavailable());
    expect(logs.some((line) => line.includes("refused the gateway's call") && line.includes('"status":422') && line.includes("bad_request"))).toBe(true);
    for (const line of logs) for (const secret of [API_KEY, SECRET]) expect(line).not.toContain(secret);
    await expectRecovered();
  });

  it("a 410 on a GET by id or a write is an unknown terminal (HTTP 404), as a 404 is", async () => {
    withFault({ status: 410, body: { error: "gone" }, on: /^GET \/v1\/devices\/SER-1$/ });
    expect(answerOf(await call("get", "/terminals/SER-1"))).toEqual({ http: 404, status_code: 2001, retry_after: undefined });
    withFault({ status: 410, body: { error: "gone" }, on: /^POST \/v1\/devices\/SER-1\/deactivate$/ });
    expect(answerOf(await call("post", "/terminals/SER-1/deactivate"))).toEqual({ http: 404, status_code: 2001, retry_after: undefined });
    expect(tms.devices.get("SER-1")!.state).toBe("active");
    await expectRecovered();
  });

  it("a write refused for a field the partner gave is 2001 naming the Terminal's field; a refusal naming none is 503 + 3000", async () => {
    const refused = async (fault: TmsFault, req: Promise<request.Response>) => {
      withFault(fault);
      const res = await req;
      return [res.status, (res.body as Json).status_code, (res.body as Json).status_message];
    };
    expect(await refused({ status: 422, body: { error: "invalid", message: "zip longer than 10", field: "site.zip" }, on: /^PUT / }, call("put", "/terminals/SER-1", { postal_code: "12345" }))).toEqual([
      200,
      2001,
      "/postal_code: refused by the payment-terminal system (invalid: zip longer than 10)",
    ]);
    expect(await refused({ status: 400, body: { error: "invalid", message: "unknown point", field: "points[1]" }, on: /^POST .*assignments$/ }, call("patch", "/terminals/SER-1", { evse_uids: ["E1", "E2"] }))).toEqual([
      200,
      2001,
      "/evse_uids/1: refused by the payment-terminal system (invalid: unknown point)",
    ]);
    expect(await refused({ status: 422, body: { error: "invalid", field: "merchant_ref" }, on: /^POST \/v1\/activations$/ }, call("post", "/terminals/activate", { customer_reference: "CPX-9" }))).toEqual([
      200,
      2001,
      "/customer_reference: refused by the payment-terminal system (invalid: invalid)",
    ]);
    // naming nothing, or a field no Terminal field gives: not the partner's to fix
    for (const body of [{ error: "bad_request", message: "malformed" }, { error: "invalid", field: "model" }, "<html>Bad Request</html>"]) {
      withFault({ status: 400, body, on: /^PUT / });
      expect(answerOf(await call("put", "/terminals/SER-1", { customer_reference: "CPX-1" }))).toEqual(unavailable());
    }
    expect(tms.devices.get("SER-1")).toMatchObject({ merchant_ref: null, site: null, assigned: { sites: [], points: [] } });
    await expectRecovered();
  });

  it("a body that stalls after the headers past request_timeout_ms is 503 + 3000, on a read, a write and the webhook's fetch", async () => {
    withFault({ status: 200, body: tms.devices.get("SER-1"), stall: true });
    await expectEach([call("get", "/terminals/SER-1"), call("get", "/financial-advice-confirmations"), webhook("device.updated", "SER-1")], unavailable());
    withFault({ status: 200, body: tms.devices.get("SER-1"), stall: true, on: /^PUT / });
    expect(answerOf(await call("put", "/terminals/SER-1", { customer_reference: "CPX-1" }))).toEqual(unavailable());
    expect(logs.some((line) => line.includes("payment-terminal system unreachable") && line.includes("TimeoutError"))).toBe(true);
    await expectRecovered();
  });

  it("a body that is not JSON, or JSON not of TMS v1's shape, is 503 + 3000 on every read and write", async () => {
    for (const [status, body] of [
      [200, "<html>proxy error</html>"],
      [502, "<html>Bad Gateway</html>"],
      [429, "Too Many Requests"],
      [200, { items: "none", serial: 7, settlement_id: 7 }],
      [200, { items: [{ serial: "SER-1" }], next_cursor: null }],
      [200, { items: [{ settlement_id: "SET-1", currency: "EUR" }], next_cursor: null }],
    ] as const) {
      withFault({ status, body });
      await expectEach(reads(), unavailable());
    }
    withFault({ status: 200, body: { serial: "SER-1", updated: "yesterday" }, on: /^PUT / });
    expect(answerOf(await call("put", "/terminals/SER-1", { customer_reference: "CPX-1" }))).toEqual(unavailable());
    expect(logs.some((line) => line.includes("a body TMS v1 does not allow"))).toBe(true);
    await expectRecovered();
  });

  it("a webhook body over the byte limit every body has (server.inbound.max_body_bytes) is HTTP 413 naming it, and nothing is fetched", async () => {
    const before = tms.requests.length;
    const body = JSON.stringify({ event: "device.updated", id: "SER-1", at: Date.now(), padding: "x".repeat(3 * 1024 * 1024) });
    const signature = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
    const res = await request(gateway.app.callback()).post("/adapters/tms/webhook").set("Content-Type", "application/json").set("X-Tms-Signature", signature).send(body);
    expect(res.status).toBe(413);
    expect((res.body as Json).status_message).toMatch(/server\.inbound\.max_body_bytes/);
    expect(tms.requests.length).toBe(before);
  });

  it("amounts are in the minor unit of their currency: 0 decimals for JPY, 3 for KWD, 2 for EUR", async () => {
    tms.fault = undefined;
    const captures = [
      ["SET-JPY", "JPY", 1100, 100, { before_taxes: 1000, taxes: [{ name: "VAT", percentage: 10, amount: 100 }] }],
      ["SET-KWD", "KWD", 12345, 1234, { before_taxes: 11.111, taxes: [{ name: "VAT", percentage: 10, amount: 1.234 }] }],
      ["SET-EUR", "EUR", 440, 40, { before_taxes: 4, taxes: [{ name: "VAT", percentage: 10, amount: 0.4 }] }],
    ] as const;
    for (const [id, currency, amount, vat] of captures) await tms.capture(settlement(id, "AUTH-1", { currency, amount_minor: amount, vat_minor: vat }));
    for (const [id, currency, , , total] of captures) {
      const res = await call("get", `/financial-advice-confirmations/${id}`);
      expect([res.status, (res.body as Json).data]).toEqual([200, expect.objectContaining({ id, currency, total_costs: total })]);
    }
  });
});
