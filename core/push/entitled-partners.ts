import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerRecord } from "../contract/partner-record";

/**
 * Partners a module's changes are pushed to: registered, offered the
 * module in their version (`partners[].modules`, `partners[].extensions`:
 * core/partners/module-offers.ts), and offering its RECEIVER interface (for
 * 2.1.1 partners, the module's one endpoint, stored with the RECEIVER role
 * when we own the module's data).
 *
 * The records come from the registry's listing under the store's current
 * registration generation (PartnerRegistry.listCurrent): a change costs one
 * generation read, and a partner (un)registered on any instance is honoured
 * from the next change on.
 */
export const entitledPartners = async (registry: PartnerRegistry, module: string): Promise<PartnerRecord[]> =>
  entitledIn(registry, await registry.listCurrent(), module);

/** The entitled ones of a listing of partner records. */
export const entitledIn = (registry: PartnerRegistry, records: readonly PartnerRecord[], module: string): PartnerRecord[] =>
  records.filter((record) => isEntitled(registry, record, module));

export const isEntitled = (registry: PartnerRegistry, record: PartnerRecord, module: string): boolean => {
  if (record.status !== "registered" || !record.version || !record.tokenToPartner) return false;
  if (!registry.modules.offers(registry.profileOf(record).config, module, record.version)) return false;
  return record.endpoints.some((e) => e.identifier === module && e.role === "RECEIVER");
};
