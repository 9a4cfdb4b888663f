/** The hub forwards between the CPO and the eMSP (its world: test/e2e/hub.fixtures.ts): lists, objects and pushes translated both ways, broadcasts, its partners' status, isolation, timeouts, a streamed page, its version details. */
import "reflect-metadata";
import { bigProgress, BIG_PAGE_BYTES, CPO, EMSP, HUB, hubWorld, type FakePartner, type Json } from "./hub.fixtures";
import http from "node:http";
import type { Gateway } from "../../app/gateway";
import { ocpiRequest } from "../support/gateway-process";
import { eventually, location, token } from "../support/charge-point";
import type { AdapterDeps } from "../../core/contract/adapter";

describe("a hub between a 2.2.1 CPO and a 2.3.0 eMSP", () => {
  const world = hubWorld();
  const { cpoLogs, slowSeen, viaHub, receivedStatus } = world;
  let hub: Gateway;
  let hubUrl: string;
  let cpoToken: string;
  let emspToken: string;
  let cpoUrl: string;
  let slow: FakePartner;
  let askTokenOwner: AdapterDeps["askTokenOwner"];
  beforeAll(() => ({ hub, hubUrl, cpoToken, emspToken, cpoUrl, slow, askTokenOwner } = world));

  it("hubclientinfo: the eMSP learns the CPO's status from the hub; the hub lists every party, paginated", async () => {
    await eventually(async () => expect(await receivedStatus(CPO)).toBe("CONNECTED"), 10_000);
    const first = await ocpiRequest("GET", `${hubUrl}/ocpi/2.3.0/hubclientinfo?limit=2`, { token: emspToken });
    expect(first.status).toBe(200);
    expect(first.body.status_code).toBe(1000);
    expect(first.headers["x-total-count"]).toBe("4");
    expect(first.body.data).toHaveLength(2);
    expect(first.headers.link).toMatch(/offset=2/);
    // the partners registered last are published at the monitor's next turn
    await eventually(async () => {
      const parties = (await ocpiRequest("GET", `${hubUrl}/ocpi/2.3.0/hubclientinfo`, { token: emspToken })).body.data as Json[];
      expect(parties.map((p) => `${p.country_code}${p.party_id}:${p.role}:${p.status}`).sort()).toEqual([
        "DEEMS:EMSP:CONNECTED",
        "NLBIG:CPO:CONNECTED",
        "NLCPO:CPO:CONNECTED",
        "NLSLO:CPO:CONNECTED",
      ]);
    }, 5_000, 50);
    // the eMSP's version details name its receiver, which the hub pushed to
    const emspHub = await hub.registry.get("emsp");
    expect(emspHub!.endpoints).toContainEqual(expect.objectContaining({ identifier: "hubclientinfo", role: "RECEIVER" }));
    // the hub has no hub among its partners, so it offers no hubclientinfo receiver: nobody pushes ClientInfo to it
    const refused = await ocpiRequest("PUT", `${hubUrl}/ocpi/2.3.0/hubclientinfo/NL/CPO`, {
      token: emspToken,
      body: { country_code: "NL", party_id: "CPO", role: "CPO", status: "OFFLINE", last_updated: "2025-01-01T00:00:00Z" },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.body.status_code).not.toBe(1000);
  }, 20_000);

  it("GET list and object, eMSP → CPO: translated 2.2.1 → 2.3.0, ids kept, correlation id end to end", async () => {
    const correlation = "corr-list-0001";
    const list = await viaHub("GET", "/2.3.0/sender/locations?limit=10", { headers: { "X-Request-ID": "req-list-0001", "X-Correlation-ID": correlation } });
    expect(list.status).toBe(200);
    expect(list.body.status_code).toBe(1000);
    expect(list.headers["x-request-id"]).toBe("req-list-0001");
    expect(list.headers["x-correlation-id"]).toBe(correlation);
    expect(list.headers["x-total-count"]).toBe("3");
    expect(list.body.data).toHaveLength(3);
    expect(list.body.data[0]).toMatchObject({ id: "LOC1", country_code: "NL", party_id: "CPO" });
    expect(list.headers["ocpi-from-party-id"]).toBe("CPO");
    expect(list.headers["ocpi-to-party-id"]).toBe("EMS");
    // The CPO saw the same correlation id, on a request id of the hub's own.
    const line = cpoLogs.lines.map((l) => JSON.parse(l)).find((l) => l.correlationId === correlation && l.msg === "request");
    expect(line).toBeDefined();
    expect(line.requestId).not.toBe("req-list-0001");
    expect(line.partner).toBe("hub");

    // the same version on both sides: streamed (core/hub/stream-forward.ts), answer headers rewritten the same way
    const streamed = await viaHub("GET", "/2.2.1/sender/locations?limit=2", { headers: { "X-Request-ID": "req-stream-1", "X-Correlation-ID": "corr-stream-1" } });
    expect(streamed.body.status_code).toBe(1000);
    expect(streamed.body.data.map((l: Json) => l.id)).toEqual(["LOC1", "LOC2"]);
    expect(streamed.headers["x-request-id"]).toBe("req-stream-1");
    expect(streamed.headers["x-correlation-id"]).toBe("corr-stream-1");
    expect(String(streamed.headers.link)).toContain(`${hubUrl}/ocpi/2.2.1/sender/locations?`);
    expect(cpoLogs.lines.some((l) => l.includes('"correlationId":"corr-stream-1"'))).toBe(true);

    const one = await viaHub("GET", "/2.3.0/sender/locations/LOC1/EVSE1");
    expect(one.body).toMatchObject({ status_code: 1000, data: { uid: "EVSE1" } });
    const unknown = await viaHub("GET", "/2.3.0/sender/locations/NOPE");
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(2003);
  });

  it("a Link to the next page points at the hub, and following it continues the CPO's list", async () => {
    const first = await viaHub("GET", "/2.3.0/sender/locations?limit=1");
    expect(first.headers["x-total-count"]).toBe("3");
    expect(first.body.data.map((l: Json) => l.id)).toEqual(["LOC1"]);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1];
    expect(next.startsWith(`${hubUrl}/ocpi/2.3.0/sender/locations?`)).toBe(true);
    const second = await viaHub("GET", next.slice(`${hubUrl}/ocpi`.length));
    expect(second.body.data.map((l: Json) => l.id)).toEqual(["LOC2"]);
  });

  it("PUT and PATCH pushes eMSP → CPO through the hub, read back through it", async () => {
    const put = await viaHub("PUT", `/2.3.0/receiver/tokens/DE/EMS/${token.uid}`, { body: { ...token, type: "RFID" } });
    expect(put.body.status_code).toBe(1000);
    expect([200, 201]).toContain(put.status);
    const patch = await viaHub("PATCH", `/2.3.0/receiver/tokens/DE/EMS/${token.uid}`, { body: { valid: false, last_updated: "2024-06-01T00:00:00Z" } });
    expect(patch.body.status_code).toBe(1000);
    const back = await viaHub("GET", `/2.3.0/receiver/tokens/DE/EMS/${token.uid}`);
    expect(back.body).toMatchObject({ status_code: 1000, data: { uid: token.uid, valid: false, last_updated: "2024-06-01T00:00:00Z" } });
    // an invalid body is refused at the hub, naming the field, in the sender's version
    const bad = await viaHub("PUT", `/2.3.0/receiver/tokens/DE/EMS/${token.uid}`, { body: { ...token, valid: "maybe" } });
    expect(bad.body.status_code).toBe(2001);
    expect(bad.body.status_message).toMatch(/\/valid/);
  });

  it("PUT pushes CPO → eMSP, and the CPO's real-time authorization reaches the eMSP", async () => {
    const loc = { ...location({ country_code: "NL", party_id: "CPO" }), id: "LOC9" };
    const put = await viaHub("PUT", "/2.2.1/receiver/locations/NL/CPO/LOC9", { token: cpoToken, from: CPO, to: EMSP, body: loc });
    expect(put.body.status_code).toBe(1000);
    const stored = await viaHub("GET", "/2.2.1/receiver/locations/NL/CPO/LOC9", { token: cpoToken, from: CPO, to: EMSP });
    expect(stored.body).toMatchObject({ status_code: 1000, data: { id: "LOC9" } });
    const auth = await viaHub("POST", `/2.2.1/sender/tokens/${token.uid}/authorize`, { token: cpoToken, from: CPO, to: EMSP, body: { location_id: "LOC1" } });
    expect(auth.body).toMatchObject({ status_code: 1000, data: { allowed: "ALLOWED" } });
    const unknown = await viaHub("POST", "/2.2.1/sender/tokens/NOSUCH/authorize", { token: cpoToken, from: CPO, to: EMSP });
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(2004);
    // the CPO gateway's own path (AdapterDeps.askTokenOwner): the hub lists DE/EMS (hubclientinfo), so it is asked, addressed to DE/EMS
    await eventually(async () => expect(await receivedStatus(EMSP, cpoUrl)).toBe("CONNECTED"), 10_000);
    const emspOwner = { country_code: "DE", party_id: "EMS" };
    expect(await askTokenOwner(emspOwner, { uid: token.uid, type: "RFID" })).toEqual({ kind: "answered", allowed: "ALLOWED" });
    expect(await askTokenOwner(emspOwner, { uid: "NOSUCH", type: "RFID" })).toEqual({ kind: "unknown_token" });
    // a party no partner lists is asked of nobody
    expect(await askTokenOwner({ country_code: "FR", party_id: "XYZ" }, { uid: token.uid, type: "RFID" })).toBeUndefined();
  });

  it("a push addressed to the hub party is broadcast to the partners of the opposite role (the eMSP), translated", async () => {
    const loc = { ...location({ country_code: "NL", party_id: "CPO" }), id: "LOC7" };
    const sent = await viaHub("PUT", "/2.2.1/receiver/locations/NL/CPO/LOC7", { token: cpoToken, from: CPO, to: HUB, body: loc });
    expect(sent.body.status_code).toBe(1000);
    expect(sent.headers["ocpi-from-party-id"]).toBe("HUB");
    // a Session belongs to one eMSP: never broadcast
    const session = await viaHub("PUT", "/2.2.1/receiver/sessions/NL/CPO/SES9", { token: cpoToken, from: CPO, to: HUB, body: { id: "SES9" } });
    expect(session.body.status_code).toBe(2001);
    expect(session.body.status_message).toMatch(/never broadcast/);
    // delivered by the hub's outbox to the eMSP (2.3.0); read back through the hub like any forwarded GET
    await eventually(async () => {
      const stored = await viaHub("GET", "/2.2.1/receiver/locations/NL/CPO/LOC7", { token: cpoToken, from: CPO, to: EMSP });
      expect(stored.body).toMatchObject({ status_code: 1000, data: { id: "LOC7" } });
    }, 10_000, 100);
  });

  it("isolation: the from-party must be the sender's; a receiver outside the sender's forward list or unknown is 4001", async () => {
    const spoofed = await viaHub("GET", "/2.3.0/sender/locations", { from: { country_code: "NL", party_id: "CPO", role: "CPO" } });
    expect(spoofed.body.status_code).toBe(2001);
    const unknown = await viaHub("GET", "/2.3.0/sender/locations", { to: { country_code: "FR", party_id: "XYZ", role: "CPO" } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(4001);
    const notAllowed = await viaHub("GET", "/2.2.1/sender/locations", { token: cpoToken, from: CPO, to: { country_code: "NL", party_id: "SLO", role: "CPO" } });
    expect(notAllowed.body.status_code).toBe(4001);
    const noToken = await viaHub("GET", "/2.3.0/sender/locations", { token: "not-a-token-of-anyone" });
    expect(noToken.status).toBe(401);
  });

  it("never forwarded: a path that leaves its module (a dot segment, plain or percent-encoded) or a configuration module's (credentials, hubclientinfo)", async () => {
    const { big } = world;
    const before = big.requests.length;
    const sent = [
      "/2.2.1/sender/locations/%2e%2e/credentials",
      "/2.2.1/sender/locations/%2E%2e/credentials",
      "/2.2.1/sender/locations/.%2e/credentials",
      "/2.2.1/sender/locations/LOC1/../../credentials",
      "/2.2.1/sender/locations/%2e/../credentials",
      "/2.2.1/sender/credentials",
      "/2.2.1/receiver/credentials",
      "/2.2.1/sender/hubclientinfo",
    ];
    for (const path of sent) {
      // the path as written (a URL would resolve its dot segments before sending)
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const headers = { Authorization: `Token ${Buffer.from(emspToken).toString("base64")}`, "OCPI-from-country-code": "DE", "OCPI-from-party-id": "EMS", "OCPI-to-country-code": "NL", "OCPI-to-party-id": "BIG" };
        const req = http.request({ host: "127.0.0.1", port: Number(new URL(hubUrl).port), path: `/ocpi${path}`, headers, agent: false }, (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        req.end();
      });
      expect([path, answer.status]).toEqual([path, 404]);
      expect(answer.body).not.toContain("token");
    }
    expect(big.requests.slice(before).filter((r) => !r.endsWith(" /versions"))).toEqual([]);
  });

  it("a receiver that does not answer in time is 4002; one that is down is 4003; only its own token reaches it", async () => {
    const late = await viaHub("GET", "/2.2.1/sender/locations", { to: { country_code: "NL", party_id: "SLO", role: "CPO" } });
    expect(late.status).toBe(504);
    expect(late.body.status_code).toBe(4002);
    const slowRecord = await hub.registry.get("slow");
    expect(slowSeen.length).toBeGreaterThan(0);
    for (const auth of slowSeen) expect(auth).toBe(`Token ${Buffer.from(slowRecord!.tokenToPartner!).toString("base64")}`);
    expect(slowSeen.join()).not.toContain(Buffer.from(emspToken).toString("base64"));
    await new Promise<void>((resolve) => slow.server.close(() => resolve()));
    slow.server.closeAllConnections();
    const down = await viaHub("GET", "/2.2.1/sender/locations", { to: { country_code: "NL", party_id: "SLO", role: "CPO" } });
    expect(down.status).toBe(502);
    expect(down.body.status_code).toBe(4003);
    // unregistered at the hub: refused from the moment that write returned (the current registration
    // generation), not after the second the hub once kept its partner list for
    await hub.registry.unregister("slow");
    const gone = await viaHub("GET", "/2.2.1/sender/locations", { to: { country_code: "NL", party_id: "SLO", role: "CPO" } });
    expect(gone.body).toMatchObject({ status_code: 4003, status_message: "Receiver NL/SLO is not connected" });
  }, 15_000);

  it("a 20 MB page is streamed through the hub (same version), never held whole", async () => {
    // The partner sends the second half of the page only once the sender has received all but 2 MB of the first:
    // a hub that buffered the answer would never pass the first half on, and the request would time out.
    const received = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${hubUrl}/ocpi/2.2.1/sender/locations`,
        {
          headers: {
            Authorization: `Token ${Buffer.from(emspToken).toString("base64")}`,
            "OCPI-from-country-code": "DE",
            "OCPI-from-party-id": "EMS",
            "OCPI-to-country-code": "NL",
            "OCPI-to-party-id": "BIG",
          },
          agent: false,
        },
        (res) => {
          res.on("data", (chunk: Buffer) => (bigProgress.received += chunk.length));
          res.on("end", () => resolve(bigProgress.received));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(received).toBeGreaterThan(BIG_PAGE_BYTES);
    expect(bigProgress.waited).toBe(true);
  }, 30_000);

  it("the hub's version details list the modules it forwards, not only the ones it serves", async () => {
    const details = await ocpiRequest("GET", `${hubUrl}/ocpi/2.3.0`, { token: emspToken });
    const endpoints = (details.body.data.endpoints as Json[]).map((e) => `${e.identifier}.${e.role}`);
    for (const module of ["locations", "sessions", "cdrs", "tariffs", "tokens", "commands", "chargingprofiles"])
      expect(endpoints).toEqual(expect.arrayContaining([`${module}.SENDER`, `${module}.RECEIVER`]));
    expect(endpoints).toContain("hubclientinfo.SENDER");
    const commands = (details.body.data.endpoints as Json[]).find((e) => e.identifier === "commands" && e.role === "RECEIVER");
    expect(commands!.url).toBe(`${hubUrl}/ocpi/2.3.0/receiver/commands`);
    // 2.1.1 has no routing headers: nothing is forwarded there, and nothing is listed
    const old = await ocpiRequest("GET", `${hubUrl}/ocpi/2.1.1`, { token: emspToken });
    expect((old.body?.data?.endpoints ?? []).map((e: Json) => e.identifier)).not.toContain("commands");
  });
});
