import {
  inScope,
  partyKey,
  sameParty,
  type Cdr,
  type InvoiceReconciliationReceiverPort,
  type InvoiceReconciliationRecord,
  type InvoiceReconciliationSenderPort,
  type IssuedRecord,
  type Page,
  type PageRequest,
  type PartyRef,
  type PartyScope,
  type Store,
} from "../kit";
import type { LocalModule, LocalModulePorts } from "./local-module";
import { OwnedCollection } from "./owned-collection";

/** What a record we issued is stored as: the record with its addressee, sorted by the record's last_updated. */
interface StoredIssue extends IssuedRecord {
  last_updated: string;
}

/** How many records a list for a partner of several parties reads per store call. */
const CHUNK = 500;

/**
 * Invoice Reconciliation records of the `local` adapter, in the gateway's store. Received ones (a partner issues
 * them): one OwnedCollection per issuing party. Ours (we issue them): one per our party, and an index per (our
 * party, addressee) written alongside, so a partner of one party lists a page of its index, O(page); a partner
 * of several parties, or a hub, is served by filtering our party's whole list. CDRs for the invoice checks are
 * read where the `local` CDRs module keeps them (adapters/local/cdrs.ts), ours and partners' alike.
 */
export const localInvoiceReconciliation: LocalModule = {
  seedKey: "invoicereconciliation",
  portNames: ["invoicereconciliation.SENDER", "invoicereconciliation.RECEIVER"],
  create(store: Store): LocalModulePorts {
    const received = new OwnedCollection<InvoiceReconciliationRecord>(store, "invoicereconciliation");
    const issued = new IssuedRecords(store);
    const cdrs = new OwnedCollection<Cdr>(store, "cdrs");
    const findCdr = (owner: PartyRef, id: string) => cdrs.get(owner, id);
    const sender: InvoiceReconciliationSenderPort = {
      list: (page, ctx) => issued.list(ctx.party, page, ctx.scope),
      get: (owner, id) => issued.get(owner, id),
      put: (issue) => issued.put(issue),
      delete: (owner, id) => issued.delete(owner, id),
      findCdr,
    };
    const receiver: InvoiceReconciliationReceiverPort = {
      get: (owner, id) => received.get(owner, id),
      put: (owner, record) => received.put(owner, record.id, record),
      delete: (owner, id) => received.delete(owner, id),
      list: (owner, page) => received.list(owner, page),
      findCdr,
    };
    return {
      ports: { "invoicereconciliation.SENDER": sender, "invoicereconciliation.RECEIVER": receiver },
      async seed() {
        throw new Error("records are issued through the admin API or the CLI (ocpi-gateway invoices add), not seeded");
      },
    };
  },
};

/** The records our parties issued, with their addressee; see localInvoiceReconciliation. */
class IssuedRecords {
  private readonly records: OwnedCollection<StoredIssue>;
  private readonly byAddressee: OwnedCollection<StoredIssue>;

  constructor(store: Store) {
    this.records = new OwnedCollection<StoredIssue>(store, "invoicereconciliation.issued");
    this.byAddressee = new OwnedCollection<StoredIssue>(store, "invoicereconciliation.issued.by-addressee");
  }

  async list(owner: PartyRef, page: PageRequest, scope?: PartyScope): Promise<Page<InvoiceReconciliationRecord>> {
    const stored = !scope
      ? await this.records.list(owner, page)
      : !scope.relay && scope.parties.length === 1
        ? await this.byAddressee.list(indexOwner(owner, scope.parties[0]), page)
        : await this.filtered(owner, page, scope);
    return { ...stored, items: stored.items.map((issue) => issue.record) };
  }

  private async filtered(owner: PartyRef, page: PageRequest, scope: PartyScope): Promise<Page<StoredIssue>> {
    const items: StoredIssue[] = [];
    let total = 0;
    for (let offset = 0; ; offset += CHUNK) {
      const chunk = await this.records.list(owner, { ...page, offset, limit: CHUNK });
      for (const issue of chunk.items) {
        if (!inScope(scope, issue.to)) continue;
        if (total >= page.offset && items.length < page.limit) items.push(issue);
        total++;
      }
      if (chunk.items.length < CHUNK) return { items, total };
    }
  }

  async get(owner: PartyRef, id: string): Promise<IssuedRecord | undefined> {
    const stored = await this.records.get(owner, id);
    return stored && { record: stored.record, to: stored.to };
  }

  async put({ record, to }: IssuedRecord): Promise<"created" | "updated"> {
    const owner = ownerOf(record);
    const before = await this.records.get(owner, record.id);
    const stored: StoredIssue = { record, to, last_updated: record.last_updated };
    const outcome = await this.records.put(owner, record.id, stored);
    if (before && !sameParty(before.to, to)) await this.byAddressee.delete(indexOwner(owner, before.to), record.id);
    await this.byAddressee.put(indexOwner(owner, to), record.id, stored);
    return outcome;
  }

  async delete(owner: PartyRef, id: string): Promise<boolean> {
    const before = await this.records.get(owner, id);
    if (!before) return false;
    await this.byAddressee.delete(indexOwner(owner, before.to), id);
    return this.records.delete(owner, id);
  }
}

const ownerOf = (record: InvoiceReconciliationRecord): PartyRef => ({ country_code: record.country_code.toUpperCase(), party_id: record.party_id.toUpperCase() });

/** The index collection of (our party, addressee), addressed as an OwnedCollection owner. */
const indexOwner = (owner: PartyRef, to: PartyRef): PartyRef => ({ country_code: partyKey(owner), party_id: partyKey(to) });
