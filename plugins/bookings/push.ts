import type { PushSpec } from "../../core/contract/push-spec";
import type { DataChange } from "../../core/contract/change-feed";
import type { PartyRef } from "../../core/protocol/types";
import { bookingOwnerOf, type Booking } from "./model";
import type { BookingsReceiverPort } from "./ports";
import { bookingType } from "./translate";
import { isFinal } from "./lifecycle";

/** The change that reports one of our bookings (owner: our CPO party, the booking's country_code/party_id). */
export const bookingChange = (booking: Booking): DataChange => ({
  module: "bookings",
  owner: { country_code: booking.country_code, party_id: booking.party_id },
  path: [booking.id],
  kind: "upsert",
  object: booking as unknown as Record<string, unknown>,
});

/**
 * Our bookings to the eMSP's Receiver (OCPI 2.3.0 Bookings: "the CPO pushes status changes"): a PUT of the whole
 * Booking at {bookings}/{country_code}/{party_id}/{booking_id} on every change, only to the partner of the
 * eMSP that requested it (as sessions go to their token's owner: core/partners/party-scope.ts). A booking in a
 * final status is delivered at least once. A change without the whole Booking has its audience read from the
 * stored booking, through our SENDER port. There is no `apply`: the backend reports changes of our bookings
 * through the sink it was handed (BookingDesk), not as change events (POST /admin/v1/events).
 */
export const bookingsPush = (
  stored: (owner: PartyRef, id: string) => Promise<Booking | undefined>,
): PushSpec<BookingsReceiverPort> => ({
  // by objectOf, not by depth, so that the module's canonical object for seeds and config is the BookingLocation (syncSpec.type)
  objectTypes: [],
  idFields: [],
  objectOf: ({ path }) => (path.length === 1 ? { type: bookingType, idField: "id", id: path[0] } : undefined),
  methods: { upsert: "PUT" },
  essential: (change) => change.kind === "upsert" && isFinal((change.object as unknown as Booking).reservation_status),
  resync: false,
  async audience(change) {
    const booking = (change.object?.booking_requests ? change.object : await stored(change.owner, change.path[0])) as Booking | undefined;
    return booking && bookingOwnerOf(booking);
  },
});
