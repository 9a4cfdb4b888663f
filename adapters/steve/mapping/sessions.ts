import type { AuthMethod, CdrToken, Session } from "../../kit";
import type { ChargeBoxRow, EvseRow, TransactionRow } from "../db/rows";
import { chargingPeriods } from "./charging-periods";
import { evseUid } from "./evse-id";
import { locationIdOf } from "./locations";
import type { SteveMappingSettings } from "./settings";

const iso = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * What the gateway knows about a transaction and SteVe does not: whose token
 * the idTag is, how it was authorized, the eMSP's authorization reference.
 * Unknown here means a local RFID card of our own (docs/steve.md, "Sessions and CDRs").
 */
export interface TransactionContext {
  token?: CdrToken;
  authMethod?: AuthMethod;
  authorizationReference?: string;
}

export interface SessionSources {
  tx: TransactionRow;
  chargeBox: ChargeBoxRow | undefined;
  evse: EvseRow | undefined;
  context?: TransactionContext;
}

/** The OCPI session/CDR id of a SteVe transaction: its transaction_pk, the OCPP transactionId. */
export const sessionIdOf = (tx: TransactionRow): string => String(tx.transactionPk);

export const localToken = (settings: SteveMappingSettings, idTag: string): CdrToken => ({
  country_code: settings.country_code,
  party_id: settings.party_id,
  uid: idTag,
  type: "RFID",
  contract_id: idTag,
});

/** The newest thing SteVe wrote about the transaction. */
export const transactionUpdatedAt = (tx: TransactionRow): Date =>
  [tx.startEventTimestamp, tx.stopEventTimestamp, ...tx.meterValues.map((v) => v.timestamp)].reduce<Date>(
    (max, d) => (d && d > max ? d : max),
    tx.startEventTimestamp,
  );

export function mapSession({ tx, chargeBox, evse, context }: SessionSources, settings: SteveMappingSettings): Session {
  const periods = chargingPeriods(tx);
  const session: Session = {
    country_code: settings.country_code,
    party_id: settings.party_id,
    id: sessionIdOf(tx),
    start_date_time: iso(tx.startTimestamp),
    kwh: tx.kwh,
    cdr_token: context?.token ?? localToken(settings, tx.idTag),
    auth_method: context?.authMethod ?? "WHITELIST",
    location_id: locationIdOf(settings, tx.chargeBoxId),
    evse_uid: evseUid(tx.chargeBoxId, tx.evseId),
    // OCPP 1.x transactions run on an EVSE; its (first) plug is the connector.
    connector_id: String(evse?.connectors[0]?.connectorId ?? 1),
    currency: settings.currency,
    status: tx.stopTimestamp ? "COMPLETED" : "ACTIVE",
    last_updated: iso(transactionUpdatedAt(tx)),
  };
  if (tx.stopTimestamp) session.end_date_time = iso(tx.stopTimestamp);
  if (context?.authorizationReference) session.authorization_reference = context.authorizationReference;
  if (chargeBox?.meterSerialNumber) session.meter_id = chargeBox.meterSerialNumber;
  if (periods.length) session.charging_periods = periods;
  return session;
}
