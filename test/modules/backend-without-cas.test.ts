// the harness first: it loads reflect-metadata, which the plugin's decorators need
import { startHarness, type Harness } from "../support/module-harness";
import type { CredentialsRole } from "../../core/protocol/types";
import { ModuleCatalog } from "../../core/modules/module-catalog";
import type { LocalModule } from "../../adapters/local/local-module";
import type { PageRequest, PortMap } from "../../adapters/kit";
import { localLocations } from "../../adapters/local/locations";
import { localSessions } from "../../adapters/local/sessions";
import { localTokens } from "../../adapters/local/tokens";
import { LocationsPlugin } from "../../plugins/locations/module";
import { SessionsPlugin } from "../../plugins/sessions/module";
import { TokensPlugin } from "../../plugins/tokens/module";

/**
 * A backend reached over REST has no compare-and-set: its Receiver ports
 * offer get and put, not the atomic `update`, and its Locations Sender may
 * not know OCPI's publish rule. The plugins keep the protocol rules either
 * way (core/modules/update-stored.ts, plugins/locations/published.ts); the
 * `local` adapter, which has both, is the other path (test/modules/*.test.ts).
 */
type Json = Record<string, any>;

/** What the backend's Locations Sender was asked for. */
const listed: PageRequest[] = [];

/** A `local` module as such a backend offers it: Receiver ports without `update`, a Locations Sender that ignores the `published` filter. */
const withoutCas = (module: LocalModule): LocalModule => ({
  ...module,
  create(store, context) {
    const made = module.create(store, context);
    const ports: Record<string, any> = { ...made.ports };
    for (const name of Object.keys(ports).filter((n) => n.endsWith(".RECEIVER"))) {
      const { update: _atomic, ...getAndPut } = ports[name];
      ports[name] = getAndPut;
    }
    if (ports["locations.SENDER"]) {
      const sender = ports["locations.SENDER"];
      ports["locations.SENDER"] = {
        get: sender.get,
        list: (page: PageRequest, ctx: unknown) => {
          listed.push(page);
          return sender.list({ ...page, published: undefined }, ctx);
        },
      };
    }
    return { ...made, ports: ports as Partial<PortMap> };
  },
});

const role = (country_code: string, party_id: string, r: "CPO" | "EMSP"): CredentialsRole => ({
  country_code,
  party_id,
  role: r,
  business_details: { name: `${country_code}${party_id}` },
});

const connector = (id: string, stamp: string): Json => ({
  id,
  standard: "IEC_62196_T2",
  format: "SOCKET",
  power_type: "AC_3_PHASE",
  max_voltage: 230,
  max_amperage: 16,
  last_updated: stamp,
});
const evse = (uid: string, stamp: string): Json => ({ uid, evse_id: `NL*TNM*E${uid}`, status: "AVAILABLE", connectors: [connector("1", stamp)], last_updated: stamp });
const location = (cc: string, pid: string, id: string, publish: boolean, stamp = "2024-01-01T00:00:00Z"): Json => ({
  country_code: cc,
  party_id: pid,
  id,
  publish,
  ...(publish ? {} : { publish_allowed_to: [{ visual_number: "123", issuer: "X" }] }),
  name: id,
  address: "Street 1",
  city: "Town",
  postal_code: "1234 AB",
  country: "NLD",
  coordinates: { latitude: "52.370216", longitude: "4.895168" },
  evses: [evse("E1", stamp)],
  time_zone: "Europe/Amsterdam",
  last_updated: stamp,
});

