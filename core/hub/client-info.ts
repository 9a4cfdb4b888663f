import type { PartyRef, Role } from "../protocol/types";

/** ConnectionStatus of a party connected to a hub (OCPI 2.2.1 HubClientInfo module). */
export const CONNECTION_STATUSES = ["CONNECTED", "OFFLINE", "PLANNED", "SUSPENDED"] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** ClientInfo (hubclientinfo), the same on the wire in 2.2.1 and 2.3.0 but for the role HUB, which 2.3.0 lost. */
export interface ClientInfo extends PartyRef {
  role: Role;
  status: ConnectionStatus;
  last_updated: string;
}

/** What a hub publishes about one party: its ClientInfo and the partner it is reached through. */
export interface PublishedClientInfo {
  info: ClientInfo;
  partnerId: string;
}
