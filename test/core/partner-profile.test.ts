import "reflect-metadata";
import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, type PartnerSpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, tokenHeader, type HttpResult } from "../support/gateway-process";
import { LoopbackPartner } from "../support/loopback-server";
import { captureLogs } from "../support/log-capture";
import { ADMIN_TOKEN, location, OWNER, postEvent, until, type Json } from "../support/push-pair";

/**
 * Issue #23 item 5: how the gateway treats a partner is read from one object, its profile
 * (core/partners/partner-profile.ts), built from its YAML entry and its registration. Two eMSPs written
 * here with node:http register with one CPO gateway in OCPI 2.2.1 under opposite YAML, and what crosses
 * the wire differs exactly as the YAML says: token encoding (both ways), routing-header prefix, nulls for
 * optional fields, strictness of what they send, page limit and push concurrency.
 */

/** A location PUT the eMSP received (or holds, unanswered) */
interface Push {
  id: string;
  headers: http.IncomingHttpHeaders;
  body: Json;
}

class FakeEmsp extends LoopbackPartner {
  /** Authorization headers of every request it got from the gateway */
  readonly authorizations: string[] = [];
  /** location PUTs answered */
  readonly taken: Push[] = [];
  /** location PUTs of ids starting HOLD, waiting for `release` */
  private readonly held: (() => void)[] = [];
  maxInFlight = 0;

  get inFlight(): number {
    return this.held.length;
  }

  /** answers every PUT held now */
  release(): void {
    for (const answer of this.held.splice(0)) answer();
  }

  protected answer(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    const reply = (status: number, data: unknown = null) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ status_code: 1000, data, timestamp: new Date().toISOString() }));
    };
    this.authorizations.push(req.headers.authorization ?? "");
    const url = req.url ?? "";
    if (url === "/versions") return reply(200, [{ version: "2.2.1", url: `${this.base}/2.2.1/details` }]);
    if (url === "/2.2.1/details")
      return reply(200, {
        version: "2.2.1",
        endpoints: [
          { identifier: "credentials", role: "RECEIVER", url: `${this.base}/2.2.1/credentials` },
          { identifier: "locations", role: "RECEIVER", url: `${this.base}/2.2.1/locations` },
        ],
      });
    const put = /^\/2\.2\.1\/locations\/NL\/CPO\/([^/]+)$/.exec(url);
    if (!put || req.method !== "PUT") return reply(404);
    const push: Push = { id: put[1], headers: req.headers, body: JSON.parse(text) as Json };
    const answer = () => {
      this.taken.push(push);
      reply(200);
    };
    if (!push.id.startsWith("HOLD")) return answer();
    this.held.push(answer);
    this.maxInFlight = Math.max(this.maxInFlight, this.held.length);
  }
}

const logs = captureLogs();
const exact = new FakeEmsp();
const lenient = new FakeEmsp();
/** the tokens the eMSPs give the gateway, and the ones it gives them */
const theirTokens = { exact: "exact-emsp-token-for-the-cpo-0123456789", lenient: "lenient-emsp-token-for-the-cpo-0123456789" };
const ourTokens: Record<string, string> = {};
const encodings = { exact: "raw", lenient: "base64" } as const;
let gateway: Gateway;
let gatewayUrl: string;
let defaultPageLimit: number;

/** Opposite YAML: everything the profile carries that shows on the wire. */
const partners = (): PartnerSpec[] => [
  {
    id: "exact",
    token_a: "exact-token-a-0123456789",
    callback_hosts: [new URL(exact.base).host],
    token_encoding: "raw",
    header_prefix: "ROAMING",
    strictness: "reject",
    send_nulls_for_optional: true,
    max_page_limit: 1,
    push: { concurrency: 1 },
  },
  {
    id: "lenient",
    token_a: "lenient-token-a-0123456789",
    callback_hosts: [new URL(lenient.base).host],
    token_encoding: "base64",
    header_prefix: "OCPI",
    strictness: "log",
    push: { concurrency: 3 },
  },
];

type Name = keyof typeof theirTokens;
const fakes: Record<Name, FakeEmsp> = { exact, lenient };

