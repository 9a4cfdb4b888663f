import "reflect-metadata";
import pino, { type Logger } from "pino";
import { Gateway } from "../../app/gateway";
import type { PartnerExtension, VersionNumber } from "../../config/types";
import type { Session } from "../../plugins/sessions/model";
import type { FinancialAdviceConfirmation, Terminal } from "../../plugins/payments/model";
import type { Settlement } from "../../adapters/tms/contract";
import { testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, writeGatewayConfig, type HttpResult, type WrittenConfig } from "../support/gateway-process";
import { eventually } from "../support/charge-point";
import { TmsSimulator } from "../support/tms-simulator";

/**
 * The payments tests' network on loopback (issue #12): a PTP gateway on the
 * `tms` adapter in front of a TMS v1 simulator, which also takes the CPOs'
 * Sessions and CDRs (sessions and cdrs RECEIVER, `local`: what ties a FAC to
 * its CPO), and CPO gateways on `local` (payments RECEIVER, sessions and
 * cdrs SENDER), each registered with the PTP. Each CPO's config is written
 * to a file, so the CLI can run on it beside the gateway.
 */

export type Json = Record<string, any>;

export const PTP: PartySpec = { country_code: "NL", party_id: "PTP", role: "PTP" };
export const ADMIN = "payments-admin-token-0123456789";
export const API_KEY = "tms-api-key-e2e-0123";
export const SECRET = "tms-webhook-secret-e2e-0123456789";

export interface CpoSpec {
  /** its partner id at the PTP */
  id: string;
  party: PartySpec;
  versions?: VersionNumber[];
  /** `partners[].extensions` on both sides: `direct_payment` for payments in 2.2.1 */
  extensions?: PartnerExtension[];
}

export interface Cpo extends CpoSpec {
  gateway: Gateway;
  url: string;
  written: WrittenConfig;
  /** the token the CPO calls the PTP with */
  token(): Promise<string>;
}

/** A Session of the CPO paid at one of the PTP's terminals: its token is the PTP's ad-hoc user, so it is pushed to the PTP. */
export const paidSession = (cpo: PartySpec, id: string, authorizationReference: string): Session => ({
  country_code: cpo.country_code,
  party_id: cpo.party_id,
  id,
  start_date_time: "2024-05-01T10:00:00Z",
  kwh: 4,
  cdr_token: { country_code: PTP.country_code, party_id: PTP.party_id, uid: "TERMINAL-SER-1", type: "AD_HOC_USER", contract_id: "NL-PTP-ADHOC" },
  auth_method: "COMMAND",
  authorization_reference: authorizationReference,
  location_id: "LOC1",
  evse_uid: "EVSE1",
  connector_id: "1",
  currency: "EUR",
  status: "COMPLETED",
  last_updated: "2024-05-01T11:00:00Z",
});

/** A capture at the PSP, as the terminal system records it. */
export const settlement = (id: string, authRef: string, extra: Partial<Settlement> = {}): Omit<Settlement, "updated"> => ({
  settlement_id: id,
  auth_ref: authRef,
  amount_minor: 440,
  vat_minor: 40,
  vat_rate: 10,
  currency: "EUR",
  outcome: "captured",
  outcome_text: null,
  receipt_lines: ["Mastercard", "Nr: **** 1234", "Amount: EUR 4.40"],
  ...extra,
});

export const json = (r: { body: unknown }) => r.body as Json;

export const adminOf = (base: string) => {
  const call = (method: string, p: string, body?: unknown): Promise<HttpResult> =>
    ocpiRequest(method, `${base}/admin/v1${p}`, { headers: { Authorization: `Bearer ${ADMIN}` }, body });
  return {
    get: (p: string) => call("GET", p),
    post: (p: string, body?: unknown) => call("POST", p, body ?? {}),
    put: (p: string, body: unknown) => call("PUT", p, body),
  };
};

/** What a CPO's `local` adapter holds of the PTP's terminals and FACs (its backend's view). */
export const heldTerminal = (cpo: Cpo, id: string) => cpo.gateway.store.get<Terminal>("local:payments.terminals:NLPTP", id.toUpperCase());
export const heldFac = (cpo: Cpo, id: string) => cpo.gateway.store.get<FinancialAdviceConfirmation>("local:payments.facs:NLPTP", id.toUpperCase());

