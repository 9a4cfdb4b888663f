import "reflect-metadata";
import type http from "node:http";
import path from "node:path";
import type { z } from "zod";
import { Gateway } from "../../app/gateway";
import { Outbox } from "../../core/outbox/outbox";
import { openStore } from "../../core/store/open-store";
import { elementOf, shapeOf } from "../../core/model/schema-walk";
import { sessionType } from "../../plugins/sessions/translate";
import { cdrType } from "../../plugins/cdrs/translate";
import { captureLogs } from "../support/log-capture";
import { removeTempDirs, tempDir, type PartnerSpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, runCli, writeGatewayConfig, type HttpResult, type WrittenConfig } from "../support/gateway-process";
import { LoopbackPartner } from "../support/loopback-server";
import { cdrOf, EMS_CDR_TOKEN, sessionOf, stamp } from "../support/ocpi-objects";

/**
 * Issue #23 G8: the outbox keeps the canonical object and renders it for the
 * partner when it delivers it, from the partner's registration and config of
 * that moment. A CPO gateway (in-process, SQLite file) pushes Sessions and
 * CDRs to two eMSPs written here with node:http:
 * - "strict" validates like a Python/pydantic service: every optional key of
 *   its 2.2.1 model must be present (null allowed) and a list must be a list
 *   (HTTP 422 "Field required" / "Input should be a valid list"). A CDR it
 *   refused is dead-lettered; the operator turns `send_nulls_for_optional`
 *   on, restarts the gateway and runs `ocpi-gateway outbox retry`: the CDR
 *   goes out again with nulls and `[]`, and is taken.
 * - "upgrading" is registered in 2.2.1 and unreachable there (its 2.2.1
 *   endpoints answer 503) while a CDR waits for it; it then moves to 2.3.0
 *   (PUT on our 2.3.0 credentials) and gets the CDR in 2.3.0, at its 2.3.0
 *   endpoint.
 * A message queued by a gateway from before (a wire body, no canonical
 * object) is still delivered, as it was queued.
 * Each test has a world of its own (beforeEach): both eMSPs, the gateway on
 * its own SQLite file and config with send_nulls_for_optional off, both
 * registered in 2.2.1, and its own log capture.
 */

type Json = Record<string, any>;

const ADMIN_TOKEN = "render-at-delivery-admin-token-0123456789";
const OWNER = { country_code: "NL", party_id: "CPO" };
const UPG_TOKEN = { ...EMS_CDR_TOKEN, party_id: "UPG", uid: "U1", contract_id: "DE-UPG-CU1", type: "EMAID" };

/* ---------------------------------------------------------------- the eMSPs, written with node:http */

interface Received {
  method: string;
  version: string;
  module: string;
  /** the path below the module endpoint */
  rest: string;
  body: Json;
  status: number;
}

/** The keys a pydantic model of the 2.2.1 object declares as Optional (the key must be there, null allowed), and its list fields (a list, never null). */
interface Model {
  keys: string[];
  lists: string[];
  /** nested models, by field */
  nested?: Record<string, Model>;
}

const CDR_221: Model = {
  keys: ["session_id", "authorization_reference", "meter_id", "signed_data", "total_fixed_cost", "total_parking_time", "remark", "invoice_reference_id", "credit"],
  lists: ["tariffs", "charging_periods"],
  nested: { cdr_location: { keys: ["name", "postal_code", "state"], lists: [] } },
};
const SESSION_221: Model = { keys: ["end_date_time", "authorization_reference", "meter_id", "total_cost"], lists: ["charging_periods"] };

/** What pydantic answers an object its model refuses: one entry per problem, no envelope. */
const problemsOf = (model: Model, body: Json, at: string[] = ["body"]): Json[] => [
  ...model.keys.filter((k) => !(k in body)).map((k) => ({ type: "missing", loc: [...at, k], msg: "Field required" })),
  ...model.lists.filter((k) => !Array.isArray(body[k])).map((k) => ({ type: "list_type", loc: [...at, k], msg: "Input should be a valid list", input: body[k] })),
  ...Object.entries(model.nested ?? {}).flatMap(([k, nested]) => (body[k] && typeof body[k] === "object" ? problemsOf(nested, body[k], [...at, k]) : [])),
];

class FakeEmsp extends LoopbackPartner {
  readonly received: Received[] = [];
  /** the versions it offers (its versions endpoint) */
  offered = ["2.2.1"];
  /**
   * the versions whose pushes are answered 503 (as a partner whose service there is down): by version, so
   * that an attempt rendered for 2.2.1 and still on its way when the partner has moved to 2.3.0 is refused
   * whenever it arrives, never taken in 2.2.1
   */
  readonly down = new Set<string>();

