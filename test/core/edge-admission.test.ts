import "reflect-metadata";
import type http from "node:http";
import pino from "pino";
import type { PartyRef, Role } from "../../core/protocol/types";
import { DEFAULT_INBOUND } from "../../config/types";
import { Gateway } from "../../app/gateway";
import { ResponseCache } from "../../core/cache/response-cache";
import { RELAY_PATH } from "../../core/hub/result-relay";
import { removeTempDirs, testGatewayConfig, type PartnerSpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, tokenHeader, type HttpResult } from "../support/gateway-process";
import { seedFile, token } from "../support/charge-point";
import { closeServer } from "../support/loopback-server";
import { recordingServer, type RecordedRequest } from "../support/recording-server";
import { recordReliability } from "../support/reliability-report";

/**
 * Issue #23 item 1: one admission at the partner edge (core/edge/admit.ts).
 * One hostile matrix — rows: what is wrong with a request; columns: the ways
 * in — and from each entrance the same answer: HTTP status, OCPI
 * status_code and the kind of message. A cell that answers otherwise says
 * why in the data (CELLS), and such cells are as few as the code allows.
 *
 * Two gateways: a CPO (Koa routes, the cached-GET fast path, unknown paths)
 * and a hub (forwarding, broadcast, merged lists, result URLs) with a
 * recording receiver behind it. Both have the same partners: the eMSP that
 * sends, another eMSP whose party is spoofed, one allowed 2.1.1 only, one
 * offered cdrs only, a configured hub, one not registered yet (token A).
 */

type Answer = { status: number | number[]; code: number; message: RegExp };
type Sender = "emsp" | "receiver" | "oldonly" | "narrow" | "upstream" | "tokenA" | "unknown" | "none";
type Call = { method: "GET" | "PUT" | "POST"; path: string; as: Sender; from?: PartyRef | "malformed"; to?: PartyRef; body?: string };
type Row = { title: string; answer?: Answer; body?: true; hostile(call: Call): Call };
/** A cell that does not answer its row's answer: not applicable, or a different answer, with its reason; or a bug not mended yet. */
type Exception = { na: string } | { differs: Answer; why: string } | { bug: string };
type Column = {
  title: string;
  gateway: "cpo" | "hub";
  /** the request every row alters, made ready (a cache primed, a result URL opened) */
  prepare(): Promise<Call>;
  /** the answer to the unaltered request */
  served: Answer;
  /** why the body rows do not apply (a GET has no body) */
  noBody?: string;
  /** after each cell: what else must hold (the fast path answered, the receiver got the body) */
  verify?(row: RowId, call: Call): void;
};

const party = (country_code: string, party_id: string): PartyRef => ({ country_code, party_id });
const EMS = party("DE", "EMS");
const OTH = party("FR", "OTH");
const OLD = party("DE", "OLD");
const NAR = party("DE", "NAR");
const GWY = party("NL", "GWY");
const HUB = party("NL", "HUB");
const CPO = party("NL", "CPO");

/** Small body limits (server.inbound.*), so each body row is a few hundred bytes. */
const LIMITS = { max_body_bytes: 1024, max_object_members: 20, max_body_members: 100, max_body_layouts: 30, max_string_bytes: 200 };
const TOKEN_BODY = JSON.stringify({ ...token, type: "RFID" });
const TOKEN_PATH = `receiver/tokens/DE/EMS/${token.uid}`;

const answer = (status: number, code: number, message: RegExp): Answer => ({ status, code, message });
const UNAUTHORIZED = answer(401, 2000, /^Unknown or missing credentials token$/);
const NOT_THEIRS = answer(200, 2001, /^from-country-code\/from-party-id FR\/OTH is not one of the partner's parties$/);
const TOO_WIDE = answer(413, 2001, /^Request body has an object with more than 20 members/);
const OK = answer(200, 1000, /^/);
const WIDE_BODY = JSON.stringify(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i])));
/** a row of a body over one limit and no other */
const over = (title: string, refused: Answer, body: string): Row => ({ title, answer: refused, body: true, hostile: (c) => ({ ...c, body }) });

