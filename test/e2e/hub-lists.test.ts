import "reflect-metadata";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import pino from "pino";
import type { PartyRef } from "../../core/protocol/types";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, tempDir, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { location } from "../support/charge-point";

/**
 * Issue #13, GET-all through a hub (OCPI 2.2.1 Transport and format, Message routing "GET All via hub": the
 * request is addressed to the hub, which merges the lists of the parties
 * behind it). Two CPOs (2.2.1 and 2.3.0) and an eMSP (2.3.0) registered
 * with the hub only; the eMSP pages through one list of both CPOs'
 * Locations with offset, limit, date filters and Link.
 */

type Json = Record<string, any>;

const CPO_A: PartySpec = { country_code: "NL", party_id: "CPA", role: "CPO" };
const CPO_B: PartySpec = { country_code: "BE", party_id: "CPB", role: "CPO" };
const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
const HUB: PartySpec = { country_code: "NL", party_id: "HUB", role: "OTHER" };
const quiet = () => pino({ level: "silent" });

describe("a GET-all addressed to the hub merges the lists of the CPOs behind it", () => {
  let hub: Gateway;
  let cpoA: Gateway;
  let cpoB: Gateway;
  /** starts CPO B again on its port and store, registered as it was */
  let restartCpoB: () => Promise<Gateway>;
  let emsp: Gateway;
  let hubUrl: string;
  let emspToken: string;
  /** a CPO whose list names, besides its own Location, one of CPO A's */
  let rogue: http.Server;

  /** GET of the eMSP through the hub, addressed to the hub party (a path below /ocpi or a Link the hub gave). */
  const list = (pathOrUrl: string) =>
    ocpiRequest("GET", pathOrUrl.startsWith("http") ? pathOrUrl : `${hubUrl}/ocpi${pathOrUrl}`, {
      token: emspToken,
      headers: {
        "X-Request-ID": `req-${Math.random().toString(36).slice(2)}`,
        "X-Correlation-ID": `corr-${Math.random().toString(36).slice(2)}`,
        "OCPI-from-country-code": EMSP.country_code,
        "OCPI-from-party-id": EMSP.party_id,
        "OCPI-to-country-code": HUB.country_code,
        "OCPI-to-party-id": HUB.party_id,
      },
    });
  const ids = (body: Json) => (body.data as Json[]).map((l) => `${l.party_id}:${l.id}`);

  beforeAll(async () => {
    const [hubPort, aPort, bPort, emspPort, roguePort] = await freePorts(5);
    hubUrl = `http://127.0.0.1:${hubPort}`;
    rogue = await rogueCpo(roguePort);
    hub = await Gateway.create(
      testGatewayConfig({
        port: hubPort,
        party: HUB,
        server: { hub_party_id: "NLHUB", hub: { offline_after_ms: 60_000, probe_interval_ms: 60_000, forward_timeout_ms: 1500 } },
        partners: [
          { id: "cpo-a", token_a: "token-a-cpo-a", versions_url: versionsUrlOf(aPort), roles: [{ role: "CPO", party: "NLCPA" }] },
          { id: "cpo-b", token_a: "token-a-cpo-b", versions_url: versionsUrlOf(bPort), roles: [{ role: "CPO", party: "BECPB" }] },
          { id: "emsp", token_a: "token-a-emsp", versions_url: versionsUrlOf(emspPort), roles: [{ role: "EMSP", party: "DEEMS" }] },
          // registered only in its own test
          { id: "rogue", token_a: "token-a-rogue", versions_url: `http://127.0.0.1:${roguePort}/versions`, roles: [{ role: "CPO", party: "BEROG" }] },
        ],
      }),
      { logger: quiet() },
    );
    await hub.listen();
    const cpo = async (port: number, party: PartySpec, token: string, version: "2.2.1" | "2.3.0", seed: string) => {
      const config = testGatewayConfig({
        port,
        party,
        modules: { locations: { adapter: "local" } },
        adapters: { local: { seed } },
        partners: [{ id: "hub", token_a: token, versions_url: versionsUrlOf(hubPort), versions: [version], roles: [{ role: "HUB", party: "NLHUB" }] }],
      });
      const start = async () => {
        const gateway = await Gateway.create(config, { logger: quiet() });
        await gateway.listen();
        return gateway;
      };
      const gateway = await start();
      expect(await gateway.credentials.register("hub")).toMatchObject({ status: "registered", version });
      return { gateway, start };
    };
    // A: A1-A3 at 10:00:01-03; B: B1-B2 at 10:00:02 and 10:00:04
    cpoA = (await cpo(aPort, CPO_A, "token-a-cpo-a", "2.2.1", seedOf(CPO_A, [["A1", 1], ["A2", 2], ["A3", 3]]))).gateway;
    const b = await cpo(bPort, CPO_B, "token-a-cpo-b", "2.3.0", seedOf(CPO_B, [["B1", 2], ["B2", 4]]));
    cpoB = b.gateway;
    restartCpoB = b.start;
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: EMSP,
        modules: { locations: { adapter: "local" } },
        partners: [{ id: "hub", token_a: "token-a-emsp", versions_url: versionsUrlOf(hubPort), versions: ["2.3.0"], roles: [{ role: "HUB", party: "NLHUB" }] }],
      }),
      { logger: quiet() },
    );
    await emsp.listen();
    expect(await emsp.credentials.register("hub")).toMatchObject({ status: "registered", version: "2.3.0" });
    emspToken = (await emsp.registry.get("hub"))!.tokenToPartner!;
  }, 30_000);

  afterAll(async () => {
    await Promise.all([hub?.close(), cpoA?.close(), cpoB?.close(), emsp?.close()]);
    await new Promise<void>((resolve) => rogue.close(() => resolve()));
    removeTempDirs();
  });

  it("pages through both CPOs' Locations as one list: X-Total-Count, X-Limit, Link on the hub, from the hub party", async () => {
    const first = await list("/2.3.0/sender/locations?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.status_code).toBe(1000);
    expect(first.headers["x-total-count"]).toBe("5");
    expect(first.headers["x-limit"]).toBe("100");
    expect(ids(first.body)).toEqual(["CPA:A1", "CPA:A2"]);
    expect(first.headers["ocpi-from-party-id"]).toBe("HUB");
    expect(first.headers["ocpi-to-party-id"]).toBe("EMS");
    const link = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1];
    expect(link).toBe(`${hubUrl}/ocpi/2.3.0/sender/locations?offset=2&limit=2`);
    const second = await list(link);
    expect(ids(second.body)).toEqual(["CPA:A3", "CPB:B1"]);
    const third = await list(/<([^>]+)>; rel="next"/.exec(String(second.headers.link))![1]);
    expect(ids(third.body)).toEqual(["CPB:B2"]);
    expect(third.headers.link).toBeUndefined();
    // the 2.2.1 CPO's Locations come translated to the eMSP's 2.3.0, last_updated untouched (OCPI 2.2.1 Transport and format, Message routing)
    expect(first.body.data[0]).toMatchObject({ country_code: "NL", party_id: "CPA", last_updated: "2024-05-01T10:00:01Z" });
  });

  it("offset and the date filters apply to the merged list", async () => {
    const tail = await list("/2.3.0/sender/locations?offset=4&limit=10");
    expect(tail.headers["x-total-count"]).toBe("5");
    expect(ids(tail.body)).toEqual(["CPB:B2"]);
    const since = await list(`/2.3.0/sender/locations?date_from=${encodeURIComponent("2024-05-01T10:00:02Z")}&limit=2`);
    expect(since.headers["x-total-count"]).toBe("4");
    expect(ids(since.body)).toEqual(["CPA:A2", "CPA:A3"]);
    const next = /<([^>]+)>; rel="next"/.exec(String(since.headers.link))![1];
    expect(next).toContain("date_from=");
    expect(ids((await list(next)).body)).toEqual(["CPB:B1", "CPB:B2"]);
    const until = await list(`/2.3.0/sender/locations?date_to=${encodeURIComponent("2024-05-01T10:00:02Z")}`);
    expect(ids(until.body)).toEqual(["CPA:A1"]);
    const beyond = await list("/2.3.0/sender/locations?offset=9");
    expect(beyond.body.data).toEqual([]);
    expect(beyond.headers["x-total-count"]).toBe("5");
  });

  // The two tests below change who is behind the hub; each puts it back as it was, for the tests above.
  it("an object a CPO lists for another party is left out: no partner speaks for another", async () => {
    expect(await hub.credentials.register("rogue")).toMatchObject({ status: "registered", version: "2.3.0" });
    try {
      const page = await list("/2.3.0/sender/locations");
      expect(page.body.status_code).toBe(1000);
      expect(ids(page.body)).toEqual(["CPA:A1", "CPA:A2", "CPA:A3", "CPB:B1", "CPB:B2", "ROG:R1"]);
      // the count is the parties' own: the rogue said 2
      expect(page.headers["x-total-count"]).toBe("7");
    } finally {
      await hub.registry.unregister("rogue");
    }
  });

  it("a CPO that does not answer fails the page with 4003 rather than shifting it", async () => {
    await cpoB.close();
    try {
      const page = await list("/2.3.0/sender/locations");
      expect(page.status).toBe(502);
      expect(page.body.status_code).toBe(4003);
    } finally {
      cpoB = await restartCpoB();
    }
  });
});

