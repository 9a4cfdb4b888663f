import "reflect-metadata";
import { Gateway } from "../../app/gateway";
import { COMMAND_RESULTS, type ReceivedCommandResults } from "../../adapters/local/commands";
import { PROFILE_OUTCOMES } from "../../adapters/local/chargingprofiles";
import type { PartyRef } from "../../core/protocol/types";
import { SyncStates } from "../../core/sync/sync-state";
import { removeTempDirs, testGatewayConfig, type GatewayConfigOptions } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { ADMIN_TOKEN, COMMAND_BODIES, adminApi, eventually } from "../support/charge-point";
import { captureLogs } from "../support/log-capture";
import { numberedStation } from "../support/ocpi-objects";
import { QuirkyCpo, envelope, type QuirkyReply, type QuirkyRequest } from "../support/quirky-cpo";

/**
 * Issue #9 items 1, 3 and 4, end to end: an eMSP gateway (in-process,
 * SQLite, `local` adapter) and 2.2.1 CPOs written with node:http on
 * loopback that are slightly off the spec, as real partners are: null
 * optional fields in their credentials, a CommandResponse without
 * `timeout`, results after our timeout, 429s with Retry-After, random 500s
 * and cut connections during a pull, and one that keeps failing.
 */

type Json = Record<string, any>;

const QUIRKY: PartyRef = { country_code: "NL", party_id: "QRK" };
const STUBBORN: PartyRef = { country_code: "NL", party_id: "STB" };
const OUR_TIMEOUT_SECONDS = 2;
const LOCATIONS = 300;
const PAGE = 50;

const logs = captureLogs("info");
let gateway: Gateway;
let emspUrl: string;
let quirky: QuirkyCpo;
let stubborn: QuirkyCpo;
const admin = () => adminApi(emspUrl);

const location = (owner: PartyRef, n: number) => ({
  ...owner,
  id: `LOC${String(n).padStart(3, "0")}`,
  publish: true,
  ...numberedStation(n),
  time_zone: "Europe/Amsterdam",
  last_updated: new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"),
});

/** A partner's Locations list, `PAGE` per page with Link headers, as a 2.2.1 sender serves it. */
const locationsPage = (partner: QuirkyCpo, owner: PartyRef, total: number, request: QuirkyRequest): QuirkyReply => {
  const offset = Number(request.url.searchParams.get("offset") ?? 0);
  const headers: Record<string, string> = { "X-Total-Count": String(total), "X-Limit": String(PAGE) };
  if (offset + PAGE < total) headers.Link = `<${partner.url}/2.2.1/locations?offset=${offset + PAGE}&limit=${PAGE}>; rel="next"`;
  const items = Array.from({ length: Math.min(PAGE, total - offset) }, (_, i) => location(owner, offset + i));
  return { headers, body: envelope(items) };
};

const offsetOf = (r: QuirkyRequest) => Number(r.url.searchParams.get("offset") ?? 0);

/** Every Location the eMSP holds for `owner` (the `local` adapter's collection). */
const held = async (owner: PartyRef): Promise<string[]> =>
  (await gateway.store.range<Json>(`local:locations:${owner.country_code}${owner.party_id}`, { offset: 0, limit: 1000 })).items.map((l) => l.id);

const watermarkOf = async (partnerId: string) => (await new SyncStates(gateway.store).get(partnerId, "locations")).watermark;

const inbox = async (uid: string) => (await gateway.store.get<ReceivedCommandResults>(COMMAND_RESULTS, uid))?.results ?? [];

/** Where the log lines of the running test start: each test reads only its own (beforeEach below). */
let ownLogsFrom = 0;
const logged = (text: string): Json[] =>
  logs.lines.slice(ownLogsFrom).map((l) => JSON.parse(l) as Json).filter((l) => typeof l.msg === "string" && l.msg.includes(text));

const cpoOf = (partnerId: "quirky" | "stubborn") => (partnerId === "quirky" ? quirky : stubborn);
const isRegistered = async (partnerId: string) => (await gateway.registry.get(partnerId))?.status === "registered";

/** Registers with the partner unless it is already; the token we hand it is watched for leaks from then on. */
const registered = async (partnerId: "quirky" | "stubborn") => {
  if (!(await isRegistered(partnerId))) await gateway.credentials.register(partnerId);
  logs.watch(cpoOf(partnerId).tokenFromUs);
};

