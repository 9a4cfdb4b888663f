import type { z } from "zod";
import type { PartyRef } from "../protocol/types";
import type { FieldIssue } from "../contract/errors";
import { issuesOf } from "./object-type";
import { isDisplayText, isOptional, schemaAt } from "./schema-walk";
import type { FieldFill, ObjectType } from "../contract/object-type";
import { DISPLAY_TEXT_LANGUAGE } from "./repair-table";

/**
 * `strictness: repair`: known, unambiguous defects of a partner's object are
 * repaired, driven by zod's issues (path, code, expected) and the schema at
 * each issue's path, then the object is validated again. Each repair is
 * named by the field (a JSON pointer, list indexes as `*`) and what was
 * done, never by the values (they may be personal data). An object that
 * still fails is not repaired at all.
 */

/** One repair done to one field of one object. */
export interface Repair {
  /** JSON pointer of the field, each list index written as an asterisk (one entry for every EVSE's same field) */
  field: string;
  /** what was done, without the partner's values */
  action: string;
}

export type RepairOutcome = { ok: true; value: unknown; repairs: Repair[] } | { ok: false; issues: FieldIssue[] };

/** What a repair may draw on beyond the object itself. */
export interface RepairSource {
  /** the party the object came from when it names no owner of its own (2.1.1 objects, answers) */
  sender?: PartyRef;
  /** a Location the gateway holds (canonical form), for CdrLocation fields a partner left out */
  heldLocation?(owner: PartyRef, locationId: string): Promise<Record<string, unknown> | undefined>;
}

/** Enough for a string in a list in a DisplayText (three steps), with room to spare; each round must repair something. */
const MAX_ROUNDS = 6;
const NUMBER = /^\s*-?\d+(?:\.\d+)?\s*$/;
const BOOLEAN = /^(?:true|false)$/i;

type Obj = Record<string, unknown>;

/** What repairs read of an object's type: its name and the repairs its module declares (ObjectType.repairs). */
export type RepairedType = Pick<ObjectType, "name" | "repairs">;

export const repairObject = async (type: RepairedType, schema: z.ZodType, input: unknown, source: RepairSource): Promise<RepairOutcome> => {
  const root = { value: structuredClone(input) };
  const repairs: Repair[] = [];
  for (let round = 0; ; round++) {
    const parsed = schema.safeParse(root.value);
    if (parsed.success) return { ok: true, value: parsed.data, repairs };
    const done = round < MAX_ROUNDS ? await repairRound(type, schema, root, parsed.error.issues, source) : [];
    if (done.length === 0) return { ok: false, issues: issuesOf(parsed.error) };
    repairs.push(...done);
  }
};

/** Where one issue points: the field's parent, its key, and what the schema expects there. */
interface Site {
  issue: z.core.$ZodIssue;
  parent: Obj | unknown[];
  key: string | number;
  current: unknown;
  schema: z.ZodType | undefined;
  fill: FieldFill | undefined;
  /** the type's synonyms of enumeration values, by field name */
  synonyms: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined;
  owner: PartyRef | undefined;
  set(value: unknown): void;
}

const repairRound = async (type: RepairedType, schema: z.ZodType, root: { value: unknown }, issues: z.core.$ZodIssue[], source: RepairSource) => {
  const done: Repair[] = [];
  /** list elements to drop, applied after the round so the other issues' indexes stay right */
  const drops: [unknown[], number][] = [];
  const owner = ownerOf(root.value) ?? source.sender;
  for (const issue of issues) {
    if (issue.path.length === 0) continue;
    const parent = valueAt(root.value, issue.path.slice(0, -1));
    if (parent === null || typeof parent !== "object") continue;
    const key = issue.path[issue.path.length - 1] as string | number;
    const field = "/" + issue.path.map((p) => (typeof p === "number" ? "*" : String(p))).join("/");
    const site: Site = {
      issue,
      parent: parent as Obj | unknown[],
      key,
      current: (parent as Obj)[key as string],
      schema: schemaAt(schema, issue.path),
      fill: type.repairs?.fills?.[field],
      synonyms: type.repairs?.synonyms,
      owner,
      set: (value) => ((parent as Obj)[key as string] = value),
    };
    const action = (await fillMissing(site, source)) ?? retype(site) ?? enumValue(site, drops);
    if (action) done.push({ field, action });
  }
  for (const [list, index] of drops.sort((a, b) => b[1] - a[1])) list.splice(index, 1);
  return done;
};

