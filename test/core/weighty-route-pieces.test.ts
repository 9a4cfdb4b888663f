import type { Gateway } from "../../app/gateway";
import { bodyLimitsOf } from "../../core/http/body-limits";
import { weightyTurnsOf } from "../../core/http/weighty-turns";
import { PIECE_MEMBERS } from "../../core/http/pieced-parse";
import { redisStore, removeTempDirs, sqliteStore } from "../support/gateway-config";
import { partnerGateway } from "../support/partner-gateway";
import { token } from "../support/charge-point";

/**
 * A weighty body (core/http/weighty-turns.ts) received by a route is taken in pieces, each on a turn of its
 * own: its parse, a piece for each further part of at most PIECE_MEMBERS members its large arrays are parsed
 * in (core/http/pieced-parse.ts), its validation (with its translation to the canonical model), and its
 * storing with the answer (core/http/json-body.ts JsonBody.nextPiece, core/host/mount-route.ts), where the
 * store writes the same arrays in the same parts, a piece for each further one (core/model/parted-arrays.ts),
 * so that a request arriving meanwhile waits for one of them at most; a body refused by validation is not
 * stored and takes only its parse and validation; a small body takes none. Counted on the gateway's own turns
 * (weightyTurnsOf its limits), through HTTP, on SQLite and on Redis; what is read back is what was sent.
 */
describe.each([
  ["SQLite", sqliteStore],
  ["Redis", redisStore],
])("a weighty body received by a route, on %s", (_store, store) => {
  let gateway: Gateway;
  let port: number;
  let auth: string;

  beforeEach(async () => {
    ({ gateway, port, auth } = await partnerGateway({ store: store() }));
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
    (await fetch(`http://127.0.0.1:${port}/ocpi/2.3.0/receiver/tokens/DE/EMS/${uid}`, { headers: { authorization: auth } }).then((res) => res.json())) as {
      status_code: number;
      data?: { extra?: unknown };
    };

  /** weighty by its members: 3,000 array elements (from 2,000 on), far below the heavy lane's thresholds; two parts */
  const weighty = { extra: new Array(3_000).fill(1) };

  it("is parsed, validated and stored a piece at a time, its large array in parts; a small one in none", async () => {
    const turns = weightyTurnsOf(bodyLimitsOf(gateway.config));
    const before = turns.piecesBegun;
    expect((await put("HEAVY1", { ...token, uid: "HEAVY1", ...weighty })).body.status_code).toBe(1000);
    // parse (2 parts), validation, store (2 parts)
    expect(turns.piecesBegun - before).toBe(2 + 1 + 2);
    expect((await get("HEAVY1")).data?.extra).toEqual(weighty.extra);

    // 4,500 elements of two members each, multi-byte text: parsed and written in as many parts, in their order
    const many = { extra: Array.from({ length: 4_500 }, (_, i) => ({ i: `é${i}` })) };
    const parts = Math.ceil((4_500 * 2) / PIECE_MEMBERS);
    const three = turns.piecesBegun;
    expect((await put("HEAVY2", { ...token, uid: "HEAVY2", ...many })).body.status_code).toBe(1000);
    expect(turns.piecesBegun - three).toBe(parts + 1 + parts);
    expect((await get("HEAVY2")).data?.extra).toEqual(many.extra);

    const small = turns.piecesBegun;
    expect((await put("SMALL1", { ...token, uid: "SMALL1" })).body.status_code).toBe(1000);
    expect(turns.piecesBegun).toBe(small);
  });

  it("refused by validation: its parse and validation only, and nothing stored", async () => {
    const turns = weightyTurnsOf(bodyLimitsOf(gateway.config));
    const before = turns.piecesBegun;
    const answer = await put("BAD1", { ...token, uid: "BAD1", valid: "yes", ...weighty });
    expect(answer.body.status_code).toBe(2001);
    expect(answer.body.status_message).toContain("valid");
    expect(turns.piecesBegun - before).toBe(2 + 1);
    expect((await get("BAD1")).status_code).not.toBe(1000);
  });
});
