import "reflect-metadata";
import { ADMIN_TOKEN, envelope2001, FakeEmsp, htmlPage500, type Json, OTHER_TOKEN_B64, OWNER, PARTNER_TOKEN, TOKEN_A, validation422 } from "./dead-letters.fixtures";
import { Gateway } from "../../app/gateway";
import { captureLogs, secretForms } from "../support/log-capture";
import { removeTempDirs } from "../support/gateway-config";
import { freePorts, ocpiRequest, runCli, writeGatewayConfig, type HttpResult, type WrittenConfig } from "../support/gateway-process";
import { numberedCdr, sessionAt } from "../support/ocpi-objects";

/**
 * Issue #9 item 5 and issue #25 item 2: nothing a partner refuses is ever
 * silently discarded. A CPO gateway (in-process, SQLite file) pushes CDRs
 * and sessions to an eMSP written here with node:http, which answers the way
 * real frameworks do: HTTP 422 with a validation body and no envelope, 400
 * with a 2001 envelope, an HTML 500 page, each echoing our Authorization
 * header back. Every refused push, a CDR, a final session or an active one,
 * lands in the partner's dead letters (admin API, logs) without holding its
 * queue; once the partner is fixed they are re-sent by the real CLI process
 * on the same store, or by the admin routes, and arrive exactly once.
 */

/* ---------------------------------------------------------------- helpers */

const until = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/**
 * Each test has its own world: an eMSP, a CPO gateway on its own SQLite file
 * and config (the CLI runs on the same store), the registration between them,
 * its own log capture and record of answers. A test sets up every dead letter
 * it reads; none finds another's.
 */
interface World {
  emsp: FakeEmsp;
  cpo: Gateway;
  cpoUrl: string;
  written: WrittenConfig;
  logs: ReturnType<typeof captureLogs>;
  /** every answer of the admin API and every CLI output, searched for our token after the test */
  recorded: string[];
  /** the CDR ids the test pushed */
  cdrs: string[];
}
let w: World;

const admin = async (method: string, route: string, body?: unknown): Promise<HttpResult> => {
  const result = await ocpiRequest(method, `${w.cpoUrl}/admin/v1${route}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body });
  w.recorded.push(result.text);
  return result;
};

const cli = async (...args: string[]) => {
  const result = await runCli(["outbox", "retry", "emsp", ...args], w.written.file, { cwd: w.written.dir });
  w.recorded.push(result.stdout, result.stderr);
  return result;
};

const postEvent = async (event: unknown): Promise<void> => {
  const result = await admin("POST", "/events", event);
  if (result.status !== 200 || result.body?.status_code !== 1000) throw new Error(`event refused: HTTP ${result.status} ${result.text}`);
};
const pushCdr = (n: number) => {
  w.cdrs.push(numberedCdr(n).id);
  return postEvent({ module: "cdrs", owner: OWNER, path: [numberedCdr(n).id], kind: "upsert", object: numberedCdr(n) });
};
const pushSession = (id: string, status: string, at: number) => postEvent({ module: "sessions", owner: OWNER, path: [id], kind: "upsert", object: sessionAt(id, status, at) });

const outbox = async (): Promise<Json> => {
  const result = await admin("GET", "/outbox");
  expect(result.body.status_code).toBe(1000);
  return result.body.data.find((p: Json) => p.partner === "emsp");
};

const deadLetters = async (query = ""): Promise<Json> => {
  const result = await admin("GET", `/outbox/emsp/dead-letters${query}`);
  expect(result.body.status_code).toBe(1000);
  return result.body.data;
};

const idle = async () => until("the queue is empty", async () => (await outbox()).queued === 0);

const logged = (msg: string): Json[] => w.logs.lines.map((l) => JSON.parse(l) as Json).filter((l) => l.msg === msg);

beforeEach(async () => {
  const emsp = new FakeEmsp();
  await emsp.start();
  const [port] = await freePorts(1);
  const written = writeGatewayConfig({
    port,
    party: { country_code: "NL", party_id: "CPO", role: "CPO" },
    modules: { sessions: { adapter: "local" }, cdrs: { adapter: "local" } },
    server: { admin_token: ADMIN_TOKEN },
    // the eMSP is on loopback, which only a host named in config may be
    partners: [{ id: "emsp", token_a: TOKEN_A, callback_hosts: [new URL(emsp.base).host], push: { base_delay_ms: 50, max_delay_ms: 200 } }],
  });
  const logs = captureLogs();
  const cpo = await Gateway.create(written.config, { logger: logs.logger });
  await cpo.listen();
  w = { emsp, cpo, cpoUrl: `http://127.0.0.1:${port}`, written, logs, recorded: [], cdrs: [] };
  const registration = await ocpiRequest("POST", `${w.cpoUrl}/ocpi/2.2.1/credentials`, {
    token: TOKEN_A,
    body: {
      token: PARTNER_TOKEN,
      url: `${emsp.base}/versions`,
      roles: [{ role: "EMSP", country_code: "DE", party_id: "EMS", business_details: { name: "EMS" } }],
    },
  });
  expect(registration.body).toMatchObject({ status_code: 1000 });
  logs.watch(PARTNER_TOKEN, TOKEN_A, ADMIN_TOKEN, registration.body.data.token, OTHER_TOKEN_B64);
}, 30_000);

