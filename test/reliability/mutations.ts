import type { Prng } from "./prng";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonPath = (string | number)[];

/** Every kind of damage done to a seed body; each (route, kind) pair is tried at least once per run. */
export const MUTATION_KINDS = [
  "delete-field",
  "set-null",
  "swap-type",
  "body-over-10mb",
  "string-over-max-length",
  "control-character",
  "lone-surrogate",
  "unicode-lookalike",
  "number-out-of-range",
  "wrong-enum",
  "empty-container",
  "duplicate-key",
  "truncated-json",
  "deep-nesting",
  "extra-field",
  "wrong-id",
  "wrong-owner",
  "malformed-date",
  "root-not-object",
] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

/** Where a route's body names the object and its owner, for the wrong-id and wrong-owner mutations. */
export interface BodyIdentity {
  /** the member holding the id the path also names (e.g. `id`, `uid`, `location_id`) */
  idKey?: string;
  /** the object holding country_code and party_id (default: the body itself) */
  ownerAt?: JsonPath;
}

export interface MutatedBody {
  kind: MutationKind;
  /** what was done where, e.g. `set-null at /evses/0/status` */
  detail: string;
  /** the request body as sent (not always valid JSON) */
  text: string;
}

/** The body limit of core/host/http-app.ts: one byte more must be HTTP 413. */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

