import type { ZodType } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import { defineObjectType } from "../../core/model/object-type";
import { type ObjectType, type TranslationContext, type TranslationLoss } from "../../core/contract/object-type";
import { invalid } from "../../core/contract/errors";
import { tokenObjectType } from "../tokens/translate";
import type { Token } from "../tokens/model";
import type { CommandRequest, CommandResponse, CommandResult } from "./model";
import {
  cancelReservationSchema,
  commandResponseSchema,
  commandResultSchema,
  reserveNowSchema,
  startSessionSchema,
  stopSessionSchema,
  unlockConnectorSchema,
} from "./schemas";

/**
 * Command requests, CommandResponse and CommandResult across versions. 2.2.1
 * differs from 2.3.0 only in the Token it carries (closed TokenType); 2.1.1
 * in its Token, an integer reservation_id, no connector_id or
 * authorization_reference, and a CommandResponse in place of CommandResult.
 */

type Wire = Record<string, unknown>;

export const COMMANDS_TRANSLATION_LOSSES: readonly TranslationLoss[] = [
  { object: "StartSession", field: "connector_id", versions: ["2.1.1"], why: "2.2+; the charge point picks the connector" },
  { object: "StartSession", field: "authorization_reference", versions: ["2.1.1"], why: "2.2+" },
  { object: "ReserveNow", field: "authorization_reference", versions: ["2.1.1"], why: "2.2+" },
  { object: "CommandResponse", field: "message", versions: ["2.1.1"], why: "2.1.1 CommandResponse has only result" },
  { object: "CommandResponse", field: "result", versions: ["2.1.1"], why: "a 2.1.1 TIMEOUT answer is taken as REJECTED (2.2+ has no TIMEOUT response)" },
  { object: "CommandResult", field: "result", versions: ["2.1.1"], why: "results other than ACCEPTED, REJECTED, TIMEOUT, NOT_SUPPORTED are sent as REJECTED; UNKNOWN_SESSION is taken as REJECTED" },
  { object: "CommandResult", field: "message", versions: ["2.1.1"], why: "2.1.1 posts a CommandResponse, which has only result" },
];

const tokenUp = (wire: Wire, version: VersionNumber, tx: TranslationContext): Wire =>
  wire.token === undefined ? wire : { ...wire, token: tokenObjectType.up(wire.token, version, tx) };

const tokenDown = (canonical: Wire, version: VersionNumber, tx: TranslationContext): Wire =>
  canonical.token === undefined ? { ...canonical } : { ...canonical, token: tokenObjectType.down(canonical.token as Token, version, tx) };

const dropFor211 = (wire: Wire, fields: readonly string[], tx: TranslationContext): Wire => {
  const out = { ...wire };
  for (const field of fields) {
    if (out[field] === undefined) continue;
    tx.dropped(field, "not in 2.1.1");
    delete out[field];
  }
  return out;
};

/** 2.1.1 reservation ids are integers; a 2.2+ id that is not one cannot be sent to a 2.1.1 partner. */
const reservationIdDown = (id: unknown): number => {
  if (typeof id !== "string" || !/^\d{1,15}$/.test(id)) throw invalid("/reservation_id must be a whole number for a partner on OCPI 2.1.1");
  return Number(id);
};

const commandRequestType = (
  name: string,
  schema: (version: VersionNumber) => ZodType,
  options: { only211?: readonly string[]; reservationId?: boolean; versions?: readonly VersionNumber[] } = {},
): ObjectType<CommandRequest> => {
  const versions = options.versions ?? (["2.3.0", "2.2.1", "2.1.1"] as const);
  const schemas = Object.fromEntries(versions.map((v) => [v, schema(v)])) as Record<VersionNumber, ZodType>;
  return defineObjectType<CommandRequest>({
    name,
    schemas,
    translators: {
      "2.2.1": { up: (wire) => wire as CommandRequest, down: (canonical, tx) => tokenDown(canonical, "2.2.1", tx) },
      "2.1.1": {
        up: (wire: Wire, tx) => {
          const out = tokenUp(wire, "2.1.1", tx);
          if (options.reservationId && typeof out.reservation_id === "number") out.reservation_id = String(out.reservation_id);
          return out as CommandRequest;
        },
        down: (canonical, tx) => {
          const out = dropFor211(tokenDown(canonical, "2.1.1", tx), options.only211 ?? [], tx);
          if (options.reservationId) out.reservation_id = reservationIdDown(out.reservation_id);
          return out;
        },
      },
    },
  });
};

export const startSessionType = commandRequestType("StartSession", startSessionSchema, { only211: ["connector_id", "authorization_reference"] });
export const stopSessionType = commandRequestType("StopSession", stopSessionSchema);
export const reserveNowType = commandRequestType("ReserveNow", reserveNowSchema, { only211: ["authorization_reference"], reservationId: true });
export const cancelReservationType = commandRequestType("CancelReservation", cancelReservationSchema, { versions: ["2.3.0", "2.2.1"] });
export const unlockConnectorType = commandRequestType("UnlockConnector", unlockConnectorSchema);

export const commandResponseType = defineObjectType<CommandResponse>({
  name: "CommandResponse",
  schemas: { "2.3.0": commandResponseSchema("2.3.0"), "2.2.1": commandResponseSchema("2.2.1"), "2.1.1": commandResponseSchema("2.1.1") },
  translators: {
    "2.1.1": {
      up: (wire: Wire, tx) => {
        if (wire.result !== "TIMEOUT") return wire as CommandResponse;
        tx.dropped("result", "a 2.1.1 TIMEOUT answer is taken as REJECTED");
        return { ...wire, result: "REJECTED" } as CommandResponse;
      },
      down: ({ result, message }, tx) => {
        if (message?.length) tx.dropped("message", "2.1.1 CommandResponse has only result");
        return { result };
      },
    },
  },
});

/** The results a 2.1.1 CommandResponse can carry. */
const RESULTS_211 = new Set(["ACCEPTED", "REJECTED", "TIMEOUT", "NOT_SUPPORTED"]);

export const commandResultType = defineObjectType<CommandResult>({
  name: "CommandResult",
  schemas: { "2.3.0": commandResultSchema("2.3.0"), "2.2.1": commandResultSchema("2.2.1"), "2.1.1": commandResultSchema("2.1.1") },
  translators: {
    "2.1.1": {
      up: (wire: Wire, tx) => {
        if (wire.result !== "UNKNOWN_SESSION") return wire as CommandResult;
        tx.dropped("result", "2.2+ CommandResult has no UNKNOWN_SESSION: taken as REJECTED");
        return { ...wire, result: "REJECTED" } as CommandResult;
      },
      down: ({ result, message }, tx) => {
        if (message?.length) tx.dropped("message", "2.1.1 posts a CommandResponse, which has only result");
        if (RESULTS_211.has(result)) return { result };
        tx.dropped("result", `${result} is sent as REJECTED`);
        return { result: "REJECTED" };
      },
    },
  },
});
