import { getJson, setJson } from "../contracts";
import type { TransactionRow } from "../db/rows";
import { mapCdrSkeleton } from "../mapping/cdrs";
import { locationIdOf } from "../mapping/locations";
import { mapSession, transactionUpdatedAt, type TransactionContext } from "../mapping/sessions";
import type { FulfilledBooking } from "../bookings/follow";
import type { Cdr, Location, PricedSession, Session, Tariff } from "../ocpi";
import { pendingStartKey, type PendingStart } from "../rest/commands";
import { iso, KEYS, type PollContext, type PublishedSession } from "./context";
import { loadLocations } from "./locations";
import { priceTransaction, tariffsOf } from "./pricing";

/** A START_SESSION's idTag may reach the station a while after the command (clocks of two machines): how far apart they may be. */
const COMMAND_SKEW_MS = 5 * 60_000;

/**
 * What the gateway knows about a transaction and SteVe does not, decided
 * once (and kept, so a restart decides the same): the eMSP's token behind
 * the idTag (tags.ts), and whether our START_SESSION started it.
 */
async function contextOf(ctx: PollContext, tx: TransactionRow): Promise<TransactionContext> {
  const kept = await getJson<TransactionContext>(ctx.kv, KEYS.context(tx.transactionPk));
  if (kept) return kept;
  const context: TransactionContext = {};
  const tag = await ctx.tags.ownerOf(tx.idTag);
  if (tag) context.token = { ...tag.owner, uid: tag.uid, type: tag.type, contract_id: tag.contract_id };
  const pending = await getJson<PendingStart>(ctx.kv, pendingStartKey(tx.idTag));
  if (pending && pending.chargeBoxId === tx.chargeBoxId && Date.parse(pending.at) - COMMAND_SKEW_MS <= tx.startEventTimestamp.getTime()) {
    context.authMethod = "COMMAND";
    if (pending.authorization_reference) context.authorizationReference = pending.authorization_reference;
    await ctx.kv.delete(pendingStartKey(tx.idTag));
  }
  await setJson(ctx.kv, KEYS.context(tx.transactionPk), context);
  return context;
}

/** The CDR of a finished transaction, priced; undefined when its Location cannot be mapped. */
export function cdrOf(sources: Parameters<typeof mapCdrSkeleton>[0], location: Location | undefined, priced: PricedSession | undefined, ctx: PollContext, booking?: FulfilledBooking): Cdr | undefined {
  // CdrSkeleton is Omit<Cdr, "total_cost">, which TypeScript flattens to Cdr's index signature: back to Cdr's fields.
  const skeleton = (location && mapCdrSkeleton(sources, location, ctx.mapping)) as Omit<Cdr, "total_cost"> & Pick<Cdr, "id"> | undefined;
  if (!skeleton) return undefined;
  const booked = booking ? { booking_id: booking.id } : {};
  if (!priced) return { ...skeleton, ...booked, total_cost: { before_taxes: 0 } } as Cdr;
  const { tariff, charging_periods, total_cost, total_fixed_cost, total_energy_cost, total_time_cost, total_parking_time, total_parking_cost, total_reservation_cost } = priced;
  const cdr = { ...skeleton, ...booked, tariffs: [tariff as unknown as NonNullable<Cdr["tariffs"]>[number]], charging_periods, total_cost, total_parking_time } as Cdr;
  // A booked session's CDR starts with the booked period, which its booking fee prices (the tariff engine's start).
  if (booking) cdr.start_date_time = iso(new Date(priced.start_date_time));
  // Only the cost parts that occurred: absent ones stay absent, as the tariff engine returns them.
  const parts = { total_fixed_cost, total_energy_cost, total_time_cost, total_parking_cost, total_reservation_cost };
  Object.assign(cdr, Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined)));
  return cdr;
}

/**
 * The price of a transaction that fulfilled a booking: the booking's tariffs (its fee: elements with a booking
 * restriction) tried before the connector's, and the booked period, from its start to the session's, priced
 * by the BOOKING elements (OCPI 2.3.0 Tariffs, TariffRestrictions.booking).
 */
function bookedPrice(ctx: PollContext, tx: TransactionRow, location: Location | undefined, session: Session, booking: FulfilledBooking): PricedSession | undefined {
  const bookingTariffs = booking.tariff_ids.map((id) => ctx.tariffs.find((t) => t.id === id)).filter((t): t is Tariff => t !== undefined);
  const started = tx.startTimestamp.toISOString();
  const booked = new Date(Date.parse(booking.start)).toISOString();
  const reservation = { start: booked < started ? booked : started, end: started, expired: false, booking: true };
  const tariffs = [...bookingTariffs, ...tariffsOf(location, tx, session.connector_id, ctx.tariffs)];
  return priceTransaction(tx, tariffs, location?.time_zone ?? ctx.mapping.time_zone, reservation);
}

