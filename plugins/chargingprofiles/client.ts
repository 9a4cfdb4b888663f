import type { Logger } from "pino";
import type { PartnerClient } from "../../core/client/partner-client";
import type { ModuleCall } from "../../core/client/partner-client";
import type { PartyRef } from "../../core/protocol/types";
import { parseImmediateAnswer } from "../../core/async/immediate-answer";
import type { ChargingProfile, ChargingProfileResponse } from "./model";
import { chargingProfileResponseSchema } from "./schemas";
import { setChargingProfileType } from "./translate";

/** Outbound calls of the chargingprofiles module to a partner CPO's Receiver interface (2.2+ only); `to`: the CPO party behind a hub. */
export class ChargingProfilesClient {
  constructor(
    private readonly partners: PartnerClient,
    /** our server.command_timeout_seconds, for an answer without `timeout` */
    private readonly timeoutSeconds: number,
    private readonly log: Logger,
  ) {}

  /** GET {session_id}?duration=&response_url=: the active profile, posted later */
  getActive(partnerId: string, sessionId: string, duration: number, responseUrl: string, to?: PartyRef): Promise<ChargingProfileResponse> {
    return this.request(partnerId, { method: "GET", path: pathOf(sessionId), query: { duration, response_url: responseUrl }, to });
  }

  /** PUT {session_id} with SetChargingProfile */
  set(partnerId: string, sessionId: string, profile: ChargingProfile, responseUrl: string, to?: PartyRef): Promise<ChargingProfileResponse> {
    return this.request(partnerId, {
      method: "PUT",
      path: pathOf(sessionId),
      body: { type: setChargingProfileType, value: { charging_profile: profile, response_url: responseUrl } },
      to,
    });
  }

  /** DELETE {session_id}?response_url= */
  clear(partnerId: string, sessionId: string, responseUrl: string, to?: PartyRef): Promise<ChargingProfileResponse> {
    return this.request(partnerId, { method: "DELETE", path: pathOf(sessionId), query: { response_url: responseUrl }, to });
  }

  private async request(partnerId: string, call: Omit<ModuleCall, "module" | "role">): Promise<ChargingProfileResponse> {
    const result = await this.partners.call(partnerId, { module: "chargingprofiles", role: "RECEIVER", ...call });
    const what = `the partner's ChargingProfileResponse to ${call.method} chargingprofiles`;
    const data = await this.partners.repaired(partnerId, { name: "ChargingProfileResponse" }, chargingProfileResponseSchema(), result.envelope.data);
    return parseImmediateAnswer(chargingProfileResponseSchema(), data, what, {
      seconds: this.timeoutSeconds,
      log: this.log,
      partnerId,
    }) as ChargingProfileResponse;
  }
}

const pathOf = (sessionId: string): string => `/${encodeURIComponent(sessionId)}`;
