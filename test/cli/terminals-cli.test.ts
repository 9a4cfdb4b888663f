import "reflect-metadata";
import { removeTempDirs, type PartySpec } from "../support/gateway-config";
import { freePorts, runCli, writeGatewayConfig, type CliResult, type WrittenConfig } from "../support/gateway-process";
import { eventually } from "../support/charge-point";
import { PaymentsNet, adminOf, heldFac, heldTerminal, json, paidSession, settlement, type Cpo } from "../payments/payments-net";

/**
 * `ocpi-gateway terminals …` as the CPO's operator runs it (issue #12): real
 * CLI processes on a serving CPO gateway's config and store, against a PTP
 * gateway in front of a TMS v1 simulator on loopback. They take the admin
 * API's code path (plugins/payments/ptp-desk.ts): the same checks and
 * answers. Exit codes: 0 done, 1 refused or failed, 2 usage.
 */

// Each CLI run that acts is a Node process building a gateway (~1 s of CPU; a usage error or --help loads none
// of it, app/cli.ts): no test runs more than two of them, and each has room for a busy machine (a load of 15
// on 2 cores makes one take about 10 s).
jest.setTimeout(60_000);

const CPO: PartySpec = { country_code: "DE", party_id: "CPX", role: "CPO" };

// the config folders go only once every test is done (a describe's afterAll would take the other's)
afterAll(() => removeTempDirs());

/** `ocpi-gateway terminals …` on a CPO's config file, as the CLI reads it (no gateway serving it) */
const terminalsOn = (written: WrittenConfig) => (...args: string[]): Promise<CliResult> => runCli(["terminals", ...args], written.file, { cwd: written.dir });

