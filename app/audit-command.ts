import { parseArgs } from "node:util";
import { runStoreCommand, UsageError, type Lines } from "./store-command";
import type { AuditStore, AuditSummary } from "../plugins/cdrs/audit/audit-store";
import type { CdrAudit } from "../plugins/cdrs/audit/model";
import type { Gateway } from "./gateway";

export const AUDIT_USAGE = `Usage (<partner> is the partner's id):
  ocpi-gateway audit cdrs <partner> [--since DATETIME] [--verdict match|mismatch|unpriceable] [--csv|--json] [--config FILE]
Lists the audits of the CDRs exchanged with the partner, oldest first: each CDR's verdict and, for those that
are not a match, every difference with its explanation (or why it could not be priced). --csv: one line per
CDR; --json: the audits whole, with the re-pricing explained line by line.
Exit code 0: done; 1: refused (the message names the parameter); 2: usage error.`;

interface AuditCommand {
  action: "cdrs";
  partner: string;
  since?: string;
  verdict?: string;
  format: "text" | "csv" | "json";
  configFile: string;
}

const parse = (argv: string[]): AuditCommand | "help" => {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      since: { type: "string" },
      verdict: { type: "string" },
      csv: { type: "boolean" },
      json: { type: "boolean" },
      config: { type: "string", short: "c" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help) return "help";
  const [what, partner, ...more] = positionals;
  if (what !== "cdrs") throw new UsageError(what ? `unknown audit "${what}" (cdrs)` : "what to audit is required (cdrs)");
  if (!partner || more.length) throw new UsageError(`cdrs takes <partner>, got ${positionals.length - 1} arguments`);
  if (values.csv && values.json) throw new UsageError("give --csv or --json, not both");
  return {
    action: what,
    partner,
    ...(values.since ? { since: values.since } : {}),
    ...(values.verdict ? { verdict: values.verdict } : {}),
    format: values.csv ? "csv" : values.json ? "json" : "text",
    configFile: values.config ?? process.env.GATEWAY_CONFIG ?? "./gateway.config.yaml",
  };
};

const csvCell = (value: unknown): string => {
  const text = value === undefined || value === null ? "" : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

const CSV_COLUMNS = ["audited_at", "cdr_id", "country_code", "party_id", "direction", "verdict", "currency", "total_cost", "differences", "reason"] as const;

const textOf = (audit: CdrAudit): string[] => [
  `${audit.audited_at}  ${audit.owner.country_code}/${audit.owner.party_id}/${audit.cdr_id}  ${audit.direction}  ${audit.verdict}${audit.reason ? `: ${audit.reason}` : ""}`,
  ...audit.differences.map((d) => `  ${d.field}: the CDR says ${d.cdr ?? "nothing"}, expected ${d.expected ?? "nothing"}\n    ${d.explanation}`),
];

/**
 * `ocpi-gateway audit cdrs <partner>`: the CDR audit from the command line, on the gateway's store directly
 * (beside a serving gateway, whose worker keeps auditing), with the admin API's filters (auditQueryOf: the same
 * 2001 naming a wrong parameter).
 */
export const runAuditCommand = (argv: string[], out: Lines, err: Lines): Promise<number> =>
  runStoreCommand({ name: "audit", usage: AUDIT_USAGE, parse, served: auditsOf, notServed: "this gateway keeps no CDR audits", run: listAudits }, argv, out, err);

/** the audits kept in the gateway's store (the CDR audit's, whether or not this gateway serves CDRs now) */
const auditsOf = async (gateway: Gateway): Promise<AuditStore> => {
  const { CdrAuditing } = await import("../plugins/cdrs/audit/cdr-auditing");
  return gateway.container.resolve(CdrAuditing).audits;
};

const listAudits = async (audits: AuditStore, command: AuditCommand, out: Lines): Promise<void> => {
  const { auditQueryOf } = await import("../plugins/cdrs/audit/audit-admin");
  const summaries: AuditSummary[] = [];
  for (let offset = 0; ; ) {
    const query = auditQueryOf({ partner: command.partner, since: command.since, verdict: command.verdict, offset: String(offset), limit: "1000" });
    const page = await audits.list(query);
    summaries.push(...page.items);
    offset += page.items.length;
    if (!page.items.length || offset >= page.total) break;
  }
  if (command.format === "csv") {
    out(CSV_COLUMNS.join(","));
    for (const s of summaries) out(CSV_COLUMNS.map((c) => csvCell(s[c])).join(","));
    return;
  }
  const whole = (await Promise.all(summaries.map((s) => audits.get(s.key)))).filter((a): a is CdrAudit => a !== undefined);
  if (command.format === "json") out(JSON.stringify(whole, null, 2));
  else {
    for (const audit of whole) for (const line of textOf(audit)) out(line);
    const count = (verdict: string) => whole.filter((a) => a.verdict === verdict).length;
    out(`${whole.length} CDRs audited: ${count("match")} match, ${count("mismatch")} mismatch, ${count("unpriceable")} unpriceable`);
  }
};
