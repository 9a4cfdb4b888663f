import type { PartnerIdentity } from "../contract/request-context";
import type { PartnerProfile } from "../contract/partner-profile";
import type { InterfaceRole, PartyRef, VersionNumber } from "../protocol/types";

/** What a request addressed through the hub is: who sends, for whom, to which module interface. */
export interface Inbound {
  version: VersionNumber;
  role: InterfaceRole;
  module: string;
  rest: string;
  sender: PartnerIdentity;
  /** the sender's profile, from the admission */
  profile: PartnerProfile;
  from: PartyRef;
  to: PartyRef;
}
