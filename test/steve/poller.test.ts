import { memoryKeyValue, type KeyValue, type SteveChange } from "../../adapters/steve/contracts";
import type { SteveMappingSettings } from "../../adapters/steve/mapping/settings";
import type { Tariff } from "../../adapters/steve/ocpi";
import { KEYS } from "../../adapters/steve/poll/context";
import { StevePoller } from "../../adapters/steve/poller";
import { SteveCommands, SteveRest } from "../../adapters/steve/rest";
import { SteveTags } from "../../adapters/steve/tags";
import { cdrType } from "../../plugins/cdrs/translate";
import { sessionType } from "../../plugins/sessions/translate";
import type { Token } from "../../plugins/tokens/model";
import { startMariaDb, type MariaDb } from "../support/mariadb";
import type { SteveGeneration } from "../support/steve-schema";
import { ALPHA, BETA } from "../support/steve-seed";
import { captureLog, CPO, eventually, mappingSettings, REST_PASSWORD, REST_USER, steveEnv, type SteveEnv } from "./steve-env";

const EMSP = { country_code: "NL", party_id: "EMS" };
const TOKEN: Token = {
  ...EMSP,
  uid: "NL-EMS-TOKEN-1",
  type: "RFID",
  contract_id: "NL-EMS-C00000001",
  issuer: "EMS",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: "2026-09-01T00:00:00Z",
};

/** 0.40/kWh and 0.50 per session, both plus 20 % VAT. */
const TARIFF: Tariff = {
  ...CPO,
  id: "T-AC",
  currency: "EUR",
  tax_included: "NO",
  elements: [
    {
      price_components: [
        { type: "ENERGY", price: 0.4, vat: 20, step_size: 1 },
        { type: "FLAT", price: 0.5, vat: 20, step_size: 1 },
      ],
    },
  ],
  last_updated: "2026-01-01T00:00:00Z",
};

const mapping: SteveMappingSettings = mappingSettings({
  charge_boxes: { [BETA.id]: { coordinates: { latitude: "52.0907400", longitude: "5.1214200" }, tariff_ids: ["T-AC"] } },
});

/** Every test polls a freshly seeded SteVe database of its own: what one test writes into SteVe, no other reads. */
let maria: MariaDb;
let open: SteveEnv | undefined;
let worlds = 0;
const seeded = async (generation: SteveGeneration, name = `poll_${generation.replace(".", "")}_${++worlds}`) => (open = await steveEnv(maria, name, generation));

beforeAll(async () => void (maria = await startMariaDb()), 60_000);

afterEach(async () => {
  await open?.close();
  open = undefined;
});

afterAll(async () => await maria?.stop());

/** The engine as the wiring will assemble it, publishing into a list. */
function engine(env: SteveEnv, kv: KeyValue, emitted: SteveChange[], intervalMs = 100) {
  const log = captureLog();
  const rest = new SteveRest({ base_url: env.fake.baseUrl, user: REST_USER, password: REST_PASSWORD, timeout_ms: 5_000 });
  const tags = new SteveTags({ rest, kv, log, policy: "deny" });
  const commands = new SteveCommands({ rest, db: env.db, tags, kv, log, mapping, answerWaitMs: 1_000 });
  const poller = new StevePoller({
    db: env.db,
    kv,
    emit: async (change) => void emitted.push(structuredClone(change)),
    mapping,
    tariffs: [TARIFF],
    tags,
    log,
    intervalMs,
    overlapMs: 60_000,
  });
  return { log, tags, commands, poller };
}

const valid = (schema: { safeParse(v: unknown): { error?: { issues: unknown[] } } }, value: unknown) =>
  expect(schema.safeParse(value).error?.issues ?? []).toEqual([]);

