import { randomUUID } from "node:crypto";
import type { GatewayConfig } from "../../config/types";
import type { PartnerClient } from "../../core/client/partner-client";
import type { PartnerRegistry } from "../../core/partners/partner-registry";
import { OcpiError, describeIssues, invalid, invalidFields, notFound } from "../../core/contract/errors";
import { Status } from "../../core/protocol/status";
import { issuesOf } from "../../core/model/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import { admitPartner } from "../../core/edge/admit";
import type { PortContext } from "../../core/contract/port-context";
import { CANCELED_REASONS, type Booking, type BookingLocation, type BookingRequest, type CanceledReason } from "./model";
import type { BookingsReceiverPort } from "./ports";
import { bookingLocationType, bookingRequestType, bookingType } from "./translate";
import { relayedFrom } from "../../core/client/relayed-failure";

const MODULE = "bookings";

/** What the eMSP's backend gives for a new booking: a BookingRequest whose requester, request_id and authorization_reference may be left to the gateway. */
type RequestInput = Omit<BookingRequest, "country_code" | "party_id" | "request_id" | "authorization_reference"> & Partial<BookingRequest>;

/**
 * Our eMSP side of bookings, one code path for the admin API (admin.ts) and the CLI (`ocpi-gateway bookings`,
 * app/bookings-command.ts): a BookingRequest sent to the CPO partner's Sender, the Booking it answers stored in
 * our Receiver port (where the CPO's pushes of its later status changes land too: that is how the booking is
 * followed), a cancellation as a new POST under the booking's request_id, and the partner's lists. Bodies are
 * checked as the canonical (2.3.0) object (2001 naming the field); what the CPO refuses comes back with its
 * status and words; a CPO that cannot be reached is 3001 on HTTP 502.
 */
export class BookingsClient {
  constructor(
    private readonly partners: PartnerClient,
    private readonly receiver: BookingsReceiverPort,
    private readonly registry: PartnerRegistry,
    private readonly config: GatewayConfig,
  ) {}

  /** Sends a new BookingRequest (requester: our first eMSP party unless named); answers the CPO's Booking, stored. */
  async request(partnerId: string, body: unknown): Promise<Booking> {
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("Request body with a BookingRequest is required");
    const ours = this.config.parties.find((p) => p.role === "EMSP") ?? this.config.parties[0];
    const given = body as RequestInput;
    const requester = { country_code: given.country_code ?? ours.country_code, party_id: given.party_id ?? ours.party_id };
    // a token given without its owner is the requester's
    const tokens = Array.isArray(given.tokens) ? given.tokens.map((token) => ({ ...requester, ...token })) : given.tokens;
    const request = checkedRequest({
      request_id: randomUUID(),
      authorization_reference: randomUUID(),
      ...given,
      ...requester,
      ...(tokens === undefined ? {} : { tokens }),
    });
    return this.send(partnerId, request);
  }

  /** Cancels the booking we hold under `bookingId`: its last request again, with `canceled` (who_canceled EMSP). */
  async cancel(partnerId: string, bookingId: string, reason: string = "UNKNOWN"): Promise<Booking> {
    if (!(CANCELED_REASONS as readonly string[]).includes(reason)) throw invalid(`/cancellation_reason: must be one of ${CANCELED_REASONS.join(", ")}`);
    const booking = await this.held(partnerId, bookingId);
    const last = booking.booking_requests[booking.booking_requests.length - 1].booking_request;
    return this.send(partnerId, { ...last, canceled: { cancellation_reason: reason as CanceledReason, who_canceled: "EMSP" } });
  }

  /** One booking as we hold it: the CPO's answer, then each status change it pushed. */
  async held(partnerId: string, bookingId: string): Promise<Booking> {
    for (const cpo of await this.cpoOf(partnerId)) {
      const booking = await this.receiver.getBooking(cpo, bookingId, this.ctx(partnerId));
      if (booking) return booking;
    }
    throw notFound(`Booking ${bookingId} from ${partnerId}`);
  }

  /** The CPO's bookings list, as it shows it to us (our parties' bookings). */
  bookings(partnerId: string): Promise<Booking[]> {
    return this.all(partnerId, bookingType, undefined);
  }

  /** The CPO's BookingLocations with their free timeslots. */
  locations(partnerId: string): Promise<BookingLocation[]> {
    return this.all(partnerId, bookingLocationType, "/booking_locations");
  }

  private async send(partnerId: string, request: BookingRequest): Promise<Booking> {
    await this.cpoOf(partnerId);
    const answer = await relayed(() =>
      this.partners.call(partnerId, { module: MODULE, role: "SENDER", method: "POST", path: "", body: { type: bookingRequestType, value: request } }),
    );
    const booking = answeredBooking(answer.envelope.data);
    await this.receiver.putBooking({ country_code: booking.country_code.toUpperCase(), party_id: booking.party_id.toUpperCase() }, booking, this.ctx(partnerId));
    return booking;
  }

  private async all<T>(partnerId: string, type: Parameters<PartnerClient["list"]>[2], path: string | undefined): Promise<T[]> {
    await this.cpoOf(partnerId);
    const items: T[] = [];
    await relayed(async () => {
      for await (const page of this.partners.list(partnerId, MODULE, type, {}, undefined, undefined, path)) items.push(...(page as T[]));
    });
    return items;
  }

  private ctx(partnerId: string): PortContext {
    return { partnerId, party: this.config.parties[0] };
  }

  /** The partner's parties; 2001 naming it when it is not a registered partner offered bookings. */
  private async cpoOf(partnerId: string): Promise<{ country_code: string; party_id: string }[]> {
    const { record } = await admitPartner({ config: this.config, registry: this.registry }, partnerId, MODULE);
    return record.roles.map((r) => ({ country_code: r.country_code.toUpperCase(), party_id: r.party_id.toUpperCase() }));
  }
}

/** The backend's BookingRequest checked as the canonical (2.3.0) object; 2001 naming the field otherwise. */
const checkedRequest = (value: unknown): BookingRequest => {
  const parsed = bookingRequestType.schema("2.3.0", "full").safeParse(withoutNulls(value));
  if (!parsed.success) throw invalidFields(issuesOf(parsed.error));
  return parsed.data as BookingRequest;
};

/** The CPO's answer checked as a Booking; one that is none is the CPO's failure: 3001 on HTTP 502, naming the fields. */
const answeredBooking = (value: unknown): Booking => {
  const parsed = bookingType.schema("2.3.0", "full").safeParse(withoutNulls(value));
  if (!parsed.success) throw new OcpiError(Status.CLIENT_API_UNREACHABLE, `The CPO answered no valid Booking: ${describeIssues(issuesOf(parsed.error))}`, 502);
  return parsed.data as Booking;
};

/** A call to the CPO partner, its failures as answers (core/client/relayed-failure.ts). */
const relayed = relayedFrom("CPO");
