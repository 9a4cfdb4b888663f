import { DEFAULT_INBOUND } from "../../config/types";
import { JsonScanner } from "../../core/http/body-limits";
import { PIECE_BYTES, PIECE_MEMBERS, parseInParts } from "../../core/http/pieced-parse";
import { stringifyInParts } from "../../core/model/parted-arrays";

/**
 * A weighty body parsed in parts (core/http/pieced-parse.ts) is the value JSON.parse gives for the whole
 * text, or refused where JSON.parse refuses it: checked on bodies of every shape the split handles (an array
 * body, arrays among an object's members, duplicate keys, a byte order mark, multi-byte text at the cuts),
 * each sent in random chunks, and on the same bodies broken at random bytes. Written back in parts
 * (core/model/parted-arrays.ts), it is JSON.stringify's text, byte for byte.
 */
const limits = { ...DEFAULT_INBOUND, max_body_bytes: 64 * 1024 * 1024, max_body_members: 1_000_000, max_object_members: 100_000, max_string_bytes: 1024 * 1024 };

/** a deterministic pseudo-random sequence, so that a failure can be replayed */
const random = (seed: number) => () => {
  seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
  return seed / 0x1_0000_0000;
};

type Outcome = { ok: true; value: unknown; parts: number } | { ok: false; by: "scanner" | "parse" };

const outcome = async (text: Buffer, rnd: () => number): Promise<Outcome> => {
  const scanner = new JsonScanner(limits, true);
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(rnd() * 70_000);
    try {
      scanner.feed(text.subarray(at, at + size));
    } catch {
      return { ok: false, by: "scanner" };
    }
    at += size;
  }
  let parts = 1;
  try {
    const value = await parseInParts(text, scanner.arrays, async () => void parts++);
    return value === undefined ? { ok: true, value: JSON.parse(text.toString("utf8").replace(/^\uFEFF/, "")), parts: 0 } : { ok: true, value, parts };
  } catch {
    return { ok: false, by: "parse" };
  }
};

const whole = (text: Buffer): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text.toString("utf8").replace(/^\uFEFF/, "")) };
  } catch {
    return { ok: false };
  }
};

const element = (rnd: () => number, i: number): unknown => {
  const pick = Math.floor(rnd() * 6);
  if (pick === 0) return i;
  if (pick === 1) return `é${"x".repeat(Math.floor(rnd() * 40))}€${i}`;
  if (pick === 2) return { id: i, name: "ünïcödé ]}, \"quoted\"", nested: [1, [2, { deep: [3] }]] };
  if (pick === 3) return [i, "a,b", { "[": "]" }];
  if (pick === 4) return null;
  return { [`k${i % 97}`]: "v" };
};

const bodies = (rnd: () => number): string[] => {
  const list = (n: number) => Array.from({ length: n }, (_, i) => element(rnd, i));
  return [
    JSON.stringify(list(6_000)),
    JSON.stringify({ country_code: "DE", extra: list(5_000), more: list(3_000), last: "x" }),
    ` \n\t${JSON.stringify({ a: list(4_500) }, null, 2)}\n `,
    `\uFEFF${JSON.stringify({ a: list(2_500) })}`,
    `{"a":${JSON.stringify(list(4_000))},"b":1,"a":2}`,
    `{"a":2,"b":1,"a":${JSON.stringify(list(4_000))}}`,
    JSON.stringify({ strings: Array.from({ length: 40 }, (_, i) => `${"s".repeat(20_000)}${i}`) }),
    JSON.stringify([list(3_000), list(3_000)]),
    JSON.stringify({ small: [1, 2, 3], big: list(2_200) }),
  ];
};

