import type { Tariff, TariffType } from "../model";

/**
 * Which of a Connector's tariffs prices a session that starts at `at`.
 *
 * - A tariff is valid from its start_date_time (inclusive) until its
 *   end_date_time ("the time after which this tariff is no longer valid").
 * - Tariff.type "allows for distinction in case of given Charging Preferences.
 *   When omitted, this tariff is valid for all sessions": a tariff of the
 *   session's type wins over one without a type, in the Connector's order.
 * - The tariff valid at the start stays for the whole session: the spec notes
 *   that a driver "accepts the tariff which is valid when they start" and that
 *   switching during a session is common to avoid (Tariff.end_date_time note).
 */
export const selectTariff = (candidates: Tariff[], at: number, type: TariffType = "REGULAR"): Tariff | undefined => {
  const valid = candidates.filter(
    (t) => (!t.start_date_time || Date.parse(t.start_date_time) <= at) && (!t.end_date_time || at < Date.parse(t.end_date_time)),
  );
  return valid.find((t) => t.type === type) ?? valid.find((t) => t.type === undefined || t.type === null);
};
