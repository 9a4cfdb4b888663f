import type { Logger } from "pino";
import type { StoreConfig } from "../../config/types";
import type { Store } from "../contract/store";
import { RedisStore } from "./redis-store";
import { SqliteStore } from "./sqlite-store";

/** Opens the configured store; `log` receives its outage lines (one when an outage starts, one when it ends). */
export async function openStore(config: StoreConfig, log?: Logger): Promise<Store> {
  switch (config.type) {
    case "sqlite":
      return SqliteStore.open(config.path, { busyTimeoutMs: config.busy_timeout_ms, log });
    case "redis":
      return RedisStore.connect({
        target: { url: config.url },
        keyPrefix: config.key_prefix,
        commandTimeoutMs: config.command_timeout_ms,
        generationLeaseMs: config.generation_lease_ms,
        log,
      });
    case "redis-cluster":
      return RedisStore.connect({
        target: { nodes: config.nodes },
        keyPrefix: config.key_prefix,
        commandTimeoutMs: config.command_timeout_ms,
        replicaAckTimeoutMs: config.replica_ack_timeout_ms,
        log,
      });
  }
}
