import path from "node:path";
import pino from "pino";
import type { Store } from "../../core/contract/store";
import type { RelayDeps } from "../../core/hub/result-relay";
import { openStore } from "../../core/store/open-store";
import { ResultRelay } from "../../core/hub/result-relay";
import { removeTempDirs, tempDir, testGatewayConfig } from "../support/gateway-config";

/** Issue #13: a hub forgets its relayed response URLs once they expired, however many expired at once. */

const RELAYS = "hub:relays";

describe("the hub's response URLs", () => {
  let store: Store;

  beforeAll(async () => {
    store = await openStore({ type: "sqlite", path: path.join(tempDir("ocpi-relay-"), "gateway.db") });
  });
  afterAll(async () => {
    await store.close();
    removeTempDirs();
  });

  it("sweep deletes every expired relay, in batches, and keeps the live ones", async () => {
    const now = Date.now();
    for (let i = 0; i < 1_203; i++) await store.put(RELAYS, `expired-${i}`, { id: `expired-${i}`, expiresAt: now - 1_000 - i }, now - 1_000 - i);
    await store.put(RELAYS, "live", { id: "live", expiresAt: now + 60_000 }, now + 60_000);
    const config = testGatewayConfig({ port: 9, party: { country_code: "NL", party_id: "HUB", role: "OTHER" }, server: { hub_party_id: "NLHUB" } });
    const relay = new ResultRelay({ config, store, log: pino({ level: "silent" }) } as unknown as RelayDeps);
    await relay.sweep(now);
    const left = await store.range<{ id: string }>(RELAYS, { offset: 0, limit: 10 });
    expect(left.items.map((e) => e.id)).toEqual(["live"]);
  });
});
