import type { ListFilters, PartnerClient } from "../../core/client/partner-client";
import type { PartyRef } from "../../core/protocol/types";
import type { ChargingPreferences, ChargingPreferencesResponse, Session, SessionPatch } from "./model";
import { chargingPreferencesType, sessionType } from "./translate";

/**
 * Outbound Sessions calls to a registered partner, in its version (the
 * PartnerClient translates). Pulling from a CPO (its SENDER), pushing to
 * an eMSP (its RECEIVER), and setting charging preferences at a CPO.
 */
export class SessionsClient {
  constructor(private readonly partners: PartnerClient) {}

  /** Pages of the partner's sessions; date_from is required by the Sessions list. */
  list(
    partnerId: string,
    filters: ListFilters & { date_from: string },
    onInvalid?: (object: unknown, problems: string) => void,
  ): AsyncGenerator<Session[]> {
    return this.partners.list(partnerId, "sessions", sessionType, filters, onInvalid);
  }

  get(partnerId: string, owner: PartyRef, id: string): Promise<Session | undefined> {
    return this.partners.get(partnerId, { module: "sessions", role: "RECEIVER", path: pathOf(owner, id), owner }, sessionType);
  }

  async put(partnerId: string, session: Session, correlationId?: string): Promise<void> {
    await this.partners.call(partnerId, {
      module: "sessions",
      role: "RECEIVER",
      method: "PUT",
      path: pathOf(session, session.id),
      body: { type: sessionType, value: session },
      from: { country_code: session.country_code, party_id: session.party_id },
      correlationId,
    });
  }

  /** charging_periods in the fragment are appended by the partner; last_updated must be set (2.2+). */
  async patch(partnerId: string, owner: PartyRef, id: string, fragment: SessionPatch, correlationId?: string): Promise<void> {
    await this.partners.call(partnerId, {
      module: "sessions",
      role: "RECEIVER",
      method: "PATCH",
      path: pathOf(owner, id),
      body: { type: sessionType, value: fragment },
      from: owner,
      correlationId,
    });
  }

  /** PUT {sessions}/{session_id}/charging_preferences at a CPO (2.2+). */
  async setChargingPreferences(
    partnerId: string,
    sessionId: string,
    preferences: ChargingPreferences,
    to?: PartyRef,
  ): Promise<ChargingPreferencesResponse> {
    const result = await this.partners.call<ChargingPreferencesResponse>(partnerId, {
      module: "sessions",
      role: "SENDER",
      method: "PUT",
      path: `/${encodeURIComponent(sessionId)}/charging_preferences`,
      body: { type: chargingPreferencesType, value: preferences },
      to,
    });
    return result.envelope.data as ChargingPreferencesResponse;
  }
}

const pathOf = (owner: PartyRef, id: string): string =>
  `/${encodeURIComponent(owner.country_code)}/${encodeURIComponent(owner.party_id)}/${encodeURIComponent(id)}`;
