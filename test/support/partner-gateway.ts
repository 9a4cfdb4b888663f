import "reflect-metadata";
import { Gateway } from "../../app/gateway";
import type { Logger } from "pino";
import type { InboundServerConfig } from "../../config/types";
import { testGatewayConfig, type GatewayConfigOptions } from "./gateway-config";
import { freePorts } from "./gateway-process";

/** A gateway listening on loopback, its one partner registered, and the Authorization that partner sends. */
export interface PartnerGateway {
  gateway: Gateway;
  port: number;
  auth: string;
}

/**
 * A gateway (CPO NL/GWY, tokens on the local adapter unless `modules` says otherwise; SQLite unless `store`) with one partner,
 * "partner", registered in 2.3.0 as eMSP DE/EMS, listening on a free loopback port.
 */
export const partnerGateway = async (
  options: { inbound?: InboundServerConfig; modules?: GatewayConfigOptions["modules"]; store?: GatewayConfigOptions["store"]; logger?: Logger } = {},
): Promise<PartnerGateway> => {
  const [port] = await freePorts(1);
  const gateway = await Gateway.create(
    testGatewayConfig({
      port,
      party: [{ country_code: "NL", party_id: "GWY", role: "CPO" }],
      ...(options.inbound ? { server: { inbound: options.inbound } } : {}),
      modules: options.modules ?? { tokens: { adapter: "local" } },
      ...(options.store ? { store: options.store } : {}),
      partners: [{ id: "partner" }],
    }),
    options.logger ? { logger: options.logger } : undefined,
  );
  const issued = await gateway.registry.issueToken("partner");
  await gateway.registry.recordRegistration("partner", {
    version: "2.3.0",
    versionsUrl: "http://127.0.0.1:9/versions",
    endpoints: [],
    roles: [{ country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "DEEMS" } }],
    tokenToPartner: "unused-token-to-partner",
  });
  await gateway.listen();
  return { gateway, port, auth: `Token ${Buffer.from(issued).toString("base64")}` };
};
