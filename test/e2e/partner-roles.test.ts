import "reflect-metadata";
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";

/**
 * Roles a partner may take are the operator's config, not the partner's
 * word (issue #8, defect 1): a partner that registers claiming HUB, our
 * party or another partner's party is refused with 2001 and nothing is
 * stored; receivers then apply one isolation rule (core/partners/party-scope.ts):
 * a partner writes only its own parties' objects, a configured hub relays
 * others' but never ours nor a directly connected partner's.
 */

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/** the roles a partner platform answers our credentials POST with, per partner id */
const answers: Record<string, unknown[]> = {};

/** A partner platform: versions and 2.3.0 and 2.2.1 details per partner id, and credentials answering `answers`, on one loopback listener. */
const startPartnerPlatform = async () => {
  const server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const [, id, what, version] = (req.url ?? "").split("/");
    const data =
      what === "versions"
        ? ["2.3.0", "2.2.1"].map((v) => ({ version: v, url: `${base}/${id}/details/${v}` }))
        : what === "credentials"
          ? { token: `token-for-us-from-${id}`, url: `${base}/${id}/versions`, roles: answers[id] }
          : { version, endpoints: [{ identifier: "credentials", role: "RECEIVER", url: `${base}/${id}/credentials` }] };
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ data, status_code: 1000, timestamp: new Date().toISOString() }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

let gateway: Gateway;
let platform: Awaited<ReturnType<typeof startPartnerPlatform>>;
const TOKEN_A: Record<string, string> = {
  "emsp-a": "token-a-of-emsp-a",
  "emsp-b": "token-a-of-emsp-b",
  hub: "token-a-of-the-hub",
  intruder: "token-a-of-intruder",
  ptp: "token-a-of-the-ptp",
  newcomer: "token-a-of-newcomer",
  answerer: "token-a-of-answerer",
};
/** the token each partner got from us when it registered (with this test's gateway) */
let issued: Record<string, string>;

beforeAll(async () => {
  platform = await startPartnerPlatform();
});

/**
 * Each test has a gateway of its own, with nobody registered: which partner
 * holds which party, and which tokens they wrote, is each test's set-up
 * (`given`), never what an earlier test left behind.
 */
beforeEach(async () => {
  issued = {};
  for (const id of Object.keys(answers)) delete answers[id];
  const [port] = await freePorts(1);
  const partner = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    token_a: TOKEN_A[id],
    versions_url: `${platform.base}/${id}/versions`,
    versions: ["2.2.1" as const],
    ...extra,
  });
  gateway = await Gateway.create(
    testGatewayConfig({
      port,
      modules: { tokens: { adapter: "local" } },
      partners: [
        partner("emsp-a", { roles: [{ role: "EMSP", party: "DEAAA" }] }),
        partner("emsp-b"),
        partner("hub", { roles: [{ role: "HUB", party: "DEHUB" }] }),
        partner("intruder"),
        partner("ptp", { roles: [{ role: "PTP", party: "DEPTP" }], versions: ["2.3.0"] }),
        partner("newcomer"),
        partner("answerer"),
        // configured, never registered: its party is reserved all the same
        partner("reserved-cpo", { roles: [{ role: "CPO", party: "ESRES" }] }),
      ],
    }),
  );
});

afterEach(async () => {
  await gateway?.close();
  removeTempDirs();
});

afterAll(async () => {
  await new Promise((resolve) => platform?.server.close(resolve));
});

const role = (role: string, country_code: string, party_id: string) => ({ role, country_code, party_id, business_details: { name: `${country_code}${party_id}` } });

const credentials = (method: "post" | "put", id: string, roles: unknown[], token = TOKEN_A[id], version = "2.2.1") =>
  request(gateway.app.callback())
    [method](`/ocpi/${version}/credentials`)
    .set("Authorization", `Token ${b64(token)}`)
    .send({ token: `token-for-us-from-${id}`, url: `${platform.base}/${id}/versions`, roles });

const register = async (id: string, roles: unknown[]) => {
  const response = await credentials("post", id, roles);
  expect(response.body.status_code).toBe(1000);
  issued[id] = response.body.data.token;
};

