import { RedisStore } from "../../core/store/redis-store";
import { startRedisCluster, type RedisCluster } from "../support/redis-cluster";
import { CONTRACT_COMMAND_TIMEOUT_MS, describeStoreContract } from "./store-contract/contract";
import { scriptKeysRule } from "./store-contract/script-keys";

// A 3-master, 3-replica cluster of its own, started when the suite first opens a store: every write
// there also waits for a replica (WAIT 1), and every script must keep to one slot.
let cluster: Promise<RedisCluster> | undefined;
const open = async () => RedisStore.connect({ target: { nodes: (await (cluster ??= startRedisCluster())).urls.slice(0, 2) }, keyPrefix: "contract:", commandTimeoutMs: CONTRACT_COMMAND_TIMEOUT_MS, replicaAckTimeoutMs: CONTRACT_COMMAND_TIMEOUT_MS });
describeStoreContract("RedisStore on a Redis Cluster", { open, persistent: true });

describe("RedisStore scripts on a Redis Cluster", () => {
  let store: RedisStore;
  beforeEach(async () => {
    store = await open();
  }, 30_000);
  afterEach(async () => store.close());
  scriptKeysRule(() => store, async () => (await (await cluster)!.masters()).map((port) => `redis://127.0.0.1:${port}`), "script-keys");
});
afterAll(async () => (await cluster)?.stop(), 30_000);
