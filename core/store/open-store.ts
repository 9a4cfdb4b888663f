import type { StoreConfig } from "../../config/types";
import type { Store } from "./port";
import { RedisStore } from "./redis-store";
import { SqliteStore } from "./sqlite-store";

export async function openStore(config: StoreConfig): Promise<Store> {
  switch (config.type) {
    case "sqlite":
      return SqliteStore.open(config.path);
    case "redis":
      return RedisStore.connect(config.url, config.key_prefix);
  }
}
