import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRoute } from "../../core/contract/admin-route";
import type { InterfaceRole, PartyRef, Role, VersionNumber } from "../../core/protocol/types";
import type { SyncSpec } from "../../core/contract/sync-spec";
import { TOKENS } from "../../core/contract/injection-tokens";
import { BackgroundServices } from "../../core/contract/background";
import { ChangeFeed } from "../../core/contract/change-feed";
import { DataModulePlugin } from "../../core/modules/data-module";
import { PartnerClient } from "../../core/client/partner-client";
import { PartnerRegistry } from "../../core/partners/partner-registry";
import { BOOKING_LOCATIONS, type BookingLocation } from "./model";
import type { BookingsReceiverPort, BookingsSenderPort } from "./ports";
import { bookingLocationType } from "./translate";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import { bookingsPush } from "./push";
import { BookingDesk } from "./booking-desk";
import { RequestLocks } from "./request-locks";
import type { Store } from "../../core/contract/store";
import { BookingsClient } from "./client";
import { cpoAdminRoutes, emspAdminRoutes } from "./admin";
import { DEFAULT_BOOKING_CHECK_INTERVAL_MS, NoShowCheck } from "./noshow-check";

/**
 * The bookings module (OCPI 2.3.0 Bookings extension 1.1; data owner CPO; ModuleID `bookings`, see
 * docs/bookings.md): an eMSP reserves a charger for a timeslot. SENDER: we are the CPO: BookingLocations
 * with their free timeslots, the bookings list, and BookingRequests taken by the BookingDesk, which holds the
 * lifecycle (lifecycle.ts), is the sink the backend reports to, pushes every change to the booking's eMSP,
 * and, on a schedule (`server.booking_check_interval_ms`), marks the bookings nobody came for NO_SHOW.
 * RECEIVER: we are the eMSP: the CPO's pushes, its BookingLocations pulled (`partners[].sync.bookings`), and
 * our backend's requests through the admin API and the CLI (BookingsClient). 2.3.0 only.
 */
@injectable()
export class BookingsPlugin extends DataModulePlugin<BookingsSenderPort, BookingsReceiverPort> {
  readonly module = "bookings";
  readonly versions: readonly VersionNumber[] = ["2.3.0"];
  readonly dataOwner: Role = "CPO";
  readonly portMethods = {
    SENDER: ["connect", "listLocations", "getLocation", "listBookings", "getBooking", "bookingOfRequest", "openBookings", "putBooking", "updateBooking", "reserve", "rebook", "release"],
    RECEIVER: ["getLocation", "putLocation", "getBooking", "putBooking"],
  } as const;
  /** a change's audience (the requesting eMSP) is read from the stored booking when the change lacks it */
  readonly pushSpec = bookingsPush(async (owner, id) => this.ports.SENDER?.getBooking(id, { party: owner }));
  /** a CPO partner's BookingLocations pulled into our Receiver; each names its CPO party */
  readonly syncSpec: SyncSpec<BookingLocation, BookingsReceiverPort> = {
    type: bookingLocationType,
    path: `/${BOOKING_LOCATIONS}`,
    upsert: (port, owner, location, ctx) => port.putLocation(owner, location, ctx),
  };
  private desk?: BookingDesk;
  private readonly log: Logger;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Logger) log: Logger,
    @inject(TOKENS.Store) private readonly store: Store,
    private readonly changes: ChangeFeed,
    private readonly background: BackgroundServices,
    private readonly partners: PartnerClient,
    private readonly registry: PartnerRegistry,
  ) {
    super();
    this.log = log.child({ module: "bookings" });
  }

  /** As the CPO, the desk becomes the backend's sink and the no-show check is scheduled. */
  connect(role: InterfaceRole, port: unknown): void {
    super.connect(role, port);
    if (role !== "SENDER") return;
    const desk = this.deskOf(port as BookingsSenderPort);
    (port as BookingsSenderPort).connect(desk);
    const cpos: PartyRef[] = this.config.parties.filter((p) => p.role === "CPO").map(({ country_code, party_id }) => ({ country_code, party_id }));
    const interval = this.config.server.booking_check_interval_ms ?? DEFAULT_BOOKING_CHECK_INTERVAL_MS;
    this.background.add(new NoShowCheck(desk, cpos, this.log, interval));
  }

  private deskOf(port: BookingsSenderPort): BookingDesk {
    this.desk ??= new BookingDesk(port, this.changes, this.log, new RequestLocks(this.store));
    return this.desk;
  }

  protected senderRoutes(port: BookingsSenderPort): RouteSpec[] {
    return senderRoutes(port, this.deskOf(port));
  }

  protected receiverRoutes(port: BookingsReceiverPort): RouteSpec[] {
    return receiverRoutes(port);
  }

  /** Our eMSP side's calls to CPO partners (the CLI); undefined unless we serve the bookings Receiver. */
  get client(): BookingsClient | undefined {
    const receiver = this.ports.RECEIVER;
    return receiver && new BookingsClient(this.partners, receiver, this.registry, this.config);
  }

  adminRoutes(role: InterfaceRole, port: unknown): AdminRoute[] {
    if (role === "SENDER") return cpoAdminRoutes(this.deskOf(port as BookingsSenderPort));
    return emspAdminRoutes(new BookingsClient(this.partners, port as BookingsReceiverPort, this.registry, this.config));
  }
}
