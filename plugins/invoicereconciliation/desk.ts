import type { GatewayConfig } from "../../config/types";
import type { PartnerRegistry } from "../../core/partners/partner-registry";
import type { ChangeFeed } from "../../core/contract/change-feed";
import type { PortContext } from "../../core/contract/port-context";
import type { PageRequest } from "../../core/contract/page";
import { invalid, invalidFields, notFound } from "../../core/contract/errors";
import { issuesOf } from "../../core/model/object-type";
import { ocpiTimestamp } from "../../core/http/envelope";
import { withoutNulls } from "../../core/model/without-nulls";
import { admitPartner } from "../../core/edge/admit";
import { sameParty, type PartyRef, type VersionNumber } from "../../core/protocol/types";
import type { Cdr } from "../cdrs/model";
import { checkInvoiceRecords, type InvoiceFinding } from "./checks";
import type { InvoiceReconciliationRecord, IssuedRecord } from "./model";
import type { InvoiceReconciliationReceiverPort, InvoiceReconciliationSenderPort } from "./ports";
import { INVOICE_RECONCILIATION, recordChange, type Addressees } from "./push";
import { invoiceRecordType } from "./translate";

/** A record as the operator sees it: who it is addressed to (ours) or came from (a partner's), and its findings. */
export interface RecordView {
  record: InvoiceReconciliationRecord;
  /** the partner party a record we issued is addressed to */
  to?: PartyRef;
  findings: InvoiceFinding[];
}

/** The records exchanged with one partner: those we issued to it (we serve the Sender), those it sent us (the Receiver). */
export interface PartnerInvoices {
  partner: string;
  issued?: RecordView[];
  received?: RecordView[];
}

/** What the admin API and the CLI take to issue a record; every field but invoice_id and cdrs has a default. */
interface RecordRequest {
  invoice_id?: unknown;
  cdrs?: unknown;
  id?: unknown;
  country_code?: unknown;
  party_id?: unknown;
  /** the partner party it is addressed to, e.g. "DEEMS"; default the partner's only party */
  to?: unknown;
}

const ALL: PageRequest = { offset: 0, limit: 100_000 };

/**
 * The records of the invoicereconciliation module as the operator handles them, one code path for the admin
 * API (admin.ts) and the CLI (`ocpi-gateway invoices`, app/invoices-command.ts). We issue records as the Sender
 * (`add`, `replace`, `remove`: stored, then pushed to the partner party they are addressed to), and see those
 * we issued and those a partner sent us (`list`), each with its findings (checks.ts). Every failure is an
 * OcpiError: 2001 naming the field, or the partner when it is not registered or not offered the module.
 */
export class InvoiceDesk {
  constructor(
    private readonly config: GatewayConfig,
    private readonly registry: PartnerRegistry,
    private readonly changes: ChangeFeed,
    private readonly addressees: Addressees,
    private readonly ports: { SENDER?: InvoiceReconciliationSenderPort; RECEIVER?: InvoiceReconciliationReceiverPort },
    /** the versions the module is served in: a partner registered in another is not offered it */
    private readonly versions: readonly VersionNumber[],
  ) {}

  /** Issues a new record to the partner: stored, then POSTed to its Receiver. */
  async add(partnerId: string, body: unknown): Promise<RecordView> {
    const sender = this.sender();
    const theirs = await this.partiesOf(partnerId);
    const request = requestOf(body);
    const to = addresseeOf(request.to, theirs);
    const record = this.recordOf({ ...request, id: request.id ?? crypto.randomUUID() });
    const ctx = this.ctx(partnerId, record);
    if (await sender.get(record, record.id, ctx)) throw invalid(`/id: record ${record.id} exists already; change it with PUT`);
    await this.addressees.set(record, record.id, to);
    await sender.put({ record, to }, ctx);
    await this.changes.publish(recordChange(record, "created"));
    return this.viewOf(partnerId, record, to);
  }

