import { defineAdapter, type Adapter, type PortMap } from "../kit";
import { SteveBackend } from "./backend";
import { BookingBook } from "./bookings/book";
import type { ChangeSink } from "./contracts";
import { bookingsSender } from "./ports/bookings";
import { commandsReceiver } from "./ports/commands";
import { locationsSender } from "./ports/locations";
import { cdrsSender, sessionsSender } from "./ports/sessions";
import { tariffsSender } from "./ports/tariffs";
import { tokensReceiver } from "./ports/tokens";
import { parseSteveSettings } from "./settings";
import { storeKeyValue } from "./store-kv";
import { storeTagOwners } from "./tag-owners";

/**
 * The `steve` adapter: a CPO whose backend is SteVe (an OCPP central system).
 * It reads SteVe's MariaDB/MySQL database (read-only account) and acts only
 * through SteVe's REST API; what SteVe does not know (tariffs, party, static
 * Location fields) comes from `adapters.steve` (settings.ts). Changes are
 * found by polling (poller.ts) and go on the change feed, so pushes, the
 * outbox and cache invalidation work as for any adapter.
 */
export const steveAdapterFactory = defineAdapter({
  type: "steve",
  portNames: ["locations.SENDER", "sessions.SENDER", "cdrs.SENDER", "tariffs.SENDER", "tokens.RECEIVER", "commands.RECEIVER", "bookings.SENDER"],
  checkSettings(settings, base) {
    const parsed = parseSteveSettings(settings, base);
    return parsed.ok ? [] : parsed.errors;
  },
  async create(input, deps): Promise<Adapter> {
    const parsed = parseSteveSettings(input);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const settings = parsed.settings;
    // The engine checked only what pricing needs; partners pull these, so they must be whole 2.3.0 Tariffs.
    const tariffProblems = settings.tariffs.flatMap((t, i) => deps.validateCanonical("tariffs", t).map((p) => `adapters.steve.tariffs[${i}]: ${p}`));
    if (tariffProblems.length) throw new Error(tariffProblems.join("; "));

    const log = deps.log.child({ adapter: "steve" });
    const publish = settings.mapping.publish;
    // Unpublished Locations still invalidate caches, but are pushed to nobody.
    const emit: ChangeSink = (change) => deps.changes.publish(change.module === "locations" && !publish ? { ...change, withheld: true } : change);
    const tagOwners = storeTagOwners(deps.store);
    const book = new BookingBook(deps.store);
    const backend = new SteveBackend(settings, storeKeyValue(deps.store), tagOwners, emit, log, deps.askTokenOwner, book);

    const locations = locationsSender(backend);
    const sessions = sessionsSender(backend);
    const ports: Partial<PortMap> = {
      "locations.SENDER": locations,
      "sessions.SENDER": sessions,
      "cdrs.SENDER": cdrsSender(backend),
      "tariffs.SENDER": tariffsSender(settings.tariffs),
      "tokens.RECEIVER": tokensReceiver(backend.tags, deps.store),
      "commands.RECEIVER": commandsReceiver(backend, locations, sessions, log),
      "bookings.SENDER": bookingsSender(backend, book, settings.bookings, () => backend.bookingFollower, (sink) => backend.connectBookings(sink)),
    };
    const start = async () => {
      await tagOwners.indexKeptTags();
      await backend.start();
    };
    return { ports, start, stop: () => backend.stop(), ready: () => backend.ready() };
  },
});
