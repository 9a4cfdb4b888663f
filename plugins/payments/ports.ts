import type { Page, PageRequest } from "../../core/contract/page";
import type { PortContext, PutOutcome } from "../../core/contract/port-context";
import type { PartyRef } from "../../core/protocol/types";
import type { FinancialAdviceConfirmation, Terminal, TerminalActivation, TerminalAssignment } from "./model";

/**
 * Ports of the payments module (Part A "Payments", OCPI 2.3.0 Payments module).
 *
 * SENDER (we are the PTP): our terminals and FACs, and the CPO's requests
 * on them. A Terminal belongs to the CPO its `country_code`/`party_id`
 * name: lists and reads return only those `inScope` of `ctx.scope` (a
 * terminal naming no CPO yet is nobody's). FACs name no CPO: the plugin
 * decides whose one is (fac-owner.ts), and a list counts and pages only
 * those `visible` says the partner may see. A backend that cannot answer now
 * throws BackendUnavailableError (HTTP 503 + 3000).
 *
 * RECEIVER (we are the CPO): what a PTP partner posts, kept per PTP party
 * (`owner`: the party it came from).
 */

/** What the PTP's backend made of a CPO's request on a terminal. */
export type TerminalOutcome =
  | { kind: "done"; terminal: Terminal }
  /** no such terminal (or, for an activation without id, none left for the CPO): HTTP 404 */
  | { kind: "unknown_terminal"; reason?: string }
  /** refused, e.g. already active or no stock: 2001 naming `field` */
  | { kind: "refused"; field: string; reason: string };

export interface PaymentsSenderPort {
  listTerminals(page: PageRequest, ctx: PortContext): Promise<Page<Terminal>>;
  getTerminal(terminalId: string, ctx: PortContext): Promise<Terminal | undefined>;
  /** replaces what the CPO may set (Part A: customer_reference, invoice_base_url, …); `terminal.terminal_id` is the path's */
  updateTerminal(terminal: Terminal, ctx: PortContext): Promise<TerminalOutcome>;
  /** adds the locations and EVSEs to the current assignment: a union (OCPI 2.3.0 Payments module) */
  assignTerminal(terminalId: string, assignment: TerminalAssignment, ctx: PortContext): Promise<TerminalOutcome>;
  /** activates the named terminal, or, without terminal_id, the next one the PTP has for this CPO */
  activateTerminal(request: TerminalActivation, ctx: PortContext): Promise<TerminalOutcome>;
  deactivateTerminal(terminalId: string, ctx: PortContext): Promise<TerminalOutcome>;
  listFacs(page: PageRequest, ctx: PortContext, visible: (fac: FinancialAdviceConfirmation) => Promise<boolean>): Promise<Page<FinancialAdviceConfirmation>>;
  getFac(id: string, ctx: PortContext): Promise<FinancialAdviceConfirmation | undefined>;
}

export interface PaymentsReceiverPort {
  getTerminal(owner: PartyRef, terminalId: string, ctx: PortContext): Promise<Terminal | undefined>;
  /** creates or replaces (a terminal activated again is posted again) */
  putTerminal(owner: PartyRef, terminal: Terminal, ctx: PortContext): Promise<PutOutcome>;
  getFac(owner: PartyRef, id: string, ctx: PortContext): Promise<FinancialAdviceConfirmation | undefined>;
  /** creates or replaces: a FAC is delivered at least once, and a later capture may change its status */
  putFac(owner: PartyRef, fac: FinancialAdviceConfirmation, ctx: PortContext): Promise<PutOutcome>;
}
