import type { Pool } from "mysql2/promise";
import { Gateway } from "../../app/gateway";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { testGatewayConfig } from "../support/gateway-config";
import { captureLogs } from "../support/log-capture";
import type { MariaDb } from "../support/mariadb";
import type { SteveGeneration } from "../support/steve-schema";
import { createSteveSchema, seedSteve, writerPool } from "../support/steve-seed";
import { CPO, eventually, mappingSettings } from "./steve-env";

/** A CPO gateway serving Locations from a freshly seeded SteVe database, and what a test reaches it by. */
export interface ListGateway {
  writer: Pool;
  gateway: Gateway;
  /** a GET of the Sender's Locations URL in 2.3.0 followed by `path` ("" for the list), with the partner's token, expected HTTP 200 */
  request: (path: string) => Promise<Awaited<ReturnType<typeof ocpiRequest>>>;
}

/**
 * A database `name` of SteVe's `generation` schema, seeded, and a gateway on the steve adapter (Locations
 * Sender only, no response cache) polling it every `pollMs`, with the eMSP partner registered; resolves after
 * the poller's first poll, from which SteVe's changes are changes (before 3.13 a box's change is told by its
 * facts' hash, which that poll records).
 */
export const startListGateway = async (
  maria: MariaDb,
  name: string,
  generation: SteveGeneration,
  options: { pollMs: number; chargeBoxes?: (boxes: ReturnType<typeof mappingSettings>["charge_boxes"]) => ReturnType<typeof mappingSettings>["charge_boxes"] },
): Promise<ListGateway> => {
  const access = await maria.createDatabase(name);
  const writer = writerPool(access.writer);
  await createSteveSchema(writer, generation);
  await seedSteve(writer, generation);
  const [port] = await freePorts(1);
  const { charge_boxes, connector_defaults } = mappingSettings();
  const config = testGatewayConfig({
    port,
    party: { ...CPO, role: "CPO" },
    modules: { locations: { adapter: "steve", roles: ["SENDER"] } },
    adapters: {
      steve: {
        database: access.reader,
        rest: { base_url: "http://127.0.0.1:9/steve", user: "gateway", password: "unused-here" },
        poll_interval_ms: options.pollMs,
        locations: { ...CPO, currency: "EUR", connector_defaults, charge_boxes: options.chargeBoxes?.(charge_boxes) ?? charge_boxes },
      },
    },
    partners: [{ id: "emsp" }],
  });
  const logs = captureLogs("info");
  const gateway = await Gateway.create({ ...config, cache: { ttl_seconds: {}, max_entries: 1, redis: false } }, { logger: logs.logger });
  const token = await gateway.registry.issueToken("emsp");
  await gateway.registry.recordRegistration("emsp", {
    version: "2.3.0",
    versionsUrl: "http://127.0.0.1:1/versions",
    endpoints: [],
    roles: [{ country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "eMSP" } }],
    tokenToPartner: "unused",
  });
  await gateway.listen();
  await eventually(() => logs.lines.some((l) => l.includes("steve: first poll")));
  const base = `http://127.0.0.1:${port}/ocpi/2.3.0/sender/locations`;
  const request = async (path: string) => {
    const res = await ocpiRequest("GET", `${base}${path}`, { token });
    expect(res.status).toBe(200);
    return res;
  };
  return { writer, gateway, request };
};
