import type { Cdr } from "../model";

/** The fields of a CDR its audit reads (every other is left out of the queued CDR; the Location by its id alone). */
const AUDITED_FIELDS = [
  "country_code", "party_id", "id", "start_date_time", "end_date_time", "session_id", "cdr_token", "authorization_reference", "currency", "tariffs",
  "charging_periods", "total_cost", "total_fixed_cost", "total_energy", "total_energy_cost", "total_time", "total_time_cost", "total_parking_time",
  "total_parking_cost", "total_reservation_cost", "credit", "credit_reference_id",
] as const;

/** A CDR as its audit reads it: the audit's functions take this, so a field they read and the queue leaves out does not compile. */
export type AuditedCdr = Pick<Cdr, (typeof AUDITED_FIELDS)[number]> & { cdr_location: Pick<Cdr["cdr_location"], "id"> };

/**
 * What of a CDR waits in the audit's queue (audit-store.ts): the fields its audit reads, so the queued record written
 * when the CDR passes, and read back and parsed when it is audited, leaves out its Location's address, coordinates
 * and connector, its signed data, remark and the rest (a fifth of the bench's CDR; bench/RESULTS.md "CDR audit").
 */
export const auditedCdr = (cdr: AuditedCdr): AuditedCdr => {
  const audited = {} as Record<string, unknown>;
  for (const field of AUDITED_FIELDS) if (cdr[field] !== undefined) audited[field] = cdr[field];
  audited.cdr_location = { id: cdr.cdr_location.id };
  return audited as AuditedCdr;
};

/**
 * A queued CDR as the store keeps it: its embedded tariffs as their JSON text, parsed once for all the queued CDRs
 * that embed the same text (`auditedOfKept`), where each CDR's copy was parsed into objects of its own (a CPO embeds
 * its few tariffs in all its CDRs: a quarter of the bench's queued CDR; bench/RESULTS.md "CDR audit"). Queued before
 * 2026-12-08: its tariffs as objects, read as they are.
 */
export type KeptAuditedCdr = Omit<AuditedCdr, "tariffs"> & { tariffs?: AuditedCdr["tariffs"] | string };

/** `auditedCdr`, its tariffs as their JSON text. */
export const keptAuditedCdr = (cdr: AuditedCdr): KeptAuditedCdr => {
  const kept = auditedCdr(cdr) as KeptAuditedCdr;
  if (kept.tariffs !== undefined) kept.tariffs = JSON.stringify(kept.tariffs);
  return kept;
};

/** the tariffs of the texts parsed last: every CDR that embeds one of them gets the same objects, which the audit only reads */
const parsedTariffs = new Map<string, NonNullable<AuditedCdr["tariffs"]>>();
const PARSED_TARIFFS_HELD = 256;

/** A queued CDR as its audit reads it: its tariffs' text parsed, or taken from a queued CDR that embedded the same. */
export const auditedOfKept = (kept: KeptAuditedCdr): AuditedCdr => {
  const text = kept.tariffs;
  if (typeof text === "string") {
    let tariffs = parsedTariffs.get(text);
    if (tariffs === undefined) {
      if (parsedTariffs.size >= PARSED_TARIFFS_HELD) parsedTariffs.clear();
      parsedTariffs.set(text, (tariffs = JSON.parse(text) as NonNullable<AuditedCdr["tariffs"]>));
    }
    kept.tariffs = tariffs;
  }
  return kept as AuditedCdr;
};
