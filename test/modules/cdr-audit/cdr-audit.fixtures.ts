/** CDRs for the CDR audit tests (test/modules/cdr-audit/*.test.ts): the published examples in the canonical shape, and CDRs built from the tariff engine's own pricing. */
import path from "node:path";
import { cdrType } from "../../../plugins/cdrs/translate";
import { silentTranslation } from "../../../core/model/object-type";
import type { VersionNumber } from "../../../core/protocol/types";
import type { Cdr } from "../../../plugins/cdrs/model";
import type { Tariff } from "../../../plugins/tariffs/model";
import { priceSession, type PricingInput, type SessionTimeline } from "../../../plugins/tariffs/engine";
import { auditCdr, type AuditContext } from "../../../plugins/cdrs/audit/audit-cdr";
import type { CdrAudit } from "../../../plugins/cdrs/audit/model";
import { read } from "../tariff-engine.fixtures";

export const versionOf = (folder: string): VersionNumber => (folder.startsWith("2.3.0") ? "2.3.0" : folder.startsWith("2.1.1") ? "2.1.1" : "2.2.1");

/** A published CDR example, translated up to 2.3.0 as the gateway stores it. */
export const exampleCdr = (file: string): Cdr => {
  const folder = path.dirname(file);
  return cdrType.up(read(folder, path.basename(file)), versionOf(folder), { ...silentTranslation(), owner: { country_code: "BE", party_id: "BEC" } }) as Cdr;
};

export const audit = (cdr: Cdr, ctx: Partial<AuditContext> = {}): CdrAudit =>
  auditCdr(cdr, { direction: "received", heldTariffs: [], tolerance: 0.01, now: "2024-06-04T00:00:00Z", ...ctx });

/** The 2.3.0 example without its amounts and quantities, which each CDR built from it sets. */
const TEMPLATE: Cdr = (() => {
  const { total_cost, total_fixed_cost, total_energy_cost, total_time_cost, total_parking_cost, total_reservation_cost, total_parking_time, ...rest } =
    exampleCdr("2.3.0/cdr_example.json");
  return rest as Cdr;
})();

/**
 * The CDR a CPO running this engine would send for the session: its charging periods and totals, the tariff
 * embedded; `currentA` adds a MAX_CURRENT dimension to every charging period, as a CPO reporting current does.
 */
export const cdrPricedBy = (tariff: Tariff, session: SessionTimeline, extra: Partial<PricingInput> = {}, currentA?: number): Cdr => {
  const priced = priceSession({ tariffs: [tariff], time_zone: "Europe/Berlin", session, ...extra });
  const periods = priced.charging_periods.map((p) =>
    currentA !== undefined && p.dimensions.some((d) => d.type === "TIME") ? { ...p, dimensions: [...p.dimensions, { type: "MAX_CURRENT", volume: currentA }] } : p,
  );
  const { tariff: _used, charging_periods: _periods, ...totals } = priced;
  return { ...TEMPLATE, id: "CDR-ENGINE", ...totals, currency: tariff.currency, tariffs: [tariff as never], charging_periods: periods };
};