const token = (country_code: string, party_id: string, uid: string) => ({
  country_code,
  party_id,
  uid,
  type: "RFID",
  contract_id: `${country_code}-${party_id}-${uid}`,
  issuer: "Test issuer",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: "2026-01-01T00:00:00Z",
});

const putToken = (partnerId: string, owner: [string, string], uid: string, from?: [string, string]) => {
  const req = request(gateway.app.callback())
    .put(`/ocpi/2.2.1/receiver/tokens/${owner[0]}/${owner[1]}/${uid}`)
    .set("Authorization", `Token ${b64(issued[partnerId])}`);
  if (from) req.set("OCPI-from-country-code", from[0]).set("OCPI-from-party-id", from[1]).set("OCPI-to-country-code", "NL").set("OCPI-to-party-id", "GWY");
  return req.send(token(owner[0], owner[1], uid));
};

const getToken = (partnerId: string, owner: [string, string], uid: string) =>
  request(gateway.app.callback())
    .get(`/ocpi/2.2.1/receiver/tokens/${owner[0]}/${owner[1]}/${uid}`)
    .set("Authorization", `Token ${b64(issued[partnerId])}`);

/** The registrations and tokens a test reads, made as the partners make them; each step must succeed. */
const given = {
  emspA: () => register("emsp-a", [role("EMSP", "DE", "AAA")]),
  emspB: () => register("emsp-b", [role("EMSP", "FR", "EMB")]),
  hub: () => register("hub", [role("HUB", "DE", "HUB")]),
  /** the hub, then its credentials PUT listing IT/XYZ as reachable through it */
  hubListingXyz: async () => {
    await given.hub();
    const reachable = await credentials("put", "hub", [role("HUB", "DE", "HUB"), role("CPO", "IT", "XYZ")], issued.hub);
    expect(reachable.body.status_code).toBe(1000);
    issued.hub = reachable.body.data.token;
  },
  /** a token a registered partner wrote under its own party */
  token: async (partnerId: string, owner: [string, string], uid: string) => expect((await putToken(partnerId, owner, uid)).body.status_code).toBe(1000),
};

describe("roles a partner may claim are config (partners[].roles)", () => {
  it("refuses HUB from a partner not configured as a hub: 2001, nothing stored, token A still valid", async () => {
    const response = await credentials("post", "intruder", [role("HUB", "FR", "HUB")]);
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/\/roles\/0: role HUB is not allowed/);
    expect((await gateway.registry.get("intruder"))?.status).toBe("pending");
    const stillBootstrap = await request(gateway.app.callback()).get("/ocpi/2.2.1/credentials").set("Authorization", `Token ${b64(TOKEN_A.intruder)}`);
    expect(stillBootstrap.body.status_code).toBe(1000);
  });

  it("refuses a claim of one of our own parties", async () => {
    const response = await credentials("post", "intruder", [role("EMSP", "NL", "GWY")]);
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/NL\/GWY is one of our own parties/);
    expect((await gateway.registry.get("intruder"))?.status).toBe("pending");
  });

  it("refuses a party the config does not allow, and takes the one it does", async () => {
    const refused = await credentials("post", "emsp-a", [role("EMSP", "DE", "BBB")]);
    expect(refused.body.status_code).toBe(2001);
    expect(refused.body.status_message).toMatch(/role EMSP for DE\/BBB is not allowed/);
    await register("emsp-a", [role("EMSP", "DE", "AAA")]);
    expect((await gateway.registry.get("emsp-a"))?.roles.map((r) => `${r.role}:${r.country_code}${r.party_id}`)).toEqual(["EMSP:DEAAA"]);
  });

  it("refuses a party another registered partner holds: first come, first served", async () => {
    await register("emsp-b", [role("EMSP", "FR", "EMB")]);
    const response = await credentials("post", "intruder", [role("EMSP", "FR", "EMB")]);
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/FR\/EMB is registered by another partner/);
  });

  it("lets a configured hub register as HUB, for its configured party only", async () => {
    const wrongParty = await credentials("post", "hub", [role("HUB", "IT", "HUB")]);
    expect(wrongParty.body.status_code).toBe(2001);
    expect(wrongParty.body.status_message).toMatch(/role HUB is allowed for DEHUB only/);
    await register("hub", [role("HUB", "DE", "HUB")]);
  });

  it("refuses a credentials PUT that claims HUB; the registered roles stay", async () => {
    await given.emspB();
    const response = await credentials("put", "emsp-b", [role("HUB", "FR", "EMB")], issued["emsp-b"]);
    expect(response.body.status_code).toBe(2001);
    expect((await gateway.registry.get("emsp-b"))?.roles.map((r) => r.role)).toEqual(["EMSP"]);
    expect((await putToken("emsp-b", ["FR", "EMB"], "BTOK")).body.status_code).toBe(1000);
  });
});