  /** Replaces the invoice_id and cdrs of a record we issued to the partner: stored, then PUT at its Receiver. */
  async replace(partnerId: string, id: string, body: unknown): Promise<RecordView> {
    const sender = this.sender();
    const { record: current, to } = await this.issued(partnerId, id);
    const request = requestOf(body);
    const record = this.recordOf({ ...request, id: current.id, country_code: current.country_code, party_id: current.party_id });
    await sender.put({ record, to }, this.ctx(partnerId, record));
    await this.changes.publish(recordChange(record, "replaced"));
    return this.viewOf(partnerId, record, to);
  }

  /** Withdraws a record we issued to the partner because it was wrong: deleted, then DELETEd at its Receiver. */
  async remove(partnerId: string, id: string): Promise<void> {
    const { record } = await this.issued(partnerId, id);
    await this.sender().delete(record, record.id, this.ctx(partnerId, record));
    await this.changes.publish(recordChange(record, "deleted"));
  }

  /** The records exchanged with the partner, each with its findings. */
  async list(partnerId: string): Promise<PartnerInvoices> {
    const theirs = await this.partiesOf(partnerId);
    const answer: PartnerInvoices = { partner: partnerId };
    if (this.ports.SENDER) answer.issued = await this.issuedViews(partnerId, theirs);
    if (this.ports.RECEIVER) answer.received = await this.receivedViews(partnerId, theirs);
    return answer;
  }

  private async issuedViews(partnerId: string, theirs: PartyRef[]): Promise<RecordView[]> {
    const sender = this.ports.SENDER!;
    const scope = { parties: theirs, relay: false, excluded: [] };
    const issued: IssuedRecord[] = [];
    for (const party of this.config.parties) {
      for (const record of (await sender.list(ALL, { partnerId, party, scope })).items) {
        const found = await sender.get(record, record.id, { partnerId, party });
        if (found) issued.push(found);
      }
    }
    // a CDR of a record we issue is ours (direct billing) or the partner's that we received (reverse billing)
    const findings = await this.findings(
      issued.map((i) => i.record),
      (record) => [record, ...issued.filter((i) => i.record === record).map((i) => i.to)],
      (owner, id) => sender.findCdr(owner, id, { partnerId, party: owner }),
    );
    return issued.map(({ record, to }) => ({ record, to, findings: findings.filter((f) => f.record.id === record.id && sameParty(f.record, record)) }));
  }

  private async receivedViews(partnerId: string, theirs: PartyRef[]): Promise<RecordView[]> {
    const receiver = this.ports.RECEIVER!;
    const received: InvoiceReconciliationRecord[] = [];
    for (const party of theirs) received.push(...(await receiver.list(party, ALL, { partnerId, party: this.config.parties[0] })).items);
    // a CDR of a record the partner issues is the partner's, sent to us (direct billing), or ours (reverse billing)
    const findings = await this.findings(
      received,
      (record) => [record, ...this.config.parties],
      (owner, id) => receiver.findCdr(owner, id, { partnerId, party: this.config.parties[0] }),
    );
    return received.map((record) => ({ record, findings: findings.filter((f) => f.record.id === record.id && sameParty(f.record, record)) }));
  }

  /** The checks over `records`, a CDR looked up under each owner `ownersOf` names for its record, first found wins. */
  private findings(
    records: InvoiceReconciliationRecord[],
    ownersOf: (record: InvoiceReconciliationRecord) => PartyRef[],
    find: (owner: PartyRef, id: string) => Promise<Cdr | undefined>,
  ): Promise<InvoiceFinding[]> {
    return checkInvoiceRecords(records, async (cdrId, record) => {
      for (const owner of ownersOf(record)) {
        const cdr = await find({ country_code: owner.country_code.toUpperCase(), party_id: owner.party_id.toUpperCase() }, cdrId);
        if (cdr) return cdr;
      }
      return undefined;
    });
  }

