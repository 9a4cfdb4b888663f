import "reflect-metadata";
import { redisStore, removeTempDirs } from "../support/gateway-config";
import { LocationsBackend, partner, startCacheGateway, testLocation, type CacheGateway } from "../support/counting-locations";

/**
 * Issue #11: tokens are resolved from an in-process map that the store's
 * registration generation invalidates. Two instances on one Redis: a token
 * rotated or unregistered on one is refused by the other on its very next
 * request, although the other had it in its map, and while the other is
 * busy enough to answer from its read leases (core/store/shared-reads.ts).
 */

const LIST = "/ocpi/2.3.0/sender/locations?limit=1";
const EMSP = partner("emsp", "2.3.0", "DE", "EMS");
const gateways: CacheGateway[] = [];

afterAll(async () => {
  for (const gw of gateways) await gw.close();
  removeTempDirs();
});

const status = async (gw: CacheGateway, auth: string): Promise<number> => (await gw.http.get(LIST).set("Authorization", auth)).status;
const header = (token: string) => `Token ${Buffer.from(token).toString("base64")}`;

describe("two instances on one Redis", () => {
  it("refuse a rotated-out token and an unregistered partner's token at once, on the instance that did not change them", async () => {
    const backend = new LocationsBackend();
    backend.store(testLocation(1));
    const store = redisStore();
    const a = await startCacheGateway({ backend, partners: [EMSP], store });
    gateways.push(a);
    const b = await startCacheGateway({ backend, partners: [EMSP], store, register: false });
    gateways.push(b);
    const old = a.auth[EMSP.id];

    // both know the token (B has it in its map now), many times over
    for (let i = 0; i < 3; i++) {
      expect(await status(a, old)).toBe(200);
      expect(await status(b, old)).toBe(200);
    }

    // rotation on A (no grace period): B refuses the old token on its next request and takes the new one
    const rotated = header(await a.gateway.registry.issueToken(EMSP.id));
    expect(await status(b, old)).toBe(401);
    expect(await status(b, rotated)).toBe(200);
    expect(await status(a, old)).toBe(401);
    expect(await status(a, rotated)).toBe(200);

    // concurrent requests on B while A rotates again: none after the rotation returned is served with the old token
    const again = header(await a.gateway.registry.issueToken(EMSP.id));
    const answers = await Promise.all(Array.from({ length: 20 }, () => status(b, rotated)));
    expect(answers.every((s) => s === 401)).toBe(true);
    expect(await status(b, again)).toBe(200);

    // unregistered on A: B refuses the partner's token at once
    await a.gateway.registry.unregister(EMSP.id);
    expect(await status(b, again)).toBe(401);
    expect(await status(a, again)).toBe(401);
  });

  it("refuse a rotated-out token at once while the other instance is busy and answers from its read leases", async () => {
    const backend = new LocationsBackend();
    backend.store(testLocation(1));
    const store = { ...redisStore(), generation_lease_ms: 5 };
    const busyPartner = partner("busy", "2.3.0", "FR", "BSY");
    const rotating = partner("rotating", "2.3.0", "BE", "ROT");
    const a = await startCacheGateway({ backend, partners: [busyPartner, rotating], store });
    gateways.push(a);
    const b = await startCacheGateway({ backend, partners: [busyPartner, rotating], store, register: false });
    gateways.push(b);
    // another partner's requests keep B busy: its generation reads are leased (SharedReads)
    let stop = false;
    let served = 0;
    const load = Array.from({ length: 4 }, async () => {
      while (!stop) {
        expect(await status(b, a.auth[busyPartner.id])).toBe(200);
        served++;
      }
    });
    let current = a.auth[rotating.id];
    for (let i = 0; i < 5; i++) {
      expect(await status(b, current)).toBe(200);
      const next = header(await a.gateway.registry.issueToken(rotating.id));
      expect(await status(b, current)).toBe(401);
      expect(await status(b, next)).toBe(200);
      current = next;
    }
    stop = true;
    await Promise.all(load);
    expect(served).toBeGreaterThan(20);
  });

  it("take a token issued on the other instance at once", async () => {
    const backend = new LocationsBackend();
    backend.store(testLocation(1));
    const store = redisStore();
    const other = partner("other", "2.3.0", "FR", "OTH");
    const a = await startCacheGateway({ backend, partners: [other], store });
    gateways.push(a);
    const b = await startCacheGateway({ backend, partners: [other], store, register: false });
    gateways.push(b);
    const unknown = header("not-a-token-anyone-issued-0123456789");
    expect(await status(b, unknown)).toBe(401);
    expect(await status(b, a.auth[other.id])).toBe(200);
    const fresh = header(await a.gateway.registry.issueToken(other.id));
    expect(await status(b, fresh)).toBe(200);
  });
});
