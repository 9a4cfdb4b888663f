/**
 * The adapter author's kit: everything an adapter may use of the gateway, in
 * one place. An adapter (adapters/<name>/) imports from the repository only
 * this file and its own folder (test/architecture.test.ts). It lives beside
 * the adapters, not in core/, because the port interfaces it gathers are
 * declared by the plugins, and core/ never imports plugins/.
 */
import type { Adapter as KernelAdapter, AdapterDeps, AdapterFactory as KernelAdapterFactory } from "../core/contract/adapter";
import type { ChangesPort } from "../core/contract/push-spec";
import type { LocationsReceiverPort, LocationsSenderPort } from "../plugins/locations/ports";
import type { SessionsReceiverPort, SessionsSenderPort } from "../plugins/sessions/ports";
import type { CdrsReceiverPort, CdrsSenderPort } from "../plugins/cdrs/ports";
import type { TariffsReceiverPort, TariffsSenderPort } from "../plugins/tariffs/ports";
import type { TokensReceiverPort, TokensSenderPort } from "../plugins/tokens/ports";
import type { CommandsReceiverPort, CommandsSenderPort } from "../plugins/commands/ports";
import type { ChargingProfilesReceiverPort, ChargingProfilesSenderPort } from "../plugins/chargingprofiles/ports";
import type { PaymentsReceiverPort, PaymentsSenderPort } from "../plugins/payments/ports";
import type { InvoiceReconciliationReceiverPort, InvoiceReconciliationSenderPort } from "../plugins/invoicereconciliation/ports";
import type { BookingsReceiverPort, BookingsSenderPort } from "../plugins/bookings/ports";

// --- the calls a port serves --------------------------------------------------------------------------
export type { Page, PageRequest } from "../core/contract/page";
export type { PortContext, PutOutcome, PartyScope } from "../core/contract/port-context";
export { inScope } from "../core/contract/port-context";
export type { PartyRef, VersionNumber, InterfaceRole, Role } from "../core/protocol/types";
export { partyKey, sameParty } from "../core/protocol/types";

// --- OCPI values ----------------------------------------------------------------------------------------
export { ocpiTimestamp } from "../core/http/envelope";
export { parseDateTime } from "../core/protocol/datetime";
/** the one spelling under which a CiString id is stored and looked up */
export { ciKey } from "../core/model/common-schemas";

// --- what the gateway hands an adapter ------------------------------------------------------------------
export type { AdapterDeps, TokenOwnerAnswer } from "../core/contract/adapter";
/** thrown by a port when the backend cannot answer now: HTTP 503 + 3000 naming it */
export { BackendUnavailableError } from "../core/contract/errors";
export type { ChangeFeed, DataChange } from "../core/contract/change-feed";
export type { Store, RangeQuery, StoredJsonPage, StoredPage, UpdateDecision } from "../core/contract/store";
export type { ChangesPort, ChangeOutcome } from "../core/contract/push-spec";
/** a client of a backend that speaks OCPI (`deps.ocpiBackend`, the proxy adapter) */
export type { OcpiBackend, OcpiBackendSpec } from "../core/contract/ocpi-backend";
export type { HeaderPrefix, Strictness, TokenEncoding } from "../config/types";
/** the gateway's reading of numbers and booleans written as strings (`${VAR}`): apply it to settings before their schema */
export { readTypedStrings } from "../config/typed-strings";
/** the setting rules of `adapters.<name>` blocks: backend URL, milliseconds, `path: message` error lines */
export { httpUrlSetting, millisecondsSetting, settingsErrors } from "../config/adapter-settings";
/** a route the backend calls on its adapter (a webhook): `Adapter.inbound`, at /adapters/<name><path> */
export type { InboundRoute, InboundRequest, InboundReply } from "../core/contract/inbound-route";

