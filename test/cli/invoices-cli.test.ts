import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, tempDir } from "../support/gateway-config";
import { runCli, writeGatewayConfig, type CliResult, type WrittenConfig } from "../support/gateway-process";
import { AAA, OURS, SEEDED_CDRS } from "../invoicereconciliation/invoices.fixtures";

/**
 * `ocpi-gateway invoices add|list` as an operator runs it (issue #27 item 1): real CLI processes on a gateway's
 * config and store, where the partner emsp-a (DE/AAA, 2.3.0) is registered. They take the admin API's code path
 * (plugins/invoicereconciliation/desk.ts). Exit codes: 0 done, 1 refused or failed, 2 usage.
 */

// Each CLI run is a Node process building a gateway (~1 s of CPU); leave room for a busy machine.
jest.setTimeout(120_000);

let written: WrittenConfig;
const invoices = (...args: string[]): Promise<CliResult> => runCli(["invoices", ...args], written.file, { cwd: written.dir });

beforeEach(async () => {
  const dir = tempDir("ocpi-invoices-cli-");
  fs.writeFileSync(path.join(dir, "seed.json"), JSON.stringify({ cdrs: SEEDED_CDRS }));
  written = writeGatewayConfig(
    {
      port: 9,
      party: { ...OURS, role: "CPO" },
      store: { type: "sqlite", path: path.join(dir, "gateway.db") },
      modules: { invoicereconciliation: { adapter: "local", roles: ["SENDER"] }, cdrs: { adapter: "local" } },
      adapters: { local: { seed: path.join(dir, "seed.json") } },
      partners: [{ id: "emsp-a" }, { id: "old", versions: ["2.2.1"] }],
    },
    dir,
  );
  // the registrations a credentials exchange leaves in the store
  const gateway = await Gateway.create(written.config, { logger: pino({ level: "silent" }) });
  for (const [id, party, version] of [["emsp-a", AAA, "2.3.0"], ["old", { country_code: "IT", party_id: "OLD" }, "2.2.1"]] as const) {
    await gateway.registry.issueToken(id);
    await gateway.registry.recordRegistration(id, {
      version,
      versionsUrl: "http://127.0.0.1:9/versions",
      endpoints: [],
      roles: [{ ...party, role: "EMSP", business_details: { name: id } }],
      tokenToPartner: `unused-token-to-${id}`,
    });
  }
  await gateway.close();
});
afterAll(() => removeTempDirs());

it("prints its usage with --help (exit 0), and names a usage error (exit 2)", async () => {
  const help = await invoices("--help");
  expect([help.code, help.stderr]).toEqual([0, ""]);
  expect(help.stdout).toContain("ocpi-gateway invoices add <partner> --invoice INVOICE_ID --cdr CDR_ID");
  const cases: [string[], RegExp][] = [
    [[], /an action is required/],
    [["send", "emsp-a"], /unknown action "send" \(add, list\)/],
    [["list"], /list takes <partner>, got 0 argument/],
    [["add", "emsp-a", "--invoice", "INV-1"], /add needs --invoice and at least one --cdr/],
    [["add", "emsp-a", "--cdr", "CDR-1"], /add needs --invoice and at least one --cdr/],
  ];
  for (const [args, message] of cases) {
    const result = await invoices(...args);
    expect([result.code, result.stdout]).toEqual([2, ""]);
    expect(result.stderr).toMatch(message);
  }
});

it("adds a record for the partner and lists it with its findings", async () => {
  const added = await invoices("add", "emsp-a", "--invoice", "INV-1", "--cdr", "CDR-1", "--cdr", "NOPE", "--id", "R1");
  expect([added.code, added.stderr]).toEqual([0, ""]);
  expect(added.stdout).toMatch(/^Issued record R1 to emsp-a\nNL\/GWY\/R1 {2}invoice INV-1 {2}CDRs \[CDR-1, NOPE\] {2}to DE\/AAA {2}\S+Z\n {2}unknown_cdr: CDR NOPE of record NL\/GWY\/R1 \(invoice INV-1\) is not known\n$/);

  await invoices("add", "emsp-a", "--invoice", "INV-2", "--cdr", "CDR-1", "--id", "R2");
  const listed = await invoices("list", "emsp-a");
  expect([listed.code, listed.stderr]).toEqual([0, ""]);
  const lines = listed.stdout.trimEnd().split("\n");
  expect(lines[0]).toBe("Records issued to emsp-a: 2");
  expect(lines.filter((line) => line.startsWith("  ")).map((line) => line.trim().split(":")[0])).toEqual(["cdr_in_two_invoices", "unknown_cdr", "cdr_in_two_invoices"]);

  const asJson = JSON.parse((await invoices("list", "emsp-a", "--json")).stdout);
  expect(asJson.issued.map((view: { record: { id: string } }) => view.record.id)).toEqual(["R1", "R2"]);
});

it("refuses a record naming a party the partner does not have, and a partner not on 2.3.0 (exit 1, naming why)", async () => {
  const wrongParty = await invoices("add", "emsp-a", "--invoice", "INV-1", "--cdr", "CDR-1", "--to", "FRBBB");
  expect([wrongParty.code, wrongParty.stdout]).toEqual([1, ""]);
  expect(wrongParty.stderr).toContain("invoices add: /to: FRBBB is not one of the partner's parties (OCPI status 2001)");
  const old = await invoices("list", "old");
  expect(old.code).toBe(1);
  expect(old.stderr).toContain("partner: old is not offered invoicereconciliation in OCPI 2.2.1");
  expect((await invoices("list", "emsp-a")).stdout).toBe("Records issued to emsp-a: 0\n");
});
