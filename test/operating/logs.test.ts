import "reflect-metadata";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { captureLogs } from "../support/log-capture";
import { LocationsClient } from "../../plugins/locations/client";

/**
 * Issue #14, logs: one access line per request with status and duration;
 * every line written while a request is served carries its partner, module,
 * X-Request-ID and X-Correlation-ID; no token used in the test reaches a
 * log line (debug level, both gateways).
 */

const TOKEN_A = "logs-token-A-0123456789abcdef";
const ADMIN = "logs-admin-token-0123456789";

describe("request logs", () => {
  let cpo: Gateway;
  let emsp: Gateway;
  let cpoUrl: string;
  const logs = captureLogs("debug");
  const lines = () => logs.lines.map((l) => JSON.parse(l) as Record<string, any>);
  /** the lines of the handshake and the pull in beforeAll, whatever the tests add after them (admin calls log no partner) */
  let setUpLines = 0;

  beforeAll(async () => {
    const [cpoPort, emspPort] = await freePorts(2);
    cpoUrl = `http://127.0.0.1:${cpoPort}`;
    cpo = await Gateway.create(
      testGatewayConfig({
        port: cpoPort,
        party: { country_code: "NL", party_id: "CPO", role: "CPO" },
        modules: { locations: { adapter: "local" }, tokens: { adapter: "local" } },
        server: { admin_token: ADMIN, log_level: "debug" },
        partners: [{ id: "emsp", token_a: TOKEN_A, versions_url: versionsUrlOf(emspPort) }],
      }),
      { logger: logs.logger },
    );
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: { country_code: "DE", party_id: "EMS", role: "EMSP" },
        modules: { locations: { adapter: "local" }, tokens: { adapter: "local" } },
        partners: [{ id: "cpo", token_a: TOKEN_A, versions_url: versionsUrlOf(cpoPort) }],
      }),
      { logger: logs.logger },
    );
    await cpo.listen();
    await emsp.listen();
    await emsp.credentials.register("cpo");
    for await (const _ of new LocationsClient(emsp.partnerClient).list("cpo")) void _;
    logs.watch(TOKEN_A, ADMIN, (await emsp.registry.get("cpo"))?.tokenToPartner, (await cpo.registry.get("emsp"))?.tokenToPartner);
    setUpLines = logs.lines.length;
  });

  afterAll(async () => {
    await Promise.all([cpo?.close(), emsp?.close()]);
    removeTempDirs();
  });

  it("writes one access line per request, with partner, module, ids, status, status_code and duration", async () => {
    const token = (await emsp.registry.get("cpo"))!.tokenToPartner!;
    const ids = { "X-Request-ID": "req-logs-test-1", "X-Correlation-ID": "corr-logs-test-1" };
    // an invalid Token PUT: the receiver logs nothing itself, the access line says 2001
    const answer = await ocpiRequest("PUT", `${cpoUrl}/ocpi/2.3.0/receiver/tokens/DE/EMS/TOK1`, { token, headers: ids, body: { uid: "TOK1" } });
    expect(answer.body.status_code).toBe(2001);
    const access = lines().filter((l) => l.msg === "request" && l.requestId === "req-logs-test-1");
    expect(access).toEqual([
      expect.objectContaining({
        level: 30,
        partner: "emsp",
        module: "tokens",
        interface: "RECEIVER",
        correlationId: "corr-logs-test-1",
        method: "PUT",
        path: "/ocpi/2.3.0/receiver/tokens/DE/EMS/TOK1",
        status: answer.status,
        statusCode: 2001,
        ms: expect.any(Number),
      }),
    ]);
  });

  it("puts partner, module and both ids on every line written during a request", async () => {
    const handshakeAndPull = lines().slice(0, setUpLines);
    const during = handshakeAndPull.filter((l) => l.requestId !== undefined);
    expect(during.length).toBeGreaterThan(5);
    for (const line of during) {
      expect(line).toEqual(expect.objectContaining({ requestId: expect.any(String), correlationId: expect.any(String), module: expect.any(String) }));
      // every request of the set-up is authenticated but the pre-handshake versions call-backs, which carry a token too
      expect(line.partner).toEqual(expect.any(String));
    }
    // and the request lines themselves: one per request id
    const access = handshakeAndPull.filter((l) => l.msg === "request");
    expect(new Set(access.map((l) => l.requestId)).size).toBe(access.length);
    // the handshake and the pull were served on both sides and logged as such
    expect(access.filter((l) => l.module === "credentials")).toHaveLength(1);
    expect(access.filter((l) => l.module === "locations" && l.partner === "emsp" && l.status === 200)).toHaveLength(1);
  });

  it("leaks no token: token A, both issued tokens and the admin token appear in no line", async () => {
    await ocpiRequest("GET", `${cpoUrl}/admin/v1/outbox`, { headers: { Authorization: `Bearer ${ADMIN}` } });
    await ocpiRequest("GET", `${cpoUrl}/admin/v1/outbox`, { headers: { Authorization: `Bearer ${ADMIN}x` } });
    expect(logs.lines.filter((l) => l.includes('"path":"/admin/v1/outbox"'))).toHaveLength(2);
    expect(logs.leaks()).toEqual([]);
  });
});
