import { randomBytes } from "node:crypto";

/**
 * The large arrays of a weighty request body, parsed in parts (core/http/pieced-parse.ts), are written in
 * parts too: where a store encodes a value that holds one (core/store/stored-value.ts afterEncoding), the
 * rest of the value is stringified with a sentinel in its place and its elements a part at a time, each part
 * after the first on a turn of its own (the request's weighty turns), then put in place. Issue #23: the
 * store's JSON.stringify of a 100 KB Token of 10,000 members held the event loop about 0.6 ms in one piece.
 * The text is JSON.stringify's of the whole value, byte for byte; an array that was copied since (a spread, a
 * map) is an ordinary array again, stringified with the rest.
 */
interface Parts {
  /** where each part ends (element index, exclusive), in order */
  ends: number[];
  nextPart: () => Promise<void>;
}

const partsOf = new WeakMap<object, Parts>();
/**
 * The i-th sentinel: what stands for an array cut out of a body while it is parsed in parts
 * (core/http/pieced-parse.ts) or written in parts (here); per process, so that no body or value can hold one.
 */
const SENTINEL = `\u0000${randomBytes(12).toString("hex")}#`;
export const sentinel = (i: number): string => `${SENTINEL}${i}`;
/** which sentinel `value` is, or -1 when it is none */
export const sentinelIndex = (value: unknown): number => (typeof value === "string" && value.startsWith(SENTINEL) ? Number(value.slice(SENTINEL.length)) : -1);
/** the arrays met by the stringify under way in stringifyInParts; undefined outside it */
let met: unknown[][] | undefined;

/** an array's toJSON while marked: the sentinel inside stringifyInParts, itself (written as any array) elsewhere */
function sentinelInParts(this: unknown[]): unknown {
  if (met === undefined) return this;
  met.push(this);
  return sentinel(met.length - 1);
}

/** `array` was parsed in parts ending at `ends`; encoded in parts, it awaits `nextPart` before each but the first. */
export const markInParts = (array: unknown[], ends: number[], nextPart: () => Promise<void>): void => {
  partsOf.set(array, { ends, nextPart });
  Object.defineProperty(array, "toJSON", { value: sentinelInParts, writable: true, configurable: true, enumerable: false });
};

/** JSON.stringify(value), at once when it holds no marked array, else in parts (see the top). */
export const stringifyInParts = (value: unknown): string | undefined | Promise<string> => {
  met = [];
  let rest: string | undefined;
  let arrays: unknown[][];
  try {
    rest = JSON.stringify(value);
  } finally {
    arrays = met;
    met = undefined;
  }
  return arrays.length === 0 || rest === undefined ? rest : inParts(rest, arrays);
};

const inParts = async (rest: string, arrays: unknown[][]): Promise<string> => {
  let text = rest;
  for (let i = 0; i < arrays.length; i++) {
    const array = arrays[i];
    const { ends, nextPart } = partsOf.get(array)!;
    let written = "[";
    let from = 0;
    for (const end of [...ends.filter((e) => e < array.length), array.length]) {
      if (end <= from) continue;
      // the first part goes with the rest of the value, in the turn the store's write began in
      if (from > 0 || i > 0) await nextPart();
      const part = JSON.stringify(array.slice(from, end));
      written += (from > 0 ? "," : "") + part.slice(1, -1);
      from = end;
    }
    const quoted = JSON.stringify(sentinel(i));
    const at = text.indexOf(quoted);
    text = text.slice(0, at) + written + "]" + text.slice(at + quoted.length);
  }
  return text;
};
