import { ciKey, type PageRequest } from "../kit";
import type { SteveLog } from "./contracts";
import type { ChargeBoxKeyRow } from "./db/charge-boxes";
import type { ActiveReservation, EvseRow, EvseStatusFacts, StatusRow } from "./db/rows";
import type { ListWatch } from "./db/statuses";
import type { SteveDb } from "./db/steve-db";
import { locationIdOf, locationKeys, type LocationKey } from "./mapping/locations";
import type { SteveMappingSettings } from "./mapping/settings";
import { factsHash, type HeldBoxFacts } from "./poll/locations";
import type { PollSeen } from "./poller";

/** Oldest first, ties by id: the Sender lists' order (pageOf in ports/transactions.ts). */
const byTimeThenId = (a: { lastUpdated: number; id: string }, b: { lastUpdated: number; id: string }) =>
  a.lastUpdated - b.lastUpdated || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Index of the first key whose lastUpdated is ≥ `time` (keys sorted byTimeThenId). */
function firstAtOrAfter(keys: { lastUpdated: number }[], time: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid].lastUpdated < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

type DatedKey = { id: string; lastUpdated: number };

/**
 * The Locations list, kept in memory so that a page costs O(page) instead
 * of queries over every charge box: one row per charge box
 * (db/charge-boxes.ts `chargeBoxKeys`), its EVSE rows and what decides
 * their statuses (newest status rows, registration, heartbeat), read whole
 * once, at the first list, then re-read at each poll only for the boxes the
 * poll saw change (update times from 3.13; before, the boxes whose facts'
 * hash as the poll read them differs from that of the held rows, which may
 * have been read before or after the poll's read, so a change undone
 * between two reads is caught too; status rows newer than the held ones:
 * the poll re-reads poll_overlap_ms of status history, which needs no
 * re-read once held; `refresh`). Heartbeats come from the boxes the poll
 * read anyway (from 3.13 a heartbeat bumps charge_box.updated_at, so the
 * box is among those updated; before 3.13 the poll reads every box). The
 * active reservations and SteVe's count of charge boxes (db/statuses.ts
 * ListWatch) come with the poll's first statement, its clock: no query of
 * their own. Whole
 * again when the count says a box went away. An expiring reservation needs
 * no read: its expiry is held and counted at the time of each request.
 * The Locations are kept sorted by
 * (last_updated, id) with their count, so a page and its `total`, date
 * filters included, are binary searches and a slice, and its Locations are
 * mapped from the held rows (`boxFacts`) at the time of the request (a
 * reservation expiring or a heartbeat going stale counts then).
 *
 * A change in SteVe reaches a list at the poll that sees it
 * (poll_interval_ms, with its push to partners); a GET of one Location
 * reads it all at once. Updates are applied one at a time, in order, so a
 * whole read and a poll's refresh never overwrite each other's newer rows.
 */
