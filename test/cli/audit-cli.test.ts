import "reflect-metadata";
import path from "node:path";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, tempDir } from "../support/gateway-config";
import { runCli, writeGatewayConfig, type CliResult, type WrittenConfig } from "../support/gateway-process";
import { CdrAuditing } from "../../plugins/cdrs/audit/cdr-auditing";
import { audit, exampleCdr } from "../modules/cdr-audit/cdr-audit.fixtures";

/**
 * `ocpi-gateway audit cdrs <partner>` as an operator runs it (issue #27): a real CLI process on a gateway's
 * config and store, which holds the audits of three CDRs of the partner cpo-a and one of cpo-b.
 * Exit codes: 0 done, 1 refused, 2 usage.
 */
jest.setTimeout(120_000);

let written: WrittenConfig;
const auditCli = (...args: string[]): Promise<CliResult> => runCli(["audit", ...args], written.file, { cwd: written.dir });

beforeEach(async () => {
  const dir = tempDir("ocpi-audit-cli-");
  written = writeGatewayConfig(
    {
      port: 9,
      party: { country_code: "DE", party_id: "EMS", role: "EMSP" },
      store: { type: "sqlite", path: path.join(dir, "gateway.db") },
      modules: { cdrs: { adapter: "local" } },
      partners: [{ id: "cpo-a" }, { id: "cpo-b" }],
    },
    dir,
  );
  const gateway = await Gateway.create(written.config, { logger: pino({ level: "silent" }) });
  const cdr = (id: string) => ({ ...exampleCdr("2.3.0/cdr_example.json"), id });
  await gateway.container.resolve(CdrAuditing).audits.record([
    audit(cdr("A1"), { partner: "cpo-a", now: "2024-06-03T10:01:00Z" }),
    audit({ ...cdr("A2"), total_cost: { before_taxes: 3.95, taxes: [{ name: "VAT", amount: 0.4 }] } }, { partner: "cpo-a", now: "2024-06-03T10:02:00Z" }),
    audit({ ...cdr("A3"), tariffs: undefined }, { partner: "cpo-a", now: "2024-06-03T10:03:00Z" }),
    audit(cdr("B1"), { partner: "cpo-b", now: "2024-06-03T10:04:00Z" }),
  ]);
  await gateway.close();
});
afterAll(() => removeTempDirs());

it("prints the partner's audits with the differences explained", async () => {
  const run = await auditCli("cdrs", "cpo-a");
  expect([run.code, run.stderr]).toEqual([0, ""]);
  const lines = run.stdout.trim().split("\n");
  expect(lines[0]).toBe("2024-06-03T10:01:00Z  BE/BEC/A1  received  match");
  expect(lines[1]).toBe("2024-06-03T10:02:00Z  BE/BEC/A2  received  mismatch");
  expect(lines[2]).toBe("  total_cost.before_taxes: the CDR says 3.95, expected 4");
  expect(lines[3]).toMatch(/^ {4}TIME 2024-12-05T17:39:09Z to 2024-12-05T19:37:32Z \(CHARGING\): element #0 \(no restrictions\), 2.00 per hour, consumed 7103 s, billed 7200 s, step_size 300 s/);
  expect(lines[4]).toBe("2024-06-03T10:03:00Z  BE/BEC/A3  received  unpriceable: tariff missing: the CDR embeds no tariffs and tariff 12 is not held");
  expect(lines.at(-1)).toBe("3 CDRs audited: 1 match, 1 mismatch, 1 unpriceable");
});

it("filters by verdict and time, as CSV or JSON", async () => {
  const csv = await auditCli("cdrs", "cpo-a", "--verdict", "mismatch", "--csv");
  expect(csv.stdout.trim().split("\n")).toEqual([
    "audited_at,cdr_id,country_code,party_id,direction,verdict,currency,total_cost,differences,reason",
    "2024-06-03T10:02:00Z,A2,BE,BEC,received,mismatch,EUR,3.95,1,",
  ]);
  const json = await auditCli("cdrs", "cpo-a", "--since", "2024-06-03T10:02:30Z", "--json");
  expect(JSON.parse(json.stdout).map((a: { cdr_id: string; reason: string }) => [a.cdr_id, a.reason])).toEqual([
    ["A3", "tariff missing: the CDR embeds no tariffs and tariff 12 is not held"],
  ]);
});

it("refuses a wrong verdict (exit 1, naming it) and names a usage error (exit 2)", async () => {
  const wrong = await auditCli("cdrs", "cpo-a", "--verdict", "bad");
  expect([wrong.code, wrong.stderr.trim()]).toEqual([1, "audit cdrs: verdict: must be one of match, mismatch, unpriceable (OCPI status 2001)"]);
  const usage = await auditCli("sessions", "cpo-a");
  expect([usage.code, usage.stderr.split("\n")[0]]).toEqual([2, 'audit: unknown audit "sessions" (cdrs)']);
  const help = await auditCli("--help");
  expect([help.code, help.stdout.split("\n")[1]]).toEqual([0, "  ocpi-gateway audit cdrs <partner> [--since DATETIME] [--verdict match|mismatch|unpriceable] [--csv|--json] [--config FILE]"]);
});
