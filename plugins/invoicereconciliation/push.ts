import { defaultTarget, type PushSpec } from "../../core/contract/push-spec";
import type { DataChange } from "../../core/contract/change-feed";
import type { Store } from "../../core/contract/store";
import { ciKey } from "../../core/model/common-schemas";
import { partyKey, type PartyRef } from "../../core/protocol/types";
import type { InvoiceReconciliationRecord } from "./model";
import type { InvoiceReconciliationReceiverPort } from "./ports";
import { invoiceRecordType } from "./translate";

export const INVOICE_RECONCILIATION = "invoicereconciliation";

/**
 * The partner party each record we issued is addressed to, kept by the plugin in the store (not by the
 * adapter): a push's audience is read from it, also for a DELETE, after the record itself is gone.
 */
export class Addressees {
  private static readonly COLLECTION = "invoicereconciliation:addressees";

  constructor(private readonly store: Store) {}

  set(owner: PartyRef, id: string, to: PartyRef): Promise<void> {
    return this.store.put(Addressees.COLLECTION, keyOf(owner, id), { country_code: to.country_code, party_id: to.party_id });
  }

  of(owner: PartyRef, id: string): Promise<PartyRef | undefined> {
    return this.store.get<PartyRef>(Addressees.COLLECTION, keyOf(owner, id));
  }
}

const keyOf = (owner: PartyRef, id: string): string => `${partyKey(owner)}/${ciKey(id)}`;

/**
 * Our records (we are the Sender) to the Receiver of the one partner party each is addressed to (OCPI 2.3.0
 * edition 2, Invoice Reconciliation module): a new record is POSTed to the module URL (`upsert`), a changed one
 * PUT whole at `/{country_code}/{party_id}/{id}` (published as a `patch` carrying the whole record: the push
 * needs the two methods apart, and a record has no PATCH), a withdrawn one DELETEd there. Every message is
 * delivered at least once: what an invoice covers is money.
 */
export const invoiceRecordsPush = (addressees: Addressees): PushSpec<InvoiceReconciliationReceiverPort> => ({
  objectTypes: [invoiceRecordType],
  idFields: ["id"],
  methods: { upsert: "POST", patch: "PUT", delete: "DELETE" },
  target: (change) => (change.kind === "upsert" ? { path: "" } : defaultTarget(change)),
  essential: () => true,
  audience: (change) => addressees.of(change.owner, change.path[0]),
  resync: false,
});

/** The change that reports a record we issued: `created` is POSTed, a replaced one PUT, a withdrawn one DELETEd. */
export const recordChange = (record: InvoiceReconciliationRecord, kind: "created" | "replaced" | "deleted"): DataChange => ({
  module: INVOICE_RECONCILIATION,
  owner: { country_code: record.country_code, party_id: record.party_id },
  path: [record.id],
  kind: kind === "created" ? "upsert" : kind === "replaced" ? "patch" : "delete",
  ...(kind === "deleted" ? {} : { object: record as Record<string, unknown> }),
});
