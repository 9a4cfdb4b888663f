import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRequest, AdminRoute } from "../../core/contract/admin-route";
import type { PendingEntry, PendingRequests } from "../../core/async/pending-requests";
import type { PendingSpec } from "../../core/async/async-module";
import type { PartnerRegistry } from "../../core/partners/partner-registry";
import type { Store } from "../../core/contract/store";
import type { PartyRef } from "../../core/protocol/types";
import { invalid, invalidFields, notFound } from "../../core/contract/errors";
import { issuesOf } from "../../core/model/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import { receiveOutcome, responseUrlFor, sendTracked, type SentRequest } from "../../core/async/outgoing";
import { admitPartner } from "../../core/edge/admit";
import { written } from "../../core/modules/receiver-writes";
import type { ActiveChargingProfile, ChargingProfile, ChargingProfileResponse, ChargingProfileResult, ProfileOperation } from "./model";
import type { ChargingProfilesSenderPort } from "./ports";
import type { ChargingProfilesClient } from "./client";
import { targetParty } from "../hubclientinfo/reachable";
import { chargingProfileSchema } from "./schemas";
import { activeChargingProfileType, chargingProfileResultType } from "./translate";

/** Pending-request kind of the charging-profile requests the backend issued to partners. */
export const SENT_PROFILE_REQUESTS = "chargingprofiles.sent";

export interface SentProfileData extends SentRequest<ChargingProfileResponse> {
  operation: ProfileOperation;
  sessionId: string;
}

/** The outcome of a sent request: the partner's result, or null when none came in time. */
export type Outcome = ChargingProfileResult | null;

const sessionIdOf = (id: string): string => {
  if (id.length > 36) throw invalid("session_id must be at most 36 characters");
  return id;
};

/**
 * The Smart Charging side (eMSP/SCSP) of charging profiles (OCPI 2.2.1
 * ChargingProfiles module): the backend asks for the active profile of a
 * session at a partner CPO, sets or clears one (admin API); the gateway
 * sends the request with a response_url of its own, takes the result there
 * and hands it to the adapter once, or a timeout (SENT_PROFILE_REQUESTS_SPEC);
 * a result for a request we sent is never refused (core/async/outgoing.ts).
 * The CPO's unsolicited updates of a session's active profile arrive at
 * PUT {session_id} and go to the adapter too.
 */
export const senderRoutes = (port: ChargingProfilesSenderPort, pending: PendingRequests, log: Logger): RouteSpec[] => [
  {
    method: "POST",
    path: "/results/:uid",
    body: { type: chargingProfileResultType, mode: "full" },
    handle: async (req) => {
      await receiveOutcome<SentProfileData>({
        pending,
        kind: SENT_PROFILE_REQUESTS,
        uid: req.params.uid,
        partnerId: req.ctx.partner.id,
        from: req.ctx.from,
        belongs: () => true,
        outcome: req.body as ChargingProfileResult,
        what: "Charging profile request",
        log,
      });
      return written();
    },
  },
  {
    method: "PUT",
    path: "/:session_id",
    body: { type: activeChargingProfileType, mode: "full" },
    handle: async (req) => {
      await port.onActiveProfile(sessionIdOf(req.params.session_id), req.body as ActiveChargingProfile, req.port);
      return written();
    },
  },
];

/** What issuing a charging-profile request takes. */
export interface ProfileRequesting {
  pending: PendingRequests;
  client: ChargingProfilesClient;
  registry: PartnerRegistry;
  store: Store;
  config: GatewayConfig;
}

