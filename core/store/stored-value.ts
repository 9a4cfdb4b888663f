import { stringifyInParts } from "../model/parted-arrays";

const notJson = (): TypeError => new TypeError("store values must be JSON-serialisable");

/** A value as the store keeps it: its JSON text (a TypeError for a value JSON cannot hold). */
export function encode(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw notJson();
  return json;
}

/**
 * `write` with the value's JSON text, where a store can wait for it: a value holding the large arrays of a
 * weighty request body is encoded a part of them at a time, on turns of its own (core/model/parted-arrays.ts);
 * any other at once, and written in the same turn (no await between, so writes keep their order).
 */
export const afterEncoding = <T>(value: unknown, write: (json: string) => T): T | Promise<T> => {
  const json = stringifyInParts(value);
  if (json === undefined) throw notJson();
  return typeof json === "string" ? write(json) : json.then(write);
};

/**
 * From this many characters on, a stored value is weighty (as a request body of 64 KiB is:
 * core/http/weighty-turns.ts): its parse takes milliseconds, tens of them for the largest values the body
 * limits let in.
 */
export const WEIGHTY_VALUE_CHARS = 64 * 1024;

/**
 * A value read from the store, parsed; a weighty one handed over on a turn of the event loop of its own,
 * so that its parse and what the reader does with it next (a GET renders it into its answer: as long
 * again) are two pieces with the I/O that was waiting served between them, not one. Issue #23: reading
 * back the costliest accepted body (a Token of 1.97 MB, 24,990 objects) held the event loop 33-60 ms in
 * one piece, past the 50 ms asked for (bench/RESULTS.md, "Request bodies at the body limits").
 */
export const parseStored = async <T>(json: string): Promise<T> => {
  const value = JSON.parse(json) as T;
  if (json.length >= WEIGHTY_VALUE_CHARS) await new Promise((resolve) => setImmediate(resolve));
  return value;
};
