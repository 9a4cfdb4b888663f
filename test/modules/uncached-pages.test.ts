import "reflect-metadata";
import type { StoreConfig, VersionNumber } from "../../config/types";
import { startHarness, type Harness } from "../support/module-harness";
import { comparable, senderList, throughKoa } from "../support/list-answers";
import { cdrOf, numberedCpoLocation, sessionOf, stamp } from "../support/ocpi-objects";
import { LocationsPlugin } from "../../plugins/locations/module";
import { SessionsPlugin } from "../../plugins/sessions/module";
import { CdrsPlugin } from "../../plugins/cdrs/module";
import { localLocations } from "../../adapters/local/locations";
import { localSessions } from "../../adapters/local/sessions";
import { localCdrs } from "../../adapters/local/cdrs";
import { holdsUnpublished } from "../../plugins/locations/published";
import { holdsInternal } from "../../plugins/sessions/translate";
import { LOCATION_211, OWN_LOCATION } from "../../plugins/sessions/model";

/**
 * Issue #26: a list that is not cached (TTL 0) renders its page once, writing the stored JSON text
 * straight into the envelope's bytes (core/host/rendered-answer.ts), and the Locations list finds a
 * `"publish":false` in that text by its `false` (plugins/locations/published.ts `holdsUnpublished`).
 * Both must give what they gave before: the same bytes as Koa's answer, multi-byte characters included,
 * and no unpublished Location in a page, wherever it stands.
 */

const GWY = { country_code: "NL", party_id: "GWY" };
const EMS = { country_code: "DE", party_id: "EMS" };
const DATE_FROM = "?date_from=2020-01-01T00:00:00Z";
const PUBLISHED = "local:locations.published:NLGWY";

/** Names with characters of two, three and four UTF-8 bytes, and booleans false that are not the publish flag. */
const location = (n: number) => ({
  ...numberedCpoLocation(n),
  ...GWY,
  id: `LOC${n}`,
  name: `Überlandstraße ${n} — 充電 🔌`,
  charging_when_closed: false,
  last_updated: stamp(n),
});
const token = (n: number) => ({ ...EMS, uid: `U${n}`, type: "RFID", contract_id: `DE-EMS-C${n}` });
const session = (n: number) => sessionOf({ owner: GWY, id: `SES${n}`, status: "COMPLETED", start: stamp(n), kwh: n, token: token(n) });
const cdr = (n: number) => cdrOf({ owner: GWY, id: `CDR${n}`, start: stamp(n), end: stamp(n + 60), kwh: n, cost: n / 2, token: token(n) });

let prefixes = 0;
/** SQLite in the harness's folder, or the tests' Redis under a key prefix of its own. */
const storeOf = (kind: "SQLite" | "Redis"): StoreConfig | undefined =>
  kind === "Redis" ? { type: "redis", url: process.env.REDIS_URL!, key_prefix: `uncached-pages:${process.pid}:${++prefixes}:` } : undefined;

const start = (through: "before Koa" | "Koa", kind: "SQLite" | "Redis"): Promise<Harness> =>
  startHarness({
    store: storeOf(kind),
    plugins: [LocationsPlugin, SessionsPlugin, CdrsPlugin],
    localModules: [localLocations, localSessions, localCdrs],
    modules: ["locations", "sessions", "cdrs"],
    cache: { ttl_seconds: { locations: 0, sessions: 0, cdrs: 0 }, max_entries: 100, redis: false },
    seed: { locations: [1, 2, 3, 4].map(location), sessions: [1, 2, 3, 4].map(session), cdrs: [1, 2, 3, 4].map(cdr) },
  }).then((h) => (through === "Koa" ? throughKoa(h) : h));

const list = senderList;

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((l) => l.id);