const ROWS = {
  good: { title: "nothing wrong (the control)", hostile: (c) => c },
  noToken: { title: "no token", answer: UNAUTHORIZED, hostile: (c) => ({ ...c, as: "none" }) },
  wrongToken: { title: "a token of nobody", answer: UNAUTHORIZED, hostile: (c) => ({ ...c, as: "unknown" }) },
  tokenA: {
    title: "token A (bootstrap) on a module path",
    answer: answer(401, 2000, /^Token A is only valid on the versions and credentials endpoints$/),
    hostile: (c) => ({ ...c, as: "tokenA" }),
  },
  version: {
    title: "a version the partner may not use (partners[].versions)",
    answer: answer(401, 2000, /^Version 2\.\d\.\d is not enabled for this partner$/),
    hostile: (c) => ({ ...c, as: "oldonly", from: OLD }),
  },
  module: {
    title: "a module not offered to the partner (partners[].modules)",
    answer: answer(404, 2001, /^Module \w+ not found$/),
    hostile: (c) => ({ ...c, as: "narrow", from: NAR }),
  },
  foreignFrom: { title: "from a party another registered partner holds", answer: NOT_THEIRS, hostile: (c) => ({ ...c, from: OTH }) },
  hubForeignFrom: {
    title: "a configured hub partner, from a party another registered partner holds",
    answer: NOT_THEIRS,
    hostile: (c) => ({ ...c, as: "upstream", from: OTH }),
  },
  malformedHeader: {
    title: "a malformed routing header",
    answer: answer(200, 2001, /^header from-party-id must be 3 alphanumeric characters$/),
    hostile: (c) => ({ ...c, from: "malformed" }),
  },
  noTokenMalformedHeader: {
    title: "no token and a malformed routing header (the token is asked first)",
    answer: UNAUTHORIZED,
    hostile: (c) => ({ ...c, as: "none", from: "malformed" }),
  },
  // whitespace: over the byte limit and no other
  bytes: over("a body over the byte limit", answer(413, 2001, /^Request body larger than 1024 bytes/), `${TOKEN_BODY}${" ".repeat(LIMITS.max_body_bytes)}`),
  depth: over("JSON nested too deep", answer(400, 2001, /^Request body nests arrays and objects deeper than \d+ levels$/), `{"a":${"[".repeat(40)}${"]".repeat(40)}}`),
  width: over("JSON too wide (members of one object)", TOO_WIDE, WIDE_BODY),
  members: over(
    "JSON with too many members and elements in all",
    answer(413, 2001, /^Request body has more than 100 members and array elements in all/),
    JSON.stringify(Array.from({ length: 150 }, () => 0)),
  ),
  layouts: over(
    "JSON objects of too many layouts (orders of member names)",
    answer(413, 2001, /^Request body has objects of more than 30 layouts/),
    JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ [`k${i}`]: 0 }))),
  ),
  string: over("a string too long", answer(413, 2001, /^Request body has a string or number longer than 200 bytes/), JSON.stringify({ ...token, issuer: "x".repeat(300) })),
  noTokenWideBody: {
    title: "no token and a body over a limit (the token is asked first)",
    answer: UNAUTHORIZED,
    body: true,
    hostile: (c) => ({ ...c, as: "none", body: WIDE_BODY }),
  },
} satisfies Record<string, Row>;
type RowId = keyof typeof ROWS;

/** the recording receiver behind the hub takes whatever it is sent */
const RECEIVER_ANSWER = OK;
const NO_BODY = "a GET has no body (OCPI 2.2.1 Transport and format)";


/** Koa reads a body (core/http/json-body.ts, before the router) before a route or an unknown path admits the request. */
const BODY_FIRST: Exception = { differs: TOO_WIDE, why: "Koa reads every body before the router, so before the route's admission asks for the token" };

/** The cells that do not answer their row's answer, each with its reason. */
const CELLS: Partial<Record<string, Partial<Record<RowId, Exception>>>> = {
  koaRoute: { noTokenWideBody: BODY_FIRST },
  unknownPath: { noTokenWideBody: BODY_FIRST },
  relay: {
    version: { na: "a result URL has no version in its path: the relay's entry names the sender's, the poster's registration its own" },
    module: { na: "a result URL names no module; a receiver not offered the module is never forwarded the request (4001), so never holds a result URL for it" },
  },
};

// --- the world: two gateways, a receiver behind the hub, the sender's response URLs ---------------------

type World = { url: string; auth: Record<Sender, string | undefined> };
const worlds = {} as Record<"cpo" | "hub", World>;
let cpo: Gateway;
let hub: Gateway;
let receiver: http.Server;
let results: http.Server;
let receiverUrl: string;
let resultsUrl: string;
const atReceiver: RecordedRequest[] = [];
const atResults: RecordedRequest[] = [];
let fastAnswers: jest.SpyInstance;

