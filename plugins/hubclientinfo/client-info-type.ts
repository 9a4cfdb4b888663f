import { z } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import { countryCode, dateTime, enumeration, partyId, role } from "../../core/model/common-schemas";
import { defineObjectType } from "../../core/model/object-type";
import { CONNECTION_STATUSES, type ClientInfo } from "../../core/hub/client-info";

/** ClientInfo (OCPI 2.2.1 HubClientInfo module): 2.2.1 and 2.3.0 differ only in the Role enumeration (2.3.0 has no HUB). */
const clientInfoSchema = (version: VersionNumber) =>
  z.looseObject({
    party_id: partyId(),
    country_code: countryCode(),
    role: role(version),
    status: enumeration(CONNECTION_STATUSES),
    last_updated: dateTime(),
  });

export const clientInfoType = defineObjectType<ClientInfo>({
  name: "ClientInfo",
  schemas: { "2.3.0": clientInfoSchema("2.3.0"), "2.2.1": clientInfoSchema("2.2.1"), "2.1.1": clientInfoSchema("2.2.1") },
  translators: {},
});
