import { ciKey, type PageRequest } from "../kit";
import type { SteveLog } from "./contracts";
import type { ChargeBoxKeyRow } from "./db/charge-boxes";
import type { EvseRow } from "./db/rows";
import type { SteveDb } from "./db/steve-db";
import { locationIdOf, locationKeys, type LocationKey } from "./mapping/locations";
import type { SteveMappingSettings } from "./mapping/settings";
import type { HeldBoxFacts } from "./poll/locations";

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
 * The order of our Locations in a list, kept in memory so that a page costs
 * O(log N + page) instead of a query over every charge box: one row per
 * charge box (db/charge-boxes.ts `chargeBoxKeys`) and its EVSE rows, read
 * whole once, at the first list, then re-read only for the boxes the poller
 * saw change (update times, status rows, new boxes, and before 3.13 the
 * facts' hash; `refresh`), and whole again when SteVe's count of charge
 * boxes says one went away. The Locations are kept sorted by
 * (last_updated, id) with their count, so a page and its `total`, date
 * filters included, are binary searches and a slice; the page's Locations
 * are mapped from the held box and EVSE rows (`boxFacts`) and their current
 * statuses, read per request.
 *
 * A change of a box, its address, EVSEs or plugs reaches a list at the poll
 * that sees it (poll_interval_ms, like its push to partners); a GET of one
 * Location reads it all. Updates are applied one at a time, in order, so a
 * whole read and a poll's refresh never overwrite each other's newer rows.
 */
export class LocationOrder implements HeldBoxFacts {
  /** by ciKey(charge_box_id): SteVe's collation makes the id case-insensitive */
  private rows = new Map<string, ChargeBoxKeyRow>();
  /** EVSE rows by ciKey(charge_box_id) */
  private evses = new Map<string, EvseRow[]>();
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

  /**
   * After a poll: re-read the keys of the charge boxes it saw change (and
   * all of them when SteVe's count differs from ours: a box was deleted).
   * Nothing to do before the first list read them all.
   */
  refresh(chargeBoxIds: string[]): Promise<void> {
    return this.update(async () => {
      if (!this.loaded) return;
      if (chargeBoxIds.length) {
        const [fresh, evses] = await Promise.all([this.db.chargeBoxKeys(chargeBoxIds), this.db.evses(chargeBoxIds)]);
        for (const id of chargeBoxIds) {
          this.rows.delete(ciKey(id));
          this.evses.delete(ciKey(id));
        }
        for (const row of fresh) this.rows.set(ciKey(row.chargeBoxId), row);
        this.holdEvses(evses);
        this.rekey(new Set(chargeBoxIds.map((id) => locationIdOf(this.mapping, id))));
      }
      if ((await this.db.chargeBoxCount()) !== this.rows.size) await this.readAll();
    });
  }

  private update(work: () => Promise<void>): Promise<void> {
    const next = this.updates.then(work);
    // A failed update (database down) fails its caller; the next one runs regardless.
    this.updates = next.catch(() => undefined);
    return next;
  }

  /** The held rows of these charge boxes (those SteVe had at the last poll). */
  boxFacts(chargeBoxIds: string[]): { chargeBoxes: ChargeBoxKeyRow[]; evses: EvseRow[] } {
    const keys = chargeBoxIds.map(ciKey);
    return { chargeBoxes: keys.flatMap((k) => this.rows.get(k) ?? []), evses: keys.flatMap((k) => this.evses.get(k) ?? []) };
  }

  private holdEvses(evses: EvseRow[]): void {
    for (const evse of evses) {
      const list = this.evses.get(ciKey(evse.chargeBoxId));
      if (list) list.push(evse);
      else this.evses.set(ciKey(evse.chargeBoxId), [evse]);
    }
  }

  private async readAll(): Promise<void> {
    const [rows, evses] = await Promise.all([this.db.chargeBoxKeys(), this.db.evses()]);
    this.rows = new Map(rows.map((r) => [ciKey(r.chargeBoxId), r]));
    this.evses.clear();
    this.holdEvses(evses);
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
