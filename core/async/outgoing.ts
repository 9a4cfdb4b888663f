import type { Logger } from "pino";
import { DEFAULT_COMMAND_TIMEOUT_SECONDS, type GatewayConfig } from "../../config/types";
import { sameParty, type ModuleId, type PartyRef, type VersionNumber } from "../protocol/types";
import type { PendingRequests } from "./pending-requests";
import { Status } from "../protocol/status";
import { OcpiError, notFound } from "../contract/errors";
import { PartnerCallError } from "../client/ocpi-client";
import { absolute, modulePath } from "../http/urls";

/**
 * Asynchronous requests the gateway sends for the backend (commands,
 * charging profiles): the partner answers at once, and POSTs the outcome to
 * a response_url of ours later. The request waits in PendingRequests from
 * before it is sent until its outcome came or our deadline passed.
 */

/** What the gateway keeps about a request it sent. */
export interface SentRequest<Response> {
  partnerId: string;
  version: VersionNumber;
  /** our party that sent it */
  party: PartyRef;
  /** the party it is for, when the backend named one behind a hub (its to-headers); its outcome must come from it */
  to?: PartyRef;
  /** the partner's immediate answer, once it came */
  response?: Response;
  /** outcome POSTs received for it (more than one means the partner repeated itself) */
  callbacks: number;
  /** an outcome the partner posted after our TIMEOUT had been handed to the adapter: recorded, not delivered */
  lateOutcome?: unknown;
}

/** The partner's immediate answer to an asynchronous request: only ACCEPTED is followed by an outcome. */
export interface ImmediateAnswer {
  result: string;
  /** seconds the partner asks us to wait (absent in 2.1.1) */
  timeout?: number;
}

/** Seconds an asynchronous outcome may take (`server.command_timeout_seconds`). */
export const asyncTimeoutSeconds = (config: GatewayConfig): number => config.server.command_timeout_seconds ?? DEFAULT_COMMAND_TIMEOUT_SECONDS;

/**
 * When we stop waiting for the outcome of a request we sent: the partner's
 * announced timeout (ours when it announced none, as 2.1.1 does), plus our
 * own as a grace period, so the partner's own TIMEOUT normally arrives first.
 */
export const sentRequestDeadline = (config: GatewayConfig, announcedSeconds: number | undefined, now = Date.now()): number =>
  now + ((announcedSeconds ?? asyncTimeoutSeconds(config)) + asyncTimeoutSeconds(config)) * 1000;

/** A response_url on our public URL, under our Sender interface of the module; `rest` makes it unique, e.g. "/START_SESSION/<uid>". */
export const responseUrlFor = (config: GatewayConfig, version: VersionNumber, module: ModuleId, rest: string): string =>
  absolute(config.server.public_url, modulePath(version, module, "SENDER") + rest);

/** A failed call to a partner as the backend sees it: the partner's own 2xxx refusal passed on, anything else 3001. */
export const partnerFailure = (error: unknown): unknown => {
  if (!(error instanceof PartnerCallError)) return error;
  const refused = error.kind === "ocpi" && error.statusCode !== undefined && error.statusCode >= 2000 && error.statusCode < 3000;
  return new OcpiError(refused ? error.statusCode! : Status.CLIENT_API_UNREACHABLE, error.message);
};

/**
 * Sends a request through `call` while it waits in `pending` under `uid`: an
 * ACCEPTED answer waits for its outcome until the partner's timeout (plus
 * our grace) has passed; any other answer, or a failed call, closes it. A
 * closed request still takes an outcome the partner posts (receiveOutcome),
 * so a failure names the uid it would be handed to the adapter under.
 */
export const sendTracked = async <R extends ImmediateAnswer, D extends SentRequest<R>>(
  pending: PendingRequests,
  kind: string,
  uid: string,
  data: D,
  config: GatewayConfig,
  call: () => Promise<R>,
): Promise<R> => {
  // Pending before the partner hears of it: its outcome may arrive before its answer does.
  await pending.open(kind, uid, data, sentRequestDeadline(config, config.server.request_timeout_ms / 1000));
  let response: R;
  try {
    response = await call();
  } catch (error) {
    await pending.close(kind, uid);
    const failure = partnerFailure(error);
    if (!(failure instanceof OcpiError)) throw failure;
    throw new OcpiError(failure.statusCode, `${failure.message} (request ${uid}: an outcome the partner posts for it all the same is taken)`, failure.httpStatus);
  }
  const keep = (d: D): D => ({ ...d, response });
  if (response.result === "ACCEPTED") await pending.reschedule(kind, uid, sentRequestDeadline(config, response.timeout), keep);
  else await pending.close(kind, uid, keep);
  return response;
};

/** An outcome POSTed to one of our response_urls, and where it goes. */
export interface PostedOutcome<D> {
  pending: PendingRequests;
  kind: string;
  uid: string;
  /** the partner that posted it */
  partnerId: string;
  /** the party its from-headers name (absent in 2.1.1) */
  from?: PartyRef;
  /** whether the request is the one the URL names (e.g. its command type) */
  belongs: (data: D) => boolean;
  outcome: unknown;
  /** "Command", "Charging profile request": for messages */
  what: string;
  log: Logger;
}

/**
 * A request addressed to a party behind a hub takes its outcome from that party only: the hub relays it with
 * the receiver's from-headers (core/hub/result-relay.ts). Without from-headers, the partner and the URL decide.
 */
const fromAddressee = (data: SentRequest<unknown>, from: PartyRef | undefined): boolean =>
  !data.to || !from || sameParty(data.to, from);

/**
 * An outcome POSTed to one of our response_urls. Only the partner the request
 * went to may answer it (to others it is unknown: 404). An outcome for a
 * request we sent is never refused: it is a fact about the partner's side,
 * and answering an error would only make the partner retry or give up. The
 * first is taken and handed to the adapter once, whether the request was
 * pending or closed after a failed or declined answer; one that comes after
 * our TIMEOUT was handed over is recorded on the request (`lateOutcome`) and
 * logged, and the adapter, which hears one outcome per request, is not
 * called again; a repeat is only counted.
 */
export const receiveOutcome = async <D extends SentRequest<unknown>>(posted: PostedOutcome<D>): Promise<void> => {
  const { pending, kind, uid, what } = posted;
  const entry = await pending.get<D, unknown>(kind, uid);
  if (!entry || entry.data.partnerId !== posted.partnerId || !posted.belongs(entry.data) || !fromAddressee(entry.data, posted.from)) throw notFound(what);
  await pending.modify<D, unknown>(kind, uid, (d) => ({ ...d, callbacks: d.callbacks + 1 }));
  const settlement = await pending.settle(kind, uid, posted.outcome, { afterClose: true });
  if (settlement === "unknown") throw notFound(what);
  if (settlement === "settled") return;
  const finished = await pending.get<D, unknown>(kind, uid);
  const logged = { partner: posted.partnerId, kind, uid };
  if (finished?.timedOut) {
    await pending.modify<D, unknown>(kind, uid, (d) => ({ ...d, lateOutcome: posted.outcome }));
    posted.log.warn(logged, `${what} outcome came after our TIMEOUT: recorded, not handed to the adapter again`);
  } else posted.log.info(logged, `${what} outcome repeated by the partner: counted, the first one stands`);
};
