import type { GatewayConfig } from "../config/types";
import { Outbox } from "../core/outbox/outbox";
import { Gateway } from "./gateway";

/**
 * `ocpi-gateway outbox retry <partner> [--id <id>]`: moves the partner's
 * dead letters (all, or one) back to the tail of its queue, on the
 * gateway's store directly, so it runs beside a serving gateway, whose
 * outbox worker then delivers them at its next poll.
 */
export const runOutboxCommand = async (config: GatewayConfig, args: string[], id: string | undefined, out: (line: string) => void): Promise<number> => {
  const [action, partnerId] = args;
  if (action !== "retry") throw new Error(`Unknown outbox action "${action ?? ""}" (retry)`);
  if (!partnerId) throw new Error("outbox retry: a partner id is required, e.g. `outbox retry emsp-x`");
  const gateway = await Gateway.create({ ...config, server: { ...config.server, log_level: "warn" } });
  try {
    const requeued = await gateway.container.resolve(Outbox).retryDeadLetters(partnerId, id);
    if (id !== undefined && requeued.length === 0) throw new Error(`Partner ${partnerId} has no dead letter ${id}`);
    out(`Re-queued ${requeued.length} dead letter${requeued.length === 1 ? "" : "s"} for ${partnerId}`);
    for (const r of requeued) out(`  ${r.deadLetterId} ${r.label} (queued as ${r.id})`);
    return 0;
  } finally {
    await gateway.close();
  }
};
