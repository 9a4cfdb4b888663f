import type { ListFilters, PartnerClient } from "../../core/client/partner-client";
import type { PartyRef } from "../../core/protocol/types";
import type { ObjectType } from "../../core/contract/object-type";
import type { Connector, Evse, Location } from "./model";
import { connectorType, evseType, locationType } from "./translate";

const enc = encodeURIComponent;

/**
 * Outbound calls to a partner's locations module, in its negotiated
 * version (translation by PartnerClient): pulling its Sender list and
 * objects, pushing to its Receiver. Used by sync and push jobs.
 */
export class LocationsClient {
  constructor(private readonly partners: PartnerClient) {}

  /** The partner's Locations, page by page (Link-following). */
  list(partnerId: string, filters: ListFilters = {}, onInvalid?: (object: unknown, problems: string) => void): AsyncGenerator<Location[]> {
    return this.partners.list(partnerId, "locations", locationType, filters, onInvalid);
  }

  get(partnerId: string, locationId: string): Promise<Location | undefined> {
    return this.partners.get(partnerId, { module: "locations", role: "SENDER", path: `/${enc(locationId)}` }, locationType);
  }

  getEvse(partnerId: string, locationId: string, evseUid: string): Promise<Evse | undefined> {
    return this.partners.get(partnerId, { module: "locations", role: "SENDER", path: `/${enc(locationId)}/${enc(evseUid)}` }, evseType);
  }

  /** What the partner's Receiver stored for our Location (to compare before a push). */
  getPushed(partnerId: string, owner: PartyRef, locationId: string): Promise<Location | undefined> {
    return this.partners.get(partnerId, { module: "locations", role: "RECEIVER", path: receiverPath(owner, locationId), owner }, locationType);
  }

  async putLocation(partnerId: string, location: Location): Promise<void> {
    await this.push(partnerId, "PUT", receiverPath(location, location.id), locationType, location);
  }

  async putEvse(partnerId: string, owner: PartyRef, locationId: string, evse: Evse): Promise<void> {
    await this.push(partnerId, "PUT", receiverPath(owner, locationId, evse.uid), evseType, evse);
  }

  async putConnector(partnerId: string, owner: PartyRef, locationId: string, evseUid: string, connector: Connector): Promise<void> {
    await this.push(partnerId, "PUT", receiverPath(owner, locationId, evseUid, connector.id), connectorType, connector);
  }

  async patchLocation(partnerId: string, owner: PartyRef, locationId: string, fragment: Partial<Location> & { last_updated: string }) {
    await this.push(partnerId, "PATCH", receiverPath(owner, locationId), locationType, fragment);
  }

  async patchEvse(partnerId: string, owner: PartyRef, locationId: string, evseUid: string, fragment: Partial<Evse> & { last_updated: string }) {
    await this.push(partnerId, "PATCH", receiverPath(owner, locationId, evseUid), evseType, fragment);
  }

  async patchConnector(
    partnerId: string,
    owner: PartyRef,
    locationId: string,
    evseUid: string,
    connectorId: string,
    fragment: Partial<Connector> & { last_updated: string },
  ) {
    await this.push(partnerId, "PATCH", receiverPath(owner, locationId, evseUid, connectorId), connectorType, fragment);
  }

  private async push(partnerId: string, method: "PUT" | "PATCH", path: string, type: ObjectType<any>, value: unknown): Promise<void> {
    await this.partners.call(partnerId, {
      module: "locations",
      role: "RECEIVER",
      method,
      path,
      body: { type, value },
    });
  }
}

const receiverPath = (owner: PartyRef, ...ids: string[]): string =>
  `/${enc(owner.country_code)}/${enc(owner.party_id)}/${ids.map(enc).join("/")}`;
