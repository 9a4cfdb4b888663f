import "reflect-metadata";
import { removeTempDirs, type PartySpec } from "../support/gateway-config";
import { cdrOf } from "../support/ocpi-objects";
import { eventually } from "../support/charge-point";
import { PTP, PaymentsNet, adminOf, heldFac, json, paidSession, settlement, type Cpo, type Json } from "./payments-net";

/**
 * FACs are scoped to the CPO party they belong to (issue #12): a settlement
 * names no terminal and no operator (docs/tms-v1.md), so the PTP attributes a FAC
 * by its authorization_reference to the CPO whose Session or CDR carries it
 * (plugins/payments/fac-owner.ts). Two CPO partners each see only their own
 * FACs in pushes, lists (and X-Total-Count) and GET by id; another's is
 * answered like an unknown one (HTTP 404 + 2001), as terminals and the rest
 * of the product answer isolation; a FAC no single CPO can be found for is
 * withheld from all and listed for the operator, also when the second CPO's
 * claim comes after it was pushed to the first (issue #23: listed with its
 * claimants and the CPO it was delivered to).
 */

const CPO_A: PartySpec = { country_code: "DE", party_id: "CPX", role: "CPO" };
const CPO_B: PartySpec = { country_code: "FR", party_id: "CPB", role: "CPO" };

