import "reflect-metadata";
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { Gateway } from "../../app/gateway";
import type { GatewayConfig } from "../../config/types";
import { PARTNERS, newPartnerRecord } from "../../core/partners/partner-record";
import { type PartnerRecord } from "../../core/contract/partner-record";
import { redisStore, removeTempDirs, sqliteStore, testGatewayConfig, type StoreSpec } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";

/**
 * Two partners registering the same free party at the same moment (issue
 * #23 D2): the claim is written with the registration in one atomic step of
 * the store, so exactly one of them wins, whichever instance each one
 * reaches; the other gets 2001 naming the role and has nothing stored: no
 * registration, no token, and no way to the winner's objects.
 */

const PAIRS = 10;
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const tokenA = (id: string) => `token-a-of-${id}`;

/** A partner platform's discovery side (2.2.1) per partner id, on one loopback listener. */
const startPartnerPlatform = async () => {
  const server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const [, id, what] = (req.url ?? "").split("/");
    const data =
      what === "versions"
        ? [{ version: "2.2.1", url: `${base}/${id}/details` }]
        : { version: "2.2.1", endpoints: [{ identifier: "credentials", role: "RECEIVER", url: `${base}/${id}/credentials` }] };
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ data, status_code: 1000, timestamp: new Date().toISOString() }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

let platform: Awaited<ReturnType<typeof startPartnerPlatform>>;
beforeAll(async () => {
  platform = await startPartnerPlatform();
});
afterAll(async () => {
  await new Promise((resolve) => platform?.server.close(resolve));
  removeTempDirs();
});

const pairIds = (i: number) => [`race-${i}-a`, `race-${i}-b`] as const;
/** the pair the "afterwards" test races itself, apart from the pairs of the first test */
const AGAIN = ["again-a", "again-b"] as const;

const register = (gateway: Gateway, id: string, party: string) =>
  request(gateway.app.callback())
    .post("/ocpi/2.2.1/credentials")
    .set("Authorization", `Token ${b64(tokenA(id))}`)
    .send({
      token: `token-for-us-from-${id}`,
      url: `${platform.base}/${id}/versions`,
      roles: [{ role: "EMSP", country_code: "FR", party_id: party, business_details: { name: id } }],
    });

const STORES: [string, () => StoreSpec][] = [
  ["SQLite", () => sqliteStore()],
  ["Redis", () => redisStore()],
];

describe.each(STORES)("concurrent registrations of one party on %s, through two instances", (_name, storeSpec) => {
  const gateways: Gateway[] = [];
  let config: GatewayConfig;

  beforeAll(async () => {
    const [port] = await freePorts(1);
    const partners = [...Array.from({ length: PAIRS }, (_, i) => pairIds(i)).flat(), ...AGAIN, "latecomer"].map((id) => ({
      id,
      token_a: tokenA(id),
      versions: ["2.2.1" as const],
      callback_hosts: [new URL(platform.base).host],
    }));
    // both instances on one store: the same file, or the same Redis key prefix
    config = testGatewayConfig({ port, store: storeSpec(), partners, modules: { tokens: { adapter: "local" } } });
    gateways.push(await Gateway.create(config), await Gateway.create(config));
  });

  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
  });

  /** Partners `a` and `b` register `party` at the same moment, `a` through the first instance and `b` through the second. */
  const race = async ([a, b]: readonly [string, string], party: string) => {
    const [first, second] = await Promise.all([register(gateways[0], a, party), register(gateways[1], b, party)]);
    return { party, results: [{ id: a, response: first }, { id: b, response: second }] };
  };

  it(`lets exactly one of each of ${PAIRS} pairs win; the loser gets 2001 and has nothing stored`, async () => {
    const outcomes = await Promise.all(Array.from({ length: PAIRS }, (_, i) => race(pairIds(i), `RC${i}`)));
    for (const { party, results } of outcomes) {
      const won = results.filter((r) => r.response.body.status_code === 1000);
      const lost = results.filter((r) => r.response.body.status_code !== 1000);
      expect(`${party}: ${won.length} won`).toBe(`${party}: 1 won`); // (today: 2 won)
      const [winner] = won;
      const [loser] = lost;
      expect(loser.response.body.status_code).toBe(2001);
      expect(loser.response.body.status_message).toMatch(new RegExp(`/roles/0: FR/${party} is registered by another partner`));
      // nothing of the loser's attempt is stored: still pending, no token issued, token A still only a bootstrap token
      const record = await gateways[0].registry.get(loser.id);
      expect(record).toMatchObject({ status: "pending", tokenAConsumed: false, roles: [], endpoints: [] });
      expect(record?.issuedTokenHash).toBeUndefined();
      // the winner's objects are out of the loser's reach
      const winnerToken = winner.response.body.data.token as string;
      const path = `/ocpi/2.2.1/receiver/tokens/FR/${party}/T1`;
      const stored = await request(gateways[1].app.callback())
        .put(path)
        .set("Authorization", `Token ${b64(winnerToken)}`)
        .send({ country_code: "FR", party_id: party, uid: "T1", type: "RFID", contract_id: `FR-${party}-T1`, issuer: "x", valid: true, whitelist: "ALLOWED", last_updated: "2026-01-01T00:00:00Z" });
      expect(stored.body.status_code).toBe(1000);
      const read = await request(gateways[0].app.callback()).get(path).set("Authorization", `Token ${b64(tokenA(loser.id))}`);
      expect(read.body.status_code).not.toBe(1000);
      expect(JSON.stringify(read.body)).not.toContain(`FR-${party}-T1`);
    }
  });

  it("lets the loser register another free party afterwards", async () => {
    // its own race (the first test's pairs are that test's): a pair of its own on a party of its own
    await race(AGAIN, "RCA");
    const [a, b] = AGAIN;
    const loser = (await gateways[0].registry.get(a))?.status === "registered" ? b : a;
    const response = await register(gateways[1], loser, "FRE");
    expect(response.body.status_code).toBe(1000);
  });

  it("holds the parties of registrations stored before claims were kept, once an instance has started on the store", async () => {
    // a registration as an older version wrote it: the record only, no claim
    const legacy: PartnerRecord = { ...newPartnerRecord("legacy"), status: "registered", tokenAConsumed: true, roles: [{ role: "EMSP", country_code: "FR", party_id: "OLD", business_details: { name: "legacy" } }] };
    await gateways[0].store.put(PARTNERS, "legacy", legacy);
    // a third instance, closed with the others (afterAll); the first two stay as every test finds them
    gateways.push(await Gateway.create(config));
    const response = await register(gateways[0], "latecomer", "OLD");
    expect(response.body.status_message).toMatch(/\/roles\/0: FR\/OLD is registered by another partner/);
    expect((await gateways[0].registry.get("latecomer"))?.status).toBe("pending");
  });
});
