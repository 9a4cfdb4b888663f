import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { VersionNumber } from "../../config/types";
import { startHarness, type Harness } from "../support/module-harness";
import { testGatewayConfig } from "../support/gateway-config";
import { EXAMPLES } from "../support/ocpi-examples";
import { PaymentsPlugin } from "../../plugins/payments/module";
import { localPayments } from "../../adapters/local/payments";

/**
 * The payments module over the `local` adapter, through HTTP: every
 * payments example file of the notes (test/fixtures/ocpi-examples/NOTICE.md) accepted and read back,
 * the listed defects refused naming the field, malformed Terminals and FACs
 * refused with 2001 naming the field and nothing stored, and the PTP's
 * Sender interface (activation, assignment, update, deactivation) with
 * partner isolation; 2.2.1 payments offered only to a partner configured for
 * the direct-payment extension (`partners[].extensions`).
 */

type Json = Record<string, any>;
const ADMIN = "payments-module-admin-token-0123";
const FOLDERS = readdirSync(EXAMPLES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).filter((folder) => readdirSync(path.join(EXAMPLES, folder)).some((f) => f.startsWith("payment_")));
const read = (folder: string, file: string): Json => JSON.parse(readFileSync(path.join(EXAMPLES, folder, file), "utf8"));

const PTP_PARTNER = { country_code: "AT", party_id: "PTP", role: "OTHER" as const, business_details: { name: "Terminals Inc" } };
const CPO_PARTNER = { country_code: "DE", party_id: "CPX", role: "CPO" as const, business_details: { name: "CPO X" } };

const client = (h: Harness) => ({
  get: (url: string) => h.http.get(url).set("Authorization", h.auth),
  post: (url: string, body?: unknown) => (body === undefined ? h.http.post(url).set("Authorization", h.auth) : h.http.post(url).set("Authorization", h.auth).send(body as object)),
  put: (url: string, body: unknown) => h.http.put(url).set("Authorization", h.auth).send(body as object),
  patch: (url: string, body: unknown) => h.http.patch(url).set("Authorization", h.auth).send(body as object),
});

