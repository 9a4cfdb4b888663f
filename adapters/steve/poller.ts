import type { PartyRef } from "../kit";
import { getJson, setJson } from "./contracts";
import type { ChargeBoxRow, StatusRow } from "./db/rows";
import type { ListWatch } from "./db/statuses";
import { KEYS, later, type PollContext, type Watermarks } from "./poll/context";
import { publishLocations, rememberBoxes } from "./poll/locations";
import { publishTransactions } from "./poll/sessions";
import { publishStatuses, rememberStatuses, statusesOf } from "./poll/statuses";

/**
 * Change detection on SteVe's database (it has no events for third parties:
 * docs/steve.md, "Polling"). Every poll_interval_ms, from watermarks kept
 * in the KeyValue:
 *
 * 1. charge boxes changed (updated_at on 3.13+, every box before: the
 *    snapshot hash decides) → Location PUT;
 * 2. status rows → EVSE status PATCH where the OCPI status changed;
 * 3. transactions started, stopped or sampled → Session PUT, then PATCHes,
 *    and one priced CDR per stopped transaction.
 *
 * No poll reads SteVe's history whole: status rows by a loose index scan of
 * connector_status (pk, status_timestamp), transactions by transaction_pk
 * (new ones, and those still running at the last poll), meter values by
 * value_timestamp: the indexes real SteVe has (test/support/steve-schema.ts).
 *
 * Exactly once per change, restarts included: what was published is kept
 * per object in the KeyValue right after the ChangeSink took it, and
 * watermarks advance only after a whole poll succeeded. (A crash between a
 * sink call and its bookkeeping repeats that one change: the same object
 * and id again, which receivers take as the same.)
 *
 * The very first poll (no watermarks yet) publishes nothing: it records
 * what SteVe holds now as known, so the history is not replayed to partners
 * (they pull Locations; a running transaction is published at its next change).
 *
 * A failing poll (database unreachable, the sink refusing) is logged once,
 * retried every interval, and the next successful one catches up from the
 * unchanged watermarks.
 */

/** What a poll works with (PollContext, less what each poll sets), and the timing. */
export interface StevePollerOptions extends Pick<PollContext, "db" | "kv" | "emit" | "mapping" | "tariffs" | "tags" | "log" | "bookings"> {
  intervalMs: number;
  /** re-read this far behind each watermark (late rows, station clocks) */
  overlapMs: number;
  /** whether a poll's first statement (SteVe's clock) should also read a held list's ListWatch (box count, active reservations) */
  watchList?: () => boolean;
  /** after each poll but the first: what it read and saw change; a failure fails the poll */
  afterPoll?: (seen: PollSeen) => Promise<void>;
}

/** What a poll read that a held list can use without asking again. */
export interface PollSeen {
  /** the charge boxes whose update times moved: from 3.13 every box updated since the watermark, overlap included; before 3.13 none (see factsHashes) */
  changedBoxes: string[];
  /** before 3.13: each box's facts' hash as this poll read it (poll/locations.ts factsHash), by charge_box_id; what a held list compares with its own rows' */
  factsHashes?: Map<string, string>;
  /** the status rows it read (since the watermark, overlap included: most were seen by earlier polls) */
  statusRows: StatusRow[];
  /** SteVe's clock at the start of the poll */
  now: Date;
  /** the charge boxes it read: from 3.13 those updated since the watermark (a heartbeat or a registration bumps updated_at), before 3.13 all of them */
  boxes: ChargeBoxRow[];
  /** read with the clock when watchList() asked for it */
  watch?: ListWatch;
}

export interface PollHealth {
  /** false from a failed poll until the next successful one */
  healthy: boolean;
  lastSuccess?: Date;
  /** the reason of the failure, without credentials (mysql2 names the user at most) */
  lastError?: string;
}

const earlier = (iso: string, ms: number) => new Date(Date.parse(iso) - ms);

/** The newest of `dates` not after `cap`: a station clock running ahead must not carry a watermark into the future. */
const advance = (current: string, dates: (Date | null | undefined)[], cap: Date): string =>
  dates.reduce<string>((wm, d) => later(wm, d && d > cap ? cap : d), current);