  /** `models`: the pydantic models it validates pushes with, by module (none: it takes any object) */
  constructor(private readonly models: Record<string, Model> = {}) {
    super();
  }


  /** pushes of one object taken (2xx) */
  taken(id: string): Received[] {
    return this.received.filter((r) => r.body.id === id && r.status < 300);
  }

  protected answer(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const ok = (data: unknown = null) => ({ status_code: 1000, data, timestamp: new Date().toISOString() });
    const url = req.url ?? "";
    if (url === "/versions") return reply(200, ok(this.offered.map((version) => ({ version, url: `${this.base}/${version}/details` }))));
    const details = /^\/([\d.]+)\/details$/.exec(url);
    if (details) {
      const endpoints = ["credentials", "sessions", "cdrs"].map((identifier) => ({ identifier, role: "RECEIVER", url: `${this.base}/${details[1]}/${identifier}` }));
      return reply(200, ok({ version: details[1], endpoints }));
    }
    const push = /^\/([\d.]+)\/(sessions|cdrs)(\/.*)?$/.exec(url);
    if (!push) return reply(404, { status_code: 2000, timestamp: new Date().toISOString() });
    const [, version, module, rest = ""] = push;
    const body = (text ? JSON.parse(text) : {}) as Json;
    const model = version === "2.2.1" ? this.models[module] : undefined;
    const problems = model ? problemsOf(model, body) : [];
    const down = this.down.has(version);
    const status = down ? 503 : problems.length > 0 ? 422 : req.method === "POST" ? 201 : 200;
    this.received.push({ method: req.method ?? "", version, module, rest, body, status });
    if (down) return reply(503, { message: "maintenance" });
    if (problems.length > 0) return reply(422, { detail: problems });
    reply(status, ok());
  }
}

/* ---------------------------------------------------------------- helpers */

const until = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/**
 * Every place in `value` where `schema` expects a list (a field whose type is an array, in nested objects and
 * list items too), with what is there: the check that no list is ever sent as null.
 */
const listsIn = (schema: z.ZodType, value: unknown, at = ""): { at: string; sent: unknown }[] => {
  if (Array.isArray(value)) {
    const element = elementOf(schema);
    return element ? value.flatMap((item, i) => listsIn(element, item, `${at}/${i}`)) : [];
  }
  const shape = value !== null && typeof value === "object" ? shapeOf(schema) : undefined;
  if (!shape) return [];
  return Object.entries(shape).flatMap(([key, field]) => {
    const sent = (value as Json)[key];
    return [...(elementOf(field) ? [{ at: `${at}/${key}`, sent }] : []), ...listsIn(field, sent, `${at}/${key}`)];
  });
};

const partnerTokens = { strict: "strict-emsp-token-for-the-cpo-0123456789", upgrading: "upgrading-emsp-token-for-the-cpo-0123456789" };
/* the test's world (beforeEach) */
let logs: ReturnType<typeof captureLogs>;
let strict: FakeEmsp;
let upgrading: FakeEmsp;
/** the tokens we gave them at registration */
let ourTokens: Record<string, string>;
let gatewayPort: number;
let gatewayUrl: string;
let storeFile: string;
let configDir: string;
let written: WrittenConfig;
let gateway: Gateway | undefined;

const partners = (sendNulls: boolean): PartnerSpec[] => [
  { id: "strict", token_a: "strict-token-a-0123456789", callback_hosts: [new URL(strict.base).host], push: { base_delay_ms: 50, max_delay_ms: 200 }, send_nulls_for_optional: sendNulls },
  { id: "upgrading", token_a: "upgrading-token-a-0123456789", callback_hosts: [new URL(upgrading.base).host], push: { base_delay_ms: 50, max_delay_ms: 200 } },
];

/** Writes the config (the same store, port and folder each time) and starts the gateway on it. */
const startGateway = async (sendNulls: boolean): Promise<void> => {
  written = writeGatewayConfig(
    {
      port: gatewayPort,
      party: { ...OWNER, role: "CPO" },
      store: { type: "sqlite", path: storeFile },
      modules: { sessions: { adapter: "local" }, cdrs: { adapter: "local" } },
      server: { admin_token: ADMIN_TOKEN },
      partners: partners(sendNulls),
    },
    configDir,
  );
  gateway = await Gateway.create(written.config, { logger: logs.logger });
  await gateway.listen();
};

const stopGateway = async (): Promise<void> => {
  await gateway?.close();
  gateway = undefined;
};

