import "reflect-metadata";
import http from "node:http";
import { Gateway } from "../../app/gateway";
import { ModuleCatalog } from "../../core/modules/module-catalog";
import { SyncPuller } from "../../core/sync/sync-puller";
import type { Location } from "../../plugins/locations/model";
import type { LocationsReceiverPort } from "../../plugins/locations/ports";
import { redisStore, removeTempDirs, sqliteStore, testGatewayConfig, type StoreSpec } from "../support/gateway-config";
import { closeServer, listenOnLoopback } from "../support/loopback-server";

/**
 * How a pulled page is stored (issue #11): a Receiver port with `putAll`
 * (the `local` adapter) takes an owner's objects in one call, any other port
 * one `put` per object; either way several objects with one id (a CiString:
 * any letter case) end as the last of them in page order, across pages too.
 */
const OWNER = { country_code: "NL", party_id: "CPO" };

const location = (id: string, name: string): Location => ({
  ...OWNER,
  id,
  publish: true,
  name,
  address: "Main street 1",
  city: "Utrecht",
  country: "NLD",
  coordinates: { latitude: "52.090730", longitude: "5.121420" },
  time_zone: "Europe/Amsterdam",
  last_updated: "2024-01-01T00:00:00Z",
});

const PAGES: Location[][] = [
  [location("LOC1", "first"), location("LOC2", "two"), location("loc1", "second")],
  [location("LOC3", "three"), location("Loc1", "third")],
];

let partner: http.Server;
let listUrl: string;

beforeAll(async () => {
  partner = http.createServer((req, res) => {
    const page = Number(new URL(req.url!, listUrl).searchParams.get("page") ?? 0);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (page + 1 < PAGES.length) headers.link = `<${listUrl}?page=${page + 1}>; rel="next"`;
    res.writeHead(200, headers);
    res.end(JSON.stringify({ data: PAGES[page], status_code: 1000, timestamp: "2024-01-01T00:00:00Z" }));
  });
  await listenOnLoopback(partner);
  const { port } = partner.address() as { port: number };
  listUrl = `http://127.0.0.1:${port}/ocpi/2.3.0/sender/locations`;
});

afterAll(async () => {
  await closeServer(partner);
  removeTempDirs();
});

/** A gateway whose partner `cpo` is registered with the loopback list as its locations SENDER; `bulk: false` hides the port's putAll. */
const pullInto = async (store: StoreSpec, bulk: boolean) => {
  const versionsUrl = new URL("/ocpi/versions", listUrl).toString();
  const gateway = await Gateway.create(
    testGatewayConfig({
      // never listened on: Gateway.create does not serve
      port: 1,
      party: { country_code: "DE", party_id: "EMS", role: "EMSP" },
      store,
      modules: { locations: { adapter: "local" } },
      partners: [{ id: "cpo", versions_url: versionsUrl, versions: ["2.3.0"] }],
    }),
  );
  try {
    await gateway.registry.recordRegistration("cpo", {
      version: "2.3.0",
      versionsUrl,
      endpoints: [{ identifier: "locations", role: "SENDER", url: listUrl }],
      roles: [{ ...OWNER, role: "CPO", business_details: { name: "CPO" } }],
      tokenToPartner: "token-c",
    });
    const served = gateway.container.resolve(ModuleCatalog).served.find((s) => s.plugin.module === "locations" && s.role === "RECEIVER")!;
    const port = served.port as LocationsReceiverPort;
    expect(typeof port.putAll).toBe("function");
    if (!bulk) (served as { port: unknown }).port = { get: port.get.bind(port), put: port.put.bind(port) };
    const result = await gateway.container.resolve(SyncPuller).pull("cpo", "locations", { full: true, trigger: "on demand" });
    return { result, loc1: await port.get(OWNER, "LOC1", { party: OWNER }), loc3: await port.get(OWNER, "loc3", { party: OWNER }) };
  } finally {
    await gateway.close();
  }
};

describe.each([
  ["SQLite", sqliteStore],
  ["Redis", redisStore],
])("a pulled page on %s", (_name, store) => {
  it.each([
    ["in one call (putAll)", true],
    ["one put per object (a port without putAll)", false],
  ])("is stored %s, the last of one id winning", async (_how, bulk) => {
    const { result, loc1, loc3 } = await pullInto(store(), bulk);
    expect(result).toMatchObject({ objects: 5, pages: 2, rejected: 0 });
    expect(loc1).toMatchObject({ id: "Loc1", name: "third" });
    expect(loc3).toMatchObject({ id: "LOC3", name: "three" });
  });
});
