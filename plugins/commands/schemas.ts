import { z } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import { ciString, dateTime, displayText, enumeration, perVersion, text, url } from "../../core/model/common-schemas";
import { tokenSchema } from "../tokens/schemas";
import { COMMAND_RESPONSE_TYPES, COMMAND_RESPONSE_TYPES_211, COMMAND_RESULT_TYPES } from "./model";

/**
 * Wire schemas of the commands module per version (OCPI 2.2.1 Commands module). 2.1.1
 * ids are string(39), its reservation_id an int, and it has neither
 * connector_id nor authorization_reference; CANCEL_RESERVATION is 2.2+.
 */

const id = (version: VersionNumber) => (version === "2.1.1" ? text(39) : ciString(36));

export const startSessionSchema = (version: VersionNumber) =>
  version === "2.1.1"
    ? z.looseObject({ response_url: url(), token: tokenSchema(version), location_id: id(version), evse_uid: id(version).optional() })
    : z
        .looseObject({
          response_url: url(),
          token: tokenSchema(version),
          location_id: id(version),
          evse_uid: id(version).optional(),
          connector_id: ciString(36).optional(),
          authorization_reference: ciString(36).optional(),
        })
        .refine((s) => s.connector_id === undefined || s.evse_uid !== undefined, {
          path: ["evse_uid"],
          message: "is required when connector_id is given",
        });

/** session_id is 36 characters in every version */
export const stopSessionSchema = () => z.looseObject({ response_url: url(), session_id: ciString(36) });

export const reserveNowSchema = (version: VersionNumber) =>
  z.looseObject({
    response_url: url(),
    token: tokenSchema(version),
    expiry_date: dateTime(),
    reservation_id: version === "2.1.1" ? z.int({ message: "must be an integer" }) : ciString(36),
    location_id: id(version),
    evse_uid: id(version).optional(),
    ...(version === "2.1.1" ? {} : { authorization_reference: ciString(36).optional() }),
  });

export const cancelReservationSchema = () => z.looseObject({ response_url: url(), reservation_id: ciString(36) });

export const unlockConnectorSchema = (version: VersionNumber) =>
  z.looseObject({ response_url: url(), location_id: id(version), evse_uid: id(version), connector_id: ciString(36) });

export const commandResponseSchema = (version: VersionNumber) =>
  version === "2.1.1"
    ? z.looseObject({ result: enumeration(COMMAND_RESPONSE_TYPES_211) })
    : z.looseObject({
        result: enumeration(COMMAND_RESPONSE_TYPES),
        timeout: z.int({ message: "must be an integer" }).min(0, { message: "must be >= 0" }),
        message: z.array(displayText()).optional(),
      });

/** 2.1.1 posts a CommandResponse to the response_url (2.1.1-d2); 2.2+ a CommandResult. */
const COMMAND_RESULT_SCHEMAS = perVersion((version) =>
  version === "2.1.1"
    ? z.looseObject({ result: enumeration(COMMAND_RESPONSE_TYPES_211) })
    : z.looseObject({ result: enumeration(COMMAND_RESULT_TYPES), message: z.array(displayText()).optional() }),
);
export const commandResultSchema = (version: VersionNumber) => COMMAND_RESULT_SCHEMAS[version];