/** Each request may name `?to=NLCPO`, a CPO party behind the partner, a hub (plugins/hubclientinfo/reachable.ts). */
export const senderAdminRoutes = (on: ProfileRequesting): AdminRoute[] => [
  {
    method: "POST",
    path: "/chargingprofiles/:partner/:session_id/active",
    handle: async (req) => {
      const duration = (req.body as { duration?: unknown } | undefined)?.duration;
      if (typeof duration !== "number" || !Number.isInteger(duration) || duration < 0)
        throw invalid("/duration: must be a whole number of seconds (0 or more)");
      return { data: await issue(on, req, "GET_ACTIVE_PROFILE", (sessionId, url, to) => on.client.getActive(req.params.partner, sessionId, duration, url, to)) };
    },
  },
  {
    method: "PUT",
    path: "/chargingprofiles/:partner/:session_id",
    handle: async (req) => {
      const parsed = chargingProfileSchema().safeParse(withoutNulls(req.body ?? {}));
      if (!parsed.success) throw invalidFields(issuesOf(parsed.error));
      const profile = parsed.data as ChargingProfile;
      return { data: await issue(on, req, "SET_PROFILE", (sessionId, url, to) => on.client.set(req.params.partner, sessionId, profile, url, to)) };
    },
  },
  {
    method: "DELETE",
    path: "/chargingprofiles/:partner/:session_id",
    handle: async (req) => ({
      data: await issue(on, req, "CLEAR_PROFILE", (sessionId, url, to) => on.client.clear(req.params.partner, sessionId, url, to)),
    }),
  },
  {
    method: "GET",
    path: "/chargingprofiles/requests/:uid",
    handle: async (req) => {
      const entry = await on.pending.get<SentProfileData, Outcome>(SENT_PROFILE_REQUESTS, req.params.uid);
      if (!entry) throw notFound("Charging profile request");
      return { data: view(entry) };
    },
  },
];

/** Requests our backend sent: the partner's result, or a timeout, goes to the adapter once. */
export const SENT_PROFILE_REQUESTS_SPEC: PendingSpec<ChargingProfilesSenderPort, SentProfileData, Outcome> = {
  name: SENT_PROFILE_REQUESTS,
  timeoutOutcome: () => null,
  async deliver(port, entry, outcome) {
    const { data } = entry;
    await port.onOutcome(
      { uid: entry.id, partnerId: data.partnerId, operation: data.operation, session_id: data.sessionId },
      outcome ? { kind: "result", result: outcome } : { kind: "timeout" },
      { partnerId: data.partnerId, party: data.party, version: data.version },
    );
  },
};

const issue = async (
  on: ProfileRequesting,
  req: AdminRequest,
  operation: ProfileOperation,
  call: (sessionId: string, responseUrl: string, to: PartyRef | undefined) => Promise<ChargingProfileResponse>,
) => {
  const { config, registry } = on;
  const partnerId = req.params.partner;
  const sessionId = sessionIdOf(req.params.session_id);
  const { version } = await admitPartner({ config, registry }, partnerId, "chargingprofiles");
  if (version === "2.1.1") throw invalid(`chargingprofiles does not exist in OCPI 2.1.1, the version of partner ${partnerId}`);
  const to = await targetParty(config, on.store, registry, partnerId, req.query.to);
  const uid = randomUUID();
  const responseUrl = responseUrlFor(config, version, "chargingprofiles", `/results/${uid}`);
  const { country_code, party_id } = config.parties[0];
  const data: SentProfileData = { partnerId, operation, sessionId, version, party: { country_code, party_id }, to, callbacks: 0 };
  const response = await sendTracked(on.pending, SENT_PROFILE_REQUESTS, uid, data, config, () => call(sessionId, responseUrl, to));
  return { uid, response };
};

/** A sent request as the admin API shows it. */
const view = (entry: PendingEntry<SentProfileData, Outcome>) => ({
  uid: entry.id,
  partner_id: entry.data.partnerId,
  to: entry.data.to,
  operation: entry.data.operation,
  session_id: entry.data.sessionId,
  state: entry.state,
  response: entry.data.response,
  result: entry.outcome ?? undefined,
  timed_out: entry.timedOut ?? false,
  late_result: entry.data.lateOutcome,
  callbacks: entry.data.callbacks,
});
