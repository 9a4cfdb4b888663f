/**
 * The tariff engine: prices a session from its meter timeline with the
 * Connector's 2.3.0 Tariffs, producing what a Session or CDR carries about
 * cost. Pure: no I/O, no clock.
 */
export { priceSession, priceSessionTraced } from "./price-session";
export { instantMs } from "./instant";
export type { PricingTrace, TracedLine } from "./trace";
export type { Amount } from "./money";
export type { MeterSample, PricedSession, PricingInput, ReservationTimeline, SessionTimeline } from "./types";
