/**
 * The one place the steve engine takes the gateway's OCPI model and tariff
 * engine from. Once `adapters/kit.ts` is committed, this file becomes
 * `export … from "../kit"` and nothing else in adapters/steve changes.
 */
export type { Token } from "../../plugins/tokens/model";
export type { CommandResponseType, CommandResult, CommandResultType, CommandType, DisplayText } from "../../plugins/commands/model";
export type { Tariff } from "../../plugins/tariffs/model";
export type { CdrToken, ChargingPeriod, Session } from "../../plugins/sessions/model";
export type { Cdr } from "../../plugins/cdrs/model";
export type { Location } from "../../plugins/locations/model";
export { priceSession } from "../../plugins/tariffs/engine";
export type { PricedSession } from "../../plugins/tariffs/engine";
