import type { PartnerClient } from "../../core/client/partner-client";
import type { ModuleCall } from "../../core/client/partner-client";
import { PartnerCallError } from "../../core/client/ocpi-client";
import { issuesOf } from "../../core/model/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import type { ChargingProfile, ChargingProfileResponse } from "./model";
import { chargingProfileResponseSchema } from "./schemas";
import { setChargingProfileType } from "./translate";
import { describeIssues } from "../../core/http/errors";

/** Outbound calls of the chargingprofiles module to a partner CPO's Receiver interface (2.2+ only). */
export class ChargingProfilesClient {
  constructor(private readonly partners: PartnerClient) {}

  /** GET {session_id}?duration=&response_url=: the active profile, posted later */
  getActive(partnerId: string, sessionId: string, duration: number, responseUrl: string): Promise<ChargingProfileResponse> {
    return this.request(partnerId, { method: "GET", path: pathOf(sessionId), query: { duration, response_url: responseUrl } });
  }

  /** PUT {session_id} with SetChargingProfile */
  set(partnerId: string, sessionId: string, profile: ChargingProfile, responseUrl: string): Promise<ChargingProfileResponse> {
    return this.request(partnerId, {
      method: "PUT",
      path: pathOf(sessionId),
      body: { type: setChargingProfileType, value: { charging_profile: profile, response_url: responseUrl } },
    });
  }

  /** DELETE {session_id}?response_url= */
  clear(partnerId: string, sessionId: string, responseUrl: string): Promise<ChargingProfileResponse> {
    return this.request(partnerId, { method: "DELETE", path: pathOf(sessionId), query: { response_url: responseUrl } });
  }

  private async request(partnerId: string, call: Omit<ModuleCall, "module" | "role">): Promise<ChargingProfileResponse> {
    const result = await this.partners.call(partnerId, { module: "chargingprofiles", role: "RECEIVER", ...call });
    const parsed = chargingProfileResponseSchema().safeParse(withoutNulls(result.envelope.data));
    if (!parsed.success) {
      const problems = describeIssues(issuesOf(parsed.error));
      throw new PartnerCallError("malformed", `${call.method} chargingprofiles: the partner's ChargingProfileResponse is invalid: ${problems}`);
    }
    return parsed.data as ChargingProfileResponse;
  }
}

const pathOf = (sessionId: string): string => `/${encodeURIComponent(sessionId)}`;