const RAW = "__FUZZ_RAW__";
const clone = <T extends Json>(value: T): T => JSON.parse(JSON.stringify(value));
const pointer = (path: JsonPath): string => (path.length ? `/${path.join("/")}` : "(root)");
const isObject = (v: Json | undefined): v is { [key: string]: Json } => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every node below the root, depth first, with its path. */
const nodes = (value: Json, path: JsonPath = []): { path: JsonPath; value: Json }[] => {
  const children: [string | number, Json][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : isObject(value) ? Object.entries(value) : [];
  return children.flatMap(([key, child]) => [{ path: [...path, key], value: child }, ...nodes(child, [...path, key])]);
};

const parentOf = (root: Json, path: JsonPath): Json => path.slice(0, -1).reduce<Json>((node, key) => (node as Record<string, Json>)[key as string], root);

const setAt = (root: Json, path: JsonPath, value: Json): Json => {
  if (path.length === 0) return value;
  (parentOf(root, path) as Record<string | number, Json>)[path[path.length - 1]] = value;
  return root;
};

/** The body as text with the raw JSON text `raw` standing where `path` is (texts JSON.stringify cannot produce: 1e309, 10^5 brackets). */
const withRaw = (body: Json, path: JsonPath, raw: string): string => {
  const text = JSON.stringify(setAt(body, path, RAW));
  return text.replace(JSON.stringify(RAW), () => raw);
};

/** The body as text with one more member `"key": raw` at the start of the object at `path` (duplicate keys, __proto__). */
const withMember = (body: Json, path: JsonPath, key: string, raw: string): string => {
  const target = path.reduce<Json>((node, k) => (node as Record<string, Json>)[k as string], body) as Record<string, Json>;
  const entries = Object.entries(target);
  for (const k of Object.keys(target)) delete target[k];
  target[RAW] = RAW;
  Object.assign(target, Object.fromEntries(entries));
  return JSON.stringify(body).replace(`${JSON.stringify(RAW)}:${JSON.stringify(RAW)}`, () => `${JSON.stringify(key)}:${raw}`);
};

const DATE_KEY = /date|last_updated|timestamp|_time$|expiry|valid_(from|to)/;
const ENUM_VALUE = /^[A-Z][A-Z0-9_]{2,}$/;
const LOOKALIKES: Record<string, string> = { A: "\u0410", E: "\u0415", O: "\u041e", I: "\u0406", a: "\u0430", e: "\u0435", o: "\u043e", i: "\u0456", "0": "\uff10", "1": "\uff11", "-": "\u2010", ".": "\u2024" };
const CONTROL = ["\u0000", "\u0007", "\u0008", "\u000b", "\u001b", "\u007f", "\n", "\t"];
const SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff"];
const NUMBERS = ["1e308", "-1e308", "1e309", "-1", "-0", "9007199254740993", "1e-400", "123456789012345678901234567890", "0.30000000000000004"];
const DATES = ["2019-13-45T25:61:61Z", "yesterday", "2019-06-19", "2019-06-19T02:11:11", "2019-06-19T02:11:11+02:00", "+275760-09-13T00:00:00Z", "0000-00-00T00:00:00Z", "2019-06-19 02:11:11Z", ""];
/** Max lengths of OCPI string fields (CiString(2), (3), (36), (39), (48), (64), (255), (512), …) plus one. */
const OVER_MAX = [3, 4, 37, 40, 41, 49, 65, 256, 513];
const OTHER_OWNERS: [string, string][] = [["XX", "ZZZ"], ["NL", "GWY"], ["DE", "EMS"], ["nl", "tnm"], ["NLD", "TOOLONG"]];
const SWAPS: Json[] = ["fuzz", 7, true, [], {}, "7", 0];

const typeOf = (v: Json): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** A node matching `accept`, else any node, else the root (a body of `{}` has no node). */
const choose = (body: Json, rng: Prng, accept: (n: { path: JsonPath; value: Json }) => boolean = () => true): { path: JsonPath; value: Json } => {
  const all = nodes(body);
  const matching = all.filter(accept);
  if (matching.length) return rng.pick(matching);
  if (all.length) return rng.pick(all);
  return { path: [], value: body };
};

const excerpt = (v: Json): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 60)}… (${text.length} chars)` : text;
};

/** Applies one mutation of `kind` to a copy of `seed`. */
export const mutate = (seed: Json, kind: MutationKind, rng: Prng, identity: BodyIdentity = {}): MutatedBody => {
  const body = clone(seed);
  const done = (detail: string, text: string): MutatedBody => ({ kind, detail: `${kind} ${detail}`, text });
  const replace = (path: JsonPath, value: Json) => done(`at ${pointer(path)}: ${excerpt(value)}`, JSON.stringify(setAt(body, path, value)));

  switch (kind) {
    case "delete-field": {
      const { path } = choose(body, rng);
      if (path.length === 0) return done("of every field", "{}");
      const parent = parentOf(body, path);
      if (Array.isArray(parent)) parent.splice(path[path.length - 1] as number, 1);
      else delete (parent as Record<string, Json>)[path[path.length - 1]];
      return done(`at ${pointer(path)}`, JSON.stringify(body));
    }
    case "set-null":
      return replace(choose(body, rng).path, null);
    case "swap-type": {
      const { path, value } = choose(body, rng);
      return replace(path, rng.pick(SWAPS.filter((s) => typeOf(s) !== typeOf(value))));
    }
    case "body-over-10mb": {
      const { path } = choose(body, rng, (n) => typeof n.value === "string");
      return done(`at ${pointer(path)}: a string of ${BODY_LIMIT_BYTES + 1} bytes`, JSON.stringify(setAt(body, path, "x".repeat(BODY_LIMIT_BYTES + 1))));
    }
    case "string-over-max-length": {
      const { path, value } = choose(body, rng, (n) => typeof n.value === "string");
      const length = rng.pick(OVER_MAX);
      const base = typeof value === "string" && value.length ? value : "X";
      return replace(path, base.repeat(Math.ceil(length / base.length)).slice(0, length));
    }
    case "control-character":
    case "lone-surrogate": {
      const { path, value } = choose(body, rng, (n) => typeof n.value === "string");
      const text = typeof value === "string" ? value : "";
      const at = rng.int(text.length + 1);
      return replace(path, text.slice(0, at) + rng.pick(kind === "lone-surrogate" ? SURROGATES : CONTROL) + text.slice(at));
    }
    case "unicode-lookalike": {
      const { path, value } = choose(body, rng, (n) => typeof n.value === "string" && /[AEOIaeoi01.-]/.test(n.value));
      const text = typeof value === "string" ? value : "ABC";
      const swapped = rng.next() < 0.2 ? `${text}\u200b` : text.replace(/[AEOIaeoi01.-]/, (c) => LOOKALIKES[c]);
      return replace(path, swapped);
    }
    case "number-out-of-range": {
      const { path } = choose(body, rng, (n) => typeof n.value === "number");
      const raw = rng.pick(NUMBERS);
      return done(`at ${pointer(path)}: ${raw}`, withRaw(body, path, raw));
    }
    case "wrong-enum": {
      const { path, value } = choose(body, rng, (n) => typeof n.value === "string" && ENUM_VALUE.test(n.value));
      const text = typeof value === "string" ? value : "";
      return replace(path, rng.pick(["NOT_A_VALUE", text.toLowerCase(), `${text} `, `${text}_X`, "0"]));
    }
    case "empty-container": {
      const { path, value } = choose(body, rng, (n) => typeof n.value === "object" && n.value !== null);
      if (path.length === 0) return done("of the whole body", "{}");
      return replace(path, Array.isArray(value) ? [] : {});
    }
    case "duplicate-key": {
      const { path, value } = choose(body, rng, (n) => isObject(n.value) && Object.keys(n.value).length > 0);
      const holder = isObject(value) && Object.keys(value).length ? path : [];
      const target = holder.reduce<Json>((node, k) => (node as Record<string, Json>)[k as string], body);
      const key = isObject(target) && Object.keys(target).length ? rng.pick(Object.keys(target)) : "id";
      const other = rng.pick(SWAPS);
      // the duplicate comes first, so a parser keeping the last value keeps the seed's and one keeping the first keeps ours
      return done(`of ${pointer([...holder, key])}: first ${excerpt(other)}`, withMember(body, holder, key, JSON.stringify(other)));
    }
    case "truncated-json": {
      const text = JSON.stringify(body);
      const at = 1 + rng.int(Math.max(1, text.length - 1));
      return done(`after ${at} of ${text.length} characters`, text.slice(0, at));
    }
    case "deep-nesting": {
      const depth = rng.pick([64, 1_000, 10_000, 100_000]);
      const raw = rng.next() < 0.5 ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
      const { path } = choose(body, rng);
      return done(`at ${pointer(path)}: depth ${depth}`, withRaw(body, path, raw));
    }
    case "extra-field": {
      const { path, value } = choose(body, rng, (n) => isObject(n.value));
      const holder = isObject(value) ? path : [];
      const key = rng.pick(["x_fuzz_extra", "__proto__", "constructor", "", "EVSES"]);
      const extra = rng.pick<Json>([{ polluted: true }, "extra", 1, [1, 2]]);
      return done(`at ${pointer(holder)}: ${JSON.stringify(key)}`, withMember(body, holder, key, JSON.stringify(extra)));
    }
    case "wrong-id": {
      const key = identity.idKey ?? "id";
      const current = isObject(body) && typeof body[key] === "string" ? (body[key] as string) : "ID";
      const wrong = rng.pick([`${current}-OTHER`, "FUZZ-OTHER-ID", "", " ", current.toLowerCase(), `${current}/..`, 42]);
      if (!isObject(body)) return done("on a body that is no object", JSON.stringify(body));
      body[key] = wrong;
      return done(`/${key}: ${excerpt(wrong)}`, JSON.stringify(body));
    }
    case "wrong-owner": {
      const at = identity.ownerAt ?? [];
      const holder = at.reduce<Json>((node, k) => (isObject(node) || Array.isArray(node) ? (node as Record<string, Json>)[k as string] : undefined) ?? null, body);
      const [cc, pid] = rng.pick(OTHER_OWNERS);
      if (!isObject(holder)) return done("on a body without owner", JSON.stringify(body));
      const which = rng.int(3);
      if (which !== 1) holder.country_code = cc;
      if (which !== 0) holder.party_id = pid;
      return done(`at ${pointer(at)}: ${holder.country_code}/${holder.party_id}`, JSON.stringify(body));
    }
    case "malformed-date": {
      const { path } = choose(body, rng, (n) => typeof n.value === "string" && DATE_KEY.test(String(n.path[n.path.length - 1])));
      return replace(path, rng.pick(DATES));
    }
    case "root-not-object": {
      const raw = rng.pick(["[]", '"text"', "42", "true", "null", `[${JSON.stringify(body)}]`]);
      return done(`: ${raw.slice(0, 40)}`, raw);
    }
  }
};
