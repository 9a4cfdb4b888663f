import type { Store } from "../../core/contract/store";
import type { PartyRef } from "../../core/protocol/types";

const COLLECTION = "chargingprofiles:senders";

/** A partner that once set a charging profile on a session, and our party it set it with. */
export interface ProfileSender {
  partnerId: string;
  party: PartyRef;
  /** the party that set it (its from-headers; absent in 2.1.1): its updates are addressed there, also behind a hub */
  requester?: PartyRef;
}

interface SessionSenders {
  session_id: string;
  senders: ProfileSender[];
}

/**
 * Which partners ever set a charging profile successfully on which of our
 * sessions (Part B, ActiveChargingProfile rules 1-2): only they are sent
 * updates of the session's active profile. Session ids are unique within
 * the CPO platform, so they are the key.
 */
export class ProfileSenders {
  constructor(private readonly store: Store) {}

  /** Idempotent: a result delivered twice records the partner once. */
  async add(sessionId: string, sender: ProfileSender): Promise<void> {
    await this.store.update<SessionSenders>(COLLECTION, sessionId, (current) => {
      const senders = current?.senders ?? [];
      if (senders.some((s) => s.partnerId === sender.partnerId)) return undefined;
      return { value: { session_id: sessionId, senders: [...senders, sender] } };
    });
  }

  async of(sessionId: string): Promise<ProfileSender[]> {
    return (await this.store.get<SessionSenders>(COLLECTION, sessionId))?.senders ?? [];
  }
}
