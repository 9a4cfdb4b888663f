import type { TransactionRow } from "../db/rows";
import { evseUid } from "../mapping/evse-id";
import type { ReservationTimeline } from "../../kit";
import { priceSession, type Location, type PricedSession, type Tariff } from "../ocpi";

/** The Tariffs of the connector the transaction ran on, in the connector's tariff_ids order. */
export function tariffsOf(location: Location | undefined, tx: TransactionRow, connectorId: string, tariffs: Tariff[]): Tariff[] {
  const evse = location?.evses?.find((e) => e.uid === evseUid(tx.chargeBoxId, tx.evseId));
  const ids = (evse?.connectors.find((c) => c.id === connectorId) ?? evse?.connectors[0])?.tariff_ids ?? [];
  return ids.map((id) => tariffs.find((t) => t.id === id)).filter((t): t is Tariff => t !== undefined);
}

/**
 * The tariff engine on a SteVe transaction: the meter register relative to
 * its first reading (the engine wants energy delivered since the start),
 * up to the stop, or to the newest reading while it runs, at millisecond
 * precision (readings a moment apart must not collapse). Undefined when no
 * tariff applies or there is nothing to price yet. With `reservation` (a
 * booked period before the session), that span is priced too.
 */
export function priceTransaction(tx: TransactionRow, tariffs: Tariff[], timeZone: string, reservation?: ReservationTimeline): PricedSession | undefined {
  if (tariffs.length === 0 || tx.energy.length === 0) return undefined;
  const first = tx.energy[0];
  const end = tx.stopTimestamp ?? tx.energy[tx.energy.length - 1].at;
  const priced = priceSession({
    tariffs,
    time_zone: timeZone,
    session: {
      start: tx.startTimestamp.toISOString(),
      end: (end < tx.startTimestamp ? tx.startTimestamp : end).toISOString(),
      samples: tx.energy.map((r) => ({ at: r.at.toISOString(), kwh: Math.max(0, r.kwh - first.kwh) })),
    },
    ...(reservation ? { reservation } : {}),
  });
  return priced.tariff ? priced : undefined;
}
