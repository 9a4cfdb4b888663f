import "reflect-metadata";
import http from "node:http";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { ADMIN_TOKEN, COMMAND_BODIES, adminApi, eventually } from "../support/charge-point";
import { captureLogs, type LogCapture } from "../support/log-capture";
import { closeServer, listenOnLoopback } from "../support/loopback-server";

/**
 * Issue #25 item 1: a hub that serves hubclientinfo only as a list. Two OCPI 2.2.1 hubs written here with
 * node:http list the CPO parties connected through them as CONNECTED on their hubclientinfo SENDER
 * interface and never push them (their credentials name only their own HUB party, as a 2.2.1 hub's do). An
 * eMSP gateway (in-process, SQLite) pulls the list when it registers with a hub, and on the schedule of
 * `partners[].sync.hubclientinfo` with `date_from`; what it pulled is where a pushed ClientInfo is kept,
 * so the admin API shows it and a command `?to=` a listed party goes out through the hub.
 */

type Json = Record<string, any>;

const VERSION = "2.2.1";
const EVERY_SECOND = "* * * * * *";
const OURS = { country_code: "DE", party_id: "EMS" };

interface ClientInfo {
  country_code: string;
  party_id: string;
  role: string;
  status: string;
  last_updated: string;
}

/** A hub on loopback: versions, credentials, a hubclientinfo list (date_from honoured) and a commands receiver. Nothing is pushed. */
class ListOnlyHub {
  readonly requests: { method: string; url: URL; headers: http.IncomingHttpHeaders }[] = [];
  tokenFromUs?: string;
  private readonly server = http.createServer((req, res) => void this.serve(req, res));

  constructor(
    readonly port: number,
    readonly party: { country_code: string; party_id: string },
    /** what its list holds: the parties connected through it, and one of ours (every hub lists all its clients) */
    readonly clients: ClientInfo[],
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get token(): string {
    return `list-only-hub-${this.party.party_id}-token-B-0123456789`;
  }

  /** the list requests it received, with their date_from (undefined: the whole list) */
  listRequests(): (string | undefined)[] {
    return this.requests.filter((r) => r.method === "GET" && r.url.pathname === `/${VERSION}/hubclientinfo`).map((r) => r.url.searchParams.get("date_from") ?? undefined);
  }

  listen(): Promise<void> {
    return listenOnLoopback(this.server, this.port);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let text = "";
    for await (const chunk of req) text += chunk;
    const url = new URL(req.url ?? "/", this.url);
    this.requests.push({ method: req.method ?? "", url, headers: req.headers });
    const reply = (data: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(200, { "Content-Type": "application/json", ...headers });
      res.end(JSON.stringify({ data, status_code: 1000, timestamp: new Date().toISOString() }));
    };
    const base = `${this.url}/${VERSION}`;
    if (url.pathname === "/versions") return reply([{ version: VERSION, url: base }]);
    if (url.pathname === `/${VERSION}`)
      return reply({
        version: VERSION,
        endpoints: [
          { identifier: "credentials", role: "RECEIVER", url: `${base}/credentials` },
          { identifier: "hubclientinfo", role: "SENDER", url: `${base}/hubclientinfo` },
          { identifier: "commands", role: "RECEIVER", url: `${base}/commands` },
        ],
      });
    if (req.method === "POST" && url.pathname === `/${VERSION}/credentials`) {
      this.tokenFromUs = JSON.parse(text).token;
      return reply({ token: this.token, url: `${this.url}/versions`, roles: [{ role: "HUB", ...this.party, business_details: { name: "List-only hub" } }] });
    }
    if (req.method === "GET" && url.pathname === `/${VERSION}/hubclientinfo`) {
      const from = url.searchParams.get("date_from");
      const listed = this.clients.filter((c) => !from || Date.parse(c.last_updated) >= Date.parse(from));
      return reply(listed, { "X-Total-Count": String(listed.length), "X-Limit": "100" });
    }
    if (req.method === "POST" && url.pathname.startsWith(`/${VERSION}/commands/`)) return reply({ result: "ACCEPTED", timeout: 30 });
    res.writeHead(404, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ status_code: 2000, status_message: "Unknown path", timestamp: new Date().toISOString() }));
  }
}