const TOKEN_A = "token-a-of-the-newbie-0001";
/** the token each partner gave us, by its id: the hub's for the receiver is `${OUR_TOKEN_AT}cpo221` */
const OUR_TOKEN_AT = "our-token-at-";

/** A partner: its YAML entry and, unless it only holds token A, its registration as a credentials exchange leaves it. */
type TestPartner = { sender?: Sender; config: PartnerSpec; registered?: { version: "2.3.0" | "2.2.1" | "2.1.1"; role: Role; party: PartyRef } };
const PARTNERS = (): TestPartner[] => [
  { sender: "emsp", config: { id: "emsp", roles: [{ role: "EMSP", party: "DEEMS" }], callback_hosts: [new URL(resultsUrl).host] }, registered: { version: "2.3.0", role: "EMSP", party: EMS } },
  { config: { id: "other", roles: [{ role: "EMSP", party: "FROTH" }] }, registered: { version: "2.3.0", role: "EMSP", party: OTH } },
  { sender: "oldonly", config: { id: "oldonly", versions: ["2.1.1"], roles: [{ role: "EMSP", party: "DEOLD" }] }, registered: { version: "2.1.1", role: "EMSP", party: OLD } },
  { sender: "narrow", config: { id: "narrow", modules: ["cdrs"], roles: [{ role: "EMSP", party: "DENAR" }] }, registered: { version: "2.3.0", role: "EMSP", party: NAR } },
  { sender: "upstream", config: { id: "upstream", roles: [{ role: "HUB", party: "BEUPH" }] }, registered: { version: "2.3.0", role: "HUB", party: party("BE", "UPH") } },
  { config: { id: "newbie", token_a: TOKEN_A } },
];
/** the hub's only: a 2.2.1 CPO, the receiver behind it, whose tokens and commands receivers are the recording server */
const RECEIVER = (): TestPartner => ({
  sender: "receiver",
  config: { id: "cpo221", versions_url: `${receiverUrl}/versions`, roles: [{ role: "CPO", party: "NLCPO" }] },
  registered: { version: "2.2.1", role: "CPO", party: CPO },
});
const receiverEndpoints = () =>
  (["tokens", "commands"] as const).map((identifier) => ({ identifier, role: "RECEIVER" as const, url: `${receiverUrl}/2.2.1/${identifier}` }));

/** Registers the partners; answers the Authorization each sender sends. */
const register = async (gateway: Gateway, url: string, partners: TestPartner[]): Promise<World> => {
  const auth: Partial<World["auth"]> = { tokenA: tokenHeader(TOKEN_A), unknown: tokenHeader("not-a-token-of-anyone-0001") };
  for (const { sender, config, registered } of partners) {
    if (!registered) continue;
    const issued = await gateway.registry.issueToken(config.id);
    const isReceiver = sender === "receiver";
    await gateway.registry.recordRegistration(config.id, {
      version: registered.version,
      versionsUrl: isReceiver ? `${receiverUrl}/versions` : "http://127.0.0.1:9/versions",
      endpoints: isReceiver ? receiverEndpoints() : [],
      roles: [{ ...registered.party, role: registered.role, business_details: { name: config.id } }],
      tokenToPartner: `${OUR_TOKEN_AT}${config.id}`,
    });
    if (sender) auth[sender] = tokenHeader(issued);
  }
  return { url, auth: auth as World["auth"] };
};

beforeAll(async () => {
  const [cpoPort, hubPort, receiverPort, resultsPort] = await freePorts(4);
  receiverUrl = `http://127.0.0.1:${receiverPort}`;
  resultsUrl = `http://127.0.0.1:${resultsPort}`;
  receiver = await recordingServer(receiverPort, atReceiver);
  results = await recordingServer(resultsPort, atResults);
  const inbound = { ...DEFAULT_INBOUND, ...LIMITS };

  cpo = await Gateway.create(
    testGatewayConfig({
      port: cpoPort,
      party: { ...GWY, role: "CPO" },
      server: { inbound },
      modules: { locations: { adapter: "local" }, tokens: { adapter: "local" } },
      adapters: { local: { seed: seedFile(GWY) } },
      partners: PARTNERS().map((p) => p.config),
    }),
    { logger: pino({ level: "silent" }) },
  );
  await cpo.listen();
  worlds.cpo = await register(cpo, `http://127.0.0.1:${cpoPort}`, PARTNERS());
  fastAnswers = jest.spyOn(cpo.container.resolve(ResponseCache), "peekServed");

  hub = await Gateway.create(
    testGatewayConfig({
      port: hubPort,
      party: { ...HUB, role: "OTHER" },
      server: { inbound, hub_party_id: "NLHUB" },
      partners: [...PARTNERS(), RECEIVER()].map((p) => p.config),
    }),
    { logger: pino({ level: "silent" }) },
  );
  await hub.listen();
  worlds.hub = await register(hub, `http://127.0.0.1:${hubPort}`, [...PARTNERS(), RECEIVER()]);
}, 30_000);

