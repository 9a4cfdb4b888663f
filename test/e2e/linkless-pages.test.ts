import "reflect-metadata";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import type { PartyRef } from "../../core/protocol/types";
import { SyncStates } from "../../core/sync/sync-state";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { ADMIN_TOKEN, adminApi } from "../support/charge-point";
import { numberedCpoLocation } from "../support/ocpi-objects";
import { QuirkyCpo, envelope } from "../support/quirky-cpo";

/**
 * Issue #25 item 1, the pull's side: 2.2.1 CPOs written with node:http on
 * loopback whose Locations pages hold 2 of X-Total-Count 5 (X-Limit 2) and
 * send no Link. OCPI 2.2.1 Transport and format, Pagination requires a Link
 * rel="next" while more objects remain; a pull that stopped at the first
 * page would lose 3 objects and still move its watermark. Our pull asks on
 * with offset = the objects read (core/client/next-page.ts): a partner that
 * honours offset gives us all 5; one that answers every offset with its
 * first page fails the pull (the watermark stays), never a pull that ends
 * as if it had read the whole list.
 */

type Json = Record<string, any>;

const HONOURS: PartyRef = { country_code: "NL", party_id: "HON" };
const IGNORES: PartyRef = { country_code: "NL", party_id: "IGN" };
const TOTAL = 5;

let gateway: Gateway;
let emspUrl: string;
let honours: QuirkyCpo;
let ignores: QuirkyCpo;
const admin = () => adminApi(emspUrl);

/** Pages of 2 Locations of `owner`, with X-Total-Count and X-Limit but no Link; `offset` honoured or not. */
const linkless = (partner: QuirkyCpo, owner: PartyRef, honoursOffset: boolean) => {
  const all = Array.from({ length: TOTAL }, (_, i) => ({ ...numberedCpoLocation(i + 1), ...owner }));
  partner.on("GET", /^\/2\.2\.1\/locations$/, (request) => {
    const offset = honoursOffset ? Number(request.url.searchParams.get("offset") ?? 0) : 0;
    return { headers: { "X-Total-Count": String(TOTAL), "X-Limit": "2" }, body: envelope(all.slice(offset, offset + 2)) };
  });
};

const held = async (owner: PartyRef): Promise<string[]> =>
  (await gateway.store.range<Json>(`local:locations:${owner.country_code}${owner.party_id}`, { offset: 0, limit: 100 })).items.map((l) => l.id).sort();

beforeAll(async () => {
  const [emspPort, honoursPort, ignoresPort] = await freePorts(3);
  emspUrl = `http://127.0.0.1:${emspPort}`;
  honours = new QuirkyCpo(honoursPort, HONOURS);
  ignores = new QuirkyCpo(ignoresPort, IGNORES);
  linkless(honours, HONOURS, true);
  linkless(ignores, IGNORES, false);
  await Promise.all([honours.listen(), ignores.listen()]);
  gateway = await Gateway.create(
    testGatewayConfig({
      port: emspPort,
      party: { country_code: "DE", party_id: "EMS", role: "EMSP" },
      modules: { locations: { adapter: "local" } },
      server: { admin_token: ADMIN_TOKEN },
      partners: [
        { id: "honours", token_a: "linkless-honours-token-A-0123", versions_url: honours.versionsUrl },
        { id: "ignores", token_a: "linkless-ignores-token-A-0123", versions_url: ignores.versionsUrl },
      ],
    }),
    { logger: pino({ level: "silent" }) },
  );
  await gateway.listen();
  await gateway.credentials.register("honours");
  await gateway.credentials.register("ignores");
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([honours?.close(), ignores?.close()]);
  removeTempDirs();
});

describe("a sync pull from a partner whose pages send no Link although X-Total-Count says more remain", () => {
  it("asks on by offset and stores every object when the partner honours offset", async () => {
    const { status, body } = await admin().post("/sync/honours/locations");
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ partner: "honours", objects: TOTAL, pages: 3, rejected: 0 });
    expect(await held(HONOURS)).toEqual(["LOC1", "LOC2", "LOC3", "LOC4", "LOC5"]);
    expect(honours.received("GET", /\/locations$/).map((r) => [r.url.searchParams.get("offset"), r.url.searchParams.get("limit")])).toEqual([
      [null, null],
      ["2", null],
      ["4", null],
    ]);
    expect((await new SyncStates(gateway.store).get("honours", "locations")).watermark).toEqual(expect.any(Number));
  });

  it("fails the pull naming the rule when the partner answers offset with its first page again; the watermark stays", async () => {
    const { status, body } = await admin().post("/sync/ignores/locations");
    expect(status).toBe(502);
    expect(body).toMatchObject({ status_code: 3001 });
    expect(body.status_message).toBe(
      'The pull failed: GET locations: the list sends no Link rel="next" although X-Total-Count 5 says more objects remain, and answers offset=2 with the page already read (OCPI 2.2.1 Transport and format, Pagination)',
    );
    expect((await new SyncStates(gateway.store).get("ignores", "locations")).watermark).toBeUndefined();
    // the first page was stored before the second was read; the rest could not be reached
    expect(await held(IGNORES)).toEqual(["LOC1", "LOC2"]);
    expect(ignores.received("GET", /\/locations$/)).toHaveLength(2);
  });
});