const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const cpo = (party_id: string, status = "CONNECTED", at = Date.UTC(2025, 0, 1)): ClientInfo => ({ country_code: "DE", party_id, role: "CPO", status, last_updated: stamp(at) });

describe("a hub that lists its parties and pushes nothing", () => {
  let logs: LogCapture;
  let gateway: Gateway;
  let admin: ReturnType<typeof adminApi>;
  let listOnly: ListOnlyHub;
  let scheduled: ListOnlyHub;

  const received = async (partner: string): Promise<Json[]> => {
    const { body } = await admin.get("/hubclientinfo");
    expect(body.status_code).toBe(1000);
    return (body.data.received as Json[]).filter((r) => r.partner === partner);
  };
  const pulls = (partner: string): Json[] =>
    logs.lines.map((l) => JSON.parse(l) as Json).filter((l) => l.msg === "sync pull completed" && l.partner === partner && l.module === "hubclientinfo");

  /**
   * Each test has its own world: both hubs (their lists and the requests they
   * got), the eMSP gateway on its own store, its log capture. Nobody is
   * registered at first; a test registers with the hubs it reads
   * (registerWithHubA), never finding an earlier test's registration, pull or command.
   */
  beforeEach(async () => {
    logs = captureLogs("info");
    const [emspPort, listOnlyPort, scheduledPort] = await freePorts(3);
    listOnly = new ListOnlyHub(listOnlyPort, { country_code: "NL", party_id: "HBA" }, [
      ...["AAA", "BBB", "CCC", "DDD", "EEE"].map((p) => cpo(p)),
      { ...OURS, role: "EMSP", status: "CONNECTED", last_updated: stamp(Date.UTC(2025, 0, 1)) },
    ]);
    scheduled = new ListOnlyHub(scheduledPort, { country_code: "NL", party_id: "HBB" }, [cpo("FFF"), cpo("GGG")]);
    await listOnly.listen();
    await scheduled.listen();
    const config = testGatewayConfig({
      port: emspPort,
      party: { ...OURS, role: "EMSP" },
      modules: { commands: { adapter: "local" } },
      server: { admin_token: ADMIN_TOKEN },
      partners: [
        // no schedule: heard from its registration on
        { id: "hub-a", token_a: "list-only-hub-a-token-A-0123456789", versions_url: `${listOnly.url}/versions`, roles: [{ role: "HUB", party: "NLHBA" }] },
        {
          id: "hub-b",
          token_a: "list-only-hub-b-token-A-0123456789",
          versions_url: `${scheduled.url}/versions`,
          roles: [{ role: "HUB", party: "NLHBB" }],
          sync: { hubclientinfo: EVERY_SECOND },
          sync_overlap_seconds: 0,
        },
      ],
    });
    gateway = await Gateway.create(config, { logger: logs.logger });
    await gateway.listen();
    admin = adminApi(`http://127.0.0.1:${emspPort}`);
    logs.watch(ADMIN_TOKEN, listOnly.token, scheduled.token, "list-only-hub-a-token-A-0123456789", "list-only-hub-b-token-A-0123456789");
  });

  afterEach(async () => {
    logs.watch(listOnly?.tokenFromUs, scheduled?.tokenFromUs);
    await gateway?.close();
    await Promise.all([listOnly?.close(), scheduled?.close()]);
    removeTempDirs();
    expect(logs.leaks()).toEqual([]);
  });

  /**
   * Registers with hub-a (nothing received from it before), which pulls its list once, and waits for that pull
   * to end: its objects are stored before it is logged and lets its lock go, so a test reading the log or
   * asking for a pull of its own waits for the log line, not only for the parties. Answers its five CPO parties.
   */
  const registerWithHubA = async (): Promise<Json[]> => {
    expect(await received("hub-a")).toEqual([]);
    await gateway.credentials.register("hub-a");
    await eventually(async () => expect(pulls("hub-a").length).toBeGreaterThan(0));
    return eventually(async () => {
      const listed = await received("hub-a");
      expect(listed).toHaveLength(5);
      return listed;
    });
  };

  it("is pulled when we register with it: its parties are in GET /admin/v1/hubclientinfo, ours left out", async () => {
    const parties = await registerWithHubA();
    expect(parties.map((p) => `${p.country_code}${p.party_id}`).sort()).toEqual(["DEAAA", "DEBBB", "DECCC", "DEDDD", "DEEEE"]);
    for (const party of parties) expect(party).toMatchObject({ partner: "hub-a", role: "CPO", status: "CONNECTED", received_at: expect.any(String) });
    // the whole list, once, at registration; our own party in it is taken and ignored, not rejected
    expect(listOnly.listRequests()).toEqual([undefined]);
    expect(pulls("hub-a")).toEqual([expect.objectContaining({ trigger: "registration", full: true, objects: 5, rejected: 0 })]);
  });

  it("a command `?to=` a party it listed goes out through the hub, to that party; one it did not list is refused", async () => {
    await registerWithHubA();
    const { body } = await admin.post("/commands/hub-a/START_SESSION?to=DEAAA", COMMAND_BODIES.START_SESSION);
    expect(body).toMatchObject({ status_code: 1000, data: { uid: expect.any(String), response: { result: "ACCEPTED" } } });
    const sent = listOnly.requests.filter((r) => r.method === "POST" && r.url.pathname === `/${VERSION}/commands/START_SESSION`);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers).toMatchObject({ "ocpi-to-country-code": "DE", "ocpi-to-party-id": "AAA" });

    const refused = await admin.post("/commands/hub-a/START_SESSION?to=DEZZZ", COMMAND_BODIES.START_SESSION);
    expect(refused.body).toMatchObject({ status_code: 2001, status_message: expect.stringContaining("DEZZZ is not a party partner hub-a lists") });
  });

  it("is pulled on its schedule with date_from, which picks up a party's change", async () => {
    await registerWithHubA();
    await gateway.credentials.register("hub-b");
    await eventually(async () => expect(await received("hub-b")).toHaveLength(2));
    // from the first scheduled incremental pull on, only the schedule pulls (its registration is older than the watermark)
    await eventually(async () => expect(pulls("hub-b").some((p) => p.trigger === "schedule" && !p.full)).toBe(true));
    const changedAt = Date.now();
    scheduled.clients[1] = cpo("GGG", "OFFLINE", changedAt);
    const offline = await eventually(async () => {
      const ggg = (await received("hub-b")).find((p) => p.party_id === "GGG");
      expect(ggg?.status).toBe("OFFLINE");
      return ggg;
    }, 10_000);
    expect(offline).toMatchObject({ partner: "hub-b", country_code: "DE", last_updated: stamp(changedAt) });
    // the first pull asked for the whole list, every later one for what changed since the last one started (no overlap here)
    const [first, ...later] = scheduled.listRequests();
    expect(first).toBeUndefined();
    expect(later.length).toBeGreaterThan(0);
    for (const dateFrom of later) expect(dateFrom).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/));
    // the pull that took the change asked from before it, and got only it
    const took = pulls("hub-b").find((p) => p.trigger === "schedule" && p.objects === 1);
    expect(took).toMatchObject({ full: false, dateFrom: expect.any(String) });
    expect(Date.parse(took!.dateFrom)).toBeLessThanOrEqual(changedAt);
    // hub-a has no schedule: still its one pull
    expect(listOnly.listRequests()).toEqual([undefined]);
  });

  it("a pull on demand works for a hub too (`POST /admin/v1/sync/<partner>/hubclientinfo`)", async () => {
    await registerWithHubA();
    const { body } = await admin.post("/sync/hub-a/hubclientinfo?full=true");
    expect(body).toMatchObject({ status_code: 1000, data: { partner: "hub-a", module: "hubclientinfo", full: true, objects: 5, rejected: 0 } });
  });
});

describe("only a partner configured as a hub reports ClientInfo", () => {
  it("a schedule of hubclientinfo from another partner stops the gateway at start, naming it", async () => {
    const [port] = await freePorts(1);
    const config = testGatewayConfig({
      port,
      party: { ...OURS, role: "EMSP" },
      partners: [
        { id: "hub", roles: [{ role: "HUB", party: "NLHBC" }] },
        { id: "cpo", sync: { hubclientinfo: EVERY_SECOND } },
      ],
    });
    await expect(Gateway.create(config, { logger: captureLogs().logger })).rejects.toThrow(
      "partners[1].sync.hubclientinfo: partner cpo is not configured as a hub (partners[].roles lists no HUB): only a hub reports ClientInfo",
    );
  });
});
