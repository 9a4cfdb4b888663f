import "reflect-metadata";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import type { GatewayConfig } from "../../config/types";
import { Gateway } from "../../app/gateway";
import { ChangeFeed } from "../../core/contract/change-feed";
import { evseStatusChanges } from "../support/data-changes";
import { Outbox } from "../../core/outbox/outbox";
import { PARTNERS } from "../../core/partners/partner-record";
import type { Store } from "../../core/contract/store";

/**
 * Issue #11: push fan-out reads the partner list once per registration
 * generation (PartnerRegistry.listCurrent), not once per change. Two
 * gateways on one Redis: a partner unregistered (or registered) on A is
 * not (or is) pushed to by B from B's very next change, although B had
 * the list in memory; and while nothing is (un)registered, B's changes
 * do not read the list again. And a delivery takes the partner's token and
 * endpoints from the records of the current generation
 * (PartnerRegistry.current): a rotation on A is used by B's next delivery.
 */

const HOST = "127.0.0.1";
const gateways: Gateway[] = [];

afterAll(async () => {
  for (const gw of gateways) await gw.close();
});

const configFor = (prefix: string, partners: string[]): GatewayConfig => {
  if (!process.env.REDIS_URL) throw new Error("REDIS_URL is not set: the jest global setup starts a redis-server");
  return {
    server: { port: 0, host: HOST, public_url: `http://${HOST}:1`, max_page_limit: 100, token_grace_seconds: 0, request_timeout_ms: 5000, log_level: "warn" },
    parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Test CPO" } }],
    store: { type: "redis", url: process.env.REDIS_URL, key_prefix: prefix },
    modules: { locations: { adapter: "local" } },
    adapters: { local: {} },
    partners: partners.map((id) => ({
      id,
      versions_url: `http://${HOST}:9/ocpi/versions`,
      versions: ["2.3.0"],
      token_encoding: "auto",
      header_prefix: "OCPI",
      strictness: "reject",
      callback_hosts: [],
    })),
  } as GatewayConfig;
};

const register = (gateway: Gateway, id: string, i: number) =>
  gateway.registry.recordRegistration(id, {
    version: "2.3.0",
    versionsUrl: `http://${HOST}:9/ocpi/versions`,
    endpoints: [{ identifier: "locations", role: "RECEIVER", url: `http://${HOST}:9/ocpi/2.3.0/receiver/locations` }],
    roles: [{ country_code: "DE", party_id: `E0${i}`, role: "EMSP", business_details: { name: id } }],
    tokenToPartner: `token-${id}`,
  });

const change = evseStatusChanges();

const queued = async (gateway: Gateway, id: string) => (await gateway.container.resolve(Outbox).pending(id)).total;

describe("push fan-out on two instances on one Redis", () => {
  it("honours a partner (un)registered on the other instance from the next change on, and reads the list only when the generation moved", async () => {
    const prefix = `test:${randomUUID()}:`;
    const ids = ["p1", "p2"];
    // the outbox worker is not started (no listen): what a change queues stays queued and can be counted
    const a = await Gateway.create(configFor(prefix, ids), { logger: pino({ level: "silent" }) });
    gateways.push(a);
    const b = await Gateway.create(configFor(prefix, ids), { logger: pino({ level: "silent" }) });
    gateways.push(b);
    for (const [i, id] of ids.entries()) await register(a, id, i);
    const feed = b.container.resolve(ChangeFeed);

    // B's list reads of the partners collection, counted
    const store = (b.registry as unknown as { store: Store }).store;
    const range = store.range.bind(store);
    let listReads = 0;
    store.range = ((collection: string, query: Parameters<Store["range"]>[1]) => {
      if (collection === PARTNERS) listReads++;
      return range(collection, query);
    }) as Store["range"];

    await feed.publish(change());
    expect(await queued(b, "p1")).toBe(1);
    expect(await queued(b, "p2")).toBe(1);
    for (let i = 0; i < 5; i++) await feed.publish(change());
    expect(await queued(b, "p1")).toBe(6);
    expect(await queued(b, "p2")).toBe(6);
    expect(listReads).toBe(1);

    // unregistered on A: B's very next change no longer goes to it
    await a.registry.unregister("p2");
    await feed.publish(change());
    expect(await queued(b, "p1")).toBe(7);
    expect(await queued(b, "p2")).toBe(6);
    expect(listReads).toBe(2);

    // registered again on A: B's next change goes to it again
    await register(a, "p2", 1);
    await feed.publish(change());
    expect(await queued(b, "p1")).toBe(8);
    expect(await queued(b, "p2")).toBe(7);
    expect(listReads).toBe(3);
  });

  it("delivers with the token and endpoints registered on the other instance from the moment that write returned", async () => {
    const seen: { auth?: string; url?: string }[] = [];
    const receiver = http.createServer((req, res) => {
      seen.push({ auth: req.headers.authorization, url: req.url });
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ status_code: 1000, timestamp: new Date().toISOString() }));
    });
    await new Promise<void>((resolve) => receiver.listen(0, HOST, resolve));
    const port = (receiver.address() as AddressInfo).port;
    try {
      const prefix = `test:${randomUUID()}:`;
      const config = configFor(prefix, ["p1"]);
      config.partners[0].versions_url = `http://${HOST}:${port}/ocpi/versions`;
      config.partners[0].token_encoding = "raw";
      const a = await Gateway.create(config, { logger: pino({ level: "silent" }) });
      gateways.push(a);
      const b = await Gateway.create(config, { logger: pino({ level: "silent" }) });
      gateways.push(b);
      const registerAt = (path: string, token: string) =>
        a.registry.recordRegistration("p1", {
          version: "2.3.0",
          versionsUrl: `http://${HOST}:${port}/ocpi/versions`,
          endpoints: [{ identifier: "locations", role: "RECEIVER", url: `http://${HOST}:${port}/${path}/locations` }],
          roles: [{ country_code: "DE", party_id: "E01", role: "EMSP", business_details: { name: "p1" } }],
          tokenToPartner: token,
        });
      const send = () =>
        b.partnerClient.send("p1", { method: "PATCH", target: { module: "locations", role: "RECEIVER", path: "/NL/GWY/LOC1" }, body: { status: "CHARGING" } });
      await registerAt("first", "token-one");
      await send();
      await send();
      // rotated and moved on A (a credentials update): B's next delivery uses both
      await registerAt("second", "token-two");
      await send();
      expect(seen).toEqual([
        { auth: "Token token-one", url: "/first/locations/NL/GWY/LOC1" },
        { auth: "Token token-one", url: "/first/locations/NL/GWY/LOC1" },
        { auth: "Token token-two", url: "/second/locations/NL/GWY/LOC1" },
      ]);
      // unregistered on A: B refuses to deliver at once
      await a.registry.unregister("p1");
      await expect(send()).rejects.toThrow(/not registered/);
    } finally {
      receiver.close();
    }
  });
});
