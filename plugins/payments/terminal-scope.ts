import type { OcpiRequest } from "../../core/contract/module-plugin";
import type { PartyRef } from "../../core/protocol/types";
import { inScope, type PartyScope } from "../../core/contract/party-scope";
import { OcpiError, invalid, notFound } from "../../core/contract/errors";
import { Status } from "../../core/protocol/status";
import type { Terminal } from "./model";
import type { TerminalOutcome } from "./ports";

/**
 * Which CPO a Terminal serves: its own `country_code`/`party_id` (Part A:
 * "alternative to customer_reference"). A CPO partner sees and acts on the
 * terminals of its own parties only (core/partners/party-scope.ts); one
 * naming no CPO yet (shipped, not activated) is nobody's.
 */
export const terminalCpo = (terminal: Partial<Terminal>): PartyRef | undefined =>
  terminal.country_code && terminal.party_id
    ? { country_code: terminal.country_code.toUpperCase(), party_id: terminal.party_id.toUpperCase() }
    : undefined;

export const terminalInScope = (terminal: Partial<Terminal>, scope: PartyScope): boolean => {
  const cpo = terminalCpo(terminal);
  return cpo !== undefined && inScope(scope, cpo);
};

/** The party a request speaks for: its `from` routing header (checked by the kernel), else the partner's only party. */
export const requestingParty = (req: OcpiRequest): PartyRef | undefined =>
  req.ctx.from ?? (req.port.scope.parties.length === 1 ? req.port.scope.parties[0] : undefined);

/**
 * A CPO party a body names must be the partner's own (a CPO cannot give a
 * terminal to another); 2001 naming the field otherwise.
 */
export const checkNamedCpo = (body: Partial<Terminal>, scope: PartyScope): void => {
  if (body.country_code === undefined && body.party_id === undefined) return;
  const cpo = terminalCpo(body);
  if (!cpo) throw invalid(`/${body.country_code === undefined ? "country_code" : "party_id"}: country_code and party_id name the CPO together`);
  if (!inScope(scope, cpo)) throw invalid(`/country_code: ${cpo.country_code}/${cpo.party_id} is not one of the partner's parties`);
};

/** A port's outcome as an answer: the Terminal, HTTP 404 for an unknown one, 2001 naming the field of a refusal. */
export const terminalOf = (outcome: TerminalOutcome): Terminal => {
  switch (outcome.kind) {
    case "done":
      return outcome.terminal;
    case "unknown_terminal":
      throw outcome.reason ? new OcpiError(Status.INVALID_PARAMETERS, outcome.reason, 404) : notFound("Terminal");
    case "refused":
      throw invalid(`/${outcome.field}: ${outcome.reason}`);
  }
};