/** cells asked, and those whose answer was not their row's (a failed assertion), for the soak's report */
const tally = { cells: 0, wrong: 0 };

afterAll(async () => {
  recordReliability("Edge admission matrix", {
    cases: tally.cells,
    faults: 0,
    losses: tally.wrong,
    notes: ["hostile rows (tokens, versions, modules, routing headers, body limits) × entrances (Koa route, cached GET, hub streamed, parsed, broadcast, merged list, result URL, unknown path)"],
  });
  await Promise.all([cpo?.close(), hub?.close()]);
  await Promise.all([receiver, results].filter(Boolean).map(closeServer));
  removeTempDirs();
});

let sent = 0;
/** The X-Correlation-ID of the last request sent: a forwarded request keeps it (README "Hubs and forwarding"). */
let correlationId = "";
/** What reached the receiver behind the hub of the last request sent. */
const forwarded = () => atReceiver.filter((r) => r.headers["x-correlation-id"] === correlationId);

const send = (world: World, call: Call): Promise<HttpResult> => {
  correlationId = `edge-admission-${++sent}`;
  const headers: Record<string, string> = { "X-Correlation-ID": correlationId };
  const auth = world.auth[call.as];
  if (auth) headers.Authorization = auth;
  const from = call.from === "malformed" ? party("DE", "E") : call.from;
  if (from) Object.assign(headers, { "OCPI-from-country-code": from.country_code, "OCPI-from-party-id": from.party_id });
  if (call.to) Object.assign(headers, { "OCPI-to-country-code": call.to.country_code, "OCPI-to-party-id": call.to.party_id });
  return ocpiRequest(call.method, `${world.url}${call.path}`, { headers, body: call.body });
};

// --- the entrances --------------------------------------------------------------------------------------

let fastBefore = 0;
let sentCommands = 0;

