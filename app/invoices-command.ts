import { parseArgs } from "node:util";
import { runStoreCommand, STORE_COMMAND_OPTIONS, UsageError, type Lines } from "./store-command";
import type { InvoiceDesk, PartnerInvoices, RecordView } from "../plugins/invoicereconciliation/desk";
import type { Gateway } from "./gateway";

export const INVOICES_USAGE = `Usage (<partner> is the partner's id):
  ocpi-gateway invoices add <partner> --invoice INVOICE_ID --cdr CDR_ID [--cdr CDR_ID]... [--id RECORD_ID] [--to CCPID] [--json]
  ocpi-gateway invoices list <partner> [--json]
Each takes [--config FILE]. add issues an Invoice Reconciliation record to the partner (we are the Sender)
and pushes it; --to names the partner's party it is for when it has several (e.g. DEEMS). list shows the
records issued to the partner and those it sent us, each with its findings.
Exit code 0: done; 1: refused or failed (the message names the field or the reason); 2: usage error.`;

/**
 * `ocpi-gateway invoices …`: the operator's Invoice Reconciliation records from the command line, through the
 * same InvoiceDesk as the admin API (`/admin/v1/invoices/<partner>`): the same checks (2001 naming the field),
 * the same pushes, the same findings. It runs on the gateway's store and registrations, beside a serving
 * gateway, like the `terminals` command; what it pushes is queued in the store's outbox.
 */
export const runInvoicesCommand = (argv: string[], out: Lines, err: Lines): Promise<number> =>
  runStoreCommand({ name: "invoices", usage: INVOICES_USAGE, parse, served: deskOf, notServed: "this gateway does not serve the invoicereconciliation module (modules.invoicereconciliation)", run }, argv, out, err);

const parse = (argv: string[]) => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...STORE_COMMAND_OPTIONS,
      invoice: { type: "string" },
      cdr: { type: "string", multiple: true },
      id: { type: "string" },
      to: { type: "string" },
    },
    allowPositionals: true,
  });
  if (values.help) return "help" as const;
  const [action, partner, ...extra] = positionals;
  if (action !== "add" && action !== "list") throw new UsageError(action ? `unknown action "${action}" (add, list)` : "an action is required");
  if (!partner || extra.length) throw new UsageError(`${action} takes <partner>, got ${positionals.length - 1} argument(s)`);
  if (action === "add" && (values.invoice === undefined || !values.cdr?.length)) throw new UsageError("add needs --invoice and at least one --cdr");
  const body: Record<string, unknown> = { invoice_id: values.invoice, cdrs: values.cdr };
  if (values.id !== undefined) body.id = values.id;
  if (values.to !== undefined) body.to = values.to;
  return {
    action,
    partner,
    body,
    json: values.json ?? false,
    configFile: values.config ?? process.env.GATEWAY_CONFIG ?? "./gateway.config.yaml",
  };
};

type Command = Exclude<ReturnType<typeof parse>, "help">;

/** The InvoiceDesk of the invoicereconciliation plugin this gateway serves, if it serves the module. */
const deskOf = async (gateway: Gateway): Promise<InvoiceDesk | undefined> => {
  const [{ ModuleCatalog }, { InvoiceReconciliationPlugin }] = await Promise.all([import("../core/modules/module-catalog"), import("../plugins/invoicereconciliation/module")]);
  const served = gateway.container.resolve(ModuleCatalog).served.find((s) => s.plugin instanceof InvoiceReconciliationPlugin);
  return served?.plugin instanceof InvoiceReconciliationPlugin ? served.plugin.desk : undefined;
};

const run = async (desk: InvoiceDesk, { action, partner, body, json }: Command, out: (line: string) => void): Promise<void> => {
  const print = (value: unknown) => out(JSON.stringify(value, null, 2));
  if (action === "add") {
    const view = await desk.add(partner, body);
    if (json) return print(view);
    out(`Issued record ${view.record.id} to ${partner}`);
    return describe(view, out);
  }
  const invoices = await desk.list(partner);
  if (json) return print(invoices);
  describeAll(invoices, out);
};

const describeAll = ({ partner, issued, received }: PartnerInvoices, out: (line: string) => void): void => {
  for (const [title, views] of [["issued to", issued], ["received from", received]] as const) {
    if (!views) continue;
    out(`Records ${title} ${partner}: ${views.length}`);
    for (const view of views) describe(view, out);
  }
};

const describe = ({ record, to, findings }: RecordView, out: (line: string) => void): void => {
  const addressee = to ? `  to ${to.country_code}/${to.party_id}` : "";
  out(`${record.country_code}/${record.party_id}/${record.id}  invoice ${record.invoice_id}  CDRs [${record.cdrs.join(", ")}]${addressee}  ${record.last_updated}`);
  for (const finding of findings) out(`  ${finding.kind}: ${finding.message}`);
};
