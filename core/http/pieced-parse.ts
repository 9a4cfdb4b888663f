import { markInParts, sentinel, sentinelIndex } from "../model/parted-arrays";
import type { ArraySpan } from "./body-limits";
import { WEIGHTY_BODY_BYTES, WEIGHTY_BODY_MEMBERS } from "./weighty-turns";

/**
 * A weighty body's arrays near its root (the body itself when it is an array, else its members' values) are
 * parsed this much at a time at most, each part on a turn of its own: as much as a body that is no weighty
 * body is parsed in one go.
 */
export const PIECE_BYTES = WEIGHTY_BODY_BYTES;
export const PIECE_MEMBERS = WEIGHTY_BODY_MEMBERS;

/**
 * The JSON text `bytes`, parsed in parts (issue #23: one JSON.parse of a 100 KB body of 10,000 members held
 * the event loop about 1 ms, longer than a small request's p99): the arrays the scanner found (JsonScanner
 * with `recordArrays`) of more than a part's members or bytes are cut out of the text, which is parsed with a
 * sentinel string in their place; their elements are parsed in groups of at most a part, `nextPart` awaited
 * before each group but the first, and put in their place. The same value as JSON.parse of the whole text,
 * keys in the same order, the last of duplicate keys winning; undefined when there is nothing to split (the
 * caller parses the whole). Throws SyntaxError where JSON.parse of the whole would: every byte is parsed,
 * each group as `[…]` of its elements, the separators between groups and the brackets checked here.
 */
export const parseInParts = async (bytes: Buffer, arrays: ArraySpan[], nextPart: () => Promise<void>): Promise<unknown> => {
  const split = partsOf(bytes, arrays);
  if (split.length === 0) return undefined;
  let outer = "";
  let from = bomLength(bytes);
  split.forEach((span, i) => {
    outer += bytes.toString("utf8", from, span.open) + JSON.stringify(sentinel(i));
    from = span.close + 1;
  });
  outer += bytes.toString("utf8", from);
  const rest = JSON.parse(outer) as unknown;
  const values: unknown[][] = [];
  let first = true;
  for (const span of split) {
    const elements: unknown[] = [];
    const ends: number[] = [];
    for (const [start, end] of groupsOf(span)) {
      if (!first) await nextPart();
      first = false;
      const group = parseGroup(bytes, start, end);
      for (const element of group) elements.push(element);
      ends.push(elements.length);
    }
    // written in the same parts where a store encodes it (core/model/parted-arrays.ts)
    markInParts(elements, ends, nextPart);
    values.push(elements);
  }
  return placed(rest, values);
};

/**
 * The arrays to split: the body itself when it is an array (then only it: the arrays at depth 2 are its
 * elements), else the arrays among its members' values; each only when larger than a part.
 */
const partsOf = (bytes: Buffer, arrays: ArraySpan[]): ArraySpan[] => {
  const large = (span: ArraySpan) =>
    span.close > span.open && bytes[span.close] === 0x5d && span.elements.length > 2 && (span.membersAtClose - span.elements[1] > PIECE_MEMBERS || span.close - span.open > PIECE_BYTES);
  const root = arrays[0];
  if (root !== undefined && isRoot(bytes, root)) return large(root) ? [root] : [];
  return arrays.filter(large);
};

const bomLength = (bytes: Buffer): number => (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);

/** whether nothing but whitespace (and a byte order mark) stands before the array's `[` */
const isRoot = (bytes: Buffer, span: ArraySpan): boolean => {
  let i = bomLength(bytes);
  while (i < span.open && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  return i === span.open;
};

/** a span's elements in groups of at most a part (one element at least), as [from, to) byte ranges of the text */
function* groupsOf(span: ArraySpan): Generator<[number, number]> {
  const { elements } = span;
  const count = elements.length / 2;
  // where element i begins, and the members counted before it (i = count: the closing bracket)
  const offset = (i: number) => (i < count ? elements[2 * i] : span.close);
  const before = (i: number) => (i < count ? elements[2 * i + 1] : span.membersAtClose);
  let k = 0;
  while (k < count) {
    // elements k … m − 1, and element m too while k … m stay within a part
    let m = k + 1;
    while (m < count && before(m + 1) - before(k) <= PIECE_MEMBERS && offset(m + 1) - offset(k) <= PIECE_BYTES) m++;
    // the group ends before element m (exclusive of the comma between), or at the closing bracket
    yield [offset(k), offset(m)];
    k = m;
  }
}

/**
 * A group's elements parsed as one array: the byte before its first element (its array's `[`, or the comma
 * or whitespace before the element) is made `[` for the while, and so is the comma after its last element
 * made `]` (only whitespace may follow that comma, as the scanner begins an element at the first other
 * byte), so that the group is decoded once into text JSON.parse takes as it is, not copied again into
 * brackets; at the closing bracket a trailing comma is left in for JSON.parse to refuse. The bytes are as
 * they were when it returns.
 */
const parseGroup = (bytes: Buffer, start: number, end: number): unknown[] => {
  let close = end;
  if (bytes[end] !== 0x5d) {
    close = end - 1;
    while (close > start && bytes[close] !== 0x2c) close--;
    // no value before the comma: an element that is a comma (`[1,,2]`), which JSON.parse refuses too
    if (close <= start) throw new SyntaxError("an array element is missing");
  }
  const before = bytes[start - 1];
  const after = bytes[close];
  bytes[start - 1] = 0x5b;
  bytes[close] = 0x5d;
  try {
    return JSON.parse(bytes.toString("utf8", start - 1, close + 1)) as unknown[];
  } finally {
    bytes[start - 1] = before;
    bytes[close] = after;
  }
};

/** the parsed rest with each sentinel replaced by its array's elements; a sentinel a later duplicate key replaced stays replaced */
const placed = (rest: unknown, values: unknown[][]): unknown => {
  const root = sentinelIndex(rest);
  if (root >= 0) return values[root];
  if (rest === null || typeof rest !== "object" || Array.isArray(rest)) throw new SyntaxError("body split where it was not an object's member");
  for (const key of Object.keys(rest)) {
    const i = sentinelIndex((rest as Record<string, unknown>)[key]);
    // defined, not assigned: a member named "__proto__" stays a member (refused later), never the prototype
    if (i >= 0) Object.defineProperty(rest, key, { value: values[i], writable: true, enumerable: true, configurable: true });
  }
  return rest;
};
