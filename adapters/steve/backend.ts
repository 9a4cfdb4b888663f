import { BackendUnavailableError, type AdapterDeps, type BookingStatusSink, type PartyRef } from "../kit";
import type { BookingBook } from "./bookings/book";
import { BookingFollower } from "./bookings/follow";
import type { ChangeSink, KeyValue, SteveLog } from "./contracts";
import { SteveDb } from "./db/steve-db";
import { LocationOrder } from "./location-order";
import type { PollContext } from "./poll/context";
import { StevePoller } from "./poller";
import { SteveCommands, SteveRest } from "./rest";
import type { SteveSettings } from "./settings";
import type { TagOwners } from "./tag-owners";
import { SteveTags, type AskEmsp } from "./tags";
import { STEVE_DATABASE } from "./unavailable";

/** The engine once SteVe's database is open: what the ports and the poller work with. */
export interface SteveEngine {
  db: SteveDb;
  commands: SteveCommands;
  poller: StevePoller;
  /** the Locations list's order, kept between polls */
  locationOrder: LocationOrder;
  /** bookings at the charger (adapters.steve.bookings set) */
  bookings?: BookingFollower;
}

/**
 * SteVe behind the ports: the REST client and tag registry from the start,
 * the database side once it opens. The database may be down when the
 * gateway starts (backend trouble is never a crash): then the ports answer
 * 503 naming SteVe, and opening is retried every poll_interval_ms until it
 * works, when the poller starts.
 */
export class SteveBackend {
  readonly rest: SteveRest;
  readonly tags: SteveTags;
  private engine: SteveEngine | undefined;
  private retry: NodeJS.Timeout | undefined;
  private opening: Promise<void> | undefined;
  private stopped = false;
  private failedOnce = false;
  /** the bookings plugin's sink (ports/bookings.ts connect) */
  private bookingSink: BookingStatusSink | undefined;

  constructor(
    private readonly settings: SteveSettings,
    private readonly kv: KeyValue,
    /** who owns each idTag: the Sessions and CDRs lists' scope */
    readonly tagOwners: TagOwners,
    private readonly emit: ChangeSink,
    private readonly log: SteveLog,
    askTokenOwner: AdapterDeps["askTokenOwner"],
    /** where bookings are kept: present when the adapter serves bookings */
    private readonly book?: BookingBook,
  ) {
    this.rest = new SteveRest(settings.rest);
    const askEmsp: AskEmsp = async (owner, token) => {
      const answer = await askTokenOwner(owner, token);
      if (!answer) throw new Error("no registered partner acts for the token's owner");
      // A token its eMSP does not know, or authorizes per location only, cannot start a session here.
      return answer.kind === "answered" ? (answer.allowed as Awaited<ReturnType<AskEmsp>>) : "NOT_ALLOWED";
    };
    this.tags = new SteveTags({ rest: this.rest, kv, log, policy: settings.unknown_tags, askEmsp, owners: tagOwners });
  }

  get owner(): PartyRef {
    return { country_code: this.settings.mapping.country_code, party_id: this.settings.mapping.party_id };
  }

  connectBookings(sink: BookingStatusSink): void {
    this.bookingSink = sink;
  }

  /** The bookings follower, once SteVe's database is open. */
  get bookingFollower(): BookingFollower | undefined {
    return this.engine?.bookings;
  }

  /** The engine, or 503 while SteVe's database has not been reached yet. */
  require(): SteveEngine {
    if (!this.engine) throw new BackendUnavailableError(STEVE_DATABASE);
    return this.engine;
  }

  /** What the engine's read helpers (poll/*) take, for a port's read at `now`. */
  readContext(engine: SteveEngine, now: Date): PollContext {
    const { mapping, tariffs } = this.settings;
    return { db: engine.db, kv: this.kv, emit: this.emit, mapping, tariffs, tags: this.tags, log: this.log, owner: this.owner, now, baseline: new Date(0) };
  }

  /** `/ready`: SteVe's database has been reached and answers a query now. */
  async ready(): Promise<boolean> {
    if (!this.engine) return false;
    try {
      await this.engine.db.now();
      return true;
    } catch {
      return false;
    }
  }

  start(): Promise<void> {
    this.stopped = false;
    this.opening = this.open();
    return this.opening;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.opening;
    const engine = this.engine;
    this.engine = undefined;
    if (engine) {
      await engine.poller.stop();
      await engine.db.close();
    }
  }

  private async open(): Promise<void> {
    let db: SteveDb;
    try {
      db = await SteveDb.open(this.settings.database);
    } catch (error) {
      // Once per outage; the reason is mysql2's, which names at most the user, never the password.
      if (!this.failedOnce) this.log.error({ reason: reasonOf(error) }, "steve: database not reachable at start; retrying every poll_interval_ms");
      this.failedOnce = true;
      if (!this.stopped) this.retry = setTimeout(() => (this.opening = this.open()), this.settings.poll_interval_ms);
      return;
    }
    if (this.stopped) return void (await db.close());
    const { mapping, tariffs, rest, poll_interval_ms, poll_overlap_ms } = this.settings;
    const commands = new SteveCommands({ rest: this.rest, db, tags: this.tags, kv: this.kv, log: this.log, mapping, answerWaitMs: rest.answer_wait_ms });
    const locationOrder = new LocationOrder(db, mapping, this.log);
    const { bookings: bookingSettings } = this.settings;
    const bookings =
      this.book && bookingSettings
        ? new BookingFollower({ book: this.book, db, rest: this.rest, tags: this.tags, kv: this.kv, log: this.log, owner: this.owner, settings: bookingSettings, sink: () => this.bookingSink })
        : undefined;
    const poller = new StevePoller({
      ...{ db, kv: this.kv, emit: this.emit, mapping, tariffs, tags: this.tags, log: this.log, bookings },
      ...{ intervalMs: poll_interval_ms, overlapMs: poll_overlap_ms, watchList: () => locationOrder.watching, afterPoll: (seen) => locationOrder.refresh(seen) },
    });
    this.engine = { db, commands, poller, locationOrder, bookings };
    if (this.failedOnce) this.log.info({}, "steve: database reached");
    poller.start();
  }
}

export const reasonOf = (error: unknown): string => {
  const e = error as (Error & { code?: string; errors?: Error[] }) | undefined;
  return e?.message || e?.code || e?.errors?.[0]?.message || String(error);
};