/** A small seeded PRNG (mulberry32): the "random" 500s are the same on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const options = (port: number): GatewayConfigOptions => ({
  port,
  party: { country_code: "DE", party_id: "EMS", role: "EMSP" },
  modules: { commands: { adapter: "local" }, chargingprofiles: { adapter: "local" }, locations: { adapter: "local" } },
  server: { admin_token: ADMIN_TOKEN, command_timeout_seconds: OUR_TIMEOUT_SECONDS },
  partners: [
    { id: "quirky", token_a: "quirky-token-A-0123456789", versions_url: quirky.versionsUrl, sync_retry: { retries: 8, base_delay_ms: 50, max_delay_ms: 2500 } },
    { id: "stubborn", token_a: "stubborn-token-A-0123456789", versions_url: stubborn.versionsUrl, sync_retry: { retries: 3, base_delay_ms: 50, max_delay_ms: 300 } },
  ],
});

beforeAll(async () => {
  const [emspPort, quirkyPort, stubbornPort] = await freePorts(3);
  emspUrl = `http://127.0.0.1:${emspPort}`;
  quirky = new QuirkyCpo(quirkyPort, QUIRKY);
  stubborn = new QuirkyCpo(stubbornPort, STUBBORN);
  await quirky.listen();
  await stubborn.listen();
  gateway = await Gateway.create(testGatewayConfig(options(emspPort)), { logger: logs.logger });
  await gateway.listen();
  logs.watch(ADMIN_TOKEN, "quirky-token-A-0123456789", "stubborn-token-A-0123456789", quirky.tokenB, stubborn.tokenB);
});

beforeEach(() => {
  ownLogsFrom = logs.lines.length;
});

afterAll(async () => {
  logs.watch(quirky?.tokenFromUs, stubborn?.tokenFromUs);
  await gateway?.close();
  await Promise.all([quirky?.close(), stubborn?.close()]);
  removeTempDirs();
  expect(logs.leaks()).toEqual([]);
});

describe("registering with a partner whose credentials carry null optional fields", () => {
  // the handshake starts from no registration: one the other tests made is forgotten on our side (the partner takes any token A again)
  beforeEach(async () => {
    for (const partnerId of ["quirky", "stubborn"] as const) if (await isRegistered(partnerId)) await gateway.registry.unregister(partnerId);
  });

  it("takes `website: null, logo: null` as absent and registers", async () => {
    const record = await gateway.credentials.register("quirky");
    expect(record).toMatchObject({ status: "registered", version: "2.2.1" });
    expect(record.roles).toEqual([{ role: "CPO", ...QUIRKY, business_details: { name: "Quirky CPO" } }]);
    await gateway.credentials.register("stubborn");
    expect(quirky.tokenFromUs).toEqual(expect.any(String));
    logs.watch(quirky.tokenFromUs, stubborn.tokenFromUs);
  });
});

describe("a partner's off-spec answers never lose a command or its result", () => {
  beforeEach(() => registered("quirky"));

  it("a CommandResponse without timeout keeps the command open: the caller gets its uid, the result is taken once and reaches the adapter", async () => {
    const answers: Json[] = [];
    quirky.on("POST", /\/commands\/START_SESSION$/, (req) => {
      setTimeout(() => void quirky.callUs(req.body.response_url, { result: "ACCEPTED" }).then((r) => answers.push(r.body)), 200);
      return { body: envelope({ result: "ACCEPTED" }) };
    });
    const { body } = await admin().post("/commands/quirky/START_SESSION", COMMAND_BODIES.START_SESSION);
    expect(body).toMatchObject({ status_code: 1000, data: { uid: expect.any(String), response: { result: "ACCEPTED", timeout: OUR_TIMEOUT_SECONDS } } });
    const { uid } = body.data;
    const state = await eventually(async () => {
      const { body: read } = await admin().get(`/commands/${uid}`);
      expect(read.data.state).toBe("done");
      return read.data;
    });
    expect(state).toMatchObject({ result: { result: "ACCEPTED" }, timed_out: false, callbacks: 1 });
    expect(answers).toEqual([expect.objectContaining({ status_code: 1000 })]);
    expect(await inbox(uid)).toEqual([{ result: "ACCEPTED" }]);
    expect(logged("partner's answer has no timeout; taken with ours")).toEqual([
      expect.objectContaining({ partner: "quirky", timeout: OUR_TIMEOUT_SECONDS, answer: expect.stringContaining("CommandResponse to POST commands/START_SESSION") }),
    ]);
  });

  it("a result after our TIMEOUT is answered 1000 and recorded; the adapter keeps the one outcome it had", async () => {
    quirky.on("POST", /\/commands\/STOP_SESSION$/, () => ({ body: envelope({ result: "ACCEPTED", timeout: 0 }) }));
    const { body } = await admin().post("/commands/quirky/STOP_SESSION", COMMAND_BODIES.STOP_SESSION);
    const { uid } = body.data;
    const responseUrl = quirky.received("POST", /\/commands\/STOP_SESSION$/).at(-1)!.body.response_url as string;
    // our deadline: the partner's timeout (0) plus ours
    await eventually(async () => expect((await admin().get(`/commands/${uid}`)).body.data).toMatchObject({ state: "done", timed_out: true }), 15_000);
    expect(await inbox(uid)).toEqual([expect.objectContaining({ result: "TIMEOUT" })]);

    const late = await quirky.callUs(responseUrl, { result: "ACCEPTED" });
    expect(late.status).toBe(200);
    expect(late.body.status_code).toBe(1000);
    const { body: read } = await admin().get(`/commands/${uid}`);
    expect(read.data).toMatchObject({ result: { result: "TIMEOUT" }, timed_out: true, late_result: { result: "ACCEPTED" }, callbacks: 1 });
    expect(await inbox(uid)).toEqual([expect.objectContaining({ result: "TIMEOUT" })]);
    expect(logged("outcome came after our TIMEOUT")).toEqual([expect.objectContaining({ partner: "quirky", uid })]);
  });

  it("an answer that cannot be understood fails the call with 3001 naming the uid; the result that follows is still taken and handed over once", async () => {
    quirky.on("POST", /\/commands\/UNLOCK_CONNECTOR$/, (req) => {
      setTimeout(() => void quirky.callUs(req.body.response_url, { result: "ACCEPTED" }), 300);
      return { body: envelope({ result: "MAYBE", timeout: 30 }) };
    });
    const { body } = await admin().post("/commands/quirky/UNLOCK_CONNECTOR", COMMAND_BODIES.UNLOCK_CONNECTOR);
    const uid = (quirky.received("POST", /\/commands\/UNLOCK_CONNECTOR$/).at(-1)!.body.response_url as string).split("/").at(-1)!;
    expect(body.status_code).toBe(3001);
    expect(body.status_message).toContain("/result");
    expect(body.status_message).toContain(`request ${uid}`);
    const state = await eventually(async () => {
      const { body: read } = await admin().get(`/commands/${uid}`);
      expect(read.data.result).toBeDefined();
      return read.data;
    });
    expect(state).toMatchObject({ result: { result: "ACCEPTED" }, timed_out: false, callbacks: 1 });
    await eventually(async () => expect(await inbox(uid)).toEqual([{ result: "ACCEPTED" }]));
  });

  it("a ChargingProfileResponse without timeout keeps the request open too, and its result reaches the adapter", async () => {
    quirky.on("PUT", /\/chargingprofiles\/SES1$/, (req) => {
      setTimeout(() => void quirky.callUs(req.body.response_url, { result: "ACCEPTED" }), 200);
      return { body: envelope({ result: "ACCEPTED" }) };
    });
    const profile = { charging_rate_unit: "W", charging_profile_period: [{ start_period: 0, limit: 11000 }] };
    const { body } = await admin().put("/chargingprofiles/quirky/SES1", profile);
    expect(body).toMatchObject({ status_code: 1000, data: { uid: expect.any(String), response: { result: "ACCEPTED", timeout: OUR_TIMEOUT_SECONDS } } });
    const { uid } = body.data;
    await eventually(async () =>
      expect((await admin().get(`/chargingprofiles/requests/${uid}`)).body.data).toMatchObject({ state: "done", result: { result: "ACCEPTED" } }),
    );
    expect((await gateway.store.get<Json>(PROFILE_OUTCOMES, uid))?.outcomes).toHaveLength(1);
  });
});

describe("sync pulls retry what may pass, within a budget per pull", () => {
  beforeEach(async () => {
    await registered("quirky");
    await registered("stubborn");
  });

  it("pulls 300 Locations through 429s with Retry-After, random 500s and a cut connection: one pull completes, every object stored once", async () => {
    const random = seeded(9);
    const failed: { offset: number; at: number; how: string }[] = [];
    const firstTry = new Set<number>();
    let random500s = 0;
    quirky.on("GET", /\/locations$/, (req) => {
      const offset = offsetOf(req);
      const first = !firstTry.has(offset);
      firstTry.add(offset);
      const fail = (how: string, reply: QuirkyReply): QuirkyReply => {
        failed.push({ offset, at: Date.now(), how });
        return reply;
      };
      // a rate limiter's answers, outside the OCPI envelope as a proxy in front of the partner writes them
      if (first && offset === 50) return fail("429 s", { status: 429, headers: { "Retry-After": "1" }, body: { detail: "Too Many Requests" } });
      if (first && offset === 200)
        return fail("429 date", { status: 429, headers: { "Retry-After": new Date(Date.now() + 2000).toUTCString() }, body: { detail: "slow down" } });
      if (first && offset === 250) return fail("cut", "cut");
      if (random500s < 4 && random() < 0.3) {
        random500s++;
        return fail("500", { status: 500, body: "<html><body>Internal Server Error</body></html>" });
      }
      return locationsPage(quirky, QUIRKY, LOCATIONS, req);
    });

    const { status, body } = await admin().post("/sync/quirky/locations");
    expect(status).toBe(200);
    expect(random500s).toBeGreaterThan(0);
    expect(body.data).toMatchObject({ partner: "quirky", full: true, objects: LOCATIONS, pages: LOCATIONS / PAGE, rejected: 0, retries: failed.length });
    const ids = await held(QUIRKY);
    expect(ids).toHaveLength(LOCATIONS);
    expect(new Set(ids).size).toBe(LOCATIONS);
    expect(await watermarkOf("quirky")).toEqual(expect.any(Number));
    // each failed page was asked again, after the partner's Retry-After where it gave one (seconds, or an HTTP date 1-2 s ahead)
    const requests = quirky.received("GET", /\/locations$/);
    for (const failure of failed) expect(requests.some((r) => offsetOf(r) === failure.offset && r.at > failure.at)).toBe(true);
    for (const how of ["429 s", "429 date"]) {
      const failure = failed.find((f) => f.how === how)!;
      const retried = requests.find((r) => offsetOf(r) === failure.offset && r.at > failure.at)!;
      expect(retried.at - failure.at).toBeGreaterThanOrEqual(900);
    }
    expect(logged("sync page failed; retrying")).toHaveLength(failed.length);
    expect(logged("sync pull completed").at(-1)).toMatchObject({ partner: "quirky", objects: LOCATIONS, retries: failed.length });
  });

  it("a partner that keeps failing fails the pull after its budget (Retry-After capped), and the watermark stays", async () => {
    const total = 2 * PAGE;
    stubborn.on("GET", /\/locations$/, (req) => locationsPage(stubborn, STUBBORN, total, req));
    expect((await admin().post("/sync/stubborn/locations")).body.data).toMatchObject({ objects: total, retries: 0 });
    const watermark = await watermarkOf("stubborn");
    expect(watermark).toEqual(expect.any(Number));

    // from now on the second page answers 429 asking for an hour, then 503s
    let failures = 0;
    stubborn.on("GET", /\/locations$/, (req) => {
      if (offsetOf(req) === 0) return locationsPage(stubborn, STUBBORN, total, req);
      return failures++ === 0 ? { status: 429, headers: { "Retry-After": "3600" }, body: envelope(null, 3000, "rate limited") } : { status: 503, body: "busy" };
    });
    const before = stubborn.requests.length;
    const started = Date.now();
    const { status, body } = await admin().post("/sync/stubborn/locations?full=true");
    expect(status).toBe(502);
    expect(body).toMatchObject({ status_code: 3001, status_message: expect.stringContaining("HTTP 503") });
    // one try and its three retries, well before the hour the partner asked for (each wait is capped at 300 ms)
    expect(stubborn.requests.slice(before).filter((r) => offsetOf(r) === PAGE)).toHaveLength(4);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await watermarkOf("stubborn")).toBe(watermark);
    expect(logged("sync pull failed; the watermark stays").at(-1)).toMatchObject({ partner: "stubborn", pages: 1, objects: PAGE, retries: 3 });
  });

  it("a 4xx other than 408 and 429 is not retried: the pull fails at once", async () => {
    stubborn.on("GET", /\/locations$/, (req) => locationsPage(stubborn, STUBBORN, PAGE, req));
    expect((await admin().post("/sync/stubborn/locations?full=true")).status).toBe(200);
    const watermark = await watermarkOf("stubborn");
    expect(watermark).toEqual(expect.any(Number));
    stubborn.on("GET", /\/locations$/, () => ({ status: 400, body: envelope(null, 2001, "Invalid or missing parameters") }));
    const before = stubborn.requests.length;
    const { status } = await admin().post("/sync/stubborn/locations");
    expect(status).toBe(502);
    expect(stubborn.requests.slice(before)).toHaveLength(1);
    expect(await watermarkOf("stubborn")).toBe(watermark);
  });

  it("refuses a sync_retry outside its bounds in the config", () => {
    const bad = () => testGatewayConfig({ ...options(9), partners: [{ id: "x", sync_retry: { retries: 101, max_delay_ms: 0 } }] });
    expect(bad).toThrow(/partners\[0\]\.sync_retry\.retries: must be a whole number between 0 and 100/);
    expect(bad).toThrow(/partners\[0\]\.sync_retry\.max_delay_ms: must be a whole number of milliseconds between 1 and 3600000/);
  });
});
