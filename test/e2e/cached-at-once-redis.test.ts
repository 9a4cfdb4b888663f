import "reflect-metadata";
import { ChangeFeed } from "../../core/contract/change-feed";
import { redisStore, removeTempDirs } from "../support/gateway-config";
import { LocationsBackend, partner, startCacheGateway, testLocation, type CacheGateway } from "../support/counting-locations";

/**
 * Issue #26: on one Redis a busy instance answers cached pages at once, its
 * generation reads answered from leased reads that came in
 * (core/store/shared-reads-leases.ts). Two instances in front of one backend,
 * the second one busy: a change published on the first (its invalidation
 * completed) is on the second's very next page, every time.
 */

const LIST = "/ocpi/2.3.0/sender/locations?limit=2";
const OURS = { country_code: "NL", party_id: "GWY" };
const EMSP = partner("emsp", "2.3.0", "DE", "EMS");
const BUSY = partner("busy", "2.3.0", "FR", "BSY");
const gateways: CacheGateway[] = [];

afterAll(async () => {
  for (const gw of gateways) await gw.close();
  removeTempDirs();
});

const firstName = async (gw: CacheGateway, auth: string): Promise<string> => {
  const response = await gw.http.get(LIST).set("Authorization", auth);
  expect(response.status).toBe(200);
  return (response.body as { data: { name: string }[] }).data[0].name;
};

describe("an instance busy answering cached pages at once, beside another on the same Redis", () => {
  it("serves a change the other instance published on its very next request", async () => {
    const backend = new LocationsBackend();
    backend.store(testLocation(1, "Name 0"));
    backend.store(testLocation(2));
    const store = { ...redisStore(), generation_lease_ms: 5 };
    const a = await startCacheGateway({ backend, partners: [EMSP, BUSY], store });
    gateways.push(a);
    const b = await startCacheGateway({ backend, partners: [EMSP, BUSY], store, register: false });
    gateways.push(b);
    const scripts = jest.spyOn((b.gateway.store as unknown as { redis: { storeSharedReads: () => unknown } }).redis, "storeSharedReads");
    // another partner's cached pages keep B busy: its generation reads leased and answered at once
    let stop = false;
    let served = 0;
    const load = Array.from({ length: 4 }, async () => {
      while (!stop) {
        await firstName(b, a.auth[BUSY.id]);
        served++;
      }
    });
    const feed = a.gateway.container.resolve(ChangeFeed);
    for (let i = 1; i <= 10; i++) {
      expect(await firstName(b, a.auth[EMSP.id])).toBe(`Name ${i - 1}`);
      const renamed = testLocation(1, `Name ${i}`);
      backend.store(renamed);
      // published on A: settles once B's leases taken before it ended
      await feed.publish({ module: "locations", owner: OURS, path: ["LOC1"], kind: "upsert", object: renamed });
      expect(await firstName(b, a.auth[EMSP.id])).toBe(`Name ${i}`);
    }
    stop = true;
    await Promise.all(load);
    expect(served).toBeGreaterThan(20);
    // far fewer round trips than pages: the reads were leased
    expect(scripts.mock.calls.length).toBeLessThan(served);
  });
});