/** A seed file of Locations of `owner`, each [id, second of 10:00]. */
const seedOf = (owner: PartyRef, locations: [string, number][]): string => {
  const file = path.join(tempDir("ocpi-hub-lists-"), "seed.json");
  fs.writeFileSync(
    file,
    JSON.stringify({ locations: locations.map(([id, second]) => ({ ...location(owner), id, last_updated: `2024-05-01T10:00:0${second}Z` })) }),
  );
  return file;
};

/** A 2.3.0 CPO (BE/ROG) that registers like any partner and lists its own Location R1 and CPO A's "A9". */
const rogueCpo = async (port: number): Promise<http.Server> => {
  const base = `http://127.0.0.1:${port}`;
  const ok = (data: unknown) => JSON.stringify({ status_code: 1000, timestamp: new Date().toISOString(), data });
  const server = http.createServer((req, res) => {
    req.resume().on("end", () => {
      res.setHeader("Content-Type", "application/json");
      const url = req.url ?? "";
      if (url === "/versions") return res.end(ok([{ version: "2.3.0", url: `${base}/2.3.0` }]));
      if (url === "/2.3.0")
        return res.end(
          ok({
            version: "2.3.0",
            endpoints: [
              { identifier: "credentials", role: "SENDER", url: `${base}/2.3.0/credentials` },
              { identifier: "locations", role: "SENDER", url: `${base}/2.3.0/locations` },
            ],
          }),
        );
      if (url === "/2.3.0/credentials")
        return res.end(ok({ token: "rogue-token-for-the-hub-0001", url: `${base}/versions`, roles: [{ role: "CPO", country_code: "BE", party_id: "ROG", business_details: { name: "Rogue" } }] }));
      if (url.startsWith("/2.3.0/locations")) {
        res.setHeader("X-Total-Count", "2");
        const own = { ...location({ country_code: "BE", party_id: "ROG" }), id: "R1" };
        const spoofed = { ...location({ country_code: "NL", party_id: "CPA" }), id: "A9" };
        return res.end(ok(new URLSearchParams(url.split("?")[1]).get("limit") === "1" ? [own] : [own, spoofed]));
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ status_code: 2000, timestamp: new Date().toISOString() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  return server;
};
