import type { PartyRef } from "../../kit";
import type { ChangeSink, KeyValue, SteveLog } from "../contracts";
import type { SteveDb } from "../db/steve-db";
import type { TransactionRow } from "../db/rows";
import type { TransactionCursor } from "../db/transactions";
import type { SteveMappingSettings } from "../mapping/settings";
import type { Session, Tariff } from "../ocpi";
import type { SteveTags } from "../tags";

/** What the poll asks of bookings (bookings/follow.ts), when the adapter serves them. */
export interface PollBookings {
  /** before the transactions: SteVe reservations to make for bookings due, and what became of those made */
  poll(now: Date): Promise<void>;
  /** a transaction's Session was published for the first time: the booking it fulfils, if any */
  sessionStarted(tx: TransactionRow, session: Session): Promise<void>;
  /** the booking the transaction fulfilled: its CDR carries booking_id and the booking fee */
  bookingOf(tx: TransactionRow): Promise<{ id: string; tariff_ids: string[]; start: string } | undefined>;
}

/** What one poll works with. */
export interface PollContext {
  db: SteveDb;
  kv: KeyValue;
  emit: ChangeSink;
  mapping: SteveMappingSettings;
  tariffs: Tariff[];
  tags: SteveTags;
  log: SteveLog;
  /** our CPO party: owner of every change */
  owner: PartyRef;
  /** SteVe's database clock at the start of the poll */
  now: Date;
  /** Watermarks.baseline */
  baseline: Date;
  bookings?: PollBookings;
}

/**
 * Watermarks: how far each source has been read, on the clock that writes
 * it. Each poll reads from (watermark − poll_overlap_ms), because rows can
 * land with an earlier time than one already read (station clocks, commits
 * out of order); what was already published is recognised by the per-object
 * state below, so the overlap costs reads, never duplicates.
 */
export interface Watermarks {
  /** connector_status.status_timestamp (station clock) */
  statuses: string;
  /** transaction_start / transaction_stop event_timestamp (SteVe's clock) */
  events: string;
  /** connector_meter_value.value_timestamp (station clock) */
  samples: string;
  /** newest charge_box / address / evse / evse_connector updated_at (3.13+; unused before) */
  boxes: string;
  /** the first poll: a transaction last changed before it and never published stays unpublished (no history replay) */
  baseline: string;
  /** where the transaction reads stand by transaction_pk (db/transactions.ts TransactionCursor); absent in watermarks kept before it: made at the next poll */
  transactions?: TransactionCursor;
}

/** What was published of a transaction, so a restart neither repeats nor skips anything. */
export interface PublishedSession {
  /** charging periods already sent (PATCHes append them) */
  periods: number;
  kwh: number;
  status: string;
  /** total_cost.before_taxes last sent */
  cost?: number;
  cdr: "sent" | "unmappable" | false;
}

export const KEYS = {
  watermarks: "steve:poll:watermarks",
  evseStatus: (evseUid: string) => `steve:poll:evse:${evseUid}`,
  box: (chargeBoxId: string) => `steve:poll:box:${chargeBoxId}`,
  session: (transactionPk: number) => `steve:poll:session:${transactionPk}`,
  context: (transactionPk: number) => `steve:poll:context:${transactionPk}`,
};

export const iso = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, "Z");

export const later = (a: string, b: Date | null | undefined): string => (b && b.getTime() > Date.parse(a) ? b.toISOString() : a);