/** A request of the partner to our 2.2.1 interface, its token in the encoding its YAML says unless `encoding` is given. */
const asPartner = (name: Name, method: string, route: string, body?: unknown, encoding = encodings[name]): Promise<HttpResult> =>
  ocpiRequest(method, `${gatewayUrl}/ocpi/2.2.1/${route}`, { token: ourTokens[name], encoding, body });

const pushLocation = (id: string) => postEvent(gatewayUrl, { module: "locations", owner: OWNER, path: [id], kind: "upsert", object: location(id, 1) });

beforeAll(async () => {
  await exact.start();
  await lenient.start();
  const [port] = await freePorts(1);
  gatewayUrl = `http://127.0.0.1:${port}`;
  const config = testGatewayConfig({
    port,
    party: { ...OWNER, role: "CPO" },
    modules: { locations: { adapter: "local" }, tokens: { adapter: "local" } },
    server: { admin_token: ADMIN_TOKEN },
    partners: partners(),
  });
  defaultPageLimit = config.server.max_page_limit;
  gateway = await Gateway.create(config, { logger: logs.logger });
  await gateway.listen();
  for (const [name, party] of [["exact", "EXA"], ["lenient", "LEN"]] as const) {
    const tokenA = partners().find((p) => p.id === name)!.token_a!;
    const answer = await ocpiRequest("POST", `${gatewayUrl}/ocpi/2.2.1/credentials`, {
      token: tokenA,
      encoding: encodings[name],
      body: { token: theirTokens[name], url: `${fakes[name].base}/versions`, roles: [{ role: "EMSP", country_code: "DE", party_id: party, business_details: { name: party } }] },
    });
    expect(answer.body).toMatchObject({ status_code: 1000 });
    ourTokens[name] = answer.body.data.token;
    logs.watch(tokenA, ourTokens[name]);
  }
  logs.watch(ADMIN_TOKEN, theirTokens.exact, theirTokens.lenient);
}, 30_000);

afterAll(async () => {
  exact.release();
  lenient.release();
  await gateway?.close();
  await exact.close();
  await lenient.close();
  removeTempDirs();
});