const admin = (method: string, route: string, body?: unknown): Promise<HttpResult> =>
  ocpiRequest(method, `${gatewayUrl}/admin/v1${route}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body });

const postEvent = async (event: unknown): Promise<void> => {
  const result = await admin("POST", "/events", event);
  if (result.status !== 200 || result.body?.status_code !== 1000) throw new Error(`event refused: HTTP ${result.status} ${result.text}`);
};

const pushCdr = (cdr: Json) => postEvent({ module: "cdrs", owner: OWNER, path: [cdr.id], kind: "upsert", object: cdr });
const pushSession = (session: Json) => postEvent({ module: "sessions", owner: OWNER, path: [session.id], kind: "upsert", object: session });

const queueOf = async (partner: string): Promise<Json> => (await admin("GET", "/outbox")).body.data.find((p: Json) => p.partner === partner);

const register = async (id: keyof typeof partnerTokens, emsp: FakeEmsp, partyId: string, version = "2.2.1", method = "POST"): Promise<void> => {
  const answer = await ocpiRequest(method, `${gatewayUrl}/ocpi/${version}/credentials`, {
    token: method === "POST" ? partners(false).find((p) => p.id === id)!.token_a! : ourTokens[id],
    body: { token: partnerTokens[id], url: `${emsp.base}/versions`, roles: [{ role: "EMSP", country_code: "DE", party_id: partyId, business_details: { name: partyId } }] },
  });
  expect(answer.body).toMatchObject({ status_code: 1000 });
  ourTokens[id] = answer.body.data.token;
  logs.watch(ourTokens[id]);
};

/** "upgrading" moves from 2.2.1 to 2.3.0: it offers both, and updates its registration on our 2.3.0 credentials. */
const moveUpgradingTo230 = async (): Promise<void> => {
  upgrading.offered = ["2.2.1", "2.3.0"];
  await register("upgrading", upgrading, "UPG", "2.3.0", "PUT");
};

beforeEach(async () => {
  logs = captureLogs();
  strict = new FakeEmsp({ cdrs: CDR_221, sessions: SESSION_221 });
  upgrading = new FakeEmsp();
  ourTokens = {};
  await strict.start();
  await upgrading.start();
  [gatewayPort] = await freePorts(1);
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  configDir = tempDir("ocpi-render-");
  storeFile = path.join(configDir, "gateway.db");
  await startGateway(false);
  await register("strict", strict, "EMS");
  await register("upgrading", upgrading, "UPG");
  logs.watch(ADMIN_TOKEN, partnerTokens.strict, partnerTokens.upgrading);
}, 30_000);

/** What holds after every test, whatever it did: no token appears in a log line. */
afterEach(async () => {
  try {
    expect(logs.leaks()).toEqual([]);
  } finally {
    await stopGateway();
    await strict.close();
    await upgrading.close();
  }
});

afterAll(() => removeTempDirs());

/* ---------------------------------------------------------------- tests */

describe("a queued message is rendered for the partner when it is delivered", () => {
  it("G8: a CDR refused for missing keys goes out with nulls and [] once send_nulls_for_optional is on and `outbox retry` re-sends it", async () => {
    const cdr = cdrOf({ owner: OWNER, id: "CDR-G8", start: stamp(100), end: stamp(160), kwh: 7, cost: 2.5 });
    await pushCdr(cdr);
    await until("the refused CDR is dead-lettered", async () => (await queueOf("strict")).dead_lettered === 1);
    const [refused] = strict.received.filter((r) => r.body.id === "CDR-G8");
    expect(refused).toMatchObject({ status: 422, version: "2.2.1" });
    expect(refused.body).not.toHaveProperty("remark");

    // the operator's fix: the partner needs every key; the config takes effect when the gateway restarts
    await stopGateway();
    await startGateway(true);
    const cli = await runCli(["outbox", "retry", "strict"], written.file, { cwd: written.dir });
    expect(cli).toMatchObject({ code: 0 });
    expect(cli.stdout).toContain("Re-queued 1 dead letter for strict");

    await until("the CDR is taken", () => strict.taken("CDR-G8").length === 1);
    const [taken] = strict.taken("CDR-G8");
    expect(taken).toMatchObject({ method: "POST", version: "2.2.1", status: 201 });
    expect(taken.body).toMatchObject({ id: "CDR-G8", remark: null, signed_data: null, credit: null, tariffs: [], cdr_location: { name: null, state: null } });
    // present lists are kept, their items' optional keys filled in as well
    expect(taken.body.charging_periods).toEqual(cdr.charging_periods.map((period: Json) => ({ ...period, tariff_id: null })));
    await until("no dead letter is left", async () => (await queueOf("strict")).dead_lettered === 0);
  });

  it("send_nulls_for_optional: a Session and a CDR carry [] for every list they leave out, never null", async () => {
    // the operator turns it on for strict (the world starts with it off); it takes effect when the gateway restarts
    await stopGateway();
    await startGateway(true);
    const session = sessionOf({ owner: OWNER, id: "S-LISTS", status: "ACTIVE", start: stamp(200), kwh: 1 });
    expect(session).not.toHaveProperty("charging_periods");
    await pushSession(session);
    const cdr = cdrOf({ owner: OWNER, id: "CDR-LISTS", start: stamp(300), end: stamp(360), kwh: 4, cost: 1.5 });
    await pushCdr(cdr);
    await until("both are taken", () => strict.taken("S-LISTS").length === 1 && strict.taken("CDR-LISTS").length === 1);

    const sent = { session: strict.taken("S-LISTS")[0].body, cdr: strict.taken("CDR-LISTS")[0].body };
    expect(sent.session).toMatchObject({ charging_periods: [], end_date_time: null, total_cost: null });
    expect(sent.cdr).toMatchObject({ tariffs: [], invoice_reference_id: null });
    const lists = [...listsIn(sessionType.schema("2.2.1", "full"), sent.session), ...listsIn(cdrType.schema("2.2.1", "full"), sent.cdr)];
    // the Session's charging_periods, the CDR's tariffs and charging_periods, and the dimensions of each period at least
    expect(lists.length).toBeGreaterThanOrEqual(4);
    for (const list of lists) expect({ at: list.at, isList: Array.isArray(list.sent) }).toEqual({ at: list.at, isList: true });
  });

  it("a partner that moved from 2.2.1 to 2.3.0 while a CDR waited gets it in 2.3.0", async () => {
    upgrading.down.add("2.2.1");
    const cdr = cdrOf({ owner: OWNER, id: "CDR-UPG", start: stamp(400), end: stamp(460), kwh: 9, cost: 3, token: UPG_TOKEN });
    await pushCdr(cdr);
    await until("a first attempt reached its 2.2.1 endpoint", () => upgrading.received.some((r) => r.body.id === "CDR-UPG"));
    // 2.2.1 has no EMAID token type: that attempt carried OTHER
    expect(upgrading.received.find((r) => r.body.id === "CDR-UPG")).toMatchObject({ version: "2.2.1", body: { cdr_token: { type: "OTHER" } } });

    // its 2.2.1 endpoints stay down: only the move lets the CDR through
    await moveUpgradingTo230();

    await until("the CDR is taken", () => upgrading.taken("CDR-UPG").length === 1);
    expect(upgrading.taken("CDR-UPG")[0]).toMatchObject({ version: "2.3.0", module: "cdrs", body: { cdr_token: { type: "EMAID", uid: "U1" } } });
    const lost = logs.lines.map((l) => JSON.parse(l) as Json).filter((l) => l.msg === "field dropped by version translation" && l.partner === "upgrading");
    expect(lost.map((l) => l.version)).toEqual(["2.2.1"]);
  });

  it("a message queued by a gateway from before, with its body already in the wire form, is delivered as it was queued", async () => {
    // the queue as an earlier gateway left it: a CDR translated to 2.2.1 (token type OTHER) when it was queued
    const wire = { ...cdrOf({ owner: OWNER, id: "CDR-OLD", start: stamp(500), end: stamp(560), kwh: 2, cost: 1, token: UPG_TOKEN }), cdr_token: { ...UPG_TOKEN, type: "OTHER" } };
    // the partner has moved to 2.3.0 since (moveUpgradingTo230, as the 2.2.1 -> 2.3.0 test has it move)
    await moveUpgradingTo230();
    await stopGateway();
    const store = await openStore(written.config.store);
    try {
      await new Outbox(store).enqueue({
        partnerId: "upgrading",
        request: { method: "POST", target: { module: "cdrs", role: "RECEIVER", path: "" }, body: wire, from: OWNER, to: { country_code: "DE", party_id: "UPG" } },
        label: "POST cdrs NLCPO/CDR-OLD",
        orderKey: "cdrs:NLCPO/CDR-OLD",
        essential: true,
      });
    } finally {
      await store.close();
    }
    await startGateway(true);

    await until("the old message is taken", () => upgrading.taken("CDR-OLD").length === 1);
    // the partner is on 2.3.0 now: its 2.3.0 endpoint got the body exactly as it was queued
    expect(upgrading.taken("CDR-OLD")[0]).toMatchObject({ version: "2.3.0", status: 201 });
    expect(upgrading.taken("CDR-OLD")[0].body).toEqual(wire);
    await until("its queue is empty", async () => (await queueOf("upgrading")).queued === 0);
  });
});