export class StevePoller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly health: PollHealth = { healthy: true };

  constructor(private readonly o: StevePollerOptions) {}

  private context(now: Date, baseline: string): PollContext {
    const { db, kv, emit, mapping, tariffs, tags, log, bookings } = this.o;
    return { db, kv, emit, mapping, tariffs, tags, log, bookings, now, baseline: new Date(baseline), owner: { country_code: mapping.country_code, party_id: mapping.party_id } satisfies PartyRef };
  }

  /** One poll; throws when SteVe's database or the sink fails (nothing is skipped: the next poll repeats from the same watermarks). */
  async pollOnce(): Promise<void> {
    const { db, kv, overlapMs } = this.o;
    const { now, watch } = this.o.watchList?.() ? await db.nowWithListWatch() : { now: await db.now(), watch: undefined };
    const stored = await getJson<Watermarks>(kv, KEYS.watermarks);
    if (!stored) return this.baseline(this.context(now, now.toISOString()));
    const ctx = this.context(now, stored.baseline);
    const wm = { ...stored };

    const boxes = db.schema.hasUpdatedAt ? await db.chargeBoxesUpdatedSince(earlier(wm.boxes, overlapMs)) : await db.chargeBoxes();
    const hashes = await publishLocations(ctx, boxes);
    wm.boxes = advance(wm.boxes, boxes.map((b) => b.updatedAt), now);

    const statusRows = await db.statusesSince(earlier(wm.statuses, overlapMs));
    const statusBoxes = [...new Set(statusRows.map((r) => r.chargeBoxId))];
    await publishStatuses(ctx, statusBoxes);
    wm.statuses = advance(wm.statuses, statusRows.map((r) => r.statusTimestamp), now);
    // Before 3.13 nothing dates a change and every box is read each poll: the facts' hashes tell a held list what changed.
    const changes = db.schema.hasUpdatedAt ? { changedBoxes: boxes.map((b) => b.chargeBoxId) } : { changedBoxes: [], factsHashes: hashes };
    await this.o.afterPoll?.({ ...changes, statusRows, now, boxes, watch });

    // Before the transactions: a transaction that used a booking's reservation is known as the booking's for its CDR.
    await this.o.bookings?.poll(now);

    // By transaction_pk, not by time: SteVe indexes no event_timestamp (db/transactions.ts).
    const settled = new Date(now.getTime() - overlapMs);
    const cursor = wm.transactions ?? (await db.transactionCursorAt(earlier(wm.events, overlapMs)));
    const { rows: txs, next } = await db.changedTransactions({ events: earlier(wm.events, overlapMs), samples: earlier(wm.samples, overlapMs) }, cursor, settled);
    wm.transactions = next;
    await publishTransactions(ctx, txs);
    wm.events = advance(wm.events, txs.flatMap((tx) => [tx.startEventTimestamp, tx.stopEventTimestamp]), now);
    wm.samples = advance(wm.samples, txs.flatMap((tx) => tx.meterValues.map((v) => v.timestamp)), now);

    await setJson(kv, KEYS.watermarks, wm);
  }

  /** First start: what SteVe holds now counts as published. */
  private async baseline(ctx: PollContext): Promise<void> {
    const boxes = await ctx.db.chargeBoxes();
    await rememberBoxes(ctx, boxes);
    await rememberStatuses(ctx, await statusesOf(ctx, boxes.map((b) => b.chargeBoxId)));
    const now = ctx.now.toISOString();
    const transactions = await ctx.db.transactionCursorAt(new Date(ctx.now.getTime() - this.o.overlapMs));
    await setJson(ctx.kv, KEYS.watermarks, { statuses: now, events: now, samples: now, boxes: now, baseline: now, transactions } satisfies Watermarks);
    this.o.log.info({ chargeBoxes: boxes.length }, "steve: first poll; changes are published from now on");
  }

  /** Polls every intervalMs until stop(); a poll never overlaps the previous one. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const tick = () => {
      this.running = this.pollOnce().then(
        () => this.succeeded(),
        (err: unknown) => this.failed(err),
      );
      void this.running.then(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.o.intervalMs);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** For readiness: whether the last poll worked. */
  get state(): Readonly<PollHealth> {
    return { ...this.health };
  }

  private succeeded(): void {
    if (!this.health.healthy) this.o.log.info({}, "steve: polling works again; caught up from the watermarks");
    this.health.healthy = true;
    this.health.lastSuccess = new Date();
    this.health.lastError = undefined;
  }

  private failed(err: unknown): void {
    // Connection failures may come as an AggregateError without a message: its code says it.
    const e = err as (Error & { code?: string; errors?: Error[] }) | undefined;
    const reason = e?.message || e?.code || e?.errors?.[0]?.message || String(err);
    // Once per outage, not once per interval.
    if (this.health.healthy) this.o.log.error({ reason }, "steve: polling failed; retrying every poll_interval_ms");
    this.health.healthy = false;
    this.health.lastError = reason;
  }
}
