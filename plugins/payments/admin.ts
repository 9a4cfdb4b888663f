import type { AdminRequest, AdminRoute } from "../../core/admin/admin-api";
import type { PartnerRegistry } from "../../core/partners/partner-registry";
import type { ModuleCatalog } from "../../core/host/module-catalog";
import type { GatewayConfig } from "../../config/types";
import { PartnerCallError } from "../../core/client/ocpi-client";
import { OcpiError, invalid, invalidFields, notFound } from "../../core/http/errors";
import { Status } from "../../core/protocol/status";
import { issuesOf, type ObjectType } from "../../core/model/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import type { PaymentsClient } from "./client";
import type { PaymentsReceiverPort } from "./ports";
import { TERMINALS, type FinancialAdviceConfirmation, type Terminal } from "./model";
import { terminalActivationObjectType, terminalAssignmentObjectType, terminalObjectType, terminalUpdateObjectType } from "./translate";
import { facLinks } from "./fac-links";

/**
 * The CPO's backend acting on a PTP partner's terminals through the gateway
 * (admin API, `/admin/v1/payments/<partner>/…`), like commands:
 *
 *   POST /terminals/activate            body: Terminal, terminal_id optional → the PTP's answer
 *   POST /terminals/<id>/deactivate
 *   PUT  /terminals/<id>                body: the fields to set (customer_reference, invoice_base_url, …)
 *   POST /terminals/<id>/assignment     body: { location_ids?, evse_uids? }, added to the current ones (PATCH)
 *   GET  /terminals/<id>                the terminal as the PTP has it
 *   GET  /financial-advice-confirmations/<id>   a FAC the PTP posted or we pulled, with the Sessions and CDRs it paid for
 *
 * Bodies are canonical (2.3.0) and checked like a partner's (2001 naming
 * the field); what the PTP refuses is answered with its status and words;
 * a PTP that cannot be reached is 3001 on HTTP 502.
 */
export const paymentsAdminRoutes = (
  client: PaymentsClient,
  receiver: PaymentsReceiverPort,
  registry: PartnerRegistry,
  catalog: ModuleCatalog,
  config: GatewayConfig,
): AdminRoute[] => {
  const base = `/payments/:partner/${TERMINALS}`;
  return [
    {
      method: "POST",
      path: `${base}/activate`,
      handle: async (req) => {
        const answer = await relayed(() => client.activate(req.params.partner, bodyOf(req, terminalActivationObjectType)));
        const terminal = terminalObjectType.schema("2.3.0", "full").safeParse(withoutNulls(answer));
        // An answer carrying the Terminal is stored at once; the PTP's POST of it follows anyway.
        if (terminal.success) await storeTerminal(req.params.partner, terminal.data as Terminal);
        return { data: answer ?? null };
      },
    },
    {
      method: "POST",
      path: `${base}/:terminal_id/deactivate`,
      handle: async (req) => {
        await relayed(() => client.deactivate(req.params.partner, req.params.terminal_id));
        return { data: null };
      },
    },
    {
      method: "PUT",
      path: `${base}/:terminal_id`,
      handle: async (req) => {
        await relayed(() => client.update(req.params.partner, req.params.terminal_id, bodyOf(req, terminalUpdateObjectType)));
        return { data: null };
      },
    },
    {
      method: "POST",
      path: `${base}/:terminal_id/assignment`,
      handle: async (req) => {
        await relayed(() => client.assign(req.params.partner, req.params.terminal_id, bodyOf(req, terminalAssignmentObjectType)));
        return { data: null };
      },
    },
    {
      method: "GET",
      path: `${base}/:terminal_id`,
      handle: async (req) => {
        const terminal = await relayed(() => client.getTerminal(req.params.partner, req.params.terminal_id));
        if (!terminal) throw notFound("Terminal");
        return { data: terminal };
      },
    },
    {
      method: "GET",
      path: "/payments/:partner/financial-advice-confirmations/:id",
      handle: async (req) => {
        const fac = await storedFac(req.params.partner, req.params.id);
        if (!fac) throw notFound("FinancialAdviceConfirmation");
        return { data: { ...fac, linked: await facLinks(catalog, config, fac.authorization_reference) } };
      },
    },
  ];

  async function partiesOf(partnerId: string) {
    const record = await registry.get(partnerId);
    if (!record || record.status !== "registered") throw invalid(`partner: ${partnerId} is not a registered partner`);
    return record.roles;
  }

  async function storeTerminal(partnerId: string, terminal: Terminal): Promise<void> {
    const [ptp] = await partiesOf(partnerId);
    if (ptp) await receiver.putTerminal({ country_code: ptp.country_code, party_id: ptp.party_id }, terminal, { partnerId, party: config.parties[0] });
  }

  async function storedFac(partnerId: string, id: string): Promise<FinancialAdviceConfirmation | undefined> {
    for (const party of await partiesOf(partnerId)) {
      const fac = await receiver.getFac({ country_code: party.country_code, party_id: party.party_id }, id, { partnerId, party: config.parties[0] });
      if (fac) return fac;
    }
    return undefined;
  }
};

/** A request body checked as the canonical (2.3.0) object it must be; 2001 naming the field otherwise. */
const bodyOf = <T>(req: AdminRequest, type: ObjectType<T>): T => {
  if (typeof req.body !== "object" || req.body === null || Array.isArray(req.body)) throw invalid(`Request body with a ${type.name} is required`);
  const parsed = type.schema("2.3.0", "full").safeParse(withoutNulls(req.body));
  if (!parsed.success) throw invalidFields(issuesOf(parsed.error));
  return parsed.data as T;
};

/** A call to the PTP partner, its failures as answers: its 404 and 2xxx as they came, anything else 3001 on HTTP 502. */
const relayed = async <T>(call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof PartnerCallError)) throw error;
    const said = error.answer ? `: ${error.answer}` : "";
    if (error.httpStatus === 404) throw new OcpiError(Status.INVALID_PARAMETERS, `The PTP answered not found${said}`, 404);
    if (error.statusCode !== undefined && error.statusCode >= 2000 && error.statusCode < 3000)
      throw new OcpiError(error.statusCode, `The PTP refused the request${said}`);
    throw new OcpiError(Status.CLIENT_API_UNREACHABLE, `The PTP could not be reached or failed: ${error.message}`, 502);
  }
};