export class PaymentsNet {
  readonly tms = new TmsSimulator(API_KEY, SECRET);
  ptp!: Gateway;
  ptpUrl = "";
  readonly cpos: Cpo[] = [];

  static async start(cpos: CpoSpec[], options: { pollMs?: number; ptpLogger?: Logger } = {}): Promise<PaymentsNet> {
    const net = new PaymentsNet();
    await net.tms.start();
    const [ptpPort, ...cpoPorts] = await freePorts(1 + cpos.length);
    net.ptpUrl = `http://127.0.0.1:${ptpPort}`;
    net.ptp = await Gateway.create(
      testGatewayConfig({
        port: ptpPort,
        party: PTP,
        modules: {
          payments: { adapter: "tms", roles: ["SENDER"] },
          sessions: { adapter: "local", roles: ["RECEIVER"] },
          cdrs: { adapter: "local", roles: ["RECEIVER"] },
        },
        adapters: { tms: { base_url: net.tms.baseUrl, api_key: API_KEY, webhook_secret: SECRET, poll_interval_ms: options.pollMs ?? 30_000 }, local: {} },
        server: { admin_token: ADMIN },
        partners: cpos.map((c, i) => ({
          id: c.id,
          token_a: `token-a-${c.id}-0123`,
          versions_url: versionsUrlOf(cpoPorts[i]),
          ...(c.versions && { versions: c.versions }),
          ...(c.extensions && { extensions: c.extensions }),
          push: { base_delay_ms: 50, max_delay_ms: 200 },
        })),
      }),
      { logger: options.ptpLogger ?? pino({ level: "silent" }) },
    );
    await net.ptp.listen();
    net.tms.setWebhook(`${net.ptpUrl}/adapters/tms/webhook`);
    for (const [i, spec] of cpos.entries()) {
      const written = writeGatewayConfig({
        port: cpoPorts[i],
        party: spec.party,
        modules: {
          payments: { adapter: "local", roles: ["RECEIVER"] },
          sessions: { adapter: "local", roles: ["SENDER"] },
          cdrs: { adapter: "local", roles: ["SENDER"] },
        },
        server: { admin_token: ADMIN },
        partners: [
          {
            id: "ptp",
            token_a: `token-a-${spec.id}-0123`,
            versions_url: versionsUrlOf(ptpPort),
            sync_retry: { retries: 1, base_delay_ms: 10, max_delay_ms: 20 },
            push: { base_delay_ms: 50, max_delay_ms: 200 },
            ...(spec.versions && { versions: spec.versions }),
            ...(spec.extensions && { extensions: spec.extensions }),
          },
        ],
      });
      const gateway = await Gateway.create(written.config, { logger: pino({ level: "silent" }) });
      await gateway.listen();
      const cpo: Cpo = { ...spec, gateway, written, url: `http://127.0.0.1:${cpoPorts[i]}`, token: async () => (await gateway.registry.get("ptp"))!.tokenToPartner! };
      net.cpos.push(cpo);
      await gateway.credentials.register("ptp");
    }
    return net;
  }

  /**
   * The CPO's backend reports a Session or CDR (POST /admin/v1/events); it
   * is pushed to the PTP, the owner of its token. Resolves once the PTP holds it.
   */
  async report(cpo: Cpo, module: "sessions" | "cdrs", object: Json): Promise<void> {
    const owner = { country_code: cpo.party.country_code, party_id: cpo.party.party_id };
    const answer = await adminOf(cpo.url).post("/events", { module, owner, path: [object.id], kind: "upsert", object });
    if (json(answer).status_code !== 1000) throw new Error(`${module} event refused: ${JSON.stringify(answer.body)}`);
    const collection = `local:${module}:${owner.country_code}${owner.party_id}`;
    await eventually(async () => expect(await this.ptp.store.get(collection, object.id.toUpperCase())).toBeDefined());
  }

  /** A GET of the PTP's Sender interface as the CPO makes it. */
  async atPtp(cpo: Cpo, path: string): Promise<HttpResult> {
    return ocpiRequest("GET", `${this.ptpUrl}/ocpi/${cpo.versions?.[0] ?? "2.3.0"}/sender/payments${path}`, { token: await cpo.token() });
  }

  async close(): Promise<void> {
    await Promise.all([this.ptp?.close(), ...this.cpos.map((c) => c.gateway.close())]);
    await this.tms.stop();
  }
}
