import type { PortContext } from "../../core/contract/port-context";
import type { Session } from "../sessions/model";
import type { ActiveChargingProfile, ChargingProfile, ChargingProfileResponseType, ChargingProfileResult, ProfileOperation } from "./model";

/** The operations a ChargingProfilesReceiverPort is handed. */
export { PROFILE_OPERATIONS } from "./model";

/** A charging-profile request a partner sent us, as the adapter gets it (without the response_url). */
export interface ReceivedProfileRequest {
  /** the gateway's id of the request: the adapter reports the result under it */
  id: string;
  operation: ProfileOperation;
  session_id: string;
  /** GET_ACTIVE_PROFILE: seconds of profile wanted */
  duration?: number;
  /** SET_PROFILE */
  charging_profile?: ChargingProfile;
}

/** Where an adapter reports results of accepted requests (at any time, from any gateway instance). */
export interface ChargingProfileOutcomeSink {
  /** false when the request already has a result (e.g. the gateway's timeout) or is unknown */
  report(requestId: string, result: ChargingProfileResult): Promise<boolean>;
}

/** The charge point side (CPO). */
export interface ChargingProfilesReceiverPort {
  /** called once before the gateway serves; the sink also takes results of requests accepted before a restart */
  connect(sink: ChargingProfileOutcomeSink): void;
  /** our party's session, whatever its token owner: the gateway answers UNKNOWN_SESSION for an unknown one or another eMSP's */
  session(sessionId: string, ctx: PortContext): Promise<Session | undefined>;
  /** hands the request, on a session the gateway checked, to the charge point; only ACCEPTED is followed by a result */
  submit(request: ReceivedProfileRequest, ctx: PortContext): Promise<ChargingProfileResponseType>;
}

/** A request the backend issued to a partner CPO through the gateway. */
export interface SentProfileRequest {
  uid: string;
  partnerId: string;
  operation: ProfileOperation;
  session_id: string;
}

/** The partner's result, or a timeout when none came in time. */
export type SentProfileOutcome = { kind: "result"; result: ChargingProfileResult } | { kind: "timeout" };

/** The Smart Charging side (eMSP/SCSP). */
export interface ChargingProfilesSenderPort {
  /** called once per request */
  onOutcome(request: SentProfileRequest, outcome: SentProfileOutcome, ctx: PortContext): Promise<void>;
  /** the CPO's update of the active profile of a session on which we once set a profile */
  onActiveProfile(sessionId: string, profile: ActiveChargingProfile, ctx: PortContext): Promise<void>;
}