// --- every module's ports and canonical (2.3.0) model ---------------------------------------------------
export type * from "../plugins/locations/ports";
export type * from "../plugins/locations/model";
export type * from "../plugins/sessions/ports";
export type * from "../plugins/sessions/model";
export type * from "../plugins/cdrs/ports";
export type * from "../plugins/cdrs/model";
export type * from "../plugins/tariffs/ports";
export type * from "../plugins/tariffs/model";
export type * from "../plugins/tokens/ports";
export type * from "../plugins/tokens/model";
export type * from "../plugins/commands/ports";
export type * from "../plugins/commands/model";
export type * from "../plugins/chargingprofiles/ports";
export type * from "../plugins/chargingprofiles/model";
export type * from "../plugins/payments/ports";
export type * from "../plugins/payments/model";
export type * from "../plugins/invoicereconciliation/ports";
export type * from "../plugins/invoicereconciliation/model";
export type * from "../plugins/bookings/ports";
export type * from "../plugins/bookings/model";
export type { Price } from "../core/model/price";
/** the sub-resources of payments (`TERMINALS`, `FACS`) and the change that reports one of our Terminals or FACs */
export { TERMINALS, FACS } from "../plugins/payments/model";
export { paymentsChange } from "../plugins/payments/push";
/** the eMSP a booking belongs to, and the path segment of BookingLocations */
export { bookingOwnerOf, BOOKING_LOCATIONS } from "../plugins/bookings/model";
// Names two modules declare alike: the one meant here. A Session's token always names its owner; a CDR's
// (`Cdr["cdr_token"]`) may not, when it came in 2.1.1.
export type { CdrToken, ProfileType, PROFILE_TYPES } from "../plugins/sessions/model";
export type { DisplayText } from "../plugins/locations/model";
export type { PriceLimit } from "../plugins/tariffs/model";
export { COMMAND_TYPES } from "../plugins/commands/model";
export { PROFILE_OPERATIONS } from "../plugins/chargingprofiles/model";

// --- pricing for backends that know meter values but not prices -----------------------------------------
export { priceSession } from "../plugins/tariffs/engine";
/** a booking as `priceSession`'s `reservation`, so that its booking fee is priced (plugins/bookings/pricing.ts) */
export { bookingTimeline } from "../plugins/bookings/pricing";
export type * from "../plugins/tariffs/engine";

/** Every port an adapter may implement, by its name `<module>.<ROLE>`. */
export type PortMap = {
  "locations.SENDER": LocationsSenderPort;
  "locations.RECEIVER": LocationsReceiverPort;
  "locations.CHANGES": ChangesPort;
  "sessions.SENDER": SessionsSenderPort;
  "sessions.RECEIVER": SessionsReceiverPort;
  "sessions.CHANGES": ChangesPort;
  "cdrs.SENDER": CdrsSenderPort;
  "cdrs.RECEIVER": CdrsReceiverPort;
  "cdrs.CHANGES": ChangesPort;
  "tariffs.SENDER": TariffsSenderPort;
  "tariffs.RECEIVER": TariffsReceiverPort;
  "tariffs.CHANGES": ChangesPort;
  "tokens.SENDER": TokensSenderPort;
  "tokens.RECEIVER": TokensReceiverPort;
  "tokens.CHANGES": ChangesPort;
  "commands.SENDER": CommandsSenderPort;
  "commands.RECEIVER": CommandsReceiverPort;
  "chargingprofiles.SENDER": ChargingProfilesSenderPort;
  "chargingprofiles.RECEIVER": ChargingProfilesReceiverPort;
  "payments.SENDER": PaymentsSenderPort;
  "payments.RECEIVER": PaymentsReceiverPort;
  "payments.CHANGES": ChangesPort;
  "invoicereconciliation.SENDER": InvoiceReconciliationSenderPort;
  "invoicereconciliation.RECEIVER": InvoiceReconciliationReceiverPort;
  "bookings.SENDER": BookingsSenderPort;
  "bookings.RECEIVER": BookingsReceiverPort;
};

export type PortName = keyof PortMap;

/**
 * An adapter instance: the ports it implements over one backend, each typed by its name; `start`, `stop`
 * and `ready` (does the backend answer now? `/ready` fails while it does not) as the kernel's, all optional.
 */
export interface Adapter extends Omit<KernelAdapter, "ports"> {
  readonly ports: Partial<PortMap>;
}

/** How the gateway creates an adapter of one `type` (`adapters.<name>.type` in the config). */
export interface AdapterFactory {
  readonly type: string;
  /** the ports an instance implements, known before it is created so the config can be checked */
  readonly portNames: readonly PortName[];
  create(settings: Record<string, unknown>, deps: AdapterDeps): Promise<Adapter>;
  /** problems of the adapter's settings as `path: message` lines under `base` (e.g. "adapters.steve"), for check-config and start */
  checkSettings?(settings: Record<string, unknown>, base: string): string[];
}

/**
 * Declares an adapter factory: each port is checked against its name at
 * compile time (start-up checks that each has the methods its plugin needs),
 * and the result is what the gateway takes (`GatewayOptions.adapters`, app/built-ins.ts).
 */
export const defineAdapter = (factory: AdapterFactory): AdapterFactory & KernelAdapterFactory => factory;
