/**
 * Building blocks of the config schema's sections (config/schema/*.ts): each
 * takes the one message (config/schema-messages.ts) that every failure of the
 * value reports.
 */
import { z } from "zod";
import { isIP } from "node:net";
import { MESSAGES, withNotation, type LooseIssue } from "../schema-messages";

/**
 * Schema-level error: `text` for every failure of this schema, except for a
 * missing/empty value and a wrong scalar type for a string field, which the
 * generic messages (`humanIssueMessage`) describe better.
 */
export function msg(text: string) {
  return (iss: LooseIssue): string | undefined => {
    if (iss.input === undefined || iss.input === null) return undefined;
    if (iss.code === "invalid_type" && iss.expected === "string" && typeof iss.input !== "string") return undefined;
    if (iss.code === "invalid_type" && typeof iss.input === "string") return withNotation(text, iss.expected);
    return text;
  };
}

/** A string matching `re`, with `text` as the one message for it. */
export const str = (re: RegExp, text: string) => z.string({ error: msg(text) }).regex(re, { error: text });

// Numbers and booleans given as strings (`${ENV}`, or quoted) are read before validation: config/typed-strings.ts.

/** An integer between min and max. */
export function int(min: number, max: number, text: string) {
  return z
    .number({ error: msg(text) })
    .int({ error: text })
    .min(min, { error: text })
    .max(max, { error: text });
}

/** A number between min and max, fractions allowed. */
export function decimal(min: number, max: number, text: string) {
  return z.number({ error: msg(text) }).min(min, { error: text }).max(max, { error: text });
}

/** true or false. */
export function bool(text: string) {
  return z.boolean({ error: msg(text) });
}

/** `null` (an empty YAML value such as `partners:`) counts as absent, so defaults apply. */
export function nullAsAbsent<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (v === null ? undefined : v), schema);
}

export function isUrlWith(s: string, protocols: readonly string[]): URL | undefined {
  if (/\s/.test(s)) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return undefined;
  }
  if (!protocols.includes(u.protocol) || u.hostname === "") return undefined;
  return u;
}

export const httpUrl = (text: string = MESSAGES.httpUrl) =>
  z.string({ error: msg(text) }).refine((s) => isUrlWith(s, ["http:", "https:"]) !== undefined, { error: text });

const HOSTNAME_RE =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
/** A `partners[].callback_hosts` entry: `host` (the scheme's default port) or `host:port`; IPv6 in brackets. */
const CALLBACK_HOST_RE = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/;
export const isCallbackHost = (s: string): boolean => {
  const m = CALLBACK_HOST_RE.exec(s);
  if (!m) return false;
  const host = m[1].startsWith("[") ? isIP(m[1].slice(1, -1)) === 6 : HOSTNAME_RE.test(m[1]);
  return host && (m[2] === undefined || (Number(m[2]) >= 1 && Number(m[2]) <= 65535));
};
export const MODULE_ID_RE = /^[a-z][a-z0-9_]*$/;
export const PARTY_REF_RE = /^[A-Z]{2}[A-Z0-9]{3}$/;

export function uniqueItems(what: string) {
  return (items: readonly unknown[], ctx: z.RefinementCtx) => {
    const seen = new Map<unknown, number>();
    items.forEach((item, i) => {
      const first = seen.get(item);
      if (first === undefined) seen.set(item, i);
      else ctx.addIssue({ code: "custom", path: [i], message: `duplicate ${what} (already listed at index ${first})` });
    });
  };
}
