import "reflect-metadata";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, type HttpResult } from "../support/gateway-process";
import { cdrOf, sessionOf } from "../support/ocpi-objects";

/**
 * Issue #8 item 9: a CPO offers sessions and CDRs to partners only as
 * SENDER (partners must not push sessions to it), yet its backend reports
 * its own sessions and CDRs through POST /admin/v1/events: they are stored
 * through the adapter's RECEIVER port, pushed to the registered eMSP and
 * served on the CPO's sender lists, while the RECEIVER interface stays out
 * of reach of partners (404, not in the version details).
 */

type Json = Record<string, any>;

const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
const OWNER = { country_code: "NL", party_id: "CPO" };
const ADMIN_TOKEN = "backend-events-admin-token-0123456789";
const VERSION = "2.2.1";
const silent = { logger: pino({ level: "silent" }) };

const STAMP = "2025-02-01T10:00:00Z";
const LATER = "2025-02-01T11:00:00Z";
const session = (id: string, status: string, extra: Json = {}): Json => ({ ...sessionOf({ owner: OWNER, id, status, start: STAMP, kwh: 3 }), ...extra });

const cdr = (id: string): Json => cdrOf({ owner: OWNER, id, start: STAMP, end: LATER, kwh: 3, cost: 1.2 });

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe("backend events of a CPO serving sessions and CDRs only as SENDER", () => {
  let cpo: Gateway;
  let emsp: Gateway;
  let cpoUrl: string;
  let emspUrl: string;
  /** the token each side uses with the other */
  let cpoToken: string;
  let emspToken: string;

  const postEvent = (event: Json): Promise<HttpResult> =>
    ocpiRequest("POST", `${cpoUrl}/admin/v1/events`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body: event });
  /** the eMSP's copy, read through its receiver interface as the CPO would */
  const heldByEmsp = async (route: string): Promise<Json | undefined> => {
    const result = await ocpiRequest("GET", `${emspUrl}/ocpi/${VERSION}/receiver/${route}`, { token: cpoToken });
    return result.status === 404 ? undefined : result.body.data;
  };
  /** what the eMSP reads from the CPO */
  const atCpo = (method: string, route: string, body?: unknown): Promise<HttpResult> =>
    ocpiRequest(method, `${cpoUrl}/ocpi/${VERSION}${route}`, { token: emspToken, body });

  beforeAll(async () => {
    const [cpoPort, emspPort] = await freePorts(2);
    const tokenA = `backend-events-token-A-${cpoPort}`;
    cpo = await Gateway.create(
      testGatewayConfig({
        port: cpoPort,
        party: CPO,
        modules: { sessions: { adapter: "local", roles: ["SENDER"] }, cdrs: { adapter: "local", roles: ["SENDER"] } },
        server: { admin_token: ADMIN_TOKEN },
        partners: [{ id: "emsp", token_a: tokenA, versions_url: versionsUrlOf(emspPort), push: { base_delay_ms: 50 } }],
      }),
      silent,
    );
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: EMSP,
        modules: { sessions: { adapter: "local" }, cdrs: { adapter: "local" } },
        partners: [{ id: "cpo", token_a: tokenA, versions_url: versionsUrlOf(cpoPort), versions: [VERSION] }],
      }),
      silent,
    );
    await cpo.listen();
    await emsp.listen();
    cpoUrl = `http://127.0.0.1:${cpoPort}`;
    emspUrl = `http://127.0.0.1:${emspPort}`;
    expect(await emsp.credentials.register("cpo")).toMatchObject({ status: "registered", version: VERSION });
    cpoToken = (await cpo.registry.get("emsp"))!.tokenToPartner!;
    emspToken = (await emsp.registry.get("cpo"))!.tokenToPartner!;
  });

  afterAll(async () => {
    await Promise.all([cpo?.close(), emsp?.close()]);
    removeTempDirs();
  });

  it("takes a session event, pushes the session to the eMSP and serves it on its sender list", async () => {
    const res = await postEvent({ module: "sessions", owner: OWNER, path: ["SES1"], kind: "upsert", object: session("SES1", "ACTIVE") });
    expect(res.body).toMatchObject({ status_code: 1000 });
    await until("the eMSP holds SES1", async () => (await heldByEmsp("sessions/NL/CPO/SES1"))?.status === "ACTIVE");

    const patched = await postEvent({ module: "sessions", owner: OWNER, path: ["SES1"], kind: "patch", object: { kwh: 7, last_updated: LATER } });
    expect(patched.body).toMatchObject({ status_code: 1000 });
    await until("the eMSP holds the patched SES1", async () => (await heldByEmsp("sessions/NL/CPO/SES1"))?.kwh === 7);

    // from the PATCH's last_updated on: the sessions other tests post are older
    const list = await atCpo("GET", `/sender/sessions?date_from=${encodeURIComponent(LATER)}`);
    expect(list.body.status_code).toBe(1000);
    expect(list.body.data).toEqual([expect.objectContaining({ id: "SES1", kwh: 7 })]);
  });

  it("takes a CDR event, pushes the CDR to the eMSP and serves it on its sender list", async () => {
    const res = await postEvent({ module: "cdrs", owner: OWNER, path: ["CDR1"], kind: "upsert", object: cdr("CDR1") });
    expect(res.body).toMatchObject({ status_code: 1000 });
    await until("the eMSP holds CDR1", async () => (await heldByEmsp("cdrs/NL/CPO/CDR1"))?.id === "CDR1");

    const list = await atCpo("GET", "/sender/cdrs");
    expect(list.body.status_code).toBe(1000);
    expect(list.body.data.map((c: Json) => c.id)).toEqual(["CDR1"]);
  });

  it("matches the path's id to the object's case-insensitively (a CiString)", async () => {
    const res = await postEvent({ module: "sessions", owner: OWNER, path: ["ses2"], kind: "upsert", object: session("SES2", "ACTIVE") });
    expect(res.body).toMatchObject({ status_code: 1000 });
    const other = await postEvent({ module: "sessions", owner: OWNER, path: ["SES3"], kind: "upsert", object: session("SES2", "ACTIVE") });
    expect(other.body.status_code).toBe(2001);
    expect(other.body.status_message).toContain("/object/id");
  });

  it("refuses an event with a control character, naming the field, and stores nothing", async () => {
    const res = await postEvent({ module: "sessions", owner: OWNER, path: ["SES9"], kind: "upsert", object: session("SES9", "ACTIVE", { meter_id: "M\u0007" }) });
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/object/meter_id: must be printable");
    const list = await atCpo("GET", `/sender/sessions?date_from=${encodeURIComponent("2025-01-01T00:00:00Z")}`);
    expect(list.body.data.map((s: Json) => s.id)).not.toContain("SES9");
  });

  it("offers partners no RECEIVER interface of sessions or CDRs: 404, and not in the version details", async () => {
    const put = await atCpo("PUT", "/receiver/sessions/DE/EMS/SESX", { ...session("SESX", "ACTIVE"), country_code: "DE", party_id: "EMS" });
    expect(put.status).toBe(404);
    const get = await atCpo("GET", "/receiver/sessions/NL/CPO/SES1");
    expect(get.status).toBe(404);
    const post = await atCpo("POST", "/receiver/cdrs", { ...cdr("CDRX"), country_code: "DE", party_id: "EMS" });
    expect(post.status).toBe(404);

    const details = await ocpiRequest("GET", `${cpoUrl}/ocpi/${VERSION}`, { token: emspToken });
    expect(details.body.status_code).toBe(1000);
    const endpoints = (details.body.data.endpoints as Json[]).map((e) => `${e.identifier}:${e.role}`);
    expect(endpoints).toEqual(expect.arrayContaining(["sessions:SENDER", "cdrs:SENDER"]));
    expect(endpoints).not.toContain("sessions:RECEIVER");
    expect(endpoints).not.toContain("cdrs:RECEIVER");
  });
});
