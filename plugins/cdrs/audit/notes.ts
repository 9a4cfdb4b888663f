/**
 * The notes of an audit (CdrAudit.notes: facts that did not change the verdict), kept as a code and its values
 * (KeptNote) and put in words when the audit is read (explain.ts `explained`), as its re-pricing is: the same few
 * sentences were written and read back with nearly every audit (a sixth of the bench's audit; bench/RESULTS.md "CDR audit").
 */
const NOTES = {
  unpublished: (tariff: string) => `tariff ${tariff} is not held as published: the CDR's own copy is used`,
  "changed-since": (tariff: string, updated: string) => `tariff ${tariff} was changed after the session started (last_updated ${updated}): the CDR's own copy is used`,
  "not-in-force": (tariff: string, at: string) => `tariff ${tariff} is not in force at ${at} (start_date_time/end_date_time); priced with it as the CDR names it`,
  "no-time-zone": () => "the Location's time_zone is not held; the tariff has no local-time restriction, so it does not matter",
  "no-tax-included": (tariff: string) => `tariff ${tariff} has no tax_included (required in 2.3.0); its prices are read as excluding taxes (NO)`,
  "total-only": () => "a 2.1.1 CDR carries total_cost excluding VAT only: only total_cost before taxes is compared",
  "no-session": (session: string) => `Session ${session} is not held: not compared`,
};

type Notes = typeof NOTES;
/** A note as the store keeps it: its code and values; or its words, as audits made before 2026-12-07 kept it. */
export type KeptNote = { [code in keyof Notes]: [code, ...Parameters<Notes[code]>] }[keyof Notes] | string;

/** A kept note in words. */
export const noteText = (note: KeptNote): string => (typeof note === "string" ? note : (NOTES[note[0]] as (...values: string[]) => string)(...note.slice(1)));