/** A missing field the repair table knows a value for. */
const fillMissing = async (site: Site, source: RepairSource): Promise<string | undefined> => {
  const { fill, current, parent, key } = site;
  if (!fill || current !== undefined || Array.isArray(parent)) return undefined;
  if (fill.from === "value") {
    if (!fill.when(parent)) return undefined;
    site.set(fill.value);
    return `missing; set to ${JSON.stringify(fill.value)}: ${fill.why}`;
  }
  if (fill.from === "sender") {
    const value = site.owner?.[key as keyof PartyRef];
    if (value === undefined) return undefined;
    site.set(value);
    return "missing; filled from the party the object came from";
  }
  const id = parent.id;
  if (!site.owner || typeof id !== "string" || !source.heldLocation) return undefined;
  const held = (await source.heldLocation(site.owner, id))?.[key as string];
  if (held === undefined) return undefined;
  site.set(structuredClone(held));
  return "missing; filled from the Location held for its id";
};

/** A value of the wrong JSON type that means one thing: a number or boolean as a string, one item for a list, text for a DisplayText. */
const retype = (site: Site): string | undefined => {
  const { issue, current } = site;
  if (issue.code !== "invalid_type" || current === undefined) return undefined;
  if (issue.expected === "number" && typeof current === "string" && NUMBER.test(current)) {
    site.set(Number(current));
    return "number sent as a string: converted";
  }
  if (issue.expected === "boolean" && typeof current === "string" && BOOLEAN.test(current)) {
    site.set(current.toLowerCase() === "true");
    return "boolean sent as a string: converted";
  }
  if (issue.expected === "array" && !Array.isArray(current)) {
    site.set([current]);
    return "single value where a list is required: made a list of one";
  }
  if (issue.expected === "object" && site.schema && isDisplayText(site.schema)) {
    if (typeof current === "string") {
      site.set({ language: DISPLAY_TEXT_LANGUAGE, text: current });
      return `string where a DisplayText is required: made a DisplayText in language "${DISPLAY_TEXT_LANGUAGE}"`;
    }
    if (Array.isArray(current) && current.length > 0) {
      site.set(current[0]);
      return "list where one DisplayText is required: the first element kept";
    }
  }
  return undefined;
};

/**
 * An unknown value of a closed enumeration: the known value it is spelt
 * like (letter case), else its synonym from the table, else dropped where
 * the field may be absent (an optional field, an item of a list).
 */
const enumValue = (site: Site, drops: [unknown[], number][]): string | undefined => {
  const { issue, current, parent, key } = site;
  if (issue.code !== "invalid_value" || typeof current !== "string") return undefined;
  const known = issue.values.filter((v): v is string => typeof v === "string");
  const sameLetters = known.filter((v) => v.toUpperCase() === current.toUpperCase());
  if (sameLetters.length === 1) {
    site.set(sameLetters[0]);
    return `value in the wrong letter case: mapped to ${sameLetters[0]}`;
  }
  const name = [...issue.path].reverse().find((p) => typeof p === "string") as string | undefined;
  const synonyms = name ? site.synonyms?.[name] : undefined;
  const synonym = synonyms && Object.hasOwn(synonyms, current.toUpperCase()) ? synonyms[current.toUpperCase()] : undefined;
  if (synonym && known.includes(synonym)) {
    site.set(synonym);
    // the mapped-from value is the table's, not the partner's data
    return `${current.toUpperCase()} mapped to its synonym ${synonym}`;
  }
  if (Array.isArray(parent)) {
    drops.push([parent, key as number]);
    return "unknown value: dropped from the list";
  }
  if (site.schema && isOptional(site.schema)) {
    delete (parent as Obj)[key as string];
    return "unknown value of an optional field: dropped";
  }
  return undefined;
};

const valueAt = (value: unknown, path: readonly PropertyKey[]): unknown => {
  let current = value;
  for (const step of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Obj)[step as string];
  }
  return current;
};

/** The object's own owner fields (2.2+), which the kernel then checks against the partner's scope. */
const ownerOf = (value: unknown): PartyRef | undefined => {
  const { country_code, party_id } = (value ?? {}) as Obj;
  return typeof country_code === "string" && typeof party_id === "string" ? { country_code, party_id } : undefined;
};
