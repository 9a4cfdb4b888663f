import "reflect-metadata";
import type { VersionNumber } from "../../config/types";
import type { ObjectType } from "../../core/contract/object-type";
import { silentTranslation } from "../../core/model/object-type";
import { startHarness, type Harness } from "../support/module-harness";
import { comparable, senderList, throughKoa } from "../support/list-answers";
import { cdrOf, numberedCpoLocation, sessionOf, stamp } from "../support/ocpi-objects";
import { LocationsPlugin } from "../../plugins/locations/module";
import { SessionsPlugin } from "../../plugins/sessions/module";
import { CdrsPlugin } from "../../plugins/cdrs/module";
import { localLocations } from "../../adapters/local/locations";
import { localSessions } from "../../adapters/local/sessions";
import { localCdrs } from "../../adapters/local/cdrs";
import { locationType } from "../../plugins/locations/translate";
import { sessionType } from "../../plugins/sessions/translate";
import { cdrType } from "../../plugins/cdrs/translate";
import { LOCATION_211 } from "../../plugins/sessions/model";

/**
 * Issue #26: the local adapter's lists answer the JSON the objects are stored as (a JsonPage), which the
 * kernel sends as it is in 2.3.0 and parses and translates in the other versions
 * (core/host/rendered-answer.ts), before Koa when the page is not cached (core/host/cached-get.ts). What a
 * partner gets must be what translating the stored objects gives, in every version, and a page must
 * still withhold what a partner may not see.
 */

const GWY = { country_code: "NL", party_id: "GWY" };
const EMS = { country_code: "DE", party_id: "EMS" };
const DATE_FROM = "?date_from=2020-01-01T00:00:00Z";
const VERSIONS: VersionNumber[] = ["2.3.0", "2.2.1"];

const location = (n: number) => ({ ...numberedCpoLocation(n), ...GWY, id: `LOC${n}`, last_updated: stamp(n) });
const session = (n: number) => sessionOf({ owner: GWY, id: `SES${n}`, status: "COMPLETED", start: stamp(n), kwh: n, token: { ...EMS, uid: `U${n}`, type: "RFID", contract_id: `DE-EMS-C${n}` } });
const cdr = (n: number) => cdrOf({ owner: GWY, id: `CDR${n}`, start: stamp(n), end: stamp(n + 60), kwh: n, cost: n / 2, token: { ...EMS, uid: `U${n}`, type: "RFID", contract_id: `DE-EMS-C${n}` } });

/** The stored collections the lists read (the local adapter's, adapters/local/owned-collection.ts). */
const LISTS: { module: string; collection: string; type: ObjectType<any>; query: string }[] = [
  { module: "locations", collection: "local:locations.published:NLGWY", type: locationType, query: "" },
  { module: "sessions", collection: "local:sessions.by-token:NLGWYDEEMS", type: sessionType, query: DATE_FROM },
  { module: "cdrs", collection: "local:cdrs.by-token:NLGWYDEEMS", type: cdrType, query: "" },
];

const start = (through: "before Koa" | "Koa"): Promise<Harness> =>
  startHarness({
    plugins: [LocationsPlugin, SessionsPlugin, CdrsPlugin],
    localModules: [localLocations, localSessions, localCdrs],
    modules: ["locations", "sessions", "cdrs"],
    seed: {
      locations: [1, 2, 3, 4].map(location),
      sessions: [1, 2, 3, 4].map(session),
      cdrs: [1, 2, 3, 4].map(cdr),
    },
  }).then((h) => (through === "Koa" ? throughKoa(h) : h));

const list = senderList;

describe("lists of stored JSON", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start("before Koa");
  });
  afterEach(async () => h.close());

  it("send the stored JSON itself in 2.3.0, and each version the translation of the stored objects", async () => {
    for (const { module, collection, type, query } of LISTS) {
      const stored = await h.gateway.store.rangeJson(collection, { offset: 0, limit: 100 });
      expect(stored.count).toBe(4);
      const sent = await list(h, "2.3.0", module, query);
      expect(sent.status).toBe(200);
      expect(sent.text).toMatch(/^\{"status_code":1000,"timestamp":"[^"]+","data":/);
      expect(sent.text.slice(sent.text.indexOf('"data":') + 7, -1)).toBe(stored.json);
      for (const version of VERSIONS) {
        const res = await list(h, version, module, query);
        const objects = JSON.parse(stored.json) as Record<string, unknown>[];
        expect(res.body.data).toEqual(JSON.parse(JSON.stringify(objects.map((o) => type.down(o, version, silentTranslation())))));
        expect(res.headers["x-total-count"]).toBe("4");
      }
    }
  });

  it("answer as Koa answers, in every version, headers and paging included", async () => {
    const koa = await start("Koa");
    try {
      for (const { module, query } of LISTS)
        for (const version of [...VERSIONS, "2.1.1"] as VersionNumber[])
          for (const page of [`${query || "?"}&limit=3`, `${query || "?"}&offset=3&limit=3`]) {
            const [fast, slow] = [await list(h, version, module, page), await list(koa, version, module, page)];
            expect(comparable(fast)).toEqual(comparable(slow));
          }
    } finally {
      await koa.close();
    }
  });

  it("withhold a Location stored unpublished, and count it out of the total", async () => {
    const hidden = { ...location(5), id: "HIDDEN", publish: false };
    await h.gateway.store.put("local:locations.published:NLGWY", "HIDDEN", hidden, Date.parse(hidden.last_updated));
    const res = await list(h, "2.3.0", "locations", "");
    expect(res.body.data.map((l: { id: string }) => l.id)).toEqual(["LOC1", "LOC2", "LOC3", "LOC4"]);
    expect(res.headers["x-total-count"]).toBe("4");
  });

  it("leave out a stored session's internal member in 2.3.0, as the translation does", async () => {
    const withOriginal = { ...session(5), [LOCATION_211]: { id: "LOC5", evses: [] } };
    await h.gateway.store.put("local:sessions.by-token:NLGWYDEEMS", "SES5", withOriginal, Date.parse(session(5).last_updated));
    const res = await list(h, "2.3.0", "sessions", DATE_FROM);
    expect(res.text).not.toContain(LOCATION_211);
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual(["SES1", "SES2", "SES3", "SES4", "SES5"]);
    expect(res.body.data[4]).toEqual(session(5));
  });
});
