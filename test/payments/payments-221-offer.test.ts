import "reflect-metadata";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { eventually } from "../support/charge-point";
import { ADMIN, adminOf, json, type Json } from "./payments-net";

/**
 * Issue #25 item 2, between gateways on loopback: a PTP gateway (payments
 * SENDER, `local`) and two 2.2.1 CPO gateways (payments RECEIVER), both on
 * the direct-payment extension and configured so for the PTP
 * (`partners[].extensions`). The PTP configures only cpo-on for it: cpo-off
 * registers without a payments endpoint of the PTP's, and the PTP's
 * Terminals are pushed to cpo-on only, although cpo-off lists a payments
 * Receiver (core/partners/module-offers.ts, one rule for version details,
 * admission and pushes).
 */

const PTP: PartySpec = { country_code: "NL", party_id: "PTP", role: "PTP" };
const ON: PartySpec = { country_code: "DE", party_id: "CON", role: "CPO" };
const OFF: PartySpec = { country_code: "DE", party_id: "COF", role: "CPO" };

let ptp: Gateway;
let ptpUrl: string;
const cpos: Record<"on" | "off", Gateway> = {} as never;
const silent = () => ({ logger: pino({ level: "silent" }) });

beforeAll(async () => {
  const [ptpPort, onPort, offPort] = await freePorts(3);
  ptpUrl = `http://127.0.0.1:${ptpPort}`;
  ptp = await Gateway.create(
    testGatewayConfig({
      port: ptpPort,
      party: PTP,
      modules: { payments: { adapter: "local", roles: ["SENDER"] } },
      server: { admin_token: ADMIN },
      partners: [
        { id: "cpo-on", token_a: "offer-token-a-on-0123", versions_url: versionsUrlOf(onPort), versions: ["2.2.1"], extensions: ["direct_payment"] },
        { id: "cpo-off", token_a: "offer-token-a-off-0123", versions_url: versionsUrlOf(offPort), versions: ["2.2.1"] },
      ],
    }),
    silent(),
  );
  await ptp.listen();
  for (const [key, port, party] of [["on", onPort, ON], ["off", offPort, OFF]] as const) {
    cpos[key] = await Gateway.create(
      testGatewayConfig({
        port,
        party,
        modules: { payments: { adapter: "local", roles: ["RECEIVER"] } },
        partners: [{ id: "ptp", token_a: `offer-token-a-${key}-0123`, versions_url: versionsUrlOf(ptpPort), versions: ["2.2.1"], extensions: ["direct_payment"] }],
      }),
      silent(),
    );
    await cpos[key].listen();
    await cpos[key].credentials.register("ptp");
  }
});

afterAll(async () => {
  await Promise.all([ptp?.close(), cpos.on?.close(), cpos.off?.close()]);
  removeTempDirs();
});

const terminal = (id: string, cpo: PartySpec) => ({
  module: "payments",
  owner: { country_code: PTP.country_code, party_id: PTP.party_id },
  path: ["terminals", id],
  kind: "upsert",
  object: { terminal_id: id, country_code: cpo.country_code, party_id: cpo.party_id, last_updated: "2024-05-01T10:00:00Z" },
});
const heldAt = (cpo: Gateway, id: string) => cpo.store.get<Json>("local:payments.terminals:NLPTP", id);

describe("2.2.1 payments between a PTP and CPOs, offered by the PTP's config", () => {
  it("registers both in 2.2.1; only cpo-on is given the PTP's payments endpoint, though both list a payments Receiver", async () => {
    const payments = async (key: "on" | "off") => (await cpos[key].registry.get("ptp"))!.endpoints.filter((e) => e.identifier === "payments");
    expect((await cpos.on.registry.get("ptp"))!.version).toBe("2.2.1");
    expect(await payments("on")).toEqual([{ identifier: "payments", role: "SENDER", url: `${ptpUrl}/ocpi/2.2.1/sender/payments` }]);
    expect(await payments("off")).toEqual([]);
    expect((await ptp.registry.get("cpo-off"))!.endpoints.some((e) => e.identifier === "payments" && e.role === "RECEIVER")).toBe(true);
  });

  it("pushes a Terminal to cpo-on, and never queues one for cpo-off", async () => {
    const admin = adminOf(ptpUrl);
    // the answer comes once the pushes are queued (core/push/events-route.ts)
    expect(json(await admin.post("/events", terminal("T-OFF", OFF))).status_code).toBe(1000);
    expect(json(await admin.post("/events", terminal("T-ON", ON))).status_code).toBe(1000);
    const queued = (partner: string, outbox: Json[]) => outbox.find((p) => p.partner === partner)?.queued ?? 0;
    expect(queued("cpo-off", json(await admin.get("/outbox")).data)).toBe(0);
    await eventually(async () => expect(await heldAt(cpos.on, "T-ON")).toMatchObject({ terminal_id: "T-ON", party_id: "CON" }));
    // nothing was queued for cpo-off when the events were answered, so nothing was delivered since either
    expect(await heldAt(cpos.off, "T-OFF")).toBeUndefined();
  });
});
