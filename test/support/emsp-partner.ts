import pino from "pino";
import { Gateway } from "../../app/gateway";
import { testGatewayConfig, type PartySpec } from "./gateway-config";
import { ocpiRequest, type HttpResult } from "./gateway-process";

export const EMSP_PARTY: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
export const EMSP_ADMIN_TOKEN = "emsp-partner-admin-token-0123456789";

/** An eMSP gateway in this process (SQLite, `local` adapter), registered with a CPO gateway through the real handshake. */
export interface EmspPartner {
  gateway: Gateway;
  url: string;
  /** the credentials token this eMSP calls the CPO with */
  tokenToCpo: string;
  /** a 2.3.0 Token of this eMSP, as it PUTs it on the CPO's receiver interface */
  token(uid: string): Record<string, unknown>;
  /** PUT of token `uid` on the CPO at `cpoUrl` (any instance of it) */
  putToken(cpoUrl: string, uid: string): Promise<HttpResult>;
  getToken(cpoUrl: string, uid: string): Promise<HttpResult>;
  /** an admin API call on this eMSP */
  admin(method: string, route: string, body?: unknown): Promise<HttpResult>;
  close(): Promise<void>;
}

/**
 * Starts the eMSP on `port` and registers it with the CPO whose versions
 * endpoint is at `cpoUrl`; the CPO's config must list partner `partnerId`
 * with `tokenA` and this eMSP's versions URL (`versionsUrlOf(port)`).
 */
export const startEmspPartner = async (options: {
  port: number;
  cpoUrl: string;
  tokenA: string;
  partnerId?: string;
  /** sees every request this eMSP answers (method, path, HTTP status): how tests count deliveries */
  observe?: (method: string, path: string, status: number) => void;
  /** the eMSP's modules, all on `local` (default: tokens, locations, commands); add sessions and cdrs to receive their pushes */
  modules?: string[];
}): Promise<EmspPartner> => {
  const partnerId = options.partnerId ?? "cpo";
  const config = testGatewayConfig({
    port: options.port,
    party: EMSP_PARTY,
    modules: Object.fromEntries((options.modules ?? ["tokens", "locations", "commands"]).map((m) => [m, { adapter: "local" }])),
    server: { admin_token: EMSP_ADMIN_TOKEN },
    partners: [{ id: partnerId, token_a: options.tokenA, versions_url: `${options.cpoUrl}/ocpi/versions` }],
  });
  const gateway = await Gateway.create(config, { logger: pino({ level: "silent" }) });
  const observe = options.observe;
  if (observe) {
    // Outermost, so it sees the final status of every answer; listen() composes the middleware afterwards.
    gateway.app.middleware.unshift(async (ctx, next) => {
      await next();
      observe(ctx.method, ctx.path, ctx.status);
    });
  }
  await gateway.listen();
  try {
    await gateway.credentials.register(partnerId);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  const tokenToCpo = (await gateway.registry.get(partnerId))!.tokenToPartner!;
  const url = `http://127.0.0.1:${options.port}`;
  const token = (uid: string) => ({
    country_code: EMSP_PARTY.country_code,
    party_id: EMSP_PARTY.party_id,
    uid,
    type: "RFID",
    contract_id: `DE-EMS-C${uid}`,
    issuer: "EMS eMobility",
    valid: true,
    whitelist: "ALLOWED",
    last_updated: "2026-01-01T00:00:00Z",
  });
  const tokenPath = (cpoUrl: string, uid: string) => `${cpoUrl}/ocpi/2.3.0/receiver/tokens/DE/EMS/${uid}`;
  return {
    gateway,
    url,
    tokenToCpo,
    token,
    putToken: (cpoUrl, uid) => ocpiRequest("PUT", tokenPath(cpoUrl, uid), { token: tokenToCpo, body: token(uid) }),
    getToken: (cpoUrl, uid) => ocpiRequest("GET", tokenPath(cpoUrl, uid), { token: tokenToCpo }),
    admin: (method, route, body) =>
      ocpiRequest(method, `${url}/admin/v1${route}`, { headers: { Authorization: `Bearer ${EMSP_ADMIN_TOKEN}` }, body }),
    close: () => gateway.close(),
  };
};