describe.each(["3.14", "3.12"] as const)("the poller on the %s schema", (generation) => {
  let steve: SteveEnv;
  let kv: KeyValue;
  const emitted: SteveChange[] = [];
  const env = () => steve;
  const take = () => emitted.splice(0);
  /** a new poller instance on the same store: a gateway restart */
  const restart = () => engine(env(), kv, emitted);
  /** The first poll (the test of its own below): from then on, what changes in SteVe is published. */
  const firstPoll = () => restart().poller.pollOnce();

  beforeEach(async () => {
    steve = await seeded(generation);
    kv = memoryKeyValue();
    emitted.length = 0;
  }, 30_000);

  test("the first poll records what SteVe holds and publishes nothing", async () => {
    await restart().poller.pollOnce();
    expect(take()).toEqual([]);
    await restart().poller.pollOnce();
    expect(take()).toEqual([]);
  });

  test("a status row becomes one EVSE status PATCH; rows that change nothing in OCPI terms none", async () => {
    await firstPoll();
    await env().fake.status(ALPHA.id, 2, "Faulted", "GroundFailure");
    const { poller } = restart();
    await poller.pollOnce();
    expect(take()).toEqual([
      { module: "locations", owner: CPO, path: [ALPHA.id, `${ALPHA.id}-2`], kind: "patch", object: { status: "OUTOFORDER", last_updated: expect.any(String) } },
    ]);
    await poller.pollOnce();
    expect(take()).toEqual([]);

    await env().fake.status(ALPHA.id, 2, "Available");
    await env().fake.status(ALPHA.id, 2, "Preparing"); // AVAILABLE in OCPI too (status.preparing)
    await poller.pollOnce();
    expect(take().map((c) => [c.path, c.object.status])).toEqual([[[ALPHA.id, `${ALPHA.id}-2`], "AVAILABLE"]]);
  });

  test("a charge box edited in SteVe becomes one Location PUT; a heartbeat none", async () => {
    await firstPoll();
    await env().writer.query("UPDATE charge_box SET description = ? WHERE charge_box_id = ?", ["Beta renamed\nsecond line", BETA.id]);
    const { poller } = restart();
    await poller.pollOnce();
    const [put, ...rest] = take();
    expect(rest).toEqual([]);
    expect(put).toMatchObject({ module: "locations", path: [BETA.id], kind: "upsert", object: { id: BETA.id, name: "Beta renamed", country: "NLD" } });

    await env().writer.query("UPDATE charge_box SET last_heartbeat_timestamp = ? WHERE charge_box_id = ?", [new Date(), BETA.id]);
    await poller.pollOnce();
    expect(take()).toEqual([]);
  });

  test("a box changed between the poll's read and its PUT's, then changed back, is pushed again as SteVe holds it", async () => {
    await firstPoll();
    const moveBeta = (city: string) =>
      env().writer.query("UPDATE address a JOIN charge_box cb ON cb.address_pk = a.address_pk SET a.city = ? WHERE cb.charge_box_id = ?", [city, BETA.id]);
    await moveBeta("Amersfoort");
    // The poll reads the boxes (Beta in Amersfoort), then looks up the facts' hash it stored for each: there, once, Beta moves again.
    let between: string | undefined = "Zeist";
    const store: KeyValue = {
      ...kv,
      get: async (key) => {
        if (key === KEYS.box(BETA.id) && between) {
          await moveBeta(between);
          between = undefined;
        }
        return kv.get(key);
      },
    };
    const { poller } = engine(env(), store, emitted);
    await poller.pollOnce();
    // The PUT is read after that: Zeist.
    expect(take().map((c) => [c.path, c.object.city])).toEqual([[[BETA.id], "Zeist"]]);
    await moveBeta("Amersfoort");
    await poller.pollOnce();
    expect(take().map((c) => [c.path, c.object.city])).toEqual([[[BETA.id], "Amersfoort"]]);
  });

  test("START_SESSION to CDR: Session PUT, PATCHes while charging, exactly one priced CDR; a restart repeats nothing", async () => {
    await firstPoll();
    const e = restart();
    // BETA reports the station fault cleared (seeded Faulted): its EVSE becomes AVAILABLE.
    await env().fake.status(BETA.id, 0, "Available");
    await e.poller.pollOnce();
    expect(take().map((c) => [c.path.join("/"), c.object.status])).toEqual([[`${BETA.id}/${BETA.id}-1`, "AVAILABLE"]]);

    await e.tags.push(EMSP, TOKEN);
    const started = await e.commands.submit({
      type: "START_SESSION",
      request: { token: TOKEN, location_id: BETA.id, evse_uid: `${BETA.id}-1`, authorization_reference: "AUTH-REF-9" },
      sender: EMSP,
    });
    expect(await started.outcome).toEqual({ result: "ACCEPTED" });
    await env().fake.idle();
    const [tx] = (await env().db.transactions({ active: true })).filter((t) => t.idTag === TOKEN.uid);
    const id = String(tx.transactionPk);

    await e.poller.pollOnce();
    const afterStart = take();
    expect(afterStart.filter((c) => c.module === "locations").map((c) => c.object.status)).toEqual(["CHARGING"]);
    const [put] = afterStart.filter((c) => c.module === "sessions");
    expect(put).toMatchObject({
      module: "sessions",
      owner: CPO,
      path: [id],
      kind: "upsert",
      object: {
        id,
        status: "ACTIVE",
        kwh: 0,
        auth_method: "COMMAND",
        authorization_reference: "AUTH-REF-9",
        cdr_token: { ...EMSP, uid: TOKEN.uid, type: "RFID", contract_id: TOKEN.contract_id },
        location_id: BETA.id,
        evse_uid: `${BETA.id}-1`,
      },
    });
    valid(sessionType.schema("2.3.0", "full"), put.object);
    const periodsAtPut = (put.object.charging_periods as unknown[] | undefined)?.length ?? 0;

    // A restart between the PUT and the first sample: the next change is a PATCH, not a second PUT.
    const after = restart();
    await env().fake.meter(tx.transactionPk, 1500);
    await after.poller.pollOnce();
    const [first, ...none] = take();
    expect(none).toEqual([]);
    expect(first).toMatchObject({ module: "sessions", path: [id], kind: "patch", object: { kwh: 1.5, total_cost: { before_taxes: 1.1 } } });
    expect(first.object.charging_periods).toHaveLength(1);
    expect(Object.keys(first.object).sort()).toEqual(["charging_periods", "kwh", "last_updated", "total_cost"]);

    await env().fake.meter(tx.transactionPk, 2250);
    await after.poller.pollOnce();
    expect(take()).toMatchObject([{ kind: "patch", object: { kwh: 3.75, charging_periods: [expect.anything()] } }]);

    const stopped = await after.commands.submit({ type: "STOP_SESSION", request: { session_id: id }, sender: EMSP });
    expect(await stopped.outcome).toEqual({ result: "ACCEPTED" });
    await env().fake.idle();
    await after.poller.pollOnce();
    const atStop = take();
    expect(atStop.filter((c) => c.module === "locations").map((c) => c.object.status)).toEqual(["AVAILABLE"]);
    const sessions = atStop.filter((c) => c.module === "sessions");
    expect(sessions).toMatchObject([{ kind: "patch", object: { status: "COMPLETED", end_date_time: expect.any(String) } }]);
    const periodsSent = periodsAtPut + 1 + 1 + ((sessions[0].object.charging_periods as unknown[] | undefined)?.length ?? 0);
    const [finished] = await env().db.transactions({ transactionPks: [tx.transactionPk] });
    expect(periodsSent).toBe(finished.energy.length - 1);

    // One CDR: 3.75 kWh × 0.40 = 1.50, plus 0.50 flat = 2.00 before taxes; 20 % VAT = 0.30 + 0.10 = 0.40.
    const cdrs = atStop.filter((c) => c.module === "cdrs");
    expect(cdrs).toHaveLength(1);
    const cdr = cdrs[0].object as Record<string, any>;
    expect(cdrs[0]).toMatchObject({ owner: CPO, path: [id], kind: "upsert" });
    expect(cdr).toMatchObject({
      id,
      session_id: id,
      auth_method: "COMMAND",
      authorization_reference: "AUTH-REF-9",
      cdr_token: { ...EMSP, uid: TOKEN.uid },
      cdr_location: { id: BETA.id, evse_uid: `${BETA.id}-1`, country: "NLD" },
      currency: "EUR",
      total_energy: 3.75,
      total_cost: { before_taxes: 2, taxes: [{ name: "VAT", amount: 0.4 }] },
      total_energy_cost: { before_taxes: 1.5, taxes: [{ name: "VAT", amount: 0.3 }] },
      total_fixed_cost: { before_taxes: 0.5, taxes: [{ name: "VAT", amount: 0.1 }] },
      tariffs: [{ id: "T-AC" }],
    });
    expect(cdr.charging_periods.length).toBeGreaterThan(0);
    expect(cdr.charging_periods.every((p: { tariff_id?: string }) => p.tariff_id === "T-AC")).toBe(true);
    const energy = cdr.charging_periods.flatMap((p: any) => p.dimensions.filter((d: any) => d.type === "ENERGY").map((d: any) => d.volume));
    expect(energy.reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(3.75, 4);
    valid(cdrType.schema("2.3.0", "full"), cdr);

    // Nothing twice: the same instance, and a fresh one on the same store (all within the re-read overlap).
    await after.poller.pollOnce();
    await restart().poller.pollOnce();
    expect(take()).toEqual([]);
  });
});

describe("MariaDB stopped for a few seconds", () => {
  // halted by the test; brought back here should the test fail before it resumes MariaDB itself
  let halted = false;
  afterEach(async () => {
    if (halted) await maria.resume();
    halted = false;
  });

  test("no crash, one log line, and afterwards every change that happened is published once", async () => {
    const env = await seeded("3.14", "poll_314");
    const kv = memoryKeyValue();
    const emitted: SteveChange[] = [];
    const first = engine(env, kv, emitted);
    await first.poller.pollOnce(); // baseline
    await first.tags.push(EMSP, { ...TOKEN, uid: "NL-EMS-OUTAGE" });
    const started = await first.commands.submit({
      type: "START_SESSION",
      request: { token: { ...TOKEN, uid: "NL-EMS-OUTAGE" }, location_id: ALPHA.id, evse_uid: `${ALPHA.id}-2` },
      sender: EMSP,
    });
    expect(await started.outcome).toEqual({ result: "ACCEPTED" });
    await env.fake.idle();
    const [tx] = (await env.db.transactions({ active: true })).filter((t) => t.idTag === "NL-EMS-OUTAGE");
    await env.fake.meter(tx.transactionPk, 4000);
    // Written before the poller saw them; then the database goes away, with the poller (restarted) running.
    await maria.halt();
    halted = true;
    const { poller, log } = engine(env, kv, emitted);
    poller.start();
    try {
      await eventually(() => !poller.state.healthy);
      await new Promise((r) => setTimeout(r, 3_000));
      expect(emitted).toEqual([]);
      expect(log.lines.filter((l) => l.level === "error")).toEqual([
        { level: "error", fields: { reason: expect.any(String) }, message: "steve: polling failed; retrying every poll_interval_ms" },
      ]);
      expect(log.text()).not.toContain("ro-poll_314"); // the reader's password

      await maria.resume();
      halted = false;
      await eventually(() => poller.state.healthy && emitted.some((c) => c.module === "sessions"), 20_000);
    } finally {
      await poller.stop();
    }
    expect(log.lines.filter((l) => l.level === "error")).toHaveLength(1);
    expect(log.lines.at(-1)?.message).toBe("steve: polling works again; caught up from the watermarks");
    expect(emitted.map((c) => `${c.module} ${c.kind} ${c.path.join("/")}`)).toEqual([
      `locations patch ${ALPHA.id}/${ALPHA.id}-2`,
      `sessions upsert ${tx.transactionPk}`,
    ]);
    expect(emitted[1].object).toMatchObject({ status: "ACTIVE", kwh: 4, auth_method: "COMMAND" });
  }, 60_000);
});
