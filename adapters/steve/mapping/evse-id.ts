import { DEFAULT_EVSE_ID_PATTERN } from "./settings";

/**
 * eMI3 EVSE ids (`DE*ABC*E…`): the id part allows only letters, digits and
 * `*`, so the charge box id is upper-cased and stripped of anything else.
 */
const idPart = (value: string): string => value.toUpperCase().replace(/[^A-Z0-9]/g, "");

export function emi3EvseId(
  pattern: string | undefined,
  party: { country_code: string; party_id: string },
  chargeBoxId: string,
  evseId: number,
): string {
  return (pattern ?? DEFAULT_EVSE_ID_PATTERN)
    .replaceAll("{cc}", party.country_code.toUpperCase())
    .replaceAll("{party}", party.party_id.toUpperCase())
    .replaceAll("{charge_box}", idPart(chargeBoxId))
    .replaceAll("{evse}", String(evseId));
}

/** The EVSE's OCPI uid: stable across SteVe's 3.13 rename, unlike evse_pk/connector_pk. */
export const evseUid = (chargeBoxId: string, evseId: number): string => `${chargeBoxId}-${evseId}`;