describe.each(["SQLite", "Redis"] as const)("lists not cached (%s)", (kind) => {
  let h: Harness;
  beforeEach(async () => {
    h = await start("before Koa", kind);
  });
  afterEach(async () => h.close());

  it("answer the stored JSON in the envelope byte for byte, and as Koa answers in every version", async () => {
    const koa = await start("Koa", kind);
    try {
      for (const [module, query, collection] of [
        ["locations", "", PUBLISHED],
        ["sessions", DATE_FROM, "local:sessions.by-token:NLGWYDEEMS"],
        ["cdrs", "", "local:cdrs.by-token:NLGWYDEEMS"],
      ]) {
        const stored = await h.gateway.store.rangeJson(collection, { offset: 0, limit: 100 });
        const sent = await list(h, "2.3.0", module, query);
        expect(sent.status).toBe(200);
        expect(Number(sent.headers["content-length"])).toBe(Buffer.byteLength(sent.text));
        expect(sent.text).toMatch(/^\{"status_code":1000,"timestamp":"[^"]+","data":/);
        expect(sent.text.slice(sent.text.indexOf('"data":') + 7, -1)).toBe(stored.json);
        expect(JSON.parse(sent.text).data).toEqual(JSON.parse(stored.json));
        for (const version of ["2.3.0", "2.2.1", "2.1.1"] as VersionNumber[])
          for (const page of [`${query || "?"}&limit=3`, `${query || "?"}&offset=3&limit=3`, `${query || "?"}&offset=9&limit=3`]) {
            const [fast, slow] = [await list(h, version, module, page), await list(koa, version, module, page)];
            expect(comparable(fast)).toEqual(comparable(slow));
          }
      }
      expect((await list(h, "2.3.0", "locations", "")).body.data[0].name).toBe("Überlandstraße 1 — 充電 🔌");
    } finally {
      await koa.close();
    }
  });

  it("withhold a Location stored unpublished at the start, middle or end of a page, among other false values, and count it out", async () => {
    for (const [id, at] of [["FIRST", 0], ["MIDDLE", 2], ["LAST", 9]] as const) {
      const hidden = { ...location(1), id, publish: false, last_updated: stamp(at) };
      await h.gateway.store.put(PUBLISHED, id, hidden, Date.parse(hidden.last_updated));
    }
    const res = await list(h, "2.3.0", "locations", "");
    expect(ids(res)).toEqual(["LOC1", "LOC2", "LOC3", "LOC4"]);
    expect(res.headers["x-total-count"]).toBe("4");
    expect(res.text).not.toContain('"publish":false');
    expect(res.body.data.every((l: { charging_when_closed: boolean }) => l.charging_when_closed === false)).toBe(true);
  });

  it("give a page's headers for the list as it is now: X-Total-Count and the Link follow a write", async () => {
    const page = async () => (await list(h, "2.3.0", "locations", "?offset=2&limit=2")).headers;
    const before = await page();
    expect([before["x-total-count"], before.link]).toEqual(["4", undefined]);
    expect((await page())["x-total-count"]).toBe("4");
    const added = location(5);
    await h.gateway.store.put(PUBLISHED, added.id, added, Date.parse(added.last_updated));
    const after = await page();
    expect(after["x-total-count"]).toBe("5");
    expect(after.link).toMatch(/[?&]offset=4&limit=2>; rel="next"$/);
  });

  it("keep a published Location whose text holds \"publish\":false elsewhere than its flag", async () => {
    const nested = { ...location(5), publish: true, evses: [{ ...location(5).evses[0], publish: false }] };
    await h.gateway.store.put(PUBLISHED, "LOC5", nested, Date.parse(nested.last_updated));
    const res = await list(h, "2.3.0", "locations", "");
    expect(ids(res)).toEqual(["LOC1", "LOC2", "LOC3", "LOC4", "LOC5"]);
    expect(res.headers["x-total-count"]).toBe("5");
  });
});

describe("holdsUnpublished", () => {
  const FLAG = '"publish":false';
  it("is exactly whether the text holds \"publish\":false", () => {
    const cases = [
      "", FLAG, `[${FLAG}]`, "false", '"publish":', '"publish":fals', 'publish":false', '"republish":false', '"publish": false',
      '"publish":"false"', `${FLAG}x`, `x${FLAG}`, 'falsefalse"publish":false', '"publish":falsfalse', '"publish":"publish":false',
      '{"name":"false","publish":true}', '{"a":false,"b":false,"publish":true}', '\\"publish\\":false',
    ];
    for (const text of cases) expect([text, holdsUnpublished(text)]).toEqual([text, text.includes(FLAG)]);
  });

  it("agrees with includes on texts made of pieces of the flag", () => {
    const pieces = ['"', "publish", '":', "false", "fals", "e", "f", ":", "x", '"publish":', "true", ","];
    let seed = 26;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 5000; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 12) }, () => pieces[Math.floor(next() * pieces.length)]).join("");
      expect([text, holdsUnpublished(text)]).toEqual([text, text.includes(FLAG)]);
    }
  });
});

describe("holdsInternal", () => {
  const NAMES = [`"${LOCATION_211}":`, `"${OWN_LOCATION}":`];
  it("is exactly whether the text holds a session's internal member's name", () => {
    const pieces = ['"', "ocpi", "oc", "pi", "p", "211", "_own", "_location", '":', "o", "x", ",", ...NAMES];
    let seed = 26;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const text of ["", ...NAMES, `"${LOCATION_211}"`, `ocpi${NAMES[1]}`, `x${NAMES[0]}y`])
      expect([text, holdsInternal(text)]).toEqual([text, NAMES.some((name) => text.includes(name))]);
    for (let n = 0; n < 5000; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 10) }, () => pieces[Math.floor(next() * pieces.length)]).join("");
      expect([text, holdsInternal(text)]).toEqual([text, NAMES.some((name) => text.includes(name))]);
    }
  });
});