describe("ocpi-gateway terminals without a PTP", () => {
  // usage and refusals before the PTP is asked: a CPO's config, nothing serving
  let terminals: (...args: string[]) => Promise<CliResult>;
  beforeEach(async () => {
    const [port] = await freePorts(1);
    terminals = terminalsOn(writeGatewayConfig({ port, party: CPO, modules: { payments: { adapter: "local", roles: ["RECEIVER"] } } }));
  });

  it("prints its usage with --help (exit 0), and names a usage error (exit 2)", async () => {
    const help = await terminals("--help");
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toContain("ocpi-gateway terminals activate <partner> [--id TERMINAL_ID]");
    const cases: [string[], RegExp][] = [
      [[], /an action is required/],
      [["frobnicate", "ptp"], /unknown action "frobnicate" \(list, facs, activate, get, deactivate, assign, update\)/],
      [["get", "ptp"], /get takes <partner> <terminal_id>, got 1 argument/],
      [["list", "ptp", "extra"], /list takes <partner>, got 2 argument/],
      [["update", "ptp", "SER-C1"], /update needs --body/],
      [["activate", "ptp", "--body", "{bad"], /--body is not JSON/],
      [["activate", "ptp", "--colour", "red"], /Unknown option '--colour'/],
    ];
    for (const [args, message] of cases) {
      const result = await terminals(...args);
      expect([result.code, result.stdout]).toEqual([2, ""]);
      expect(result.stderr).toMatch(message);
    }
  });

  it("names what is wrong with the partner or the gateway (exit 1)", async () => {
    const nobody = await terminals("list", "nobody");
    expect([nobody.code, nobody.stderr]).toEqual([1, "terminals list: partner: nobody is not a registered partner (OCPI status 2001)\n"]);
    const [port] = await freePorts(1);
    const noPayments = writeGatewayConfig({ port, modules: { sessions: { adapter: "local", roles: ["SENDER"] } } });
    const result = await runCli(["terminals", "list", "ptp"], noPayments.file, { cwd: noPayments.dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/does not serve the payments Receiver \(modules\.payments with role RECEIVER\)/);
  });
});

describe("ocpi-gateway terminals", () => {
  let net: PaymentsNet;
  let cpo: Cpo;
  const terminals = (...args: string[]): Promise<CliResult> => terminalsOn(cpo.written)(...args);

  /**
   * What a test reads of an earlier action, done by itself first through the
   * admin API (the code path the CLI takes, without a process per call).
   */
  const given = {
    desk: async (method: "post" | "put", path: string, body: unknown) => {
      const answer = json(await adminOf(cpo.url)[method](`/payments/ptp/terminals${path}`, body));
      if (answer.status_code !== 1000) throw new Error(`set-up: ${method.toUpperCase()} ${path} refused: ${JSON.stringify(answer)}`);
    },
    /** SER-C1 active for us at LOC1; pending, it would be the first pick of an activation without an id */
    namedActive: () => given.desk("post", "/activate", { terminal_id: "SER-C1", location_ids: ["LOC1"] }),
    /** SER-C1 with its EVSEs and invoice fields as the assignment test leaves it */
    namedAssignedAndUpdated: async () => {
      await given.namedActive();
      await given.desk("post", "/SER-C1/assignment", { evse_uids: ["EVSE1", "EVSE2"] });
      await given.desk("put", "/SER-C1", { invoice_base_url: "https://cpx.example/invoices", invoice_creator: "CPO" });
    },
    /** SER-C2 picked for the customer reference CPX-9 (once SER-C1 is active) */
    fromStock: () => given.desk("post", "/activate", { customer_reference: "CPX-9" }),
  };

  // a network of its own per test: activations, assignments and deactivations change what the next one finds
  beforeEach(async () => {
    net = await PaymentsNet.start([{ id: "cpo-a", party: CPO }]);
    [cpo] = net.cpos;
    net.tms.ship("SER-C1");
    net.tms.ship("SER-C2", { merchant_ref: "CPX-9" });
  });

  afterEach(() => net?.close());

  it("activates a named terminal for our party with its locations; a second activation is refused naming the conflict (exit 1)", async () => {
    const result = await terminals("activate", "ptp", "--id", "SER-C1", "--location", "LOC1");
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toMatch(/^Activated terminal SER-C1 at ptp\nSER-C1 {2}DE\/CPX {2}locations \[LOC1\] {2}EVSEs \[\]/);
    expect(net.tms.devices.get("SER-C1")).toMatchObject({ state: "active", operator: { country: "DE", party: "CPX" }, assigned: { sites: ["LOC1"], points: [] } });
    // the serving CPO gateway holds it: from the CLI's answer, and from the PTP's push
    await eventually(async () => expect(await heldTerminal(cpo, "SER-C1")).toMatchObject({ location_ids: ["LOC1"] }));

    const again = await terminals("activate", "ptp", "--id", "SER-C1");
    expect([again.code, again.stdout]).toEqual([1, ""]);
    expect(again.stderr).toMatch(/^terminals activate: The PTP refused the request: \/terminal_id: conflict: the terminal is already active.* \(OCPI status 2001\)$/m);
  });

  it("activates without an id (the PTP picks one for the customer reference) and prints JSON with --json", async () => {
    await given.namedActive();
    const result = await terminals("activate", "ptp", "--customer-reference", "CPX-9", "--json");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ terminal_id: "SER-C2", customer_reference: "CPX-9", country_code: "DE", party_id: "CPX" });
  });

  it("assigns EVSEs (a union) and updates fields", async () => {
    await given.namedActive();
    const assigned = await terminals("assign", "ptp", "SER-C1", "--evse", "EVSE1", "--evse", "EVSE2");
    expect([assigned.code, assigned.stdout]).toEqual([0, "Assigned terminal SER-C1 at ptp: locations +[], EVSEs +[EVSE1, EVSE2]\n"]);
    expect(net.tms.devices.get("SER-C1")!.assigned).toEqual({ sites: ["LOC1"], points: ["EVSE1", "EVSE2"] });

    const updated = await terminals("update", "ptp", "SER-C1", "--body", '{"invoice_base_url":"https://cpx.example/invoices","invoice_creator":"CPO"}');
    expect([updated.code, updated.stdout]).toEqual([0, "Updated terminal SER-C1 at ptp: invoice_base_url, invoice_creator\n"]);
    expect(net.tms.devices.get("SER-C1")!.receipts).toEqual({ issuer: "operator", base_url: "https://cpx.example/invoices" });
  });

  it("refuses a bad assignment or field naming the field, as the admin API refuses it", async () => {
    await given.namedActive();
    const tooLong = "L".repeat(37);
    const bad = await terminals("assign", "ptp", "SER-C1", "--location", tooLong);
    const byAdmin = json(await adminOf(cpo.url).post("/payments/ptp/terminals/SER-C1/assignment", { location_ids: [tooLong] }));
    expect(byAdmin.status_code).toBe(2001);
    expect(byAdmin.status_message).toMatch(/^\/location_ids\/0: /);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`terminals assign: ${byAdmin.status_message} (OCPI status 2001)\n`);
    const badEnum = await terminals("update", "ptp", "SER-C1", "--body", '{"invoice_creator":"DRIVER"}');
    expect(badEnum.code).toBe(1);
    expect(badEnum.stderr).toMatch(/^terminals update: \/invoice_creator: .* \(OCPI status 2001\)/);
    expect(net.tms.devices.get("SER-C1")!.assigned?.sites).toEqual(["LOC1"]);
  });

  it("lists our terminals at the PTP, as text and as JSON", async () => {
    await given.namedAssignedAndUpdated();
    await given.fromStock();
    const list = await terminals("list", "ptp");
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n").filter(Boolean).sort()).toEqual([
      "SER-C1  DE/CPX  locations [LOC1]  EVSEs [EVSE1, EVSE2]",
      "SER-C2  DE/CPX  customer CPX-9  locations []  EVSEs []",
    ]);
    const asJson = await terminals("list", "ptp", "--json");
    expect((JSON.parse(asJson.stdout) as { terminal_id: string }[]).map((t) => t.terminal_id).sort()).toEqual(["SER-C1", "SER-C2"]);
  });

  it("gets one of our terminals at the PTP; an unknown one is not found (exit 1, HTTP 404)", async () => {
    await given.namedAssignedAndUpdated();
    const one = await terminals("get", "ptp", "SER-C1");
    expect(JSON.parse(one.stdout)).toMatchObject({ terminal_id: "SER-C1", invoice_creator: "CPO", evse_uids: ["EVSE1", "EVSE2"] });
    const unknown = await terminals("get", "ptp", "NO-SUCH-TERMINAL");
    expect([unknown.code, unknown.stdout]).toEqual([1, ""]);
    expect(unknown.stderr).toMatch(/^terminals get: Terminal NO-SUCH-TERMINAL at ptp not found \(OCPI status 2001, HTTP 404\)$/m);
  });

  it("deactivates a terminal", async () => {
    await given.namedActive();
    await given.fromStock();
    const result = await terminals("deactivate", "ptp", "SER-C2");
    expect([result.code, result.stdout]).toEqual([0, "Deactivated terminal SER-C2 at ptp\n"]);
    expect(net.tms.devices.get("SER-C2")!.state).toBe("inactive");
  });

  it("lists the FACs the PTP attributes to us", async () => {
    const none = await terminals("facs", "ptp");
    expect([none.code, none.stdout]).toEqual([0, "ptp lists no financial advice confirmations of ours\n"]);
    await net.report(cpo, "sessions", paidSession(CPO, "SES-CLI", "AUTH-CLI"));
    await net.tms.capture(settlement("SET-CLI", "AUTH-CLI"));
    await eventually(async () => expect(await heldFac(cpo, "SET-CLI")).toBeDefined());
    const facs = await terminals("facs", "ptp");
    expect(facs.code).toBe(0);
    expect(facs.stdout).toMatch(/^SET-CLI {2}authorization AUTH-CLI {2}SUCCESS {2}4\.40 EUR incl\. taxes {2}\S+Z\n$/);
  });
});
