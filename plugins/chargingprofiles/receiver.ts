import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { OcpiReply, OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRoute } from "../../core/contract/admin-route";
import type { PartyRef, VersionNumber } from "../../core/protocol/types";
import type { PendingRequests } from "../../core/async/pending-requests";
import type { PendingSpec } from "../../core/async/async-module";
import type { Outbox } from "../../core/outbox/outbox";
import type { PartnerRegistry } from "../../core/partners/partner-registry";
import { invalid, invalidFields } from "../../core/contract/errors";
import { issuesOf } from "../../core/model/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import { url } from "../../core/model/common-schemas";
import { checkCallbackUrl } from "../../core/partners/callback-policy";
import { tokenOwnerInScope } from "../sessions/token-owner";
import type { ActiveChargingProfile, ChargingProfileResponseType, ChargingProfileResult, ProfileOperation, SetChargingProfile } from "./model";
import type { ChargingProfilesReceiverPort, ReceivedProfileRequest } from "./ports";
import type { ProfileSenders } from "./subscriptions";
import { activeChargingProfileSchema } from "./schemas";
import { chargingProfileResponseType, setChargingProfileType } from "./translate";

/** Pending-request kind of the charging-profile requests partners sent us. */
export const RECEIVED_PROFILE_REQUESTS = "chargingprofiles.received";

export interface ReceivedProfileData {
  partnerId: string;
  operation: ProfileOperation;
  sessionId: string;
  version: VersionNumber;
  responseUrl: string;
  /** our party that received it (routing `from` of the result) */
  party: PartyRef;
  /** the partner's party that sent it (routing `to` of the result) */
  sender?: PartyRef;
}

/** What the gateway posts when the charge point said nothing in time: the profile was not applied (there is no TIMEOUT result). */
const TIMED_OUT: ChargingProfileResult = { result: "REJECTED" };

const sessionIdOf = (id: string): string => {
  if (id.length > 36) throw invalid("session_id must be at most 36 characters");
  return id;
};

const queryOf = (req: OcpiRequest, name: string): string => {
  const value = req.query[name];
  if (value === undefined || value === "") throw invalid(`query parameter ${name} is required`);
  return value;
};

const responseUrlOf = (req: OcpiRequest): string => {
  const value = queryOf(req, "response_url");
  const parsed = url().safeParse(value);
  if (!parsed.success) throw invalid(`query parameter response_url ${parsed.error.issues[0].message}`);
  return value;
};

const durationOf = (req: OcpiRequest): number => {
  const value = queryOf(req, "duration");
  if (!/^\d{1,9}$/.test(value)) throw invalid("query parameter duration must be a whole number of seconds");
  return Number(value);
};

/**
 * The CPO side of charging profiles (OCPI 2.2.1 ChargingProfiles module):
 * GET/PUT/DELETE on a session answer ChargingProfileResponse at once; the
 * adapter's result (or REJECTED once the announced timeout has passed) is
 * posted to the response_url through the outbox, exactly once
 * (receivedProfileRequestsSpec). Partners whose SET was accepted are
 * recorded, and only they get updates of the session's active profile.
 */
export const receiverRoutes = (port: ChargingProfilesReceiverPort, pending: PendingRequests, timeoutSeconds: number): RouteSpec[] => {
  const on: Receiving = { port, pending, timeoutSeconds };
  return [
    {
      method: "GET",
      path: "/:session_id",
      response: chargingProfileResponseType,
      handle: (req) =>
        receive(on, req, responseUrlOf(req), { operation: "GET_ACTIVE_PROFILE", session_id: sessionIdOf(req.params.session_id), duration: durationOf(req) }),
    },
    {
      method: "PUT",
      path: "/:session_id",
      body: { type: setChargingProfileType, mode: "full" },
      response: chargingProfileResponseType,
      handle: (req) => {
        const { charging_profile, response_url } = req.body as SetChargingProfile;
        return receive(on, req, response_url, { operation: "SET_PROFILE", session_id: sessionIdOf(req.params.session_id), charging_profile });
      },
    },
    {
      method: "DELETE",
      path: "/:session_id",
      response: chargingProfileResponseType,
      handle: (req) => receive(on, req, responseUrlOf(req), { operation: "CLEAR_PROFILE", session_id: sessionIdOf(req.params.session_id) }),
    },
  ];
};

/** What telling partners of a session's active profile takes. */
export interface ProfileUpdates {
  senders: ProfileSenders;
  registry: PartnerRegistry;
  outbox: Outbox;
  log: Logger;
}

/** The backend tells the gateway that a session's active profile changed (rule 1); answers whom it was sent to. */
export const receiverAdminRoutes = (updates: ProfileUpdates): AdminRoute[] => [
  {
    method: "PUT",
    path: "/active-charging-profiles/:session_id",
    handle: async (req) => {
      const parsed = activeChargingProfileSchema().safeParse(withoutNulls(req.body ?? {}));
      if (!parsed.success) throw invalidFields(issuesOf(parsed.error));
      const notified = await activeProfileChanged(updates, sessionIdOf(req.params.session_id), parsed.data as ActiveChargingProfile);
      return { data: { session_id: req.params.session_id, notified } };
    },
  },
];

