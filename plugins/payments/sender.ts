import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { invalid, notFound } from "../../core/contract/errors";
import { ocpiTimestamp } from "../../core/http/envelope";
import { sameCiString } from "../../core/model/common-schemas";
import { written } from "../../core/modules/receiver-writes";
import { FACS, TERMINALS, type Terminal, type TerminalActivation, type TerminalAssignment } from "./model";
import type { PaymentsSenderPort } from "./ports";
import { facObjectType, terminalActivationObjectType, terminalAssignmentObjectType, terminalObjectType, terminalUpdateObjectType } from "./translate";
import { checkNamedCpo, requestingParty, terminalInScope, terminalOf } from "./terminal-scope";
import type { FacOwners } from "./fac-owner";

const TERMINAL = `/${TERMINALS}/:terminal_id`;

/**
 * Sender interface (we are the PTP; Part A "Payments (PTP sender
 * interface)", OCPI 2.3.0 Payments module): below the one `payments` URL, the
 * terminals and financial-advice-confirmations sub-resources. A CPO
 * partner reaches only the terminals of its own parties (terminal-scope.ts)
 * and the FACs attributed to them (fac-owner.ts); another's is answered
 * like an unknown one (HTTP 404), and left out of lists and their counts.
 * Answers are `null` as Part A lists them, but for an activation, which
 * answers the activated Terminal: without a terminal_id in the request, it
 * is how the CPO learns the id the PTP chose (the spec leaves the answer
 * undefined, a gap in the spec text). The Terminal is also POSTed to the CPO (push).
 */
export const senderRoutes = (port: PaymentsSenderPort, owners: FacOwners): RouteSpec[] => {
  /** The terminal the path names, if the partner may act on it; HTTP 404 as for an unknown one otherwise. */
  const ownTerminal = async (req: OcpiRequest): Promise<Terminal> => {
    const terminal = await port.getTerminal(req.params.terminal_id, req.port);
    if (!terminal || !terminalInScope(terminal, req.port.scope)) throw notFound("Terminal");
    return terminal;
  };

  return [
    {
      method: "GET",
      path: `/${TERMINALS}`,
      paginated: true,
      response: terminalObjectType,
      handle: async (req) => ({ page: await port.listTerminals(req.page, req.port) }),
    },
    {
      method: "POST",
      path: `/${TERMINALS}/activate`,
      body: { type: terminalActivationObjectType, mode: "full" },
      response: terminalObjectType,
      handle: async (req: OcpiRequest<TerminalActivation>) => {
        const request = { ...req.body };
        if (request.country_code === undefined && request.party_id === undefined) {
          // The CPO asking is the one the terminal is for, unless the body names one of its parties.
          const cpo = requestingParty(req);
          if (!cpo) throw invalid("/country_code: name the CPO party (country_code and party_id) the terminal is for");
          Object.assign(request, { country_code: cpo.country_code, party_id: cpo.party_id });
        } else checkNamedCpo(request, req.port.scope);
        if (request.terminal_id !== undefined) {
          const current = await port.getTerminal(request.terminal_id, req.port);
          // another CPO's terminal is answered like an unknown one
          if (current && current.country_code !== undefined && !terminalInScope(current, req.port.scope)) throw notFound("Terminal");
        }
        return { data: terminalOf(await port.activateTerminal(request, req.port)) };
      },
    },
    {
      method: "GET",
      path: TERMINAL,
      response: terminalObjectType,
      handle: async (req) => ({ data: await ownTerminal(req) }),
    },
    {
      method: "PUT",
      path: TERMINAL,
      body: { type: terminalUpdateObjectType, mode: "full" },
      handle: async (req: OcpiRequest<Partial<Terminal>>) => {
        const current = await ownTerminal(req);
        if (req.body.terminal_id !== undefined && !sameCiString(req.body.terminal_id, current.terminal_id))
          throw invalid(`/terminal_id ${req.body.terminal_id} differs from the URL's ${req.params.terminal_id}`);
        checkNamedCpo(req.body, req.port.scope);
        // The spec's own example PUTs only the fields it sets (customer_reference, invoice_base_url):
        // what a PUT leaves out keeps its value, so an update never loses the assignment or the address.
        const terminal: Terminal = {
          ...current,
          ...req.body,
          terminal_id: current.terminal_id,
          last_updated: req.body.last_updated ?? ocpiTimestamp(),
        };
        terminalOf(await port.updateTerminal(terminal, req.port));
        return written();
      },
    },
    {
      method: "PATCH",
      path: TERMINAL,
      body: { type: terminalAssignmentObjectType, mode: "full" },
      handle: async (req: OcpiRequest<TerminalAssignment>) => {
        const current = await ownTerminal(req);
        terminalOf(await port.assignTerminal(current.terminal_id, req.body, req.port));
        return written();
      },
    },
    {
      method: "POST",
      path: `${TERMINAL}/deactivate`,
      handle: async (req) => {
        const current = await ownTerminal(req);
        terminalOf(await port.deactivateTerminal(current.terminal_id, req.port));
        return written();
      },
    },
    {
      method: "GET",
      path: `/${FACS}`,
      paginated: true,
      response: facObjectType,
      handle: async (req) => ({ page: await port.listFacs(req.page, req.port, (fac) => owners.visibleTo(fac, req.port.scope)) }),
    },
    {
      method: "GET",
      path: `/${FACS}/:fac_id`,
      response: facObjectType,
      handle: async (req) => {
        const fac = await port.getFac(req.params.fac_id, req.port);
        if (!fac || !(await owners.visibleTo(fac, req.port.scope))) throw notFound("FinancialAdviceConfirmation");
        return { data: fac };
      },
    },
  ];
};