describe("a party is held by one partner at a time (issue #23)", () => {
  const rolesOf = async (id: string) => (await gateway.registry.get(id))?.roles.map((r) => `${r.role}:${r.country_code}${r.party_id}`);

  it("refuses a configured hub's claim of a party another partner registered: 2001 naming the role, nothing stored (D1)", async () => {
    await given.hub();
    await given.emspB();
    await given.token("emsp-b", ["FR", "EMB"], "BTOK");
    const before = await gateway.registry.get("hub");
    const response = await credentials("put", "hub", [role("HUB", "DE", "HUB"), role("EMSP", "FR", "EMB")], issued.hub);
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/\/roles\/1: FR\/EMB is registered by another partner/);
    expect(await gateway.registry.get("hub")).toEqual(before);
    // the hub's registration and token are intact, and FR/EMB stays out of its reach
    expect((await getToken("hub", ["FR", "EMB"], "BTOK")).body.status_code).toBe(2001);
    expect((await putToken("hub", ["FR", "EMB"], "HTOK")).body.status_code).toBe(2001);
    expect((await getToken("emsp-b", ["FR", "EMB"], "BTOK")).body.data.contract_id).toBe("FR-EMB-BTOK");
    expect((await getToken("emsp-b", ["FR", "EMB"], "HTOK")).body.status_code).not.toBe(1000);
  });

  it("lets a configured hub list parties reachable through it, never ours nor one another partner's config names", async () => {
    await given.hub();
    const ours = await credentials("put", "hub", [role("HUB", "DE", "HUB"), role("CPO", "NL", "GWY")], issued.hub);
    expect(ours.body.status_message).toMatch(/\/roles\/1: NL\/GWY is one of our own parties/);
    const configured = await credentials("put", "hub", [role("HUB", "DE", "HUB"), role("CPO", "DE", "PTP")], issued.hub);
    expect(configured.body.status_message).toMatch(/\/roles\/1: DE\/PTP is another partner's party \(partners\[\]\.roles\)/);
    expect(await rolesOf("hub")).toEqual(["HUB:DEHUB"]);
    const reachable = await credentials("put", "hub", [role("HUB", "DE", "HUB"), role("CPO", "IT", "XYZ")], issued.hub);
    expect(reachable.body.status_code).toBe(1000);
    issued.hub = reachable.body.data.token;
    expect(await rolesOf("hub")).toEqual(["HUB:DEHUB", "CPO:ITXYZ"]);
    // the hub now holds IT/XYZ: nobody else takes it
    const taken = await credentials("post", "intruder", [role("CPO", "IT", "XYZ")]);
    expect(taken.body.status_message).toMatch(/\/roles\/0: IT\/XYZ is registered by another partner/);
    expect((await gateway.registry.get("intruder"))?.status).toBe("pending");
  });
});

describe("a partner's answer when we register (partners register) goes by the same rule", () => {
  it("refuses an answer claiming a party another partner holds: nothing stored; then takes a free one", async () => {
    await given.emspB();
    answers.answerer = [role("EMSP", "FR", "EMB")];
    await expect(gateway.credentials.register("answerer")).rejects.toThrow(
      "Partner answered credentials we cannot accept: /roles/0: FR/EMB is registered by another partner",
    );
    expect(await gateway.registry.get("answerer")).toMatchObject({ status: "pending", roles: [], tokenAConsumed: false });
    answers.answerer = [role("EMSP", "FR", "ANS")];
    expect((await gateway.credentials.register("answerer")).roles.map((r) => `${r.country_code}${r.party_id}`)).toEqual(["FRANS"]);
  });
});