/** What changed in a running (or just finished) session since the last publication: a PATCH fragment, or undefined. */
function fragmentOf(session: Session, state: PublishedSession): Partial<Session> | undefined {
  const fragment: Partial<Session> = {};
  const periods = session.charging_periods ?? [];
  // The receiver appends a PATCH's charging_periods: only the new ones go.
  if (periods.length > state.periods) fragment.charging_periods = periods.slice(state.periods);
  if (session.kwh !== state.kwh) fragment.kwh = session.kwh;
  if (session.status !== state.status) fragment.status = session.status;
  if (session.end_date_time && session.status !== state.status) fragment.end_date_time = session.end_date_time;
  if (session.total_cost && session.total_cost.before_taxes !== state.cost) fragment.total_cost = session.total_cost;
  return Object.keys(fragment).length ? { ...fragment, last_updated: session.last_updated } : undefined;
}

/** A transaction with what it maps to: its sources, Location, Session and price. */
export interface MappedTransaction {
  tx: TransactionRow;
  sources: Parameters<typeof mapCdrSkeleton>[0];
  location: Location | undefined;
  session: Session;
  priced: PricedSession | undefined;
}

/**
 * The one mapping of transactions to Sessions (priced), for the poller and
 * the Sender ports alike: they differ only in how a transaction's context is
 * found (`contextFor`) and which transactions they want (`wanted`, asked
 * before the context, which may have effects).
 */
export async function* mappedTransactions(
  ctx: PollContext,
  txs: TransactionRow[],
  contextFor: (tx: TransactionRow) => Promise<TransactionContext>,
  wanted: (tx: TransactionRow) => Promise<boolean> = async () => true,
): AsyncGenerator<MappedTransaction> {
  if (txs.length === 0) return;
  const loaded = await loadLocations(ctx, [...new Set(txs.map((tx) => locationIdOf(ctx.mapping, tx.chargeBoxId)))]);
  for (const tx of txs) {
    if (!(await wanted(tx))) continue;
    const location = loaded.locations.get(locationIdOf(ctx.mapping, tx.chargeBoxId));
    const sources = {
      tx,
      chargeBox: loaded.chargeBoxes.find((b) => b.chargeBoxId === tx.chargeBoxId),
      evse: loaded.evses.find((e) => e.evsePk === tx.evsePk),
      context: await contextFor(tx),
    };
    const session = mapSession(sources, ctx.mapping);
    const priced = priceTransaction(tx, tariffsOf(location, tx, session.connector_id, ctx.tariffs), location?.time_zone ?? ctx.mapping.time_zone);
    if (priced) session.total_cost = priced.total_cost;
    yield { tx, sources, location, session, priced };
  }
}

/**
 * Sessions and CDRs of the transactions that changed: a Session PUT the
 * first time a transaction is seen, PATCHes with what changed while it
 * charges (new charging periods, kWh, running cost, the final status), and
 * one priced CDR once it stopped. The per-transaction state is written
 * after each publication, so a restart neither repeats nor skips one.
 */
export async function publishTransactions(ctx: PollContext, txs: TransactionRow[]): Promise<void> {
  const wanted = async (tx: TransactionRow) =>
    // Read again only through the watermark overlap: history from before the first poll.
    !(transactionUpdatedAt(tx) <= ctx.baseline && !(await ctx.kv.get(KEYS.session(tx.transactionPk))));
  for await (const { tx, sources, location, session, priced } of mappedTransactions(ctx, txs, (tx) => contextOf(ctx, tx), wanted)) {
    const key = KEYS.session(tx.transactionPk);
    let state = await getJson<PublishedSession>(ctx.kv, key);
    const next = (): PublishedSession => ({
      periods: session.charging_periods?.length ?? 0,
      kwh: session.kwh,
      status: session.status,
      cost: session.total_cost?.before_taxes,
      cdr: state?.cdr ?? false,
    });
    if (!state) {
      await ctx.emit({ module: "sessions", owner: ctx.owner, path: [session.id], kind: "upsert", object: session as Record<string, unknown> });
      state = next();
      await setJson(ctx.kv, key, state);
      await ctx.bookings?.sessionStarted(tx, session);
    } else {
      const fragment = fragmentOf(session, state);
      if (fragment) {
        await ctx.emit({ module: "sessions", owner: ctx.owner, path: [session.id], kind: "patch", object: fragment as Record<string, unknown> });
        state = next();
        await setJson(ctx.kv, key, state);
      }
    }

    if (tx.stopEventTimestamp && state.cdr === false) {
      const booking = await ctx.bookings?.bookingOf(tx);
      const cdr = cdrOf(sources, location, booking ? bookedPrice(ctx, tx, location, session, booking) : priced, ctx, booking);
      if (cdr) await ctx.emit({ module: "cdrs", owner: ctx.owner, path: [cdr.id], kind: "upsert", object: cdr as Record<string, unknown> });
      else ctx.log.warn({ transaction: tx.transactionPk, chargeBoxId: tx.chargeBoxId }, "steve: no CDR for a finished transaction: its Location cannot be mapped");
      await setJson(ctx.kv, key, { ...state, cdr: cdr ? "sent" : "unmappable" });
    }
  }
}
