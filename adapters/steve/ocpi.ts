/** The one place the steve engine takes the gateway's OCPI model and tariff engine from: the adapter kit. */
export type {
  Cdr,
  CdrToken,
  ChargingPeriod,
  CommandResponseType,
  CommandResult,
  CommandResultType,
  CommandType,
  DisplayText,
  Location,
  PricedSession,
  Session,
  Tariff,
  Token,
} from "../kit";
export { priceSession } from "../kit";
