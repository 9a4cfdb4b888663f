import type { Cdr, CdrLocation, Location } from "../../kit";
import { round4 } from "../db/meter-values";
import { evseUid } from "./evse-id";
import { mapSession, type SessionSources } from "./sessions";
import type { SteveMappingSettings } from "./settings";

/** A CDR before pricing: the tariff engine adds total_cost and the other costs and tariffs. */
export type CdrSkeleton = Omit<Cdr, "total_cost">;

const HOUR_MS = 3_600_000;

/** CdrLocation's address and city are string(45) (unlike Location's 255). */
const cut = (value: string, max: number) => (value.length > max ? value.slice(0, max) : value);

/** The Location as it was at the end of the transaction, reduced to its EVSE and connector. */
function cdrLocation(location: Location, uid: string, connectorId: string): CdrLocation | undefined {
  const evse = location.evses?.find((e) => e.uid === uid);
  const connector = evse?.connectors.find((c) => c.id === connectorId) ?? evse?.connectors[0];
  if (!evse || !connector) return undefined;
  const snapshot: CdrLocation = {
    id: location.id,
    address: cut(location.address, 45),
    city: cut(location.city, 45),
    country: location.country,
    coordinates: evse.coordinates ?? location.coordinates,
    evse_uid: evse.uid,
    evse_id: evse.evse_id ?? evse.uid,
    connector_id: connector.id,
    connector_standard: connector.standard,
    connector_format: connector.format,
    connector_power_type: connector.power_type,
  };
  if (location.name) snapshot.name = location.name;
  if (location.postal_code) snapshot.postal_code = location.postal_code;
  if (location.state) snapshot.state = location.state;
  return snapshot;
}

/**
 * One CDR per finished transaction (undefined while it runs, or when its
 * Location is not mapped): the Session's facts plus the location snapshot,
 * total energy and time. Its id is the session's: one CDR per transaction.
 */
export function mapCdrSkeleton(sources: SessionSources, location: Location, settings: SteveMappingSettings): CdrSkeleton | undefined {
  const { tx } = sources;
  if (!tx.stopTimestamp || !tx.stopEventTimestamp) return undefined;
  const session = mapSession(sources, settings);
  const where = cdrLocation(location, evseUid(tx.chargeBoxId, tx.evseId), session.connector_id);
  if (!where || !session.charging_periods?.length) return undefined;
  const cdr: CdrSkeleton = {
    country_code: session.country_code,
    party_id: session.party_id,
    id: session.id,
    start_date_time: session.start_date_time,
    end_date_time: session.end_date_time!,
    session_id: session.id,
    cdr_token: session.cdr_token,
    auth_method: session.auth_method,
    cdr_location: where,
    currency: session.currency,
    charging_periods: session.charging_periods,
    total_energy: session.kwh,
    total_time: round4((tx.stopTimestamp.getTime() - tx.startTimestamp.getTime()) / HOUR_MS),
    last_updated: session.last_updated,
  };
  if (session.authorization_reference) cdr.authorization_reference = session.authorization_reference;
  if (session.meter_id) cdr.meter_id = session.meter_id;
  return cdr;
}