describe("payments module: we are the CPO (Receiver)", () => {
  let h: Harness;
  let c: ReturnType<typeof client>;
  const url = (version: VersionNumber, rest: string) => h.path(version, "RECEIVER", "payments", rest);

  beforeAll(async () => {
    // the PTP speaks 2.2.1 payments too: the direct-payment extension (partners[].extensions)
    h = await startHarness({
      plugins: [PaymentsPlugin],
      localModules: [localPayments],
      modules: ["payments"],
      partnerRoles: [PTP_PARTNER],
      partnerConfig: { extensions: ["direct_payment"] },
    });
    c = client(h);
  });
  afterAll(() => h.close());

  it("lists one payments endpoint per role in version details, the sub-resources appended to it (OCPI 2.3.0 Payments module)", async () => {
    for (const version of ["2.3.0", "2.2.1"] as const) {
      const res = await c.get(`/ocpi/${version}`);
      const payments = res.body.data.endpoints.filter((e: Json) => e.identifier === "payments");
      expect(payments.map((e: Json) => [e.role, new URL(e.url).pathname]).sort()).toEqual([
        ["RECEIVER", `/ocpi/${version}/receiver/payments`],
        ["SENDER", `/ocpi/${version}/sender/payments`],
      ]);
    }
    const v211 = await c.get("/ocpi/2.1.1");
    expect(v211.body.data.endpoints.map((e: Json) => e.identifier)).not.toContain("payments");
  });

  describe.each(FOLDERS)("examples of %s", (folder) => {
    const TERMINAL_EXAMPLES = [
      "payment_terminal_create.json",
      "payment_terminal_example_newly_created.json",
      "payment_terminal_example_assigned_locations.json",
      "payment_terminal_example_assigned_locations_assigned_evses.json",
    ];

    it.each(TERMINAL_EXAMPLES)("%s is accepted (POST) and read back equal", async (file) => {
      const example = read(folder, file);
      const posted = await c.post(url("2.3.0", "/terminals"), example);
      expect(posted.body).toMatchObject({ status_code: 1000 });
      const back = await c.get(url("2.3.0", `/terminals/${example.terminal_id}`));
      expect(back.body.data).toEqual(example);
    });

    it("payment_terminal_create_minimal.json is accepted; it lacks the required last_updated, which the receipt stamps", async () => {
      const example = read(folder, "payment_terminal_create_minimal.json");
      const id = `${example.terminal_id.slice(0, 30)}-min`;
      const posted = await c.post(url("2.3.0", "/terminals"), { ...example, terminal_id: id });
      expect(posted.body.status_code).toBe(1000);
      const back = (await c.get(url("2.3.0", `/terminals/${id}`))).body.data;
      const { last_updated, ...rest } = back;
      expect(rest).toEqual({ ...example, terminal_id: id });
      expect(last_updated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it.each(["payment_financial_advice_confirmation_create.json", "payment_financial_advice_confirmation_example_success.json"])(
      "%s: its 2.2.1 Price (listed defect) is the 2.2.1 extension's shape: accepted and read back equal in 2.2.1, refused in 2.3.0 naming the field",
      async (file) => {
        const example = read(folder, file);
        const refused = await c.post(url("2.3.0", "/financial-advice-confirmations"), { ...example, id: "refused-in-230" });
        expect(refused.body.status_code).toBe(2001);
        expect(refused.body.status_message).toContain("/total_costs/before_taxes");
        expect((await c.get(url("2.3.0", "/financial-advice-confirmations/refused-in-230"))).status).toBe(404);

        const posted = await c.post(url("2.2.1", "/financial-advice-confirmations"), example);
        expect(posted.body.status_code).toBe(1000);
        expect((await c.get(url("2.2.1", `/financial-advice-confirmations/${example.id}`))).body.data).toEqual(example);
        // and canonically (2.3.0): the VAT part as one tax
        expect((await c.get(url("2.3.0", `/financial-advice-confirmations/${example.id}`))).body.data.total_costs).toEqual({
          before_taxes: example.total_costs.excl_vat,
          taxes: [{ name: "VAT", amount: Math.round((example.total_costs.incl_vat - example.total_costs.excl_vat) * 10000) / 10000 }],
        });
      },
    );

    it("payment_financial_advice_confirmation_example_failure.json is skipped: it omits the required eft_data (listed defect), refused naming it", async () => {
      const example = read(folder, "payment_financial_advice_confirmation_example_failure.json");
      const res = await c.post(url("2.2.1", "/financial-advice-confirmations"), { ...example, id: "failure-example" });
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain("/eft_data");
      expect((await c.get(url("2.2.1", "/financial-advice-confirmations/failure-example"))).status).toBe(404);
    });
  });

  const TERMINAL: Json = { terminal_id: "T-MALFORMED", last_updated: "2024-01-01T00:00:00Z" };
  const FAC: Json = {
    id: "FAC-MALFORMED",
    authorization_reference: "AUTH-1",
    total_costs: { before_taxes: 4, taxes: [{ name: "VAT", amount: 0.4 }] },
    currency: "EUR",
    eft_data: ["Mastercard"],
    capture_status_code: "SUCCESS",
    last_updated: "2024-01-01T00:00:00Z",
  };
  const { terminal_id: _t, ...withoutTerminalId } = TERMINAL;
  const { authorization_reference: _a, ...withoutAuthRef } = FAC;

  it.each([
    ["Terminal", "terminal_id missing", "/terminal_id", withoutTerminalId],
    ["Terminal", "terminal_id a number", "/terminal_id", { ...TERMINAL, terminal_id: 42 }],
    ["Terminal", "terminal_id over 36 characters", "/terminal_id", { ...TERMINAL, terminal_id: "T".repeat(37) }],
    ["Terminal", "invoice_creator not an InvoiceCreator", "/invoice_creator", { ...TERMINAL, invoice_creator: "EMSP" }],
    ["Terminal", "location_ids not a list", "/location_ids", { ...TERMINAL, location_ids: "LOC1" }],
    ["Terminal", "country not ISO alpha-3", "/country", { ...TERMINAL, country: "AT" }],
    ["Terminal", "coordinates without decimals", "/coordinates/latitude", { ...TERMINAL, coordinates: { latitude: "51", longitude: "3.729944" } }],
    ["Terminal", "last_updated not a DateTime", "/last_updated", { ...TERMINAL, last_updated: "yesterday" }],
    ["Terminal", "address over 45 characters", "/address", { ...TERMINAL, address: "A".repeat(46) }],
    ["FAC", "authorization_reference missing", "/authorization_reference", withoutAuthRef],
    ["FAC", "amount as a string", "/total_costs/before_taxes", { ...FAC, total_costs: { before_taxes: "4.00" } }],
    ["FAC", "capture_status_code not a CaptureStatusCode", "/capture_status_code", { ...FAC, capture_status_code: "CAPTURED" }],
    ["FAC", "eft_data empty", "/eft_data", { ...FAC, eft_data: [] }],
    ["FAC", "an eft_data line over 255 characters", "/eft_data/0", { ...FAC, eft_data: ["x".repeat(256)] }],
    ["FAC", "currency not ISO 4217", "/currency", { ...FAC, currency: "euro" }],
    ["FAC", "a tax amount as a string", "/total_costs/taxes/0/amount", { ...FAC, total_costs: { before_taxes: 4, taxes: [{ name: "VAT", amount: "0.40" }] } }],
  ])("a %s with %s is refused with 2001 naming %s, nothing stored", async (kind, _case, pointer, body) => {
    const resource = kind === "Terminal" ? "/terminals" : "/financial-advice-confirmations";
    const res = await c.post(url("2.3.0", resource), body);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain(`${pointer}:`);
    const id = kind === "Terminal" ? TERMINAL.terminal_id : FAC.id;
    expect((await c.get(url("2.3.0", `${resource}/${id}`))).status).toBe(404);
  });
});

describe("payments module: we are the PTP (Sender)", () => {
  let h: Harness;
  let c: ReturnType<typeof client>;
  const url = (rest: string, version: VersionNumber = "2.3.0") => h.path(version, "SENDER", "payments", rest);
  const pending = (id: string, extra: Json = {}) =>
    h.http
      .post("/admin/v1/events")
      .set("Authorization", `Bearer ${ADMIN}`)
      .send({ module: "payments", owner: { country_code: "NL", party_id: "PTP" }, path: ["terminals", id], kind: "upsert", object: { terminal_id: id, last_updated: "2024-01-01T00:00:00Z", ...extra } });

  /** What a test finds active for the CPO before it acts: set up by the test itself, never left by another. */
  const given = {
    /** the example's terminal activated (the same file in every folder) */
    exampleActive: async () => {
      const res = await c.post(url("/terminals/activate"), read(FOLDERS[0], "payment_terminal_activate.json"));
      if (res.body.status_code !== 1000) throw new Error(`set-up: activation refused: ${JSON.stringify(res.body)}`);
    },
    /** every terminal of the CPO active: the example's, then both in stock */
    allActive: async () => {
      await given.exampleActive();
      for (const body of [{ customer_reference: "CPX-1" }, {}]) {
        const res = await c.post(url("/terminals/activate"), body);
        if (res.body.status_code !== 1000) throw new Error(`set-up: activation from stock refused: ${JSON.stringify(res.body)}`);
      }
    },
  };

  // a PTP of its own per test: activations and deactivations change what the next one finds in stock
  beforeEach(async () => {
    h = await startHarness({
      plugins: [PaymentsPlugin],
      localModules: [localPayments],
      modules: ["payments"],
      party: { country_code: "NL", party_id: "PTP", role: "PTP" },
      partnerRoles: [CPO_PARTNER],
      adminToken: ADMIN,
    });
    c = client(h);
    for (const id of ["a06dc823-3e5a-40c8-89cf-1b5b9e941412", "STOCK-1", "STOCK-2"]) expect((await pending(id)).body.status_code).toBe(1000);
    expect((await pending("OTHER-CPO", { country_code: "FR", party_id: "OTH" })).body.status_code).toBe(1000);
  });
  afterEach(() => h.close());

  it.each(FOLDERS)("activates with %s/payment_terminal_activate.json and reads the Terminal back with its fields", async (folder) => {
    // every folder's file names the same terminal: after the first folder's, it is active already
    if (folder !== FOLDERS[0]) await given.exampleActive();
    const example = read(folder, "payment_terminal_activate.json");
    const res = await c.post(url("/terminals/activate"), example);
    if (folder === FOLDERS[0]) {
      expect(res.body.status_code).toBe(1000);
      expect(res.body.data).toMatchObject({ terminal_id: example.terminal_id, country_code: "DE", party_id: "CPX" });
    } else {
      // the same terminal again: it is active already
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain("/terminal_id: ");
    }
    const back = (await c.get(url(`/terminals/${example.terminal_id}`))).body.data;
    const { last_updated: _stamped, ...fields } = example;
    expect(back).toMatchObject(fields);
  });

  it("activates without terminal_id: the PTP picks one in stock for the CPO, and says so when none is left (2001)", async () => {
    await given.exampleActive();
    const first = await c.post(url("/terminals/activate"), { customer_reference: "CPX-1" });
    const second = await c.post(url("/terminals/activate"), {});
    expect([first.body.data.terminal_id, second.body.data.terminal_id].sort()).toEqual(["STOCK-1", "STOCK-2"]);
    const none = await c.post(url("/terminals/activate"), {});
    expect(none.body.status_code).toBe(2001);
    expect(none.body.status_message).toMatch(/^\/terminal_id: no terminal in stock/);
  });

  it.each(FOLDERS)("assigns with %s/payment_terminal_location_assignment.json as a union, and updates with payment_terminal_put_update.json", async (folder) => {
    const id = "a06dc823-3e5a-40c8-89cf-1b5b9e941412";
    await given.exampleActive();
    const assignment = read(folder, "payment_terminal_location_assignment.json");
    expect((await c.patch(url(`/terminals/${id}`), assignment)).body.status_code).toBe(1000);
    expect((await c.patch(url(`/terminals/${id}`), { evse_uids: ["EVSE-1"] })).body.status_code).toBe(1000);
    const update = read(folder, "payment_terminal_put_update.json");
    expect((await c.put(url(`/terminals/${id}`), update)).body.status_code).toBe(1000);
    const back = (await c.get(url(`/terminals/${id}`))).body.data;
    expect(back).toMatchObject(update);
    expect(new Set(back.location_ids)).toEqual(new Set(["df37373d-1669-4127-a6ac-d86750095119", ...assignment.location_ids]));
    expect(back.evse_uids).toEqual(["EVSE-1"]);
  });

  it("deactivates, and another CPO's terminal is answered like an unknown one", async () => {
    await given.allActive();
    expect((await c.post(url("/terminals/STOCK-1/deactivate"))).body.status_code).toBe(1000);
    for (const res of [await c.get(url("/terminals/OTHER-CPO")), await c.post(url("/terminals/OTHER-CPO/deactivate")), await c.get(url("/terminals/NOPE"))])
      expect([res.status, res.body.status_code]).toEqual([404, 2001]);
    const refused = await c.post(url("/terminals/activate"), { terminal_id: "OTHER-CPO" });
    expect(refused.status).toBe(404);
    const list = await c.get(url("/terminals"));
    expect(list.headers["x-total-count"]).toBe("3");
    expect(list.body.data.map((t: Json) => t.terminal_id).sort()).toEqual(["STOCK-1", "STOCK-2", "a06dc823-3e5a-40c8-89cf-1b5b9e941412"]);
  });

  it("refuses an activation naming another CPO's party, and a PATCH assigning nothing", async () => {
    await given.allActive();
    const foreign = await c.post(url("/terminals/activate"), { country_code: "FR", party_id: "OTH" });
    expect(foreign.body.status_message).toMatch(/^\/country_code: FR\/OTH is not one of the partner's parties/);
    const nothing = await c.patch(url("/terminals/STOCK-2"), { last_updated: "2024-01-01T00:00:00Z" });
    expect([nothing.body.status_code, nothing.body.status_message]).toEqual([2001, "/location_ids: location_ids or evse_uids is required"]);
  });
});

describe("payments in 2.2.1: offered only to a partner on the direct-payment extension (partners[].extensions)", () => {
  const FAC_221: Json = {
    id: "FAC-221",
    authorization_reference: "AUTH-221",
    total_costs: { excl_vat: 4, incl_vat: 4.4 },
    currency: "EUR",
    eft_data: ["Mastercard"],
    capture_status_code: "SUCCESS",
    last_updated: "2024-01-01T00:00:00Z",
  };
  const EMSP_221 = { plugins: [PaymentsPlugin], localModules: [localPayments], modules: ["payments"], partnerVersion: "2.2.1" as const };
  const endpointsOf = async (c: ReturnType<typeof client>, version: VersionNumber) =>
    ((await c.get(`/ocpi/${version}`)).body.data.endpoints as Json[]).map((e) => `${e.identifier} ${e.role}`);

  describe("a plain 2.2.1 eMSP", () => {
    let h: Harness;
    let c: ReturnType<typeof client>;
    beforeAll(async () => {
      h = await startHarness(EMSP_221);
      c = client(h);
    });
    afterAll(() => h.close());

    it("is not listed payments in 2.2.1 version details; in 2.3.0 it is, as partners[].modules allows every module", async () => {
      const v221 = await endpointsOf(c, "2.2.1");
      expect(v221).toContain("credentials SENDER");
      expect(v221.filter((e) => e.startsWith("payments"))).toEqual([]);
      expect(await endpointsOf(c, "2.3.0")).toEqual(expect.arrayContaining(["payments SENDER", "payments RECEIVER"]));
    });

    it("gets 404 on every 2.2.1 payments path, and nothing is stored", async () => {
      for (const res of [
        await c.post(h.path("2.2.1", "RECEIVER", "payments", "/financial-advice-confirmations"), FAC_221),
        await c.get(h.path("2.2.1", "RECEIVER", "payments", "/financial-advice-confirmations/FAC-221")),
        await c.get(h.path("2.2.1", "SENDER", "payments", "/terminals")),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ status_code: 2001, status_message: "Module payments not found" });
      }
      expect((await c.get(h.path("2.3.0", "RECEIVER", "payments", "/financial-advice-confirmations/FAC-221"))).status).toBe(404);
    });
  });

  describe("a 2.2.1 eMSP with extensions: [direct_payment]", () => {
    let h: Harness;
    let c: ReturnType<typeof client>;
    beforeAll(async () => {
      h = await startHarness({ ...EMSP_221, partnerConfig: { extensions: ["direct_payment"] } });
      c = client(h);
    });
    afterAll(() => h.close());

    it("is listed payments in 2.2.1 version details and uses it: a FAC with its 2.2.1 Price posted and read back", async () => {
      expect(await endpointsOf(c, "2.2.1")).toEqual(expect.arrayContaining(["payments SENDER", "payments RECEIVER"]));
      const posted = await c.post(h.path("2.2.1", "RECEIVER", "payments", "/financial-advice-confirmations"), FAC_221);
      expect(posted.body.status_code).toBe(1000);
      expect((await c.get(h.path("2.2.1", "RECEIVER", "payments", "/financial-advice-confirmations/FAC-221"))).body.data).toEqual(FAC_221);
    });
  });

  it("refuses an extension it does not know, naming the path and the allowed ones", () => {
    expect(() => testGatewayConfig({ port: 8080, partners: [{ id: "emsp", extensions: ["payments" as "direct_payment"] }] })).toThrow(
      "partners[0].extensions[0]: must be one of: direct_payment",
    );
    expect(() => testGatewayConfig({ port: 8080, partners: [{ id: "emsp", extensions: ["direct_payment", "direct_payment"] }] })).toThrow(
      "partners[0].extensions[1]: duplicate extension (already listed at index 0)",
    );
  });
});