/**
 * What holds after every test, whatever it did: no CDR is dropped (each one
 * pushed reached the partner exactly once, or is still a dead letter and never
 * arrived), and no token appears in any log line, admin answer or CLI output.
 */
afterEach(async () => {
  try {
    const lettered = new Set(((await deadLetters("?limit=100")).dead_letters as Json[]).map((l) => String(l.request.body.id)));
    for (const id of w.cdrs) expect(`${id}: ${w.emsp.deliveries(id, 201).length} deliveries${lettered.has(id) ? ", a dead letter" : ""}`).toMatch(/: (1 deliveries|0 deliveries, a dead letter)$/);
    expect(w.logs.leaks()).toEqual([]);
    for (const secret of [...secretForms(PARTNER_TOKEN), OTHER_TOKEN_B64]) for (const text of w.recorded) expect(text).not.toContain(secret);
  } finally {
    await w.cpo.close();
    await w.emsp.close();
  }
}, 30_000);

afterAll(() => removeTempDirs());

/* ---------------------------------------------------------------- tests */

describe("a push the partner rejects is dead-lettered, not dropped", () => {
  it("a CDR answered HTTP 422 without envelope is dead-lettered with the answer; the messages behind it are delivered", async () => {
    w.emsp.behaviour = (_method, id, authorization, body) => (id === "CDR-0001" ? validation422(authorization, body) : undefined);
    await pushCdr(1);
    await pushSession("S1", "ACTIVE", 10);
    await pushCdr(2);
    await until("CDR-0002 arrived", () => w.emsp.deliveries("CDR-0002", 201).length === 1);
    await idle();

    expect(w.emsp.deliveries("CDR-0001")).toEqual([expect.objectContaining({ method: "POST", status: 422 })]);
    expect(w.emsp.deliveries("S1", 200)).toHaveLength(1);
    expect(await outbox()).toMatchObject({ queued: 0, dead_lettered: 1, rejected: 1 });

    const page = await deadLetters();
    expect(page.total).toBe(1);
    const [letter] = page.dead_letters;
    expect(letter).toMatchObject({
      id: expect.any(String),
      label: expect.stringContaining("CDR-0001"),
      request: { method: "POST", target: { module: "cdrs", role: "RECEIVER" }, body: expect.objectContaining({ id: "CDR-0001" }) },
      answer: { http_status: 422, body: expect.stringContaining('"msg":"field required"') },
      last_error: expect.stringMatching(/HTTP 422 without an OCPI envelope: \{"detail"/),
      attempts: 1,
      dead_lettered_at: expect.any(String),
    });
    expect(letter.answer.status_code).toBeUndefined();
    // the echoed Authorization header and the token are scrubbed; of the echoed CDR only the first bytes are kept
    expect(letter.answer.body).toContain('"request":{"headers":{"authorization":"Token [token]"},"token":"[token]"}');
    expect(letter.answer.body).toMatch(/"input":\{"country_code":"NL".*…$/);
    expect(letter.answer.body.length).toBe(301);

    const warnings = logged("push rejected by partner; dead-lettered");
    expect(warnings).toEqual([expect.objectContaining({ level: 40, partner: "emsp", id: letter.id, message: letter.label, error: expect.stringContaining("422") })]);
    expect(warnings[0].error).toContain("field required");
  });

  it("a final session answered 400 with a 2001 envelope is dead-lettered with status_code and status_message, and so is the active one before it", async () => {
    w.emsp.behaviour = (_method, id, authorization) => (id === "S2" ? envelope2001(authorization) : undefined);
    await pushSession("S2", "ACTIVE", 20);
    await pushSession("S2", "COMPLETED", 30);
    await pushCdr(3);
    await until("CDR-0003 arrived", () => w.emsp.deliveries("CDR-0003", 201).length === 1);
    await idle();

    expect(w.emsp.deliveries("S2").map((r) => r.status)).toEqual([400, 400]);
    const queue = await outbox();
    expect(queue).toMatchObject({ dead_lettered: 2, rejected: 2 });
    // the last refusal's answer, at a glance
    expect(queue.last_rejected).toMatchObject({ label: expect.stringContaining("S2"), answer: { http_status: 400, status_code: 2001 } });

    const letters = (await deadLetters()).dead_letters;
    expect(letters.map((l: Json) => `${l.request.body.id} ${l.request.body.status ?? ""}`.trim())).toEqual(["S2 ACTIVE", "S2 COMPLETED"]);
    for (const letter of letters) {
      expect(letter).toMatchObject({
        request: { method: "PUT" },
        answer: { http_status: 400, status_code: 2001, status_message: expect.stringContaining("Unknown token in session") },
      });
      expect(letter.answer.status_message).toContain("Authorization: Token [token]");
      expect(letter.answer.body).toBeUndefined();
    }
    expect(logged("push rejected by partner; dropped")).toEqual([]);
  });

  it("an HTML 500 page is kept in last_error (status and first bytes) while the CDR is retried, then delivered", async () => {
    let fixed = false;
    w.emsp.behaviour = (_method, id, authorization) => (id === "CDR-0004" && !fixed ? htmlPage500(authorization) : undefined);
    await pushCdr(4);
    await until("CDR-0004 was tried twice", () => w.emsp.deliveries("CDR-0004", 500).length >= 2);
    const head = (await outbox()).head;
    expect(head).toMatchObject({ label: expect.stringContaining("CDR-0004"), attempts: expect.any(Number) });
    expect(head.last_error).toContain("HTTP 500 without an OCPI envelope: <html> <head><title>500 Internal Server Error</title></head>");
    expect(head.last_error).toContain("request had Token [token], expected Token [redacted]");
    expect(logged("delivery failed; will retry").some((l) => String(l.error).includes("<h1>Internal Server Error</h1>"))).toBe(true);

    fixed = true;
    await until("CDR-0004 arrived", () => w.emsp.deliveries("CDR-0004", 201).length === 1);
    await idle();
    expect(await outbox()).toMatchObject({ dead_lettered: 0, rejected: 0 });
  });
});

describe("dead letters are re-sent once the partner is fixed", () => {
  it("`ocpi-gateway outbox retry <partner>` (a separate process on the same store) re-queues them in order; each arrives exactly once", async () => {
    // three refusals, as above: a CDR answered 422, an active and a completed session answered 2001
    w.emsp.behaviour = (_method, id, authorization, body) =>
      id === "CDR-0001" ? validation422(authorization, body) : id === "S2" ? envelope2001(authorization) : undefined;
    await pushCdr(1);
    await pushSession("S2", "ACTIVE", 20);
    await pushSession("S2", "COMPLETED", 30);
    await until("three dead letters", async () => (await outbox()).dead_lettered === 3);
    await idle();

    w.emsp.behaviour = () => undefined;
    const before = (await deadLetters()).dead_letters.map((l: Json) => l.id);
    const retried = await cli();
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain("Re-queued 3 dead letters for emsp");
    expect(retried.stdout).toContain(`${before[0]} POST cdrs`);
    expect(retried.stdout).toMatch(new RegExp(`${before[1]} PUT sessions.*S2`));
    expect(retried.stdout).toMatch(new RegExp(`${before[2]} PUT sessions.*S2`));

    await until("CDR-0001 and both versions of S2 arrived", () => w.emsp.deliveries("CDR-0001", 201).length === 1 && w.emsp.deliveries("S2", 200).length === 2);
    await idle();
    // well past the retry delays: still once each
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(w.emsp.deliveries("CDR-0001", 201)).toHaveLength(1);
    expect(w.emsp.deliveries("S2", 200)).toHaveLength(2);
    // in their order: the session ends COMPLETED at the partner
    const order = w.emsp.received.filter((r) => r.status < 300 && (r.id === "CDR-0001" || r.id === "S2")).map((r) => `${r.id} ${r.state}`.trim());
    expect(order).toEqual(["CDR-0001", "S2 ACTIVE", "S2 COMPLETED"]);
    expect(await outbox()).toMatchObject({ queued: 0, dead_lettered: 0 });
    expect((await deadLetters()).total).toBe(0);
  });

  it("POST /admin/v1/outbox/<partner>/dead-letters/<id>/retry re-sends that one; …/dead-letters/retry the rest", async () => {
    w.emsp.behaviour = (_method, id, authorization, body) => (["CDR-0005", "CDR-0006", "CDR-0007"].includes(id) ? validation422(authorization, body) : undefined);
    for (const n of [5, 6, 7]) await pushCdr(n);
    await until("three dead letters", async () => (await outbox()).dead_lettered === 3);
    w.emsp.behaviour = () => undefined;

    const page = await deadLetters("?limit=2");
    expect(page).toMatchObject({ total: 3, limit: 2 });
    expect(page.dead_letters.map((l: Json) => l.request.body.id)).toEqual(["CDR-0005", "CDR-0006"]);
    const six = page.dead_letters[1].id;
    expect((await deadLetters("?limit=1000")).limit).toBe(100);

    const one = await admin("POST", `/outbox/emsp/dead-letters/${encodeURIComponent(six)}/retry`);
    expect(one.body).toMatchObject({ status_code: 1000, data: { requeued: [{ dead_letter_id: six, label: expect.stringContaining("CDR-0006") }] } });
    await until("CDR-0006 arrived", () => w.emsp.deliveries("CDR-0006", 201).length === 1);
    expect((await deadLetters()).dead_letters.map((l: Json) => l.request.body.id)).toEqual(["CDR-0005", "CDR-0007"]);

    const unknown = await admin("POST", "/outbox/emsp/dead-letters/no-such-id/retry");
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(2001);
    const unknownByCli = await cli("--id", "no-such-id");
    expect(unknownByCli).toMatchObject({ code: 1, stdout: "" });
    expect(unknownByCli.stderr).toContain("Partner emsp has no dead letter no-such-id");

    const rest = await admin("POST", "/outbox/emsp/dead-letters/retry");
    expect(rest.body.data.requeued.map((r: Json) => r.label)).toEqual([expect.stringContaining("CDR-0005"), expect.stringContaining("CDR-0007")]);
    await until("CDR-0005 and CDR-0007 arrived", () => w.emsp.deliveries("CDR-0005", 201).length === 1 && w.emsp.deliveries("CDR-0007", 201).length === 1);
    await idle();
    await new Promise((resolve) => setTimeout(resolve, 400));
    for (const id of ["CDR-0005", "CDR-0006", "CDR-0007"]) expect(w.emsp.deliveries(id, 201)).toHaveLength(1);
    const order = w.emsp.received.filter((r) => r.status === 201 && (r.id === "CDR-0005" || r.id === "CDR-0007")).map((r) => r.id);
    expect(order).toEqual(["CDR-0005", "CDR-0007"]);
    expect(await outbox()).toMatchObject({ queued: 0, dead_lettered: 0 });
  });
});

describe("a session the partner refuses is a dead letter like any refused push (issue #25 item 2)", () => {
  /** what a framework answers a Session PUT that leaves out optional keys it wants (a sparse body): 422, the input echoed back */
  const refuseActive = (target: string) => (_method: string, id: string, authorization: string, body: Json) =>
    id === target && body.status === "ACTIVE" ? validation422(authorization, body) : undefined;

  it("a sparse active Session PUT answered 422 is dead-lettered with the partner's answer, and `ocpi-gateway outbox retry --id` re-sends it once", async () => {
    w.emsp.behaviour = refuseActive("S3");
    await pushSession("S3", "ACTIVE", 40);
    await pushCdr(8);
    await until("CDR-0008 arrived", () => w.emsp.deliveries("CDR-0008", 201).length === 1);
    await idle();
    expect(w.emsp.deliveries("S3")).toEqual([expect.objectContaining({ method: "PUT", state: "ACTIVE", status: 422 })]);
    const letter = ((await deadLetters()).dead_letters as Json[]).find((l) => l.request.body.id === "S3")!;
    expect(letter).toMatchObject({
      label: expect.stringContaining("PUT sessions NLCPO/S3"),
      request: { method: "PUT", target: { module: "sessions", role: "RECEIVER" }, body: { status: "ACTIVE" }, canonical: true },
      answer: { http_status: 422, body: expect.stringContaining('"msg":"field required"') },
      last_error: expect.stringMatching(/HTTP 422 without an OCPI envelope/),
      attempts: 1,
    });
    expect(logged("push rejected by partner; dead-lettered")).toContainEqual(expect.objectContaining({ partner: "emsp", id: letter.id, message: letter.label }));
    w.emsp.behaviour = () => undefined;
    const retried = await cli("--id", letter.id);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain("Re-queued 1 dead letter for emsp");
    await until("S3 arrived", () => w.emsp.deliveries("S3", 200).length === 1);
    await idle();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(w.emsp.deliveries("S3").map((r) => `${r.state} ${r.status}`)).toEqual(["ACTIVE 422", "ACTIVE 200"]);
    expect(await outbox()).toMatchObject({ queued: 0, dead_lettered: 0 });
  });

  it("a later version of the session queued after the refused one is delivered; the refused one stays a dead letter with its answer", async () => {
    w.emsp.behaviour = refuseActive("S4");
    await pushSession("S4", "ACTIVE", 50);
    await pushSession("S4", "COMPLETED", 60);
    await until("the completed S4 arrived", () => w.emsp.deliveries("S4", 200).length === 1);
    await idle();
    await new Promise((resolve) => setTimeout(resolve, 400));
    // in their order, each once: the refusal held nothing back, and the later version replaced nothing
    expect(w.emsp.deliveries("S4").map((r) => `${r.state} ${r.status}`)).toEqual(["ACTIVE 422", "COMPLETED 200"]);
    expect((await deadLetters()).dead_letters).toEqual([
      expect.objectContaining({ request: expect.objectContaining({ method: "PUT", body: expect.objectContaining({ id: "S4", status: "ACTIVE" }) }), answer: expect.objectContaining({ http_status: 422 }) }),
    ]);
    expect(await outbox()).toMatchObject({ queued: 0, dead_lettered: 1 });
  });
});