  private async viewOf(partnerId: string, record: InvoiceReconciliationRecord, to: PartyRef): Promise<RecordView> {
    const view = (await this.list(partnerId)).issued?.find((v) => v.record.id === record.id && sameParty(v.record, record));
    return view ?? { record, to, findings: [] };
  }

  /** A record we issued to the partner, by id, under any of our parties; 404 when there is none. */
  private async issued(partnerId: string, id: string) {
    const theirs = await this.partiesOf(partnerId);
    for (const party of this.config.parties) {
      const found = await this.sender().get(party, id, { partnerId, party });
      if (found && theirs.some((p) => sameParty(p, found.to))) return found;
    }
    throw notFound(`InvoiceReconciliationRecord ${id} issued to ${partnerId}`);
  }

  /** The record a request makes, checked as the 2.3.0 object (2001 naming the field); owner default our first party. */
  private recordOf(request: RecordRequest & { id: unknown }): InvoiceReconciliationRecord {
    const [first] = this.config.parties;
    const candidate = {
      country_code: request.country_code ?? first.country_code,
      party_id: request.party_id ?? first.party_id,
      id: request.id,
      invoice_id: request.invoice_id,
      cdrs: request.cdrs,
      last_updated: ocpiTimestamp(),
    };
    const parsed = invoiceRecordType.schema("2.3.0", "full").safeParse(candidate);
    if (!parsed.success) throw invalidFields(issuesOf(parsed.error));
    const record = parsed.data as InvoiceReconciliationRecord;
    if (!this.config.parties.some((p) => sameParty(p, record))) throw invalid(`/country_code, /party_id: ${record.country_code}/${record.party_id} is not one of our parties`);
    return { ...record, country_code: record.country_code.toUpperCase(), party_id: record.party_id.toUpperCase() };
  }

  private sender(): InvoiceReconciliationSenderPort {
    if (!this.ports.SENDER) throw invalid(`${INVOICE_RECONCILIATION}: this gateway does not serve the Sender (modules.${INVOICE_RECONCILIATION}.roles): it issues no records`);
    return this.ports.SENDER;
  }

  private ctx(partnerId: string, party: PartyRef): PortContext {
    return { partnerId, party: { country_code: party.country_code, party_id: party.party_id } };
  }

  /** The partner's parties; 2001 naming it when it is not registered or not offered the module in its version. */
  private async partiesOf(partnerId: string): Promise<PartyRef[]> {
    const { record } = await admitPartner({ config: this.config, registry: this.registry }, partnerId, INVOICE_RECONCILIATION);
    if (!this.versions.includes(record.version!))
      throw invalid(`partner: ${partnerId} is not offered ${INVOICE_RECONCILIATION} in OCPI ${record.version} (the module is ${this.versions.join(", ")} only)`);
    return record.roles.filter((r) => r.role !== "HUB").map((r) => ({ country_code: r.country_code.toUpperCase(), party_id: r.party_id.toUpperCase() }));
  }
}

const requestOf = (body: unknown): RecordRequest => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("Request body with invoice_id and cdrs is required");
  return withoutNulls(body) as RecordRequest;
};

/** The partner party a record is addressed to: `to` ("DEEMS"), which must be one of the partner's, else its only one. */
const addresseeOf = (to: unknown, theirs: PartyRef[]): PartyRef => {
  if (to === undefined) {
    if (theirs.length === 1) return theirs[0];
    throw invalid(`/to: the partner has ${theirs.length} parties (${theirs.map((p) => p.country_code + p.party_id).join(", ")}): name the one the record is for`);
  }
  const party = typeof to === "string" && /^[A-Za-z]{2}[A-Za-z0-9]{3}$/.test(to) ? { country_code: to.slice(0, 2).toUpperCase(), party_id: to.slice(2).toUpperCase() } : undefined;
  if (!party) throw invalid("/to: must be a party as country code and party id, e.g. DEEMS");
  if (!theirs.some((p) => sameParty(p, party))) throw invalid(`/to: ${to} is not one of the partner's parties`);
  return party;
};
