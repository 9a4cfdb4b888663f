import type { GatewayConfig } from "../config/types";
import { absolute, versionsPath } from "../core/http/urls";
import { Gateway } from "./gateway";

/**
 * `ocpi-gateway partners …`: works on the gateway's store directly, so it
 * can run beside a serving gateway (SQLite file or Redis shared with it);
 * the serving process reads registrations from the store on every request.
 */
export const runPartnersCommand = async (config: GatewayConfig, args: string[], out: (line: string) => void): Promise<number> => {
  const [action, id] = args;
  if (action !== "list" && !id) throw new Error(`partners ${action ?? ""}: a partner id is required`);
  const gateway = await Gateway.create({ ...config, server: { ...config.server, log_level: "warn" } });
  try {
    switch (action) {
      case "list":
        for (const line of await describePartners(gateway)) out(line);
        return 0;
      case "add": {
        const tokenA = await gateway.registry.add(id);
        out(`Partner ${id} added. Hand these over to the partner out of band:`);
        out(`  token A:      ${tokenA}`);
        out(`  versions URL: ${absolute(config.server.public_url, versionsPath())}`);
        return 0;
      }
      case "register": {
        const record = await gateway.credentials.register(id);
        out(`Registered with ${id}: version ${record.version}, ${record.endpoints.length} endpoints`);
        return 0;
      }
      case "update": {
        const record = await gateway.credentials.update(id);
        out(`Updated credentials with ${id}: version ${record.version}, tokens rotated`);
        return 0;
      }
      case "unregister":
        await gateway.credentials.unregister(id);
        out(`Unregistered from ${id}`);
        return 0;
      default:
        throw new Error(`Unknown partners action "${action}" (list, add, register, update, unregister)`);
    }
  } finally {
    await gateway.close();
  }
};

/** One line per partner: its registration state, and for those still waiting, how token A is handed over. */
export const describePartners = async (gateway: Gateway): Promise<string[]> => {
  const records = new Map((await gateway.registry.list()).map((r) => [r.id, r]));
  const ids = new Set([...gateway.config.partners.map((p) => p.id), ...records.keys()]);
  const lines: string[] = [];
  for (const id of ids) {
    const record = records.get(id);
    const config = gateway.config.partners.find((p) => p.id === id);
    if (record?.status === "registered") {
      lines.push(`partner ${id}: registered, version ${record.version}, ${record.endpoints.length} endpoints`);
    } else if (record?.tokenAConsumed) {
      // A configured token A that changed since resets this (PartnerRegistry.init), so it is the one in the config.
      lines.push(`partner ${id}: ${record.status}; its token A was used up by an earlier registration: agree a new one with the partner and set it in partners[].token_a to register again`);
    } else if (config?.versions_url && config.token_a) {
      lines.push(`partner ${id}: ${record?.status ?? "pending"}; run \`ocpi-gateway partners register ${id}\` to register with ${config.versions_url} using the token A they gave you`);
    } else if (config?.token_a && !record?.tokenAConsumed) {
      lines.push(`partner ${id}: ${record?.status ?? "pending"}; waiting for them to register: hand over the token A configured in partners[].token_a and our versions URL`);
    } else if (record?.tokenAHash && !record.tokenAConsumed) {
      lines.push(`partner ${id}: ${record.status}; waiting for them to register with the token A printed by \`partners add ${id}\``);
    } else {
      lines.push(`partner ${id}: ${record?.status ?? "pending"}; no usable token A: set partners[].token_a or run \`partners add\` for a new partner`);
    }
  }
  return lines;
};