describe("one profile per partner drives what crosses the wire", () => {
  it("token_encoding: its token is sent to it raw or Base64, and only its own encoding is taken from it", async () => {
    expect(exact.authorizations.length).toBeGreaterThan(0);
    expect(new Set(exact.authorizations)).toEqual(new Set([tokenHeader(theirTokens.exact, "raw")]));
    expect(new Set(lenient.authorizations)).toEqual(new Set([tokenHeader(theirTokens.lenient, "base64")]));

    expect((await asPartner("exact", "GET", "sender/locations")).status).toBe(200);
    expect((await asPartner("exact", "GET", "sender/locations", undefined, "base64")).status).toBe(401);
    expect((await asPartner("lenient", "GET", "sender/locations")).status).toBe(200);
    expect((await asPartner("lenient", "GET", "sender/locations", undefined, "raw")).status).toBe(401);
  });

  it("header_prefix and send_nulls_for_optional: one push, two renderings", async () => {
    await pushLocation("NULLS-1");
    await until("both took it", async () => exact.taken.some((p) => p.id === "NULLS-1") && lenient.taken.some((p) => p.id === "NULLS-1"));
    const [toExact, toLenient] = [exact, lenient].map((fake) => fake.taken.find((p) => p.id === "NULLS-1")!);

    expect(toExact.headers).toMatchObject({ "roaming-from-country-code": "NL", "roaming-from-party-id": "CPO" });
    expect(Object.keys(toExact.headers).filter((h) => h.startsWith("ocpi-"))).toEqual([]);
    expect(toLenient.headers).toMatchObject({ "ocpi-from-country-code": "NL", "ocpi-from-party-id": "CPO" });
    expect(Object.keys(toLenient.headers).filter((h) => h.startsWith("roaming-"))).toEqual([]);

    // optional fields the object leaves out: null (a list: []) for the one that wants every key, absent for the other
    expect(toExact.body).toMatchObject({ id: "NULLS-1", name: null, operator: null, related_locations: [] });
    expect(toLenient.body.id).toBe("NULLS-1");
    expect(toLenient.body).not.toHaveProperty("name");
    expect(toLenient.body).not.toHaveProperty("operator");
  });

  it("strictness: the same invalid Token is refused from one (2001 naming the field) and taken from the other", async () => {
    const token = (party: string) => ({
      country_code: "DE",
      party_id: party,
      uid: "PROFILE-T1",
      type: "RFID",
      contract_id: `DE-${party}-CPT1`,
      issuer: party,
      // a string where the protocol has a boolean
      valid: "yes",
      whitelist: "ALLOWED",
      last_updated: "2025-01-01T00:00:00Z",
    });
    const refused = await asPartner("exact", "PUT", "receiver/tokens/DE/EXA/PROFILE-T1", token("EXA"));
    expect(refused.body.status_code).toBe(2001);
    expect(refused.body.status_message).toContain("/valid");
    expect((await asPartner("exact", "GET", "receiver/tokens/DE/EXA/PROFILE-T1")).status).toBe(404);

    const taken = await asPartner("lenient", "PUT", "receiver/tokens/DE/LEN/PROFILE-T1", token("LEN"));
    expect(taken.body.status_code).toBe(1000);
    expect((await asPartner("lenient", "GET", "receiver/tokens/DE/LEN/PROFILE-T1")).body).toMatchObject({ status_code: 1000, data: { uid: "PROFILE-T1" } });
  });

  it("max_page_limit: the lists it reads are capped at its own limit, else the server's", async () => {
    expect((await asPartner("exact", "GET", "sender/locations?limit=50")).headers["x-limit"]).toBe("1");
    expect((await asPartner("lenient", "GET", "sender/locations?limit=5000")).headers["x-limit"]).toBe(String(defaultPageLimit));
  });

  it("push.concurrency: pushes to one go one at a time, to the other three at a time", async () => {
    const queued = async () => {
      const outbox = (await ocpiRequest("GET", `${gatewayUrl}/admin/v1/outbox`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).body.data as Json[];
      return Object.fromEntries(outbox.map((q) => [q.partner, q.queued]));
    };
    // the first push is held by both, so the other eight wait in one pass of each queue behind it
    await pushLocation("HOLD-GATE");
    await until("both hold the first", async () => exact.inFlight === 1 && lenient.inFlight === 1);
    const ids = Array.from({ length: 8 }, (_, i) => `HOLD-${i + 1}`);
    for (const id of ids) await pushLocation(id);
    await until("all nine are queued for both", async () => {
      const counts = await queued();
      return counts.exact === 9 && counts.lenient === 9;
    });

    // each delivery lets one more go, up to the partner's concurrency
    lenient.release();
    await until("lenient has two in flight", async () => lenient.inFlight >= 2);
    lenient.release();
    await until("lenient has three in flight", async () => lenient.inFlight >= 3);
    const held = (fake: FakeEmsp) => fake.taken.filter((p) => p.id.startsWith("HOLD")).length;
    while (held(exact) < 9) {
      exact.release();
      await until("exact has the next one, or has taken all nine", async () => exact.inFlight === 1 || held(exact) === 9);
    }
    while (held(lenient) < 9) {
      lenient.release();
      await until("lenient has more, or has taken all nine", async () => lenient.inFlight > 0 || held(lenient) === 9);
    }

    expect(exact.maxInFlight).toBe(1);
    expect(lenient.maxInFlight).toBe(3);
  });

  it("no token appears in a log line", () => {
    expect(logs.leaks()).toEqual([]);
  });
});

/**
 * The guard of the rule above: a partner's YAML entry (PartnerRegistry.configOf) is read only in
 * core/partners, where profiles are built; everything else asks the profile.
 */
describe("the partner's YAML entry is read only where profiles are built", () => {
  const ROOT = path.join(__dirname, "..", "..");
  const sources = (dir: string): string[] =>
    fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return sources(relative);
      return entry.name.endsWith(".ts") ? [relative] : [];
    });

  it("no `configOf(` outside core/partners", () => {
    const files = ["core", "plugins", "app", "adapters"].flatMap(sources);
    expect(files).toContain("core/partners/partner-registry.ts");
    const readers = files.filter((file) => !file.startsWith("core/partners/") && /(?<![\w$])configOf\(/.test(fs.readFileSync(path.join(ROOT, file), "utf8")));
    expect(readers).toEqual([]);
  });
});
