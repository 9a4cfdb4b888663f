import { parseArgs } from "node:util";
import { actionOf, bodyOption, runStoreCommand, STORE_COMMAND_OPTIONS, UsageError, type Lines } from "./store-command";
import type { PtpDesk } from "../plugins/payments/ptp-desk";
import type { FinancialAdviceConfirmation, Terminal } from "../plugins/payments/model";
import type { Gateway } from "./gateway";

export const TERMINALS_USAGE = `Usage (we are the CPO; <partner> is the PTP partner's id):
  ocpi-gateway terminals list <partner> [--json]
  ocpi-gateway terminals get <partner> <terminal_id>
  ocpi-gateway terminals activate <partner> [--id TERMINAL_ID] [--customer-reference REF] [--location ID]... [--evse UID]... [--body JSON] [--json]
  ocpi-gateway terminals deactivate <partner> <terminal_id>
  ocpi-gateway terminals assign <partner> <terminal_id> [--location ID]... [--evse UID]...
  ocpi-gateway terminals update <partner> <terminal_id> --body JSON
  ocpi-gateway terminals facs <partner> [--json]
Each takes [--config FILE]. --body is a Terminal's fields as JSON (2.3.0), e.g. '{"invoice_base_url":"https://…"}'.
Exit code 0: done; 1: refused or failed (the message names the field or the reason); 2: usage error.`;

/** How many positionals after the action each one takes: the partner, and the terminal id. */
const ARITY = { list: 1, facs: 1, activate: 1, get: 2, deactivate: 2, assign: 2, update: 2 } as const;

/**
 * `ocpi-gateway terminals …`: the CPO's backend acting on a PTP partner's
 * terminals from the command line, through the same PtpDesk as the admin
 * API (`/admin/v1/payments/<partner>/…`): the same checks (2001 naming the
 * field), the same calls to the PTP, the same answers. It runs on the
 * gateway's store and registrations, beside a serving gateway, like the
 * `partners` and `sync` commands.
 */
export const runTerminalsCommand = (argv: string[], out: Lines, err: Lines): Promise<number> =>
  runStoreCommand({ name: "terminals", usage: TERMINALS_USAGE, parse, served: deskOf, notServed: "this gateway does not serve the payments Receiver (modules.payments with role RECEIVER): it is no CPO of a PTP", run }, argv, out, err);

const parse = (argv: string[]) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...STORE_COMMAND_OPTIONS,
      id: { type: "string" },
      "customer-reference": { type: "string" },
      location: { type: "string", multiple: true },
      evse: { type: "string", multiple: true },
      body: { type: "string" },
    },
    allowPositionals: true,
  });
  if (values.help) return "help" as const;
  const { action, partner, id: terminalId } = actionOf(positionals, ARITY, "terminal_id");
  if (action === "update" && values.body === undefined) throw new UsageError("update needs --body with the fields to set");
  let body = bodyOption(values.body);
  // the flags are shorthands for fields of the body; a body that is no object is the desk's to refuse (2001)
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    if (values.id !== undefined) body = { ...body, terminal_id: values.id };
    if (values["customer-reference"] !== undefined) body = { ...body, customer_reference: values["customer-reference"] };
    if (values.location) body = { ...body, location_ids: values.location };
    if (values.evse) body = { ...body, evse_uids: values.evse };
  }
  return {
    action,
    partner,
    terminalId: terminalId ?? "",
    body,
    json: values.json ?? false,
    configFile: values.config ?? process.env.GATEWAY_CONFIG ?? "./gateway.config.yaml",
  };
};

type Command = Exclude<ReturnType<typeof parse>, "help">;

/** The PtpDesk of the payments plugin this gateway serves as a Receiver, if it does. */
const deskOf = async (gateway: Gateway): Promise<PtpDesk | undefined> => {
  const [{ ModuleCatalog }, { PaymentsPlugin }] = await Promise.all([import("../core/modules/module-catalog"), import("../plugins/payments/module")]);
  const served = gateway.container.resolve(ModuleCatalog).served.find((s) => s.plugin.module === "payments" && s.role === "RECEIVER");
  return served?.plugin instanceof PaymentsPlugin ? served.plugin.desk : undefined;
};

const run = async (desk: PtpDesk, { action, partner, terminalId, body, json }: Command, out: (line: string) => void): Promise<void> => {
  const print = (value: unknown) => out(JSON.stringify(value, null, 2));
  switch (action) {
    case "list": {
      const terminals = await desk.terminals(partner);
      if (json) return print(terminals);
      if (!terminals.length) return out(`${partner} lists no terminals of ours`);
      for (const t of terminals) out(describeTerminal(t));
      return;
    }
    case "get":
      return print(await desk.terminal(partner, terminalId));
    case "activate": {
      const answer = await desk.activate(partner, body);
      if (json) return print(answer);
      const id = (answer as Partial<Terminal> | null)?.terminal_id;
      out(id ? `Activated terminal ${id} at ${partner}` : `${partner} took the activation (it answered no Terminal)`);
      if (id) out(describeTerminal(answer as Terminal));
      return;
    }
    case "deactivate":
      await desk.deactivate(partner, terminalId);
      return out(`Deactivated terminal ${terminalId} at ${partner}`);
    case "assign":
      await desk.assign(partner, terminalId, body);
      return out(`Assigned terminal ${terminalId} at ${partner}: locations +[${list(body.location_ids)}], EVSEs +[${list(body.evse_uids)}]`);
    case "update":
      await desk.update(partner, terminalId, body);
      return out(`Updated terminal ${terminalId} at ${partner}: ${Object.keys(body).join(", ")}`);
    case "facs": {
      const facs = await desk.facs(partner);
      if (json) return print(facs);
      if (!facs.length) return out(`${partner} lists no financial advice confirmations of ours`);
      for (const fac of facs) out(describeFac(fac));
    }
  }
};

const list = (value: unknown): string => (Array.isArray(value) ? value.join(", ") : "");

const describeTerminal = (t: Terminal): string =>
  [
    t.terminal_id,
    t.country_code && t.party_id ? `${t.country_code}/${t.party_id}` : "no CPO",
    t.customer_reference && `customer ${t.customer_reference}`,
    `locations [${list(t.location_ids)}]`,
    `EVSEs [${list(t.evse_uids)}]`,
  ]
    .filter(Boolean)
    .join("  ");

const describeFac = (fac: FinancialAdviceConfirmation): string => {
  const total = fac.total_costs.before_taxes + (fac.total_costs.taxes ?? []).reduce((sum, tax) => sum + tax.amount, 0);
  return [fac.id, `authorization ${fac.authorization_reference}`, fac.capture_status_code, `${total.toFixed(2)} ${fac.currency} incl. taxes`, fac.last_updated].join("  ");
};
