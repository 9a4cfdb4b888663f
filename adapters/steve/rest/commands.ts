import { ciKey } from "../../kit";
import type { CommandResponseType, CommandResult, CommandType, DisplayText, Token } from "../ocpi";
import { partyKey, type PartyRef } from "../../kit";
import { getJson, setJson, type KeyValue, type SteveLog } from "../contracts";
import type { SteveDb } from "../db/steve-db";
import { locationIdOf } from "../mapping/locations";
import type { SteveMappingSettings } from "../mapping/settings";
import type { SteveTags } from "../tags";
import { SteveRestError, type SteveRest } from "./client";
import { failureResult, resultOf } from "./results";

/**
 * OCPI commands → SteVe operations calls (docs/steve.md, "Commands").
 *
 * SteVe holds an operations call open until the station answers, so the
 * call runs in the background: the immediate answer waits at most
 * `answer_wait_ms` for it. If the call fails within that window (SteVe
 * unreachable, HTTP error) the answer is REJECTED with the reason (logged,
 * without credentials); otherwise ACCEPTED, and `outcome` resolves with the
 * CommandResult (rest/results.ts) whenever SteVe answers — FAILED or
 * TIMEOUT when the call fails later. Checks that need no call (unknown EVSE,
 * session, token refused by policy) answer REJECTED / UNKNOWN_SESSION.
 */

export interface SteveCommand {
  type: CommandType;
  /** the canonical request (response_url is the gateway's business) */
  request: Record<string, unknown>;
  /** the partner party that sent the command: reservations are theirs */
  sender: PartyRef;
}

export interface CommandAnswer {
  result: CommandResponseType;
  message?: DisplayText[];
}

export interface Submitted {
  answer: CommandAnswer;
  /** present only with an ACCEPTED answer; never rejects */
  outcome?: Promise<CommandResult>;
}

/** What the poller needs from a START_SESSION to call the Session's auth COMMAND and carry the reference. */
export interface PendingStart {
  chargeBoxId: string;
  idTag: string;
  at: string;
  authorization_reference?: string;
}

export const pendingStartKey = (idTag: string) => `steve:start:${idTag}`;
const reservationKey = (sender: PartyRef, reservationId: string) => `steve:reservation:${partyKey(sender)}:${reservationId}`;

interface Target {
  chargeBoxId: string;
  /** OCPP connectorId = the EVSE's number; undefined: any EVSE of the charge box */
  evseId?: number;
}

export interface SteveCommandsOptions {
  rest: SteveRest;
  db: SteveDb;
  tags: SteveTags;
  kv: KeyValue;
  log: SteveLog;
  mapping: SteveMappingSettings;
  answerWaitMs: number;
}

const rejected = (text: string, result: CommandResponseType = "REJECTED"): Submitted => ({ answer: { result, message: [{ language: "en", text }] } });

export class SteveCommands {
  constructor(private readonly o: SteveCommandsOptions) {}

  async submit(command: SteveCommand): Promise<Submitted> {
    try {
      switch (command.type) {
        case "START_SESSION":
          return await this.startSession(command.request);
        case "STOP_SESSION":
          return await this.stopSession(command.request);
        case "UNLOCK_CONNECTOR":
          return await this.unlock(command.request);
        case "RESERVE_NOW":
          return await this.reserveNow(command.request, command.sender);
        case "CANCEL_RESERVATION":
          return await this.cancelReservation(command.request, command.sender);
        default:
          return rejected("command not supported", "NOT_SUPPORTED");
      }
    } catch (err) {
      // A call made before the answer (tag provisioning, reading SteVe's database) failed.
      this.o.log.warn({ command: command.type, reason: (err as Error).message }, "steve: command refused, the central system is not available");
      return rejected(err instanceof SteveRestError ? "the central system is not reachable" : "the central system's database is not available");
    }
  }

  /** location_id + evse_uid ("<charge_box_id>-<evse_id>") → charge box and OCPP connectorId, checked against SteVe. */
  private async target(locationId: unknown, evseUid: unknown): Promise<Target | string> {
    if (typeof locationId !== "string") return "location_id is missing";
    if (typeof evseUid === "string") {
      const dash = evseUid.lastIndexOf("-");
      const chargeBoxId = evseUid.slice(0, dash);
      const evseId = Number(evseUid.slice(dash + 1));
      if (dash <= 0 || !Number.isInteger(evseId) || ciKey(locationIdOf(this.o.mapping, chargeBoxId)) !== ciKey(locationId)) return "unknown EVSE";
      // Ids are CiStrings; SteVe knows a station by its own spelling of the charge box id.
      const evse = (await this.o.db.evses([chargeBoxId])).find((e) => e.evseId === evseId && ciKey(e.chargeBoxId) === ciKey(chargeBoxId));
      return evse ? { chargeBoxId: evse.chargeBoxId, evseId } : "unknown EVSE";
    }
    const group = this.o.mapping.locations.find((g) => ciKey(g.id) === ciKey(locationId));
    const boxes = group ? group.charge_boxes : ciKey(locationIdOf(this.o.mapping, locationId)) === ciKey(locationId) ? [locationId] : [];
    const known = (await this.o.db.chargeBoxes(boxes)).map((b) => b.chargeBoxId);
    if (known.length === 0) return "unknown location";
    if (known.length > 1) return "the location has several charge stations: evse_uid is needed";
    return { chargeBoxId: known[0] };
  }