describe("a backend without compare-and-set", () => {
  let h: Harness;
  const send = (method: "get" | "put" | "patch", path: string, body?: Json) => {
    const call = h.http[method](path).set("Authorization", h.auth);
    return body ? call.send(body) : call;
  };
  const receiver = (module: string, rest: string) => h.path("2.3.0", "RECEIVER", module, rest);
  const sender = (rest = "") => h.path("2.3.0", "SENDER", "locations", rest);

  beforeAll(async () => {
    h = await startHarness({
      plugins: [LocationsPlugin, SessionsPlugin, TokensPlugin],
      localModules: [localLocations, localSessions, localTokens].map(withoutCas),
      modules: ["locations", "sessions", "tokens"],
      partnerRoles: [role("NL", "TNM", "CPO"), role("DE", "EMS", "EMSP")],
      seed: { locations: [location("NL", "GWY", "OPEN1", true), location("NL", "GWY", "HOME", false), location("NL", "GWY", "OPEN2", true)] },
    });
  });
  afterAll(() => h.close());

  it("is served: the atomic update is a capability, not a method start-up requires", () => {
    const receivers = h.gateway.container.resolve(ModuleCatalog).served.filter((s) => s.role === "RECEIVER");
    expect(receivers.map((s) => [s.plugin.module, "update" in (s.port as object)])).toEqual([
      ["locations", false],
      ["sessions", false],
      ["tokens", false],
    ]);
  });

  it("Locations: an EVSE PATCH and a Connector PUT are merged by the plugin over get and put", async () => {
    expect((await send("put", receiver("locations", "/NL/TNM/L1"), location("NL", "TNM", "L1", true))).status).toBe(201);
    const patched = await send("patch", receiver("locations", "/NL/TNM/L1/E1"), { status: "CHARGING", last_updated: "2024-02-01T00:00:00Z" });
    expect(patched.body.status_code).toBe(1000);
    expect((await send("put", receiver("locations", "/NL/TNM/L1/E1/2"), connector("2", "2024-03-01T00:00:00Z"))).status).toBe(201);
    const stored = (await send("get", receiver("locations", "/NL/TNM/L1"))).body.data;
    expect(stored.evses[0].status).toBe("CHARGING");
    expect(stored.evses[0].connectors.map((c: Json) => c.id)).toEqual(["1", "2"]);
    expect(stored.last_updated).toBe("2024-03-01T00:00:00Z");
  });

  it("Locations: a PATCH leaving an invalid Location stores nothing; one of an unknown Location is 404", async () => {
    expect((await send("put", receiver("locations", "/NL/TNM/L2"), location("NL", "TNM", "L2", true))).status).toBe(201);
    // publish_allowed_to is only for an unpublished Location: a valid fragment whose merged result is not
    const refused = await send("patch", receiver("locations", "/NL/TNM/L2"), { publish_allowed_to: [{ uid: "123", type: "RFID" }], last_updated: "2024-04-01T00:00:00Z" });
    expect(refused.body.status_message).toContain("/publish_allowed_to");
    expect((await send("get", receiver("locations", "/NL/TNM/L2"))).body.data.publish_allowed_to).toBeUndefined();
    expect((await send("patch", receiver("locations", "/NL/TNM/NOPE/E1"), { status: "CHARGING", last_updated: "2024-04-01T00:00:00Z" })).status).toBe(404);
  });

  it("Sessions: a PATCH appends its charging periods over get and put", async () => {
    const session = {
      country_code: "NL",
      party_id: "TNM",
      id: "S1",
      start_date_time: "2024-05-01T10:00:00Z",
      kwh: 1.5,
      cdr_token: { country_code: "DE", party_id: "EMS", uid: "UID1", type: "RFID", contract_id: "DE-EMS-C1" },
      auth_method: "WHITELIST",
      location_id: "L1",
      evse_uid: "E1",
      connector_id: "1",
      currency: "EUR",
      charging_periods: [{ start_date_time: "2024-05-01T10:00:00Z", dimensions: [{ type: "ENERGY", volume: 1.5 }] }],
      status: "ACTIVE",
      last_updated: "2024-05-01T10:05:00Z",
    };
    expect((await send("put", receiver("sessions", "/NL/TNM/S1"), session)).status).toBe(201);
    const period = { start_date_time: "2024-05-01T10:05:00Z", dimensions: [{ type: "ENERGY", volume: 2 }] };
    expect((await send("patch", receiver("sessions", "/NL/TNM/S1"), { kwh: 3.5, charging_periods: [period], last_updated: "2024-05-01T10:10:00Z" })).body.status_code).toBe(1000);
    const stored = (await send("get", receiver("sessions", "/NL/TNM/S1"))).body.data;
    expect(stored.kwh).toBe(3.5);
    expect(stored.charging_periods).toEqual([...session.charging_periods, period]);
  });

  it("Tokens: a PATCH is merged and checked by the plugin; an invalid result stores nothing", async () => {
    const token = {
      country_code: "DE",
      party_id: "EMS",
      uid: "TOK1",
      type: "RFID",
      contract_id: "DE-EMS-C1",
      issuer: "EMS",
      valid: true,
      whitelist: "ALLOWED",
      last_updated: "2024-01-01T00:00:00Z",
    };
    expect((await send("put", h.path("2.3.0", "RECEIVER", "tokens", "/DE/EMS/TOK1"), token)).status).toBe(201);
    expect((await send("patch", h.path("2.3.0", "RECEIVER", "tokens", "/DE/EMS/TOK1"), { valid: false, last_updated: "2024-01-02T00:00:00Z" })).body.status_code).toBe(1000);
    expect((await send("patch", h.path("2.3.0", "RECEIVER", "tokens", "/DE/EMS/TOK1"), { whitelist: "SOMETIMES" })).body.status_code).toBe(2001);
    expect((await send("get", h.path("2.3.0", "RECEIVER", "tokens", "/DE/EMS/TOK1"))).body.data).toEqual({ ...token, valid: false, last_updated: "2024-01-02T00:00:00Z" });
  });

  it("Locations Sender: the plugin asks for published Locations and withholds an unpublished one the backend still returns", async () => {
    listed.length = 0;
    const list = await send("get", sender());
    expect(listed).toEqual([expect.objectContaining({ published: true })]);
    expect(list.body.data.map((l: Json) => l.id)).toEqual(["OPEN1", "OPEN2"]);
    expect(list.headers["x-total-count"]).toBe("2");
    expect((await send("get", sender("/HOME"))).status).toBe(404);
    expect((await send("get", sender("/HOME/E1"))).status).toBe(404);
    expect((await send("get", sender("/OPEN1/E1"))).body.data.uid).toBe("E1");
  });
});
