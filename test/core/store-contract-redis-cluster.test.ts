import { RedisStore } from "../../core/store/redis-store";
import { startRedisCluster, type RedisCluster } from "../support/redis-cluster";
import { CONTRACT_COMMAND_TIMEOUT_MS, describeStoreContract } from "./store-contract/contract";

// A 3-master, 3-replica cluster of its own, started when the suite first opens a store: every write
// there also waits for a replica (WAIT 1), and every script must keep to one slot.
let cluster: Promise<RedisCluster> | undefined;
describeStoreContract("RedisStore on a Redis Cluster", {
  open: async () => RedisStore.connect({ target: { nodes: (await (cluster ??= startRedisCluster())).urls.slice(0, 2) }, keyPrefix: "contract:", commandTimeoutMs: CONTRACT_COMMAND_TIMEOUT_MS, replicaAckTimeoutMs: CONTRACT_COMMAND_TIMEOUT_MS }),
  persistent: true,
});
afterAll(async () => (await cluster)?.stop(), 30_000);