describe("a weighty body parsed in parts", () => {
  it("gives what JSON.parse of the whole gives, in parts of at most the piece's members", async () => {
    const rnd = random(1);
    for (const text of bodies(rnd)) {
      const bytes = Buffer.from(text);
      const got = await outcome(bytes, rnd);
      expect(got).toMatchObject({ ok: true });
      expect(got.ok && got.value).toEqual(whole(bytes).ok && (whole(bytes) as { value: unknown }).value);
      // keys in JSON.parse's order
      expect(JSON.stringify(got.ok && got.value)).toBe(JSON.stringify((whole(bytes) as { value: unknown }).value));
    }
  });

  it("cuts the large arrays into parts of at most PIECE_MEMBERS members and PIECE_BYTES bytes", async () => {
    const ones = Buffer.from(JSON.stringify({ extra: new Array(5_000).fill(1) }));
    expect(await outcome(ones, random(2))).toMatchObject({ ok: true, parts: Math.ceil(5_000 / PIECE_MEMBERS) });
    // ten strings of a little less than half a part: two a part
    const long = Buffer.from(JSON.stringify({ extra: Array.from({ length: 10 }, () => "s".repeat(PIECE_BYTES / 2 - 10)) }));
    expect(await outcome(long, random(3))).toMatchObject({ ok: true, parts: 5 });
    // an array body with only small arrays inside is not cut (its elements are not an object's members)
    const small = Buffer.from(JSON.stringify(Array.from({ length: 10 }, () => [1, 2, 3])));
    expect(await outcome(small, random(4))).toMatchObject({ ok: true, parts: 0 });
  });

  it("refuses what JSON.parse refuses, and accepts nothing it refuses, with bytes broken where two parts meet", async () => {
    // after a full part, an element of more than a part by itself (members, then bytes): a part of its own
    const text = JSON.stringify({
      a: [...new Array(PIECE_MEMBERS).fill(1), new Array(PIECE_MEMBERS + 600).fill(1), 1],
      b: [...new Array(PIECE_MEMBERS).fill("é"), "s".repeat(PIECE_BYTES + 10), "é"],
    });
    // where the 2,001st element of each array begins: the first byte of a part
    const cuts = [text.indexOf("[") + 1 + 2 * PIECE_MEMBERS, Buffer.from(text).indexOf("[", text.indexOf('"b"')) + 1 + 5 * PIECE_MEMBERS];
    expect(await outcome(Buffer.from(text), random(7))).toMatchObject({ ok: true, parts: 3 + 3 });
    let refused = 0;
    for (const cut of cuts)
      for (let at = cut - 4; at <= cut + 4; at++)
        for (const insert of [",", ",,", "]", "[", " ", "x", "1 ", ""])
          for (const drop of [0, 1, 2]) {
            const bytes = Buffer.from(text);
            const broken = Buffer.concat([bytes.subarray(0, at), Buffer.from(insert), bytes.subarray(at + drop)]);
            const expected = whole(broken);
            const got = await outcome(broken, random(at));
            if (!expected.ok) refused++;
            // compared as text: the same values, keys in the same order
            if (got.ok) expect({ ok: expected.ok, text: expected.ok && JSON.stringify(expected.value) }).toEqual({ ok: true, text: JSON.stringify(got.value) });
            else expect({ ok: expected.ok, by: got.by }).toEqual(expected.ok ? { ok: true, by: "scanner" } : { ok: false, by: got.by });
          }
    expect(refused).toBeGreaterThan(100);
  });

  it("refuses what JSON.parse refuses, and accepts nothing it refuses, with bytes broken at random", async () => {
    const rnd = random(5);
    const breaks = [",", "]", "}", "[", "{", ":", " ", "\"", "x", ",]", "1 2", ""];
    let refused = 0;
    for (const text of bodies(rnd)) {
      const bytes = Buffer.from(text);
      for (let trial = 0; trial < 6; trial++) {
        const at = Math.floor(rnd() * bytes.length);
        const cut = Math.floor(rnd() * 3);
        const broken = Buffer.concat([bytes.subarray(0, at), Buffer.from(breaks[Math.floor(rnd() * breaks.length)]), bytes.subarray(at + cut)]);
        const expected = whole(broken);
        const got = await outcome(broken, rnd);
        if (!expected.ok) refused++;
        // never accept what JSON.parse refuses, never refuse what it accepts (the scanner's limits aside: a long string, a stray "__proto__")
        if (got.ok) expect(expected).toEqual({ ok: true, value: got.value });
        else expect({ ok: expected.ok, by: got.by }).toEqual(expected.ok ? { ok: true, by: "scanner" } : { ok: false, by: got.by });
      }
    }
    expect(refused).toBeGreaterThan(15);
  });

  it("is written back in the same parts, as JSON.stringify writes it", async () => {
    const rnd = random(6);
    let checked = 0;
    for (const text of bodies(rnd)) {
      const bytes = Buffer.from(text);
      const scanner = new JsonScanner(limits, true);
      scanner.feed(bytes);
      let turns = 0;
      const value = await parseInParts(bytes, scanner.arrays, async () => void turns++);
      const parsedIn = turns;
      // as a route stores it: a canonical copy of the object around the same arrays, one member more
      const stored = Array.isArray(value) ? value : { ...(value as object), added: "é" };
      const held = (Array.isArray(stored) ? [stored] : Object.values(stored)).filter((v) => Array.isArray(v) && "toJSON" in v);
      // elsewhere the arrays are written as any array, at once
      const expected = JSON.stringify(stored);
      expect(expected).toBe(JSON.stringify(JSON.parse(JSON.stringify(stored))));
      turns = 0;
      const written = stringifyInParts(stored);
      if (held.length === 0) {
        // the array a later duplicate key replaced
        expect(written).toBe(expected);
        continue;
      }
      expect(written).toBeInstanceOf(Promise);
      expect(await written).toBe(expected);
      // each part but the first on a turn of its own, as it was parsed
      expect(turns).toBe(parsedIn);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(7);
    // a value without such arrays (or with a copy of one) is written at once
    const scanner = new JsonScanner(limits, true);
    const bytes = Buffer.from(JSON.stringify({ a: new Array(5_000).fill("x") }));
    scanner.feed(bytes);
    const value = (await parseInParts(bytes, scanner.arrays, async () => undefined)) as { a: unknown[] };
    expect(stringifyInParts({ a: [...value.a] })).toBe(JSON.stringify({ a: value.a }));
    // an array that grew or shrank since it was parsed is written whole all the same
    value.a.push("y");
    expect(await stringifyInParts(value)).toBe(JSON.stringify({ a: [...value.a] }));
    value.a.length = 10;
    expect(await stringifyInParts(value)).toBe(JSON.stringify({ a: [...value.a] }));
  });
});
