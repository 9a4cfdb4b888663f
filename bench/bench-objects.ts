import type { Cdr, Session } from "../adapters/kit";

/** Where a bench Session or CDR charges: EVSE `i` of bench Location `i` (bench-gateway.ts benchLocation). */
const place = (i: number) => ({ location_id: `LOC${String(i).padStart(5, "0")}`, evse_uid: `EVSE${i}`, connector_id: "1" });

/** `i` seconds after 2026-01-01: DateTimes that sort as their numbers do. */
const stampOf = (i: number): string => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The card of the bench partner's eMSP (DE/EMS, bench-gateway.ts registerBenchPartner), which owns every bench Session and CDR. */
const token = (i: number) => ({ country_code: "DE", party_id: "EMS", uid: `CARD${i}`, type: "RFID", contract_id: `DE-EMS-C${String(i).padStart(8, "0")}` });

/** A completed 2.3.0 Session of NL/GWY, the `i`-th. */
export const benchSession = (i: number): Session =>
  ({
    country_code: "NL",
    party_id: "GWY",
    id: `SES${String(i).padStart(8, "0")}`,
    start_date_time: stampOf(i),
    end_date_time: stampOf(i + 3600),
    kwh: 11.5,
    cdr_token: token(i),
    auth_method: "WHITELIST",
    ...place(i),
    currency: "EUR",
    charging_periods: [{ start_date_time: stampOf(i), dimensions: [{ type: "ENERGY", volume: 11.5 }] }],
    total_cost: { before_taxes: 4.6, taxes: [{ name: "VAT", amount: 0.97 }] },
    status: "COMPLETED",
    last_updated: stampOf(i + 3600),
  }) as unknown as Session;

/** A 2.3.0 CDR of NL/GWY, the `i`-th. */
export const benchCdr = (i: number): Cdr =>
  ({
    country_code: "NL",
    party_id: "GWY",
    id: `CDR${String(i).padStart(8, "0")}`,
    start_date_time: stampOf(i),
    end_date_time: stampOf(i + 3600),
    cdr_token: token(i),
    auth_method: "WHITELIST",
    cdr_location: {
      id: place(i).location_id,
      address: `Benchstraat ${i}`,
      city: "Utrecht",
      postal_code: "3500AA",
      country: "NLD",
      coordinates: { latitude: "52.09074", longitude: "5.12142" },
      evse_uid: place(i).evse_uid,
      evse_id: `NL*GWY*E${i}`,
      connector_id: "1",
      connector_standard: "IEC_62196_T2",
      connector_format: "SOCKET",
      connector_power_type: "AC_3_PHASE",
    },
    currency: "EUR",
    charging_periods: [{ start_date_time: stampOf(i), dimensions: [{ type: "ENERGY", volume: 11.5 }] }],
    total_cost: { before_taxes: 4.6, taxes: [{ name: "VAT", amount: 0.97 }] },
    total_energy: 11.5,
    total_time: 1,
    last_updated: stampOf(i + 3600),
  }) as unknown as Cdr;

