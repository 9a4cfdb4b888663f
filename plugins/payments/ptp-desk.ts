import type { PartnerRegistry } from "../../core/partners/partner-registry";
import type { PartnerClient } from "../../core/client/partner-client";
import type { GatewayConfig } from "../../config/types";
import { invalid, invalidFields, notFound } from "../../core/contract/errors";
import { issuesOf } from "../../core/model/object-type";
import { type ObjectType } from "../../core/contract/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import { PaymentsClient } from "./client";
import type { PaymentsReceiverPort } from "./ports";
import { FACS, TERMINALS, type FinancialAdviceConfirmation, type Terminal } from "./model";
import { facObjectType, terminalActivationObjectType, terminalAssignmentObjectType, terminalObjectType, terminalUpdateObjectType } from "./translate";
import { admitPartner } from "../../core/edge/admit";
import type { AuthorizationReferences, ReferenceLink } from "./authorization-references";
import { relayedFrom } from "../../core/client/relayed-failure";

/**
 * What the CPO's backend does on a PTP partner's terminals through the
 * gateway, one code path for the admin API (admin.ts) and the CLI
 * (`ocpi-gateway terminals`, app/terminals-command.ts): bodies arrive
 * untyped and are checked as the canonical (2.3.0) object (2001 naming the
 * field); what the PTP refuses comes back with its status and words; a PTP
 * that cannot be reached is 3001 on HTTP 502. Every failure is an OcpiError.
 */
export class PtpDesk {
  private readonly client: PaymentsClient;

  constructor(
    private readonly partners: PartnerClient,
    private readonly receiver: PaymentsReceiverPort,
    private readonly registry: PartnerRegistry,
    private readonly references: AuthorizationReferences,
    private readonly config: GatewayConfig,
  ) {
    this.client = new PaymentsClient(partners);
  }

  /** Answers what the PTP answered (the activated Terminal); a Terminal in the answer is stored at once (the PTP's POST of it follows anyway). */
  async activate(partnerId: string, body: unknown): Promise<unknown> {
    const request = bodyOf(body, terminalActivationObjectType);
    await this.ptpOf(partnerId);
    const answer = await relayed(() => this.client.activate(partnerId, request));
    const terminal = terminalObjectType.schema("2.3.0", "full").safeParse(withoutNulls(answer));
    if (terminal.success) await this.storeTerminal(partnerId, terminal.data as Terminal);
    return answer ?? null;
  }

  async deactivate(partnerId: string, terminalId: string): Promise<void> {
    await this.ptpOf(partnerId);
    await relayed(() => this.client.deactivate(partnerId, terminalId));
  }

  /** PUT: the fields to set (customer_reference, invoice_base_url, …); the PTP keeps the others. */
  async update(partnerId: string, terminalId: string, body: unknown): Promise<void> {
    const fields = bodyOf(body, terminalUpdateObjectType);
    await this.ptpOf(partnerId);
    await relayed(() => this.client.update(partnerId, terminalId, fields));
  }

  /** PATCH: location_ids and/or evse_uids, added to the current ones. */
  async assign(partnerId: string, terminalId: string, body: unknown): Promise<void> {
    const assignment = bodyOf(body, terminalAssignmentObjectType);
    await this.ptpOf(partnerId);
    await relayed(() => this.client.assign(partnerId, terminalId, assignment));
  }

  async terminal(partnerId: string, terminalId: string): Promise<Terminal> {
    await this.ptpOf(partnerId);
    const terminal = await relayed(() => this.client.getTerminal(partnerId, terminalId));
    if (!terminal) throw notFound(`Terminal ${terminalId} at ${partnerId}`);
    return terminal;
  }

  /** The PTP's list, as it shows it to us (our parties' terminals). */
  terminals(partnerId: string): Promise<Terminal[]> {
    return this.all(partnerId, terminalObjectType, `/${TERMINALS}`);
  }

  /** The PTP's FACs, as it shows them to us (those it attributes to our parties). */
  facs(partnerId: string): Promise<FinancialAdviceConfirmation[]> {
    return this.all(partnerId, facObjectType, `/${FACS}`);
  }

  /** A FAC the PTP posted or we pulled, with our Sessions and CDRs whose authorization_reference it carries. */
  async fac(partnerId: string, id: string): Promise<FinancialAdviceConfirmation & { linked: ReferenceLink[] }> {
    for (const party of await this.ptpOf(partnerId)) {
      const fac = await this.receiver.getFac(party, id, { partnerId, party: this.config.parties[0] });
      if (fac) return { ...fac, linked: await this.references.ours(fac.authorization_reference) };
    }
    throw notFound("FinancialAdviceConfirmation");
  }

  private async all<T>(partnerId: string, type: ObjectType<T>, path: string): Promise<T[]> {
    await this.ptpOf(partnerId);
    const items: T[] = [];
    await relayed(async () => {
      for await (const page of this.partners.list(partnerId, "payments", type, {}, undefined, undefined, path)) items.push(...page);
    });
    return items;
  }

  /** The partner's parties; 2001 naming it when it is not a registered partner. */
  private async ptpOf(partnerId: string): Promise<{ country_code: string; party_id: string }[]> {
    const { record } = await admitPartner({ config: this.config, registry: this.registry }, partnerId, "payments");
    return record.roles.map((r) => ({ country_code: r.country_code.toUpperCase(), party_id: r.party_id.toUpperCase() }));
  }

  private async storeTerminal(partnerId: string, terminal: Terminal): Promise<void> {
    const [ptp] = await this.ptpOf(partnerId);
    if (ptp) await this.receiver.putTerminal(ptp, terminal, { partnerId, party: this.config.parties[0] });
  }
}

/** A body checked as the canonical (2.3.0) object it must be; 2001 naming the field otherwise. */
const bodyOf = <T>(body: unknown, type: ObjectType<T>): T => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid(`Request body with a ${type.name} is required`);
  const parsed = type.schema("2.3.0", "full").safeParse(withoutNulls(body));
  if (!parsed.success) throw invalidFields(issuesOf(parsed.error));
  return parsed.data as T;
};

/** A call to the PTP partner, its failures as answers (core/client/relayed-failure.ts). */
const relayed = relayedFrom("PTP");
