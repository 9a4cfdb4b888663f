import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import type { PartyRef } from "../../core/protocol/types";
import { written } from "../../core/modules/receiver-writes";
import { invalid, notFound } from "../../core/contract/errors";
import { ocpiTimestamp } from "../../core/http/envelope";
import { FACS, TERMINALS, type FinancialAdviceConfirmation, type Terminal } from "./model";
import type { PaymentsReceiverPort } from "./ports";
import { createdTerminalObjectType, facObjectType, terminalObjectType } from "./translate";
import { requestingParty } from "./terminal-scope";

/**
 * Receiver interface (we are the CPO; OCPI 2.3.0 Payments module): the PTP partner
 * POSTs new Terminals and FACs to the sub-resources of our `payments` URL
 * and may read them back. Their paths name no owner: they are kept under
 * the PTP party they came from (the `from` routing header, checked by the
 * kernel, else the partner's only party).
 */
export const receiverRoutes = (port: PaymentsReceiverPort): RouteSpec[] => [
  {
    method: "POST",
    path: `/${TERMINALS}`,
    body: { type: createdTerminalObjectType, mode: "full" },
    handle: async (req: OcpiRequest<Terminal>) => {
      // The spec's minimal Terminal has no last_updated although its table requires one: the time of receipt.
      const terminal: Terminal = { ...req.body, last_updated: req.body.last_updated ?? ocpiTimestamp() };
      return written(await port.putTerminal(ptpOf(req), terminal, req.port));
    },
  },
  {
    method: "GET",
    path: `/${TERMINALS}/:terminal_id`,
    response: terminalObjectType,
    handle: async (req) => {
      const terminal = await port.getTerminal(ptpOf(req), req.params.terminal_id, req.port);
      if (!terminal) throw notFound("Terminal");
      return { data: terminal };
    },
  },
  {
    method: "POST",
    path: `/${FACS}`,
    body: { type: facObjectType, mode: "full" },
    handle: async (req: OcpiRequest<FinancialAdviceConfirmation>) => written(await port.putFac(ptpOf(req), req.body, req.port)),
  },
  {
    method: "GET",
    path: `/${FACS}/:fac_id`,
    response: facObjectType,
    handle: async (req) => {
      const fac = await port.getFac(ptpOf(req), req.params.fac_id, req.port);
      if (!fac) throw notFound("FinancialAdviceConfirmation");
      return { data: fac };
    },
  },
];

const ptpOf = (req: OcpiRequest): PartyRef => {
  const party = requestingParty(req);
  if (!party) throw invalid("from-country-code/from-party-id: name the PTP party the request comes from");
  return { country_code: party.country_code.toUpperCase(), party_id: party.party_id.toUpperCase() };
};
