import type { PartyRef } from "../protocol/types";
import type { PartnerProfile } from "../contract/partner-profile";

/**
 * The party an outbound call is addressed to (its `to` routing headers), the one rule for every module.
 * `forParty` is the party the message is for, set by whoever made it from the object's owner: the token's
 * owner for Sessions, CDRs and results, the party a command or charging-profile request names. That party
 * is addressed as it is, also through a hub ("via hub (addressed)", OCPI 2.2.1 Transport and format, Message routing): the hub forwards it.
 * A message for nobody in particular (Locations, Tariffs, Tokens: data for everyone) goes to the partner's
 * hub party when the partner is a hub (§1.3 "Broadcast push: TO = Hub", which passes it on to every party
 * of the opposite role), else to the partner's first party.
 */
export const addresseeOf = (partner: PartnerProfile, forParty: PartyRef | undefined): PartyRef | undefined =>
  forParty ?? (partner.hub ? hubPartyOf(partner) : partner.record.roles[0]);

/**
 * The hub's own party: the operator's `partners[].roles` HUB entry when it names one, else the 2.3.0
 * `hub_party_id` the hub registered with, else its HUB role (2.2.1 credentials, §2.3), else its first role.
 */
const hubPartyOf = ({ roles, record }: PartnerProfile): PartyRef | undefined => {
  const named = roles?.find((r) => r.role === "HUB")?.party ?? record.hubPartyId;
  if (named) return { country_code: named.slice(0, 2), party_id: named.slice(2) };
  return record.roles.find((r) => r.role === "HUB") ?? record.roles[0];
};
