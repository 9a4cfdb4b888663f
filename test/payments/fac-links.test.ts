import "reflect-metadata";
import { removeTempDirs, type PartySpec } from "../support/gateway-config";
import { cdrOf } from "../support/ocpi-objects";
import { eventually } from "../support/charge-point";
import type { Store } from "../../core/contract/store";
import { currentRequest } from "../../core/http/request-scope";
import { PTP, PaymentsNet, adminOf, heldFac, json, paidSession, settlement, type Cpo } from "./payments-net";

/**
 * Which of our Sessions and CDRs a FAC paid for (issue #12), as the CPO's
 * backend reads it (`GET /admin/v1/payments/<ptp>/financial-advice-confirmations/<id>`
 * → `linked`): looked up in the authorization_reference index kept as our
 * Sessions and CDRs are reported, not by a pass over them. The store reads
 * of one lookup are counted with 1 and with 401 Sessions held: the same.
 */

const CPO: PartySpec = { country_code: "DE", party_id: "CPX", role: "CPO" };
const MORE_SESSIONS = 400;

jest.setTimeout(120_000);

describe("FAC links by authorization_reference", () => {
  let net: PaymentsNet;
  let cpo: Cpo;

  beforeAll(async () => {
    net = await PaymentsNet.start([{ id: "cpo-a", party: CPO }]);
    [cpo] = net.cpos;
  });

  afterAll(async () => {
    await net?.close();
    removeTempDirs();
  });

  /**
   * The admin lookup, with every read of the CPO gateway's store made for it counted: those made while serving
   * the admin request (core/http/request-scope.ts), not those of its background work (the outbox worker looks
   * at its queues every poll, the timeout watcher at pending requests), which can fall within it.
   */
  const lookUp = async (id: string) => {
    const store = cpo.gateway.store as Store;
    const counted = { gets: 0, ranges: 0 };
    const forLookup = () => currentRequest()?.module === "admin";
    const [get, range] = [store.get.bind(store), store.range.bind(store)];
    const gets = jest.spyOn(store, "get").mockImplementation((...a) => ((counted.gets += forLookup() ? 1 : 0), get(...a)));
    const ranges = jest.spyOn(store, "range").mockImplementation((...a) => ((counted.ranges += forLookup() ? 1 : 0), range(...a)));
    try {
      const answer = json(await adminOf(cpo.url).get(`/payments/ptp/financial-advice-confirmations/${id}`));
      return { answer, reads: counted.gets + counted.ranges, ranges: counted.ranges };
    } finally {
      gets.mockRestore();
      ranges.mockRestore();
    }
  };

  it("links a FAC to our Session and CDR with its reference, at a cost that does not grow with the Sessions we hold", async () => {
    await net.report(cpo, "sessions", paidSession(CPO, "SES-PAID", "AUTH-L"));
    await net.tms.capture(settlement("SET-L", "AUTH-L"));
    await eventually(async () => expect(await heldFac(cpo, "SET-L")).toBeDefined());
    const few = await lookUp("SET-L");
    expect(few.answer.data.linked).toEqual([{ module: "sessions", country_code: "DE", party_id: "CPX", id: "SES-PAID" }]);

    // many more Sessions (other references), and a CDR of the paid session
    const admin = adminOf(cpo.url);
    for (let i = 0; i < MORE_SESSIONS; i++) {
      const session = paidSession(CPO, `SES-${i}`, `AUTH-${i}`);
      const answer = await admin.post("/events", { module: "sessions", owner: { country_code: "DE", party_id: "CPX" }, path: [session.id], kind: "upsert", object: session });
      expect(json(answer).status_code).toBe(1000);
    }
    const token = { country_code: PTP.country_code, party_id: PTP.party_id, uid: "TERMINAL-SER-1", type: "AD_HOC_USER", contract_id: "NL-PTP-ADHOC" };
    const cdr = cdrOf({ owner: CPO, id: "CDR-PAID", start: "2024-05-01T10:00:00Z", end: "2024-05-01T11:00:00Z", kwh: 4, cost: 4, token });
    // reported last: once the PTP holds it, every push before it has been delivered and the CPO's outbox is idle
    await net.report(cpo, "cdrs", { ...cdr, authorization_reference: "auth-l" });

    const many = await lookUp("SET-L");
    expect(many.answer.data.linked).toEqual([
      { module: "sessions", country_code: "DE", party_id: "CPX", id: "SES-PAID" },
      { module: "cdrs", country_code: "DE", party_id: "CPX", id: "CDR-PAID" },
    ]);
    expect(many.ranges).toBe(0);
    expect(many.reads).toBe(few.reads);
  });
});
