import { ocpiTimestamp, partyKey, type ActiveChargingProfile, type ChargingProfile, type ChargingProfileResult, type ChargingProfilesReceiverPort, type ChargingProfilesSenderPort, type Connector, type Location, type PartyRef, type ProfileOperation, type SentProfileOutcome, type SentProfileRequest, type Session, type Store } from "../kit";
import type { LocalModule, LocalModuleContext } from "./local-module";
import { OwnedCollection } from "./owned-collection";
import { PlannedOutcomes, simulatorBehaviour } from "./simulator";

/** The embedded Smart Charging backend's inbox: every outcome of a request it issued, per request uid. */
export const PROFILE_OUTCOMES = "local:chargingprofiles:outcomes";
/** …and the latest ActiveChargingProfile each partner CPO sent per session, key `<partner id>:<session id>`. */
export const ACTIVE_PROFILES = "local:chargingprofiles:active";
/** The simulated charge point's memory: the profile set per session, key `<party>:<session id>`. */
const SET_PROFILES = "local:chargingprofiles:set";

export interface ReceivedProfileOutcomes extends SentProfileRequest {
  outcomes: SentProfileOutcome[];
}

export interface ReceivedActiveProfile {
  partner_id: string;
  session_id: string;
  profile: ActiveChargingProfile;
  /** how many updates came for the session */
  updates: number;
}

/** What the simulated charge point will report for an accepted request. */
interface PlannedResult {
  operation: ProfileOperation;
  party: PartyRef;
  session_id: string;
  result: "ACCEPTED" | "REJECTED";
  duration?: number;
  charging_profile?: ChargingProfile;
}

const maxPowerOf = (connector: Connector): number =>
  connector.max_electric_power ?? connector.max_voltage * connector.max_amperage * (connector.power_type === "AC_3_PHASE" ? 3 : 1);

/**
 * Charging profiles on the `local` adapter. Receiver (CPO): the simulated
 * charge point (adapters/local/simulator.ts) knows our party's sessions from
 * the store (the gateway answers UNKNOWN_SESSION for one it does not find),
 * accepts every request it is handed and later reports the configured outcome; accepted SETs and CLEARs change the
 * profile it remembers per session, and GET reports that one, or, with none
 * set, the connector's maximum power (rule 5). Sender (eMSP/SCSP): outcomes
 * and active-profile updates are kept in PROFILE_OUTCOMES and ACTIVE_PROFILES.
 */
export const localChargingProfiles: LocalModule = {
  seedKey: "chargingprofiles",
  portNames: ["chargingprofiles.RECEIVER", "chargingprofiles.SENDER"],
  create(store: Store, context?: LocalModuleContext) {
    const sessions = new OwnedCollection<Session>(store, "sessions");
    const locations = new OwnedCollection<Location>(store, "locations");
    const behaviour = simulatorBehaviour(context?.settings ?? {});
    const planned = new PlannedOutcomes<PlannedResult>(store, "local:simulator:chargingprofiles", context?.log);
    const setKey = (plan: PlannedResult) => `${partyKey(plan.party)}:${plan.session_id}`;

    const maximumProfile = async (plan: PlannedResult): Promise<ChargingProfile> => {
      const session = await sessions.get(plan.party, plan.session_id);
      const location = session ? await locations.get(plan.party, session.location_id) : undefined;
      const connector = location?.evses
        ?.find((e) => e.uid === session!.evse_uid)
        ?.connectors.find((c) => c.id === session!.connector_id);
      return { charging_rate_unit: "W", charging_profile_period: connector ? [{ start_period: 0, limit: maxPowerOf(connector) }] : [] };
    };

    const outcomeOf = async (plan: PlannedResult): Promise<ChargingProfileResult> => {
      if (plan.result === "REJECTED") return { result: "REJECTED" };
      switch (plan.operation) {
        case "SET_PROFILE":
          await store.put(SET_PROFILES, setKey(plan), plan.charging_profile);
          return { result: "ACCEPTED" };
        case "CLEAR_PROFILE":
          await store.delete(SET_PROFILES, setKey(plan));
          return { result: "ACCEPTED" };
        case "GET_ACTIVE_PROFILE": {
          const current = (await store.get<ChargingProfile>(SET_PROFILES, setKey(plan))) ?? (await maximumProfile(plan));
          return { result: "ACCEPTED", profile: { start_date_time: ocpiTimestamp(), charging_profile: { ...current, duration: plan.duration } } };
        }
      }
    };

    const receiver: ChargingProfilesReceiverPort = {
      connect: (sink) => planned.connect(async (id, plan) => sink.report(id, await outcomeOf(plan))),
      session: (id, ctx) => sessions.get(ctx.party, id),
      async submit(request, ctx) {
        const { outcome, delay_ms } = behaviour(request.operation);
        if (outcome === "NO_ANSWER") return "ACCEPTED";
        const { id, ...rest } = request;
        await planned.add(id, delay_ms, { ...rest, party: { country_code: ctx.party.country_code, party_id: ctx.party.party_id }, result: outcome });
        return "ACCEPTED";
      },
    };

    const sender: ChargingProfilesSenderPort = {
      async onOutcome(request, outcome) {
        await store.update<ReceivedProfileOutcomes>(PROFILE_OUTCOMES, request.uid, (current) => ({
          value: { ...request, outcomes: [...(current?.outcomes ?? []), outcome] },
        }));
      },
      async onActiveProfile(sessionId, profile, ctx) {
        await store.update<ReceivedActiveProfile>(ACTIVE_PROFILES, `${ctx.partnerId}:${sessionId}`, (current) => ({
          value: { partner_id: ctx.partnerId ?? "", session_id: sessionId, profile, updates: (current?.updates ?? 0) + 1 },
        }));
      },
    };

    return {
      ports: { "chargingprofiles.RECEIVER": receiver, "chargingprofiles.SENDER": sender },
      stop: () => planned.stop(),
      async seed() {
        throw new Error("charging profiles are not seeded: partners set them");
      },
    };
  },
};
