import type { OcpiRequest } from "../plugin";
import type { PortContext } from "../ports";
import type { PartyRef } from "../protocol/types";
import { sameParty } from "../protocol/types";
import { invalid } from "../http/errors";

/**
 * Rules every receiver interface shares (ocpi-notes §1.9): the owner in the
 * path must be one of the authenticated partner's roles, and the owner and
 * id inside a pushed object must equal the path's.
 */
export const ownerFromPath = (req: OcpiRequest): PartyRef => {
  const owner = { country_code: req.params.country_code.toUpperCase(), party_id: req.params.party_id.toUpperCase() };
  if (!/^[A-Z]{2}$/.test(owner.country_code)) throw invalid("path country_code must be 2 letters");
  if (!/^[A-Z0-9]{3}$/.test(owner.party_id)) throw invalid("path party_id must be 3 alphanumeric characters");
  const { roles, hubPartyId } = req.ctx.partner.record;
  const relaying = hubPartyId !== undefined || roles.some((r) => r.role === "HUB");
  if (!relaying && !roles.some((r) => sameParty(r, owner)))
    throw invalid(`${owner.country_code}/${owner.party_id} is not one of the partner's parties`);
  return owner;
};

/** The object's own country_code/party_id and id must match the URL (2001 otherwise). */
export const checkBodyIdentity = (
  body: Record<string, unknown>,
  owner: PartyRef,
  ids: Record<string, string | undefined>,
): void => {
  const cc = body.country_code;
  const pid = body.party_id;
  if (cc !== undefined && String(cc).toUpperCase() !== owner.country_code)
    throw invalid(`/country_code ${String(cc)} differs from the URL's ${owner.country_code}`);
  if (pid !== undefined && String(pid).toUpperCase() !== owner.party_id)
    throw invalid(`/party_id ${String(pid)} differs from the URL's ${owner.party_id}`);
  for (const [field, expected] of Object.entries(ids)) {
    if (expected === undefined) continue;
    if (body[field] !== undefined && body[field] !== expected) throw invalid(`/${field} ${String(body[field])} differs from the URL's ${expected}`);
  }
};

/** The port context of an HTTP request. */
export const portContext = (req: OcpiRequest): PortContext => ({
  partnerId: req.ctx.partner.id,
  party: req.ctx.party,
  version: req.ctx.version,
  correlationId: req.ctx.correlationId,
});