const COLUMNS: Record<string, Column> = {
  koaRoute: {
    title: "(a) a Koa route with path parameters (PUT receiver tokens)",
    gateway: "cpo",
    prepare: async () => ({ method: "PUT", path: `/ocpi/2.3.0/${TOKEN_PATH}`, as: "emsp", from: EMS, to: GWY, body: TOKEN_BODY }),
    served: { status: [200, 201], code: 1000, message: /^/ },
  },
  cachedGet: {
    title: "(b) the cached-GET fast path (a list answered before Koa)",
    gateway: "cpo",
    prepare: async () => {
      const call: Call = { method: "GET", path: "/ocpi/2.3.0/sender/locations?limit=5", as: "emsp", from: EMS, to: GWY };
      expect((await send(worlds.cpo, call)).body.status_code).toBe(1000);
      fastBefore = fastAnswers.mock.calls.length;
      return call;
    },
    served: OK,
    noBody: NO_BODY,
    // the control is answered before Koa; every hostile variant is handed to Koa, which refuses it
    verify: (row) => expect(fastAnswers.mock.calls.length - fastBefore).toBe(row === "good" ? 1 : 0),
  },
  streamed: {
    title: "(c) hub forwarding, same version (streamed)",
    gateway: "hub",
    prepare: async () => ({ method: "PUT", path: `/ocpi/2.2.1/${TOKEN_PATH}`, as: "emsp", from: EMS, to: CPO, body: TOKEN_BODY }),
    served: RECEIVER_ANSWER,
    // what reached the receiver reached it whole, with the hub's token for it, never the sender's
    verify: (row, call) => {
      const reached = row === "good" || CELLS.streamed?.[row] ? [{ text: call.body, authorization: tokenHeader(`${OUR_TOKEN_AT}cpo221`) }] : [];
      expect(forwarded().map((r) => ({ text: r.text, authorization: r.authorization }))).toEqual(reached);
    },
  },
  parsed: {
    title: "(d) hub forwarding across versions (parsed and translated)",
    gateway: "hub",
    prepare: async () => ({ method: "PUT", path: `/ocpi/2.3.0/${TOKEN_PATH}`, as: "emsp", from: EMS, to: CPO, body: TOKEN_BODY }),
    served: RECEIVER_ANSWER,
    // only the control reaches the receiver, translated, with the hub's token for it
    verify: (row) => {
      const reached = row === "good" ? [{ uid: token.uid, authorization: tokenHeader(`${OUR_TOKEN_AT}cpo221`) }] : [];
      expect(forwarded().map((r) => ({ uid: r.body?.uid, authorization: r.authorization }))).toEqual(reached);
    },
  },
  broadcast: {
    title: "(e) a broadcast PUT to our hub party",
    gateway: "hub",
    prepare: async () => ({ method: "PUT", path: `/ocpi/2.3.0/${TOKEN_PATH}`, as: "emsp", from: EMS, to: HUB, body: TOKEN_BODY }),
    served: OK,
  },
  mergedList: {
    title: "(e') a GET-all to our hub party (merged lists)",
    gateway: "hub",
    prepare: async () => ({ method: "GET", path: "/ocpi/2.3.0/sender/locations?limit=5", as: "emsp", from: EMS, to: HUB }),
    served: OK,
    noBody: NO_BODY,
  },
  relay: {
    title: "(f) a hub result URL",
    gateway: "hub",
    prepare: async () => {
      // a command forwarded with a response_url: the receiver is handed one of the hub's instead
      const sent = await send(worlds.hub, {
        method: "POST",
        path: "/ocpi/2.3.0/receiver/commands/STOP_SESSION",
        as: "emsp",
        from: EMS,
        to: CPO,
        body: JSON.stringify({ session_id: "SES1", response_url: `${resultsUrl}/results/${++sentCommands}` }),
      });
      expect(sent.body.status_code).toBe(1000);
      const relay = String(forwarded()[0].body.response_url);
      expect(relay.startsWith(`${worlds.hub.url}${RELAY_PATH}`)).toBe(true);
      return { method: "POST", path: relay.slice(worlds.hub.url.length), as: "receiver", from: CPO, to: EMS, body: JSON.stringify({ result: "ACCEPTED" }) };
    },
    served: OK,
    // only the control's result reaches the sender's response_url
    verify: (row) => expect(atResults.at(-1)?.path === `/results/${sentCommands}`).toBe(row === "good"),
  },
  unknownPath: {
    title: "(g) a path of no route under /ocpi",
    gateway: "cpo",
    prepare: async () => ({ method: "PUT", path: `/ocpi/2.3.0/${TOKEN_PATH}/extra`, as: "emsp", from: EMS, to: GWY, body: TOKEN_BODY }),
    served: { status: 404, code: 2000, message: /^No endpoint at PUT / },
  },
};

const expectAnswer = (answer: HttpResult, expected: Answer) => {
  const statuses = [expected.status].flat();
  expect({ status: statuses.includes(answer.status) ? statuses[0] : answer.status, code: answer.body?.status_code }).toEqual({ status: statuses[0], code: expected.code });
  expect(answer.body.status_message ?? "").toMatch(expected.message);
};

describe.each(Object.entries(COLUMNS))("%s", (columnId, column) => {
  const cells = (Object.keys(ROWS) as RowId[]).map((rowId) => {
    const row: Row = ROWS[rowId];
    const exception: Exception | undefined = row.body && column.noBody ? { na: column.noBody } : CELLS[columnId]?.[rowId];
    return { rowId, row, exception };
  });
  const cell = async ({ rowId, row, exception }: (typeof cells)[number]) => {
    tally.cells++;
    try {
      const call = row.hostile(await column.prepare());
      const answer = await send(worlds[column.gateway], call);
      expectAnswer(answer, exception && "differs" in exception ? exception.differs : (row.answer ?? column.served));
      column.verify?.(rowId, call);
    } catch (error) {
      tally.wrong++;
      throw error;
    }
  };
  const title = (c: (typeof cells)[number]) => [c.exception && "bug" in c.exception ? `${c.row.title} [known bug: ${c.exception.bug}]` : c.row.title, c] as const;
  const applicable = cells.filter((c) => !(c.exception && "na" in c.exception));
  it.each(applicable.filter((c) => !(c.exception && "bug" in c.exception)).map(title))(`${column.title}: %s`, (_title, c) => cell(c));
  // a cell that still fails its row's answer: once the bug is mended jest says so, and its mark goes
  const bugs = applicable.filter((c) => c.exception && "bug" in c.exception);
  if (bugs.length > 0) it.failing.each(bugs.map(title))(`${column.title}: %s`, (_title, c) => cell(c));
});
