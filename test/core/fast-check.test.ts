import fs from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { acceptsAsIs } from "../../core/model/fast-check";
import { withoutNulls } from "../../core/model/without-nulls";
import { locationType, evseType } from "../../plugins/locations/translate";
import { cdrType } from "../../plugins/cdrs/translate";
import { sessionType } from "../../plugins/sessions/translate";
import { tariffType } from "../../plugins/tariffs/translate";
import { tokenObjectType } from "../../plugins/tokens/translate";
import type { ObjectType } from "../../core/contract/object-type";
import { EXAMPLES } from "../support/ocpi-examples";

/**
 * The tolerant reader takes an object as it came when acceptsAsIs says zod
 * would accept it unchanged (issue #11: zod's copy of each pulled Location
 * was most of a pull's time and garbage). It must never say so wrongly:
 * checked here against zod itself on the spec's examples and on thousands
 * of mutations of them, and on the schema features it must leave to zod.
 */

const location = {
  country_code: "NL",
  party_id: "CPO",
  id: "LOC1",
  publish: true,
  address: "Main street 1",
  city: "Utrecht",
  country: "NLD",
  coordinates: { latitude: "52.090730", longitude: "5.121420" },
  evses: [
    {
      uid: "EVSE1",
      status: "AVAILABLE",
      connectors: [{ id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 32, last_updated: "2024-01-01T00:00:00Z" }],
      last_updated: "2024-01-01T00:00:00Z",
    },
  ],
  time_zone: "Europe/Amsterdam",
  last_updated: "2024-01-01T00:00:00Z",
};

const schema = locationType.schema("2.3.0", "full");

/** Every object of the spec's examples (a list answer's items too). */
const examples = (): unknown[] => {
  const found: unknown[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith(".json"))
        try {
          const json = JSON.parse(fs.readFileSync(file, "utf8")) as { data?: unknown };
          found.push(json, ...(Array.isArray(json?.data) ? json.data : json?.data ? [json.data] : []));
        } catch {
          // a few examples are fragments, not whole JSON documents
        }
    }
  };
  walk(EXAMPLES);
  return found;
};

/** A deterministic generator, so a failure can be reproduced. */
const random = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

const LEAVES: unknown[] = ["", "x", "a\tb", "ÄÖ", "2021-02-30T00:00:00Z", "2024-01-01T00:00:00Z", "AVAILABLE", "NL", "X".repeat(300), 0, -1, 1.5, true, [], {}, "12:00", "RFID"];

/** `value` with one to three changes: a key removed, an unknown key added, or a value replaced, anywhere in it. */
const mutated = (value: unknown, next: () => number): unknown => {
  // a JSON copy, not structuredClone: that makes objects of another realm than jest's, which isDeepStrictEqual tells apart
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  const spots: [Record<string, unknown> | unknown[], string | number][] = [];
  const collect = (node: unknown) => {
    if (node === null || typeof node !== "object") return;
    for (const [key, child] of Object.entries(node)) {
      spots.push([node as Record<string, unknown>, Array.isArray(node) ? Number(key) : key]);
      collect(child);
    }
  };
  collect(copy);
  for (let n = 1 + Math.floor(next() * 3); n > 0 && spots.length; n--) {
    const [parent, key] = spots[Math.floor(next() * spots.length)];
    const leaf = LEAVES[Math.floor(next() * LEAVES.length)];
    const change = Math.floor(next() * 3);
    if (change === 0 && !Array.isArray(parent)) delete parent[key as string];
    else if (change === 1 && !Array.isArray(parent)) parent[`extra_${Math.floor(next() * 3)}`] = leaf;
    else (parent as Record<string | number, unknown>)[key] = leaf;
  }
  return copy;
};

describe("acceptsAsIs", () => {
  it("takes a valid Location as it is, and zod gives the same object", () => {
    expect(acceptsAsIs(schema, location)).toBe(true);
    expect(schema.parse(location)).toStrictEqual(location);
    expect(acceptsAsIs(schema, { ...location, vendor_field: { any: "thing" } })).toBe(true);
  });

  it("leaves every invalid Location to zod", () => {
    const { address: _address, ...withoutAddress } = location;
    for (const invalid of [
      withoutAddress,
      { ...location, address: "a\tb" },
      { ...location, country_code: "NLD" },
      { ...location, last_updated: "2021-02-30T00:00:00Z" },
      { ...location, publish: "yes" },
      { ...location, publish: true, publish_allowed_to: [{ uid: "TOK1", type: "RFID" }] },
      { ...location, evses: [{ ...location.evses[0], connectors: [] }] },
      { ...location, evses: [{ ...location.evses[0], status: "SLEEPING" }] },
      [location],
      "location",
    ]) {
      expect(acceptsAsIs(schema, invalid)).toBe(false);
      expect(schema.safeParse(invalid).success).toBe(false);
    }
  });

  it("leaves to zod what it would change or refuse: stripped and strict objects' unknown keys, an own __proto__, transforms, defaults, coercion", () => {
    const strip = z.object({ a: z.string() });
    expect(acceptsAsIs(strip, { a: "x" })).toBe(true);
    expect(acceptsAsIs(strip, { a: "x", b: 1 })).toBe(false);
    expect(acceptsAsIs(z.strictObject({ a: z.string() }), { a: "x", b: 1 })).toBe(false);
    expect(acceptsAsIs(z.looseObject({ a: z.string() }), JSON.parse('{"a": "x", "__proto__": {"b": 1}}'))).toBe(false);
    expect(acceptsAsIs(z.string().trim(), "x")).toBe(false);
    expect(acceptsAsIs(z.string().transform((s) => s), "x")).toBe(false);
    expect(acceptsAsIs(z.looseObject({ a: z.string().default("d") }), { a: "x" })).toBe(false);
    expect(acceptsAsIs(z.coerce.number(), 1)).toBe(false);
    expect(acceptsAsIs(z.string().refine(async () => true), "x")).toBe(false);
  });

  it("never takes an object zod would refuse or change: the spec's examples and 30 mutations of each, for every Location, EVSE, Session, CDR, Tariff and Token schema", () => {
    const seeds = examples();
    expect(seeds.length).toBeGreaterThan(100);
    const next = random(11);
    const types: ObjectType<any>[] = [locationType, evseType, sessionType, cdrType, tariffType, tokenObjectType];
    let accepted = 0;
    const wrong: string[] = [];
    for (const type of types)
      for (const version of ["2.3.0", "2.2.1", "2.1.1"] as const) {
        const checked = type.schema(version, "full");
        for (const seed of seeds)
          for (let i = 0; i <= 30; i++) {
            const value = withoutNulls(i === 0 ? seed : mutated(seed, next));
            if (!acceptsAsIs(checked, value)) continue;
            accepted++;
            const parsed = checked.safeParse(value);
            if (!parsed.success || !isDeepStrictEqual(parsed.data, value)) wrong.push(`${type.name} ${version}: ${JSON.stringify(value).slice(0, 200)}`);
          }
      }
    expect(wrong).toEqual([]);
    expect(accepted).toBeGreaterThan(500);
  });
});