  private async startSession(request: Record<string, unknown>): Promise<Submitted> {
    const target = await this.target(request.location_id, request.evse_uid);
    if (typeof target === "string") return rejected(target);
    const tag = await this.o.tags.forCommand(request.token as Token);
    if (!tag.allowed) return rejected(tag.reason);
    const pending: PendingStart = { chargeBoxId: target.chargeBoxId, idTag: tag.idTag, at: new Date().toISOString() };
    if (typeof request.authorization_reference === "string") pending.authorization_reference = request.authorization_reference;
    await setJson(this.o.kv, pendingStartKey(tag.idTag), pending);
    const body: Record<string, unknown> = { chargeBoxIdList: [target.chargeBoxId], idTag: tag.idTag };
    if (target.evseId !== undefined) body.connectorId = target.evseId;
    return this.run("RemoteStartTransaction", body);
  }

  private async stopSession(request: Record<string, unknown>): Promise<Submitted> {
    const pk = Number(request.session_id);
    const [tx] = Number.isInteger(pk) && pk > 0 ? await this.o.db.transactions({ transactionPks: [pk] }) : [];
    if (!tx || tx.stopEventTimestamp) return rejected("no such running session", "UNKNOWN_SESSION");
    return this.run("RemoteStopTransaction", { chargeBoxIdList: [tx.chargeBoxId], transactionId: pk });
  }

  private async unlock(request: Record<string, unknown>): Promise<Submitted> {
    const target = await this.target(request.location_id, request.evse_uid);
    if (typeof target === "string") return rejected(target);
    // OCPP 1.x unlocks a connector, which is the OCPI EVSE; the OCPI connector (plug) has no say.
    return this.run("UnlockConnector", { chargeBoxIdList: [target.chargeBoxId], connectorId: target.evseId });
  }

  private async reserveNow(request: Record<string, unknown>, sender: PartyRef): Promise<Submitted> {
    const target = await this.target(request.location_id, request.evse_uid);
    if (typeof target === "string") return rejected(target);
    if (typeof request.reservation_id !== "string" || typeof request.expiry_date !== "string") return rejected("reservation_id and expiry_date are required");
    const tag = await this.o.tags.forCommand(request.token as Token);
    if (!tag.allowed) return rejected(tag.reason);
    const since = new Date(Date.now() - 5_000);
    const reservationId = request.reservation_id;
    const body = { chargeBoxIdList: [target.chargeBoxId], connectorId: target.evseId ?? 0, expiry: request.expiry_date, idTag: tag.idTag };
    return this.run("ReserveNow", body, async (result) => {
      if (result.result !== "ACCEPTED") return;
      // SteVe's reservation_pk is the OCPP reservationId; the eMSP's reservation_id maps to the row SteVe booked for this call.
      const row = (await this.o.db.reservations(since)).find(
        (r) => r.chargeBoxId === target.chargeBoxId && r.idTag === tag.idTag && (target.evseId === undefined || r.evseId === target.evseId),
      );
      if (row) await setJson(this.o.kv, reservationKey(sender, reservationId), { reservationPk: row.reservationPk, chargeBoxId: row.chargeBoxId });
      else this.o.log.warn({ chargeBoxId: target.chargeBoxId }, "steve: accepted reservation not found in the database; it cannot be cancelled by id");
    });
  }

  private async cancelReservation(request: Record<string, unknown>, sender: PartyRef): Promise<Submitted> {
    const key = reservationKey(sender, String(request.reservation_id));
    const known = await getJson<{ reservationPk: number; chargeBoxId: string }>(this.o.kv, key);
    // The eMSP hears of an id it never reserved (or another eMSP's) through the result, as OCPI has it.
    if (!known) return { answer: { result: "ACCEPTED" }, outcome: Promise.resolve({ result: "UNKNOWN_RESERVATION" }) };
    return this.run("CancelReservation", { chargeBoxIdList: [known.chargeBoxId], reservationId: known.reservationPk }, async (result) => {
      if (result.result === "ACCEPTED" || result.result === "UNKNOWN_RESERVATION") await this.o.kv.delete(key);
    });
  }

  /** Starts the blocking call; answers once it failed early, or after answer_wait_ms / its success. */
  private async run(operation: string, body: Record<string, unknown>, after?: (result: CommandResult) => Promise<void>): Promise<Submitted> {
    const call = this.o.rest.operation(operation, body).then(
      (answer) => ({ answer }) as const,
      (error: unknown) => ({ error }) as const,
    );
    let timer: NodeJS.Timeout | undefined;
    const early = await Promise.race([call, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.o.answerWaitMs)))]);
    clearTimeout(timer);
    if (early && "error" in early && !(early.error instanceof SteveRestError && early.error.kind === "timeout")) {
      this.o.log.warn({ operation, reason: (early.error as Error).message }, "steve: command refused, the central system did not take it");
      return rejected(early.error instanceof SteveRestError && early.error.kind === "http" ? "the central system refused the command" : "the central system is not reachable");
    }
    const outcome = call.then(async (settled) => {
      if ("error" in settled) this.o.log.warn({ operation, reason: (settled.error as Error).message }, "steve: command failed after it was accepted");
      const result = "answer" in settled ? resultOf(operation, settled.answer) : failureResult(settled.error);
      try {
        await after?.(result);
      } catch (err) {
        this.o.log.error({ operation, reason: (err as Error).message }, "steve: bookkeeping after a command failed");
      }
      return result;
    });
    return { answer: { result: "ACCEPTED" }, outcome };
  }
}