describe("a payment-terminal provider claims OTHER (issue #23 D6)", () => {
  it("refuses an unconfigured partner's claim of the party configured for the PTP", async () => {
    const response = await credentials("post", "intruder", [role("OTHER", "DE", "PTP")]);
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/\/roles\/0: DE\/PTP is another partner's party/);
    expect((await gateway.registry.get("intruder"))?.status).toBe("pending");
  });

  it("refuses role PTP in 2.3.0 credentials as invalid (no value of the Role enum), naming the field", async () => {
    const response = await credentials("post", "ptp", [role("PTP", "DE", "PTP")], TOKEN_A.ptp, "2.3.0");
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/\/roles\/0\/role/);
    expect((await gateway.registry.get("ptp"))?.status).toBe("pending");
  });

  it("registers a partner configured as PTP claiming OTHER for its party", async () => {
    const response = await credentials("post", "ptp", [role("OTHER", "DE", "PTP")], TOKEN_A.ptp, "2.3.0");
    expect(response.body.status_code).toBe(1000);
    const record = await gateway.registry.get("ptp");
    expect(record?.roles.map((r) => `${r.role}:${r.country_code}${r.party_id}`)).toEqual(["OTHER:DEPTP"]);
    expect(record?.version).toBe("2.3.0");
  });

  it("takes an unconfigured partner's OTHER for a free party like any role: first come, first served", async () => {
    const response = await credentials("post", "newcomer", [role("OTHER", "BE", "NEW")]);
    expect(response.body.status_code).toBe(1000);
    const second = await credentials("post", "intruder", [role("EMSP", "BE", "NEW")]);
    expect(second.body.status_message).toMatch(/\/roles\/0: BE\/NEW is registered by another partner/);
  });
});

describe("receivers apply one isolation rule", () => {
  // emsp-a holds DE/AAA, emsp-b FR/EMB and its token BTOK, the hub DE/HUB and IT/XYZ
  beforeEach(async () => {
    await given.emspA();
    await given.emspB();
    await given.token("emsp-b", ["FR", "EMB"], "BTOK");
    await given.hubListingXyz();
  });

  it("a partner cannot write another partner's token (the original stays)", async () => {
    const response = await putToken("emsp-a", ["FR", "EMB"], "BTOK");
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/FR\/EMB is not one of the partner's parties/);
    expect((await getToken("emsp-b", ["FR", "EMB"], "BTOK")).body.data.contract_id).toBe("FR-EMB-BTOK");
  });

  it("a partner cannot write a token under our own party, nor read another's", async () => {
    expect((await putToken("emsp-a", ["NL", "GWY"], "OWN1")).body.status_code).toBe(2001);
    expect((await getToken("emsp-a", ["FR", "EMB"], "BTOK")).body.status_code).toBe(2001);
  });

  it("a partner cannot speak for another party in the routing headers", async () => {
    const response = await putToken("emsp-a", ["DE", "AAA"], "ATOK", ["FR", "EMB"]);
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/from-country-code\/from-party-id FR\/EMB/);
    expect((await putToken("emsp-a", ["DE", "AAA"], "ATOK", ["DE", "AAA"])).body.status_code).toBe(1000);
  });

  it("a configured hub relays parties reachable through it, never ours nor a directly connected partner's", async () => {
    expect((await putToken("hub", ["IT", "XYZ"], "T1")).body.status_code).toBe(1000);
    expect((await putToken("hub", ["NL", "GWY"], "OWN1")).body.status_code).toBe(2001);
    expect((await putToken("hub", ["FR", "EMB"], "BTOK")).body.status_code).toBe(2001);
    expect((await getToken("emsp-b", ["FR", "EMB"], "BTOK")).body.data.contract_id).toBe("FR-EMB-BTOK");
  });

  it("a configured hub never relays a party another partner's config names, though that partner has not registered", async () => {
    const response = await putToken("hub", ["ES", "RES"], "T2");
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/ES\/RES is not one of the partner's parties/);
    expect((await putToken("hub", ["ES", "RES"], "T2", ["ES", "RES"])).body.status_code).toBe(2001);
  });

  it("path owners match case-insensitively (CiString) and by the same rule", async () => {
    await given.token("emsp-a", ["DE", "AAA"], "ATOK");
    expect((await getToken("emsp-a", ["de", "aaa"], "ATOK")).body.status_code).toBe(1000);
    expect((await getToken("emsp-a", ["fr", "emb"], "BTOK")).body.status_code).toBe(2001);
  });
});