describe("FAC isolation between CPO partners of a PTP", () => {
  let net: PaymentsNet;
  let a: Cpo;
  let b: Cpo;

  const ids = (items: { id: string }[]) => items.map((f) => f.id).sort();
  const partyOf = (party: PartySpec) => ({ country_code: party.country_code, party_id: party.party_id });
  const withheldNow = async () => json(await adminOf(net.ptpUrl).get("/payments/withheld-financial-advice-confirmations?limit=1000")).data.items as Json[];

  // a network of its own per test: the later tests add FACs, claims and withheld ones that the lists and counts of the others must not see
  beforeEach(async () => {
    net = await PaymentsNet.start([
      { id: "cpo-a", party: CPO_A },
      { id: "cpo-b", party: CPO_B },
    ]);
    [a, b] = net.cpos;
    await net.report(a, "sessions", paidSession(CPO_A, "SES-A", "AUTH-A"));
    await net.report(b, "sessions", paidSession(CPO_B, "SES-B", "AUTH-B"));
    // a CDR links as well as a Session
    const ptpToken = { country_code: PTP.country_code, party_id: PTP.party_id, uid: "TERMINAL-SER-9", type: "AD_HOC_USER", contract_id: "NL-PTP-ADHOC" };
    const cdr = cdrOf({ owner: CPO_A, id: "CDR-A", start: "2024-05-02T10:00:00Z", end: "2024-05-02T11:00:00Z", kwh: 3, cost: 1.2, token: ptpToken });
    await net.report(a, "cdrs", { ...cdr, authorization_reference: "AUTH-CDR" });
    // both CPOs' sessions carry one reference: neither may have the FAC
    await net.report(a, "sessions", paidSession(CPO_A, "SES-A-DUP", "AUTH-DUP"));
    await net.report(b, "sessions", paidSession(CPO_B, "SES-B-DUP", "AUTH-DUP"));

    for (const [id, ref] of [["SET-A", "AUTH-A"], ["SET-B", "AUTH-B"], ["SET-CDR", "AUTH-CDR"], ["SET-NOBODY", "AUTH-NOBODY"], ["SET-DUP", "AUTH-DUP"]])
      await net.tms.capture(settlement(id, ref));
    // markers: each partner's pushes are delivered in order, so what came before them has arrived or never will
    await net.tms.capture(settlement("SET-A-LAST", "auth-a"));
    await net.tms.capture(settlement("SET-B-LAST", "AUTH-B"));
    await eventually(async () => expect(await heldFac(a, "SET-A-LAST")).toBeDefined());
    await eventually(async () => expect(await heldFac(b, "SET-B-LAST")).toBeDefined());
  });

  afterEach(() => net?.close());
  afterAll(() => removeTempDirs());

  it("pushes each FAC to its own CPO only", async () => {
    const held = async (cpo: Cpo) => {
      const found: string[] = [];
      for (const id of ["SET-A", "SET-B", "SET-CDR", "SET-NOBODY", "SET-DUP", "SET-A-LAST", "SET-B-LAST"]) if (await heldFac(cpo, id)) found.push(id);
      return found;
    };
    expect(await held(a)).toEqual(["SET-A", "SET-CDR", "SET-A-LAST"]);
    expect(await held(b)).toEqual(["SET-B", "SET-B-LAST"]);
  });

  it("lists each CPO only its own FACs, and counts only those", async () => {
    const listA = await net.atPtp(a, "/financial-advice-confirmations");
    expect(ids(json(listA).data)).toEqual(["SET-A", "SET-A-LAST", "SET-CDR"]);
    expect(listA.headers["x-total-count"]).toBe("3");
    const listB = await net.atPtp(b, "/financial-advice-confirmations?limit=1");
    expect(ids(json(listB).data)).toEqual(["SET-B"]);
    expect(listB.headers["x-total-count"]).toBe("2");
    // and the CPO's backend sees the same through its admin API (the same list, pulled from the PTP)
    expect(ids(json(await adminOf(b.url).get("/payments/ptp/financial-advice-confirmations")).data)).toEqual(["SET-B", "SET-B-LAST"]);
  });

  it("answers another CPO's FAC by id like an unknown one", async () => {
    const own = await net.atPtp(a, "/financial-advice-confirmations/SET-A");
    expect([own.status, json(own).data.id]).toEqual([200, "SET-A"]);
    const unknown = await net.atPtp(a, "/financial-advice-confirmations/NO-SUCH-FAC");
    expect([unknown.status, json(unknown).status_code, json(unknown).status_message]).toEqual([404, 2001, "FinancialAdviceConfirmation not found"]);
    for (const [cpo, id] of [[a, "SET-B"], [b, "SET-A"], [b, "SET-CDR"], [a, "SET-NOBODY"], [b, "SET-DUP"]] as const) {
      const res = await net.atPtp(cpo, `/financial-advice-confirmations/${id}`);
      expect([res.status, json(res).status_code, json(res).status_message]).toEqual([404, 2001, "FinancialAdviceConfirmation not found"]);
    }
  });

  it("withholds what no single CPO can be found for, and lists it for the operator with the reason", async () => {
    const withheld = json(await adminOf(net.ptpUrl).get("/payments/withheld-financial-advice-confirmations")).data;
    expect(withheld.total).toBe(2);
    expect(withheld.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: "SET-NOBODY", authorization_reference: "AUTH-NOBODY", reason: expect.stringMatching(/no CPO's Session or CDR/), claimants: [], delivered_to: null }),
        expect.objectContaining({ id: "SET-DUP", reason: expect.stringMatching(/several CPOs.*DECPX, FRCPB/), claimants: [partyOf(CPO_A), partyOf(CPO_B)], delivered_to: null }),
      ]),
    );
  });

  it("a FAC withheld for want of a Session is pushed to its CPO once the Session comes, and is no longer withheld", async () => {
    const withheld = async () => (json(await adminOf(net.ptpUrl).get("/payments/withheld-financial-advice-confirmations")).data.items as { id: string }[]).map((w) => w.id);
    await net.tms.capture(settlement("SET-LATE", "AUTH-LATE"));
    await eventually(async () => expect(await withheld()).toContain("SET-LATE"));
    await net.report(a, "sessions", paidSession(CPO_A, "SES-LATE", "AUTH-LATE"));
    await eventually(async () => expect(await heldFac(a, "SET-LATE")).toMatchObject({ authorization_reference: "AUTH-LATE" }));
    expect(await withheld()).not.toContain("SET-LATE");
    // a marker for b after it: b never gets SET-LATE
    await net.tms.capture(settlement("SET-B-AFTER", "AUTH-B"));
    await eventually(async () => expect(await heldFac(b, "SET-B-AFTER")).toBeDefined());
    expect(await heldFac(b, "SET-LATE")).toBeUndefined();
  });

  it("a CPO claiming another's reference with a Session of its own does not get the FAC: the FAC is withheld from both", async () => {
    // one more FAC of B's before the claim, which B's list must still show
    await net.tms.capture(settlement("SET-B-AFTER", "AUTH-B"));
    await eventually(async () => expect(await heldFac(b, "SET-B-AFTER")).toBeDefined());
    await net.report(b, "sessions", paidSession(CPO_B, "SES-B-CLAIM", "AUTH-A"));
    const stolen = await net.atPtp(b, "/financial-advice-confirmations/SET-A");
    expect([stolen.status, json(stolen).status_code]).toEqual([404, 2001]);
    expect(ids(json(await net.atPtp(b, "/financial-advice-confirmations")).data)).toEqual(["SET-B", "SET-B-AFTER", "SET-B-LAST"]);
    // fail closed: the reference is no longer A's alone either
    expect((await net.atPtp(a, "/financial-advice-confirmations/SET-A")).status).toBe(404);
  });

  it("a FAC delivered to one CPO and then claimed by another's Session is hidden from both and listed as withheld, with its claimants and whom it was delivered to", async () => {
    // CPO A's Session with the reference comes first: the FAC is A's alone, and pushed to A
    await net.report(a, "sessions", paidSession(CPO_A, "SES-SHARED-A", "AUTH-SHARED"));
    await net.tms.capture(settlement("SET-SHARED", "AUTH-SHARED"));
    await eventually(async () => expect(await heldFac(a, "SET-SHARED")).toMatchObject({ authorization_reference: "AUTH-SHARED" }));
    expect((await net.atPtp(a, "/financial-advice-confirmations/SET-SHARED")).status).toBe(200);
    expect((await withheldNow()).map((w) => w.id)).not.toContain("SET-SHARED");
    // then CPO B's Session carries the same reference: the FAC is no longer provably A's
    await net.report(b, "sessions", paidSession(CPO_B, "SES-SHARED-B", "AUTH-SHARED"));
    for (const cpo of [a, b]) {
      const res = await net.atPtp(cpo, "/financial-advice-confirmations/SET-SHARED");
      expect([res.status, json(res).status_code]).toEqual([404, 2001]);
      expect(ids(json(await net.atPtp(cpo, "/financial-advice-confirmations?limit=1000")).data)).not.toContain("SET-SHARED");
    }
    // the operator sees it withheld, who claims it, and that A already has it (a push cannot be taken back)
    await eventually(async () =>
      expect((await withheldNow()).find((w) => w.id === "SET-SHARED")).toMatchObject({
        authorization_reference: "AUTH-SHARED",
        reason: expect.stringMatching(/several CPOs.*DECPX, FRCPB/),
        claimants: [partyOf(CPO_A), partyOf(CPO_B)],
        delivered_to: partyOf(CPO_A),
      }),
    );
    // B never gets it: a marker pushed to B after the claim arrives, SET-SHARED does not
    await net.tms.capture(settlement("SET-B-SHARED-AFTER", "AUTH-B"));
    await eventually(async () => expect(await heldFac(b, "SET-B-SHARED-AFTER")).toBeDefined());
    expect(await heldFac(b, "SET-SHARED")).toBeUndefined();
  });
});
