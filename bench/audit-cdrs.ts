import { priceSession } from "../plugins/tariffs/engine";
import type { Tariff } from "../plugins/tariffs/model";
import type { Cdr } from "../plugins/cdrs/model";
import type { QueuedCdr } from "../plugins/cdrs/audit/audit-store";
import { auditKey } from "../plugins/cdrs/audit/model";

/**
 * The CDRs of the audit bench: a CPO's day of CDRs of two shapes, each with its tariff embedded: 2.00/h of TIME
 * rounded to 5 minutes (the published example), and a start fee, 0.25/kWh and parking at 2.00/h from 10 minutes
 * of parking, priced by the tariff engine itself. One in ten is priced wrong (a mismatch) and one in twenty is a
 * credit CDR of the one before.
 */
const OWNER = { country_code: "BE", party_id: "BEC" };

const TIME_TARIFF: Tariff = {
  ...OWNER,
  id: "T-TIME",
  currency: "EUR",
  tax_included: "NO",
  elements: [{ price_components: [{ type: "TIME", price: 2, vat: 10, step_size: 300 }] }],
  last_updated: "2024-05-02T14:15:01Z",
};

const ENERGY_TARIFF: Tariff = {
  ...OWNER,
  id: "T-ENERGY",
  currency: "EUR",
  tax_included: "NO",
  elements: [
    { price_components: [{ type: "FLAT", price: 0.5, vat: 20, step_size: 1 }] },
    { price_components: [{ type: "ENERGY", price: 0.25, vat: 10, step_size: 100 }] },
    { price_components: [{ type: "PARKING_TIME", price: 2, vat: 20, step_size: 300 }], restrictions: { min_duration: 600 } },
  ],
  last_updated: "2024-05-02T14:15:01Z",
};

const iso = (ms: number): string => new Date(ms).toISOString().replace(".000Z", "Z");

const base = (id: string): Omit<Cdr, "start_date_time" | "end_date_time" | "charging_periods" | "total_cost" | "total_energy" | "total_time"> => ({
  ...OWNER,
  id,
  cdr_token: { country_code: "DE", party_id: "TNM", uid: "012345678", type: "RFID", contract_id: "DE8ACC12E46L89" },
  auth_method: "WHITELIST",
  cdr_location: {
    id: "LOC1",
    address: "F.Rooseveltlaan 3A",
    city: "Gent",
    country: "BEL",
    coordinates: { latitude: "3.729944", longitude: "51.047599" },
    evse_uid: "3256",
    evse_id: "BE*BEC*E041503003",
    connector_id: "1",
    connector_standard: "IEC_62196_T2",
    connector_format: "SOCKET",
    connector_power_type: "AC_1_PHASE",
  },
  currency: "EUR",
  last_updated: "2024-12-05T20:02:13Z",
});

/** The i-th CDR of the bench, as the engine prices it (then priced wrong, or credited, as the mix says). */
export const benchCdr = (i: number): Cdr => {
  const id = `CDR-${i}`;
  const start = Date.parse("2024-12-05T08:00:00Z") + (i % 600) * 60_000;
  const minutes = 20 + (i % 97);
  const parked = i % 3 === 0 ? 5 + (i % 40) : 0;
  const tariff = i % 2 === 0 ? TIME_TARIFF : ENERGY_TARIFF;
  const kwh = Math.round(minutes * 0.18 * 1000) / 1000;
  const end = start + (minutes + parked) * 60_000;
  const session = {
    start: iso(start),
    end: iso(end),
    ...(parked ? { charging_end: iso(start + minutes * 60_000) } : {}),
    samples: [{ at: iso(start), kwh: 0 }, { at: iso(start + minutes * 60_000), kwh }],
  };
  const { tariff: _used, ...priced } = priceSession({ tariffs: [tariff], time_zone: "Europe/Brussels", session });
  const cdr = { ...base(id), ...priced, tariffs: [tariff as never] } as unknown as Cdr;
  if (i % 10 === 9) return { ...cdr, total_cost: { ...cdr.total_cost, before_taxes: cdr.total_cost.before_taxes + 0.05 } };
  if (i % 20 === 1) {
    const negate = (p?: Cdr["total_cost"]) => p && { before_taxes: -p.before_taxes, taxes: p.taxes?.map((t) => ({ ...t, amount: -t.amount })) };
    const original = benchCdr(i - 1);
    return { ...original, id: `${original.id}-C`, credit: true, credit_reference_id: original.id, total_cost: negate(original.total_cost)!, total_time_cost: negate(original.total_time_cost) };
  }
  return cdr;
};

export const queuedBenchCdr = (i: number): QueuedCdr => {
  const cdr = benchCdr(i);
  return { key: auditKey("received", OWNER, cdr.id), direction: "received", partner: "bench", version: "2.3.0", cdr };
};