/** Requests partners sent us: their result, the adapter's or our REJECTED, is queued for the partner's response_url. */
export const receivedProfileRequestsSpec = (
  senders: ProfileSenders,
  outbox: Outbox,
  log: Logger,
): PendingSpec<ChargingProfilesReceiverPort, ReceivedProfileData, ChargingProfileResult> => ({
  name: RECEIVED_PROFILE_REQUESTS,
  timeoutOutcome: () => TIMED_OUT,
  async deliver(_port, entry, outcome) {
    const { data } = entry;
    if (data.operation === "SET_PROFILE" && outcome.result === "ACCEPTED" && !entry.timedOut)
      await senders.add(data.sessionId, { partnerId: data.partnerId, party: data.party, requester: data.sender });
    // Only the ActiveChargingProfileResult carries a profile.
    const body = data.operation === "GET_ACTIVE_PROFILE" ? outcome : { result: outcome.result };
    // one id per request: a delivery repeated after a store failure (PendingKind.deliver) queues and sends it once
    await outbox.enqueue({
      id: `${RECEIVED_PROFILE_REQUESTS}:${entry.id}`,
      partnerId: data.partnerId,
      request: { method: "POST", target: { url: data.responseUrl }, body, from: data.party, to: data.sender },
      label: `POST chargingprofiles ${data.operation} result ${outcome.result}`,
      essential: true,
    });
    log.info({ partner: data.partnerId, operation: data.operation, id: entry.id, result: outcome.result }, "charging profile result queued for the partner");
  },
});

/** What the receiver routes work with. */
interface Receiving {
  port: ChargingProfilesReceiverPort;
  pending: PendingRequests;
  timeoutSeconds: number;
}

const receive = async (on: Receiving, req: OcpiRequest, responseUrl: string, request: Omit<ReceivedProfileRequest, "id">): Promise<OcpiReply> => {
  const { partner } = req.ctx;
  checkCallbackUrl("response_url", responseUrl, partner.config, partner.record);
  // Another eMSP's session (by its token owner, Part B) is answered like one that does not exist: nothing revealed, nothing executed.
  const session = await on.port.session(request.session_id, req.port);
  if (!session || !tokenOwnerInScope(req.port.scope, session)) return { data: { result: "UNKNOWN_SESSION", timeout: on.timeoutSeconds } };
  const id = randomUUID();
  const data: ReceivedProfileData = {
    partnerId: partner.id,
    operation: request.operation,
    sessionId: request.session_id,
    version: req.ctx.version,
    responseUrl,
    party: { country_code: req.ctx.party.country_code, party_id: req.ctx.party.party_id },
    sender: req.ctx.from,
  };
  // Open before the adapter hears of it: its result may come back before submit() does.
  await on.pending.open(RECEIVED_PROFILE_REQUESTS, id, data, Date.now() + on.timeoutSeconds * 1000);
  let result: ChargingProfileResponseType;
  try {
    result = await on.port.submit({ id, ...request }, req.port);
  } catch (error) {
    await on.pending.close(RECEIVED_PROFILE_REQUESTS, id);
    throw error;
  }
  if (result !== "ACCEPTED") await on.pending.close(RECEIVED_PROFILE_REQUESTS, id);
  return { data: { result, timeout: on.timeoutSeconds } };
};

/** Sent only to partners that once set a profile on the session, and can take the update (2.2+, a Sender endpoint). */
const activeProfileChanged = async (on: ProfileUpdates, sessionId: string, profile: ActiveChargingProfile): Promise<string[]> => {
  const notified: string[] = [];
  for (const sender of await on.senders.of(sessionId)) {
    const record = await on.registry.get(sender.partnerId);
    const reachable =
      record?.status === "registered" &&
      record.version !== "2.1.1" &&
      record.endpoints.some((e) => e.identifier === "chargingprofiles" && e.role === "SENDER");
    if (!reachable) {
      on.log.warn({ partner: sender.partnerId, session: sessionId }, "active charging profile not sent: the partner has no chargingprofiles Sender interface (any more)");
      continue;
    }
    await on.outbox.enqueue({
      partnerId: sender.partnerId,
      request: {
        method: "PUT",
        target: { module: "chargingprofiles", role: "SENDER", path: `/${encodeURIComponent(sessionId)}` },
        body: profile,
        from: sender.party,
        to: sender.requester,
      },
      label: `PUT chargingprofiles ${sessionId}`,
      // only the newest active profile of a session is worth sending
      collapseKey: `chargingprofiles:${sessionId}`,
    });
    notified.push(sender.partnerId);
  }
  return notified;
};
