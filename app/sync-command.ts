import type { GatewayConfig } from "../config/types";
import { SyncPuller } from "../core/sync/sync-puller";
import { Gateway } from "./gateway";

/**
 * `ocpi-gateway sync <partner> <module> [--full]`: one pull now, on the
 * gateway's store (beside a serving gateway: the store lock keeps it from
 * running at the same time as that gateway's scheduled pull).
 */
export const runSyncCommand = async (config: GatewayConfig, args: string[], full: boolean, out: (line: string) => void): Promise<number> => {
  const [partnerId, module] = args;
  if (!partnerId || !module) throw new Error("sync: a partner id and a module are required, e.g. `sync cpo locations`");
  const gateway = await Gateway.create({ ...config, server: { ...config.server, log_level: "warn" } });
  try {
    const result = await gateway.container.resolve(SyncPuller).pull(partnerId, module, { full, trigger: "on demand" });
    const since = result.date_from ? ` changed since ${result.date_from}` : "";
    out(
      `Pulled ${result.objects} ${module} from ${partnerId} (${result.full ? "full" : "incremental"}${since}) in ${result.pages} pages, ` +
        `${result.rejected} rejected, ${result.duration_ms} ms`,
    );
    return 0;
  } finally {
    await gateway.close();
  }
};
