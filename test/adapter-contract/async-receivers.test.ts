import type { PortName } from "../../adapters/kit";
import { adapterName, loadFixture } from "./fixture";
import { eventually, startContractGateway, type ContractGateway } from "./gateway";
import { IN_SCOPE, minute, OUT_OF_SCOPE, token } from "./data";

/**
 * Commands and charging profiles on the charge point side (CPO): the
 * adapter's immediate answer to what the gateway checked and handed it
 * (`submit`), and an outcome for every ACCEPTED request reported to the sink
 * the gateway handed it in `connect`, under the id it was given
 * (plugins/commands/ports.ts, plugins/chargingprofiles/ports.ts).
 */
type Json = Record<string, any>;

const fixture = loadFixture();
const implemented = (port: PortName) => fixture.factory.portNames.includes(port);
/** allowed for the suite's partner: it registered with a versions URL on 127.0.0.1 */
const RESPONSE_URL = "http://127.0.0.1:9/contract/callback";
const COMMAND_RESPONSES = ["NOT_SUPPORTED", "REJECTED", "ACCEPTED", "UNKNOWN_SESSION"];
const PROFILE_RESPONSES = ["ACCEPTED", "NOT_SUPPORTED", "REJECTED", "TOO_OFTEN", "UNKNOWN_SESSION"];