export class LocationOrder implements HeldBoxFacts {
  /** by ciKey(charge_box_id): SteVe's collation makes the id case-insensitive */
  private rows = new Map<string, ChargeBoxKeyRow>();
  /** EVSE rows by ciKey(charge_box_id) */
  private evses = new Map<string, EvseRow[]>();
  /** what decides each EVSE's status, by ciKey(charge_box_id); reservations are held apart */
  private statuses = new Map<string, EvseStatusFacts[]>();
  /** active reservations by EVSE pk, read whole at each poll (SteVe before 3.13 dates none of their changes) */
  private reservations = new Map<number, ActiveReservation>();
  /** before 3.13: the facts' hash of the held rows, by ciKey(charge_box_id), made when a poll first asks */
  private hashes = new Map<string, string>();
  private keyOf = new Map<string, LocationKey>();
  /** Locations with a last_updated, sorted byTimeThenId */
  private dated: DatedKey[] = [];
  /** Locations nothing dates (LocationKey.lastUpdated null), by id: their last_updated is the time of reading */
  private undated: string[] = [];
  private loaded = false;
  private updates: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: SteveDb,
    private readonly mapping: SteveMappingSettings,
    private readonly log: SteveLog,
  ) {}

  /** The ids of a page's Locations, in list order, and how many Locations the list holds within its date bounds. */
  async page(page: PageRequest, now: Date): Promise<{ ids: string[]; total: number }> {
    if (!this.loaded) await this.update(() => (this.loaded ? Promise.resolve() : this.readAll()));
    const { dated, undated } = this;
    // Undated Locations sit at the time of reading among the dated ones (mapLocations' last_updated, whole seconds).
    const readAt = Math.floor(now.getTime() / 1000) * 1000;
    const before = (time: number) => firstAtOrAfter(dated, time) + (readAt < time ? undated.length : 0);
    const size = dated.length + undated.length;
    const from = page.dateFrom === undefined ? 0 : before(page.dateFrom);
    const to = page.dateTo === undefined ? size : before(page.dateTo);
    const start = Math.min(to, from + page.offset);
    const end = Math.min(to, start + page.limit);
    if (start >= end) return { ids: [], total: Math.max(0, to - from) };
    if (undated.length === 0) return { ids: dated.slice(start, end).map((k) => k.id), total: to - from };
    // The ties at readAt merged with the undated ones by id; before them and after them, the dated keys as they are.
    const tiesFrom = firstAtOrAfter(dated, readAt);
    const tiesTo = firstAtOrAfter(dated, readAt + 1);
    const ties = [...dated.slice(tiesFrom, tiesTo), ...undated.map((id) => ({ id, lastUpdated: readAt }))].sort(byTimeThenId);
    const at = (k: number) => (k < tiesFrom ? dated[k] : k < tiesFrom + ties.length ? ties[k - tiesFrom] : dated[k - undated.length]);
    const ids: string[] = [];
    for (let k = start; k < end; k++) ids.push(at(k).id);
    return { ids, total: to - from };
  }

  /** Whether polls should read the ListWatch with their clock: once a list has been served. */
  get watching(): boolean {
    return this.loaded;
  }

  /**
   * After a poll: re-read the charge boxes it saw change (before 3.13: whose
   * facts as it read them are not those held), take the newer
   * heartbeats of the boxes it read, the active reservations, and all
   * boxes again when SteVe's count differs from ours (a box was deleted).
   * Nothing to do before the first list read them all.
   */
  refresh(seen: PollSeen): Promise<void> {
    return this.update(async () => {
      if (!this.loaded) return;
      const differing = seen.factsHashes ? this.differing(seen.factsHashes) : [];
      const chargeBoxIds = [...new Set([...seen.changedBoxes, ...differing, ...seen.statusRows.filter((r) => !this.holds(r)).map((r) => r.chargeBoxId)])];
      // The poll that ran while the first list was being read did not ask: one query then.
      const watch: ListWatch = seen.watch ?? (await this.db.nowWithListWatch()).watch;
      const changed = new Set(chargeBoxIds.map(ciKey));
      if (chargeBoxIds.length) {
        const [fresh, evses, statuses] = await Promise.all([
          this.db.chargeBoxKeys(chargeBoxIds),
          this.db.evses(chargeBoxIds),
          // reservations are held apart (below)
          this.db.currentStatuses(seen.now, chargeBoxIds, false),
        ]);
        for (const id of changed) for (const held of [this.rows, this.evses, this.statuses, this.hashes]) held.delete(id);
        for (const row of fresh) this.rows.set(ciKey(row.chargeBoxId), row);
        this.hold(evses, statuses);
        this.rekey(new Set(chargeBoxIds.map((id) => locationIdOf(this.mapping, id))));
      }
      // A heartbeat changes no status row. Boxes re-read above are newer than the poll's rows; a registration
      // change is a change of the box (updated_at from 3.13, the facts' hash before), so it was re-read.
      for (const box of seen.boxes) {
        if (changed.has(ciKey(box.chargeBoxId)) || !box.lastHeartbeat) continue;
        for (const facts of this.statuses.get(ciKey(box.chargeBoxId)) ?? [])
          if (!facts.lastHeartbeat || facts.lastHeartbeat < box.lastHeartbeat) facts.lastHeartbeat = box.lastHeartbeat;
      }
      this.reservations = watch.reservations;
      if (watch.boxCount !== this.rows.size) await this.readAll();
    });
  }

  /**
   * The boxes whose facts' hash as the poll read them is not that of the
   * held rows (or that are not held). SteVe before 3.13 dates no change, and
   * the hash the poll stores is that of what it pushed, not of what the list
   * read: a box the list read while it differed from both, and that changed
   * back before the next poll, would be held as it no longer is.
   */
  private differing(polled: Map<string, string>): string[] {
    const ids: string[] = [];
    for (const [id, hash] of polled) if (this.heldHash(ciKey(id)) !== hash) ids.push(id);
    return ids;
  }

  private heldHash(key: string): string | undefined {
    const row = this.rows.get(key);
    if (!row) return undefined;
    let hash = this.hashes.get(key);
    if (hash === undefined) {
      const { newestStatus: _n, hasEvses: _e, silentEvse: _s, ...box } = row;
      hash = factsHash(box, this.evses.get(key) ?? []);
      this.hashes.set(key, hash);
    }
    return hash;
  }

  /**
   * Whether a status row read again (the poll's overlap) is already what the
   * held facts have, or older: the newest row per EVSE decides, so an older
   * one, late-committed or not, changes nothing. A row of the same time
   * counts as held only when it is the held one.
   */
  private holds(row: StatusRow): boolean {
    const facts = this.statuses.get(ciKey(row.chargeBoxId));
    if (!facts?.length) return false;
    const held = row.evseId === 0 ? facts[0].station : facts.find((f) => f.evsePk === row.evsePk)?.latest;
    if (!held?.statusTimestamp || !row.statusTimestamp) return false;
    const d = held.statusTimestamp.getTime() - row.statusTimestamp.getTime();
    const same = (["status", "errorCode", "errorInfo", "vendorErrorCode"] as const).every((k) => held[k] === row[k]);
    return d > 0 || (d === 0 && same);
  }

  private update(work: () => Promise<void>): Promise<void> {
    const next = this.updates.then(work);
    // A failed update (database down) fails its caller; the next one runs regardless.
    this.updates = next.catch(() => undefined);
    return next;
  }

  /** The held rows of these charge boxes (as SteVe had them at the last poll), each EVSE with its active reservation. */
  boxFacts(chargeBoxIds: string[]): { chargeBoxes: ChargeBoxKeyRow[]; evses: EvseRow[]; statuses: EvseStatusFacts[] } {
    const keys = chargeBoxIds.map(ciKey);
    return {
      chargeBoxes: keys.flatMap((k) => this.rows.get(k) ?? []),
      evses: keys.flatMap((k) => this.evses.get(k) ?? []),
      statuses: keys.flatMap((k) => this.statuses.get(k) ?? []).map((f) => ({ ...f, reservation: this.reservations.get(f.evsePk) ?? null })),
    };
  }

  private hold(evses: EvseRow[], statuses: EvseStatusFacts[]): void {
    const add = <T extends { chargeBoxId: string }>(held: Map<string, T[]>, row: T) => {
      const list = held.get(ciKey(row.chargeBoxId));
      if (list) list.push(row);
      else held.set(ciKey(row.chargeBoxId), [row]);
    };
    for (const evse of evses) add(this.evses, evse);
    for (const facts of statuses) add(this.statuses, facts);
  }

  private async readAll(): Promise<void> {
    const now = await this.db.now();
    const [rows, evses, statuses, reservations] = await Promise.all([
      this.db.chargeBoxKeys(),
      this.db.evses(),
      this.db.currentStatuses(now),
      this.db.activeReservations(now),
    ]);
    this.rows = new Map(rows.map((r) => [ciKey(r.chargeBoxId), r]));
    this.evses.clear();
    this.statuses.clear();
    this.hashes.clear();
    this.hold(evses, statuses);
    this.reservations = reservations;
    this.keyOf.clear();
    this.rekey();
    this.loaded = true;
  }

  /** The keys of these Locations (all when none given) from their boxes' rows, then the sorted lists again. */
  private rekey(locationIds?: Set<string>): void {
    const wanted = locationIds && new Set([...locationIds].map(ciKey));
    const rows = wanted ? [...this.rows.values()].filter((r) => wanted.has(ciKey(locationIdOf(this.mapping, r.chargeBoxId)))) : [...this.rows.values()];
    if (wanted) for (const id of wanted) this.keyOf.delete(id);
    const { keys, skipped } = locationKeys(rows, this.mapping);
    for (const s of skipped) this.log.warn({ location: s.id, reason: s.reason }, "steve: charge box not published as a Location");
    for (const key of keys) this.keyOf.set(ciKey(key.id), key);
    const all = [...this.keyOf.values()];
    this.dated = all.filter((k): k is DatedKey => k.lastUpdated !== null).sort(byTimeThenId);
    this.undated = all
      .filter((k) => k.lastUpdated === null)
      .map((k) => k.id)
      .sort();
  }
}
