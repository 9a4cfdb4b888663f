import type { Pool, RowDataPacket } from "mysql2/promise";
import { chargeBoxes, chargeBoxesUpdatedSince, chargeBoxKeys, type ChargeBoxKeyRow } from "./charge-boxes";
import { evses } from "./evses";
import { createStevePool, type SteveDbSettings } from "./pool";
import type { ActiveReservation, ChargeBoxRow, EvseRow, EvseStatusFacts, OcppTagRow, ReservationRow, StatusRow, TransactionRow } from "./rows";
import { detectSchema, type SteveSchemaInfo } from "./schema-info";
import { activeReservations, clockWithListWatch, currentStatuses, statusesSince, type ListWatch } from "./statuses";
import { reservationsByPk, reservationsHolding } from "./reservations";
import { ocppTags, reservations } from "./tags";
import { transactionPage, type TransactionPageQuery } from "./transaction-page";
import { changedTransactions, transactionCursorAt, transactions, type TransactionCursor, type TransactionFilter } from "./transactions";

/**
 * Read access to a SteVe database (3.9 to 3.14+): one pool, the schema
 * generation detected once at open, and queries returning plain rows.
 * Nothing here writes: SteVe is changed only through its REST API.
 */
export class SteveDb {
  /** SteVe's clock minus ours, as last measured by now() */
  private offsetMs: number | undefined;

  private constructor(
    private readonly pool: Pool,
    readonly schema: SteveSchemaInfo,
  ) {}

  static async open(settings: SteveDbSettings): Promise<SteveDb> {
    const pool = createStevePool(settings);
    try {
      return new SteveDb(pool, await detectSchema(pool));
    } catch (err) {
      await pool.end();
      throw err;
    }
  }

  chargeBoxes(ids?: string[]): Promise<ChargeBoxRow[]> {
    return chargeBoxes(this.pool, this.schema, ids);
  }

  /** charge boxes (all, or these) with what orders their Locations in a list (no EVSEs, no statuses) */
  chargeBoxKeys(ids?: string[]): Promise<ChargeBoxKeyRow[]> {
    return chargeBoxKeys(this.pool, this.schema, ids);
  }

  chargeBoxesUpdatedSince(since: Date): Promise<ChargeBoxRow[]> {
    return chargeBoxesUpdatedSince(this.pool, this.schema, since);
  }

  evses(chargeBoxIds?: string[]): Promise<EvseRow[]> {
    return evses(this.pool, this.schema, chargeBoxIds);
  }

  /** `withReservations: false` leaves every `reservation` null (for a caller holding them apart) and saves a query */
  currentStatuses(now: Date, chargeBoxIds?: string[], withReservations = true): Promise<EvseStatusFacts[]> {
    return currentStatuses(this.pool, this.schema, now, chargeBoxIds, withReservations);
  }

  activeReservations(now: Date): Promise<Map<number, ActiveReservation>> {
    return activeReservations(this.pool, this.schema, now);
  }

  statusesSince(since: Date): Promise<StatusRow[]> {
    return statusesSince(this.pool, this.schema, since);
  }

  transactions(filter?: TransactionFilter): Promise<TransactionRow[]> {
    return transactions(this.pool, this.schema, filter);
  }

  /** the poll's read of transactions that changed: by transaction_pk, never the whole history (db/transactions.ts) */
  changedTransactions(since: { events: Date; samples: Date }, cursor: TransactionCursor, settledBefore: Date): Promise<{ rows: TransactionRow[]; next: TransactionCursor }> {
    return changedTransactions(this.pool, this.schema, since, cursor, settledBefore);
  }

  transactionCursorAt(settledBefore: Date): Promise<TransactionCursor> {
    return transactionCursorAt(this.pool, settledBefore);
  }

  /** one page of a Sessions or CDRs list: its transaction_pks in list order, and the list's count */
  transactionPage(query: TransactionPageQuery): Promise<{ pks: number[]; total: number }> {
    return transactionPage(this.pool, query);
  }

  finishedTransactionsSince(since: Date): Promise<TransactionRow[]> {
    return transactions(this.pool, this.schema, { stoppedAfter: since });
  }

  ocppTags(idTags?: string[]): Promise<OcppTagRow[]> {
    return ocppTags(this.pool, this.schema, idTags);
  }

  reservations(since?: Date): Promise<ReservationRow[]> {
    return reservations(this.pool, this.schema, since);
  }

  /** WAITING or ACCEPTED reservations of these charge boxes, unused, holding an EVSE at some time in [from, to) (db/reservations.ts) */
  reservationsHolding(chargeBoxIds: string[], from: Date, to: Date): Promise<ReservationRow[]> {
    return reservationsHolding(this.pool, this.schema, chargeBoxIds, from, to);
  }

  reservationsByPk(reservationPks: number[]): Promise<ReservationRow[]> {
    return reservationsByPk(this.pool, this.schema, reservationPks);
  }

  /** SteVe's database clock: the one its event_timestamp and updated_at columns are written with. */
  async now(): Promise<Date> {
    const asked = Date.now();
    const [rows] = await this.pool.query<RowDataPacket[]>("SELECT NOW(6) AS now");
    const now = rows[0].now as Date;
    this.offsetMs = now.getTime() - (asked + Date.now()) / 2;
    return now;
  }

  /** now(), with what a held Locations list checks each poll (db/statuses.ts ListWatch), in the same statement. */
  async nowWithListWatch(): Promise<{ now: Date; watch: ListWatch }> {
    const asked = Date.now();
    const read = await clockWithListWatch(this.pool, this.schema);
    this.offsetMs = read.now.getTime() - (asked + Date.now()) / 2;
    return read;
  }

  /**
   * SteVe's clock without a query: ours, corrected by the offset the last
   * `now()` measured (the poller asks every poll_interval_ms); what a Sender
   * read maps statuses and reservations at.
   */
  async clock(): Promise<Date> {
    return this.offsetMs === undefined ? this.now() : new Date(Date.now() + this.offsetMs);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
