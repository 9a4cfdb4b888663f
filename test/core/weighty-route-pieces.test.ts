import type { Gateway } from "../../app/gateway";
import { bodyLimitsOf } from "../../core/http/body-limits";
import { weightyTurnsOf } from "../../core/http/weighty-turns";
import { removeTempDirs } from "../support/gateway-config";
import { partnerGateway } from "../support/partner-gateway";
import { token } from "../support/charge-point";

/**
 * A weighty body (core/http/weighty-turns.ts) received by a route is taken in three pieces, each on a turn
 * of its own: its parse, its validation (with its translation to the canonical model), and its storing with
 * the answer (core/http/json-body.ts JsonBody.nextPiece, core/host/mount-route.ts), so that a request
 * arriving meanwhile waits for one of them at most; a body refused by validation is not stored and takes two;
 * a small body takes none. Counted on the gateway's own turns (weightyTurnsOf its limits), through HTTP.
 */
let gateway: Gateway;
let port: number;
let auth: string;

beforeEach(async () => {
  ({ gateway, port, auth } = await partnerGateway());
});

afterEach(() => gateway.close());
afterAll(() => removeTempDirs());

const put = async (uid: string, body: object) => {
  const res = await fetch(`http://127.0.0.1:${port}/ocpi/2.3.0/receiver/tokens/DE/EMS/${uid}`, {
    method: "PUT",
    headers: { authorization: auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { status_code: number; status_message?: string } };
};
const get = async (uid: string) =>
  (await fetch(`http://127.0.0.1:${port}/ocpi/2.3.0/receiver/tokens/DE/EMS/${uid}`, { headers: { authorization: auth } }).then((res) => res.json())) as { status_code: number };

/** weighty by its members: 3,000 array elements (from 2,000 on), far below the heavy lane's thresholds */
const weighty = { extra: new Array(3_000).fill(1) };

describe("a weighty body received by a route", () => {
  it("is parsed, validated and stored in three pieces; a small one in none", async () => {
    const turns = weightyTurnsOf(bodyLimitsOf(gateway.config));
    const before = turns.piecesBegun;
    expect((await put("HEAVY1", { ...token, uid: "HEAVY1", ...weighty })).body.status_code).toBe(1000);
    expect(turns.piecesBegun - before).toBe(3);
    expect((await get("HEAVY1")).status_code).toBe(1000);

    const small = turns.piecesBegun;
    expect((await put("SMALL1", { ...token, uid: "SMALL1" })).body.status_code).toBe(1000);
    expect(turns.piecesBegun).toBe(small);
  });

  it("refused by validation: two pieces, and nothing stored", async () => {
    const turns = weightyTurnsOf(bodyLimitsOf(gateway.config));
    const before = turns.piecesBegun;
    const answer = await put("BAD1", { ...token, uid: "BAD1", valid: "yes", ...weighty });
    expect(answer.body.status_code).toBe(2001);
    expect(answer.body.status_message).toContain("valid");
    expect(turns.piecesBegun - before).toBe(2);
    expect((await get("BAD1")).status_code).not.toBe(1000);
  });
});