describe(`adapter contract: commands and charging profiles of "${adapterName()}"`, () => {
  let g: ContractGateway;
  beforeAll(async () => {
    g = await startContractGateway();
  });
  afterAll(() => g?.close());

  const post = (path: string, body: Json) => g.http.post(path).set("Authorization", g.auth).send(body);
  /** A held Location of ours with an EVSE and a connector, and a held session of the partner's eMSP. */
  const place = () => {
    const location = g.holds.locations.find((l) => l.publish !== false && l.evses?.[0]?.connectors?.[0]);
    if (!location) throw new Error("the backend holds no published Location with an EVSE and a connector");
    return { location_id: location.id as string, evse_uid: location.evses[0].uid as string, connector_id: location.evses[0].connectors[0].id as string };
  };
  const sessionOf = (emsp: typeof IN_SCOPE) => {
    const session = g.holds.sessions.find((s) => s.cdr_token?.country_code === emsp.country_code && s.cdr_token?.party_id === emsp.party_id);
    if (!session) throw new Error(`the backend holds no session of ${emsp.country_code}/${emsp.party_id}`);
    return session.id as string;
  };

  /** The outcome the adapter reported for what it was last handed, when it accepted it. */
  const outcomeOf = async (port: "commands.RECEIVER" | "chargingprofiles.RECEIVER", submittedBefore: number) => {
    const handed = await eventually(() => g.submitted.slice(submittedBefore).find((s) => s.port === port));
    const reported = await eventually(() => g.reported.find((r) => r.port === port && r.id === handed.id));
    return reported;
  };

  (implemented("commands.RECEIVER") ? describe : describe.skip)("commands Receiver", () => {
    const command = (type: string) => g.path("RECEIVER", "commands", `/${type}`);

    it.each([
      ["START_SESSION", () => ({ token: token(IN_SCOPE, "CMD-TOK-1", minute(0)), ...place() })],
      ["STOP_SESSION", () => ({ session_id: sessionOf(IN_SCOPE) })],
      ["UNLOCK_CONNECTOR", () => place()],
    ])("%s on what the backend holds: a CommandResponse at once; when ACCEPTED, an outcome reaches the gateway's sink", async (type, body) => {
      const before = g.submitted.length;
      const res = await post(command(type), { ...body(), response_url: RESPONSE_URL });
      expect(res.status).toBe(200);
      expect(res.body.status_code).toBe(1000);
      expect(COMMAND_RESPONSES).toContain(res.body.data.result);
      expect(g.submitted.length).toBe(before + 1);
      if (res.body.data.result !== "ACCEPTED") return;
      const reported = await outcomeOf("commands.RECEIVER", before);
      expect(reported.taken).toBe(true);
      expect(["ACCEPTED", "CANCELED_RESERVATION", "EVSE_OCCUPIED", "EVSE_INOPERATIVE", "FAILED", "NOT_SUPPORTED", "REJECTED", "TIMEOUT", "UNKNOWN_RESERVATION"]).toContain(
        (reported.result as Json).result,
      );
    });

    it("the port's location() and session() answer for our held objects, in any letter case, and not for unknown ones", async () => {
      const port = g.port("commands.RECEIVER");
      const { location_id } = place();
      expect((await port.location(location_id, g.ctx()))?.id).toBe(location_id);
      expect((await port.location(location_id.toLowerCase(), g.ctx()))?.id).toBe(location_id);
      expect(await port.location("NO-SUCH-LOCATION", g.ctx())).toBeUndefined();
      const sessionId = sessionOf(IN_SCOPE);
      expect((await port.session(sessionId, g.ctx()))?.id).toBe(sessionId);
      expect(await port.session("NO-SUCH-SESSION", g.ctx())).toBeUndefined();
    });

    it("what the backend does not hold never reaches submit: unknown location (2003, REJECTED), unknown or another eMSP's session (UNKNOWN_SESSION)", async () => {
      const before = g.submitted.length;
      const unknownLocation = await post(command("UNLOCK_CONNECTOR"), { ...place(), location_id: "NO-SUCH-LOCATION", response_url: RESPONSE_URL });
      expect(unknownLocation.body).toMatchObject({ status_code: 2003, data: { result: "REJECTED" } });
      for (const session_id of ["NO-SUCH-SESSION", sessionOf(OUT_OF_SCOPE)])
        expect((await post(command("STOP_SESSION"), { session_id, response_url: RESPONSE_URL })).body.data.result).toBe("UNKNOWN_SESSION");
      expect(g.submitted.length).toBe(before);
    });
  });

  (implemented("chargingprofiles.RECEIVER") ? describe : describe.skip)("chargingprofiles Receiver", () => {
    const profiles = (rest: string) => g.path("RECEIVER", "chargingprofiles", rest);
    const PROFILE = { charging_rate_unit: "A", charging_profile_period: [{ start_period: 0, limit: 16 }] };

    it("SET_PROFILE and GET_ACTIVE_PROFILE on a held session: a response at once; when ACCEPTED, an outcome reaches the gateway's sink", async () => {
      const sessionId = sessionOf(IN_SCOPE);
      const requests = [
        () => g.http.put(profiles(`/${sessionId}`)).set("Authorization", g.auth).send({ charging_profile: PROFILE, response_url: RESPONSE_URL }),
        () => g.http.get(profiles(`/${sessionId}?duration=900&response_url=${encodeURIComponent(RESPONSE_URL)}`)).set("Authorization", g.auth),
      ];
      for (const send of requests) {
        const before = g.submitted.length;
        const res = await send();
        expect(res.body.status_code).toBe(1000);
        expect(PROFILE_RESPONSES).toContain(res.body.data.result);
        if (res.body.data.result !== "ACCEPTED") continue;
        const reported = await outcomeOf("chargingprofiles.RECEIVER", before);
        expect(reported.taken).toBe(true);
        expect(["ACCEPTED", "REJECTED", "UNKNOWN"]).toContain((reported.result as Json).result);
      }
    });

    it("an unknown session or another eMSP's is UNKNOWN_SESSION and never reaches submit", async () => {
      const before = g.submitted.length;
      for (const sessionId of ["NO-SUCH-SESSION", sessionOf(OUT_OF_SCOPE)]) {
        const res = await g.http.put(profiles(`/${sessionId}`)).set("Authorization", g.auth).send({ charging_profile: PROFILE, response_url: RESPONSE_URL });
        expect(res.body.data.result).toBe("UNKNOWN_SESSION");
      }
      expect(g.submitted.length).toBe(before);
    });
  });
});
