import type { IncomingHttpHeaders } from "node:http";
import type { HeaderPrefix } from "../../config/types";

/** The sender's request headers that reach the receiver besides the ones the hub writes (token, ids, routing, Host: the receiver's). */
export const REQUEST_HEADERS = ["content-type", "content-length", "transfer-encoding", "accept"] as const;
/** Answer headers that reach the sender besides its own ids; routing headers are rewritten in the sender's prefix. */
export const ANSWER_HEADERS = new Set(["content-type", "content-length", "transfer-encoding", "x-total-count", "x-limit", "link", "retry-after"]);

export const lower = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

export const flatten = (headers: Record<string, string | string[] | undefined>): IncomingHttpHeaders => {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return out;
};

/** Answer headers of which node:http keeps the first when a message repeats them (the others are joined with ", "). */
const FIRST_ONLY = new Set(["content-type", "content-length", "retry-after"]);
/** Each answer header the sender gets, by its name in lower case, for a sender of each prefix: the protocol's as they are, routing headers (OCPI-* or ROAMING-*) in the prefix. */
const answerNamesOf = (prefix: HeaderPrefix): Map<string, string> => {
  const names = new Map([...ANSWER_HEADERS].map((name) => [name, name]));
  for (const side of ["from", "to"])
    for (const field of ["country-code", "party-id"]) for (const sent of ["ocpi", "roaming"]) names.set(`${sent}-${side}-${field}`, `${prefix}-${side}-${field}`.toLowerCase());
  return names;
};

/** What a header name as a receiver spells it becomes for a sender of one prefix (null: dropped), per spelling seen: no lower-casing per answer. */
class AnswerNames {
  private readonly names: Map<string, string>;
  private readonly spelled = new Map<string, string | null>();

  constructor(prefix: HeaderPrefix) {
    this.names = answerNamesOf(prefix);
  }

  of(sent: string): string | null {
    let name = this.spelled.get(sent);
    if (name === undefined) {
      name = this.names.get(sent.toLowerCase()) ?? null;
      // a receiver inventing header names: spellings are looked up anew once this many are known
      if (this.spelled.size >= MAX_SPELLINGS) this.spelled.clear();
      this.spelled.set(sent, name);
    }
    return name;
  }
}
const MAX_SPELLINGS = 256;
const ANSWER_NAMES = new Map<HeaderPrefix, AnswerNames>();
const NEXT_LINK = /<([^>]+)>\s*;\s*rel="?next"?/i;

/**
 * The receiver's answer headers as the sender gets them: only the protocol's
 * (pagination, content), routing headers in the sender's prefix, and the
 * Link to the next page rewritten onto our URL (the sender cannot, and must
 * not, call the receiver itself). Its ids are dropped: the sender's own stay.
 * `raw` is the answer's headers as they came, name and value in turn
 * (IncomingMessage.rawHeaders), repeated ones read as node:http reads them;
 * they are added to `out` the same way, name and value in turn (as
 * ServerResponse.writeHead takes them).
 */
export const answerHeadersOf = (raw: readonly string[], prefix: HeaderPrefix, linkBase: string, out: string[] = []): string[] => {
  let names = ANSWER_NAMES.get(prefix);
  if (!names) ANSWER_NAMES.set(prefix, (names = new AnswerNames(prefix)));
  const start = out.length;
  let link: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = names.of(raw[i]);
    if (key === null) continue;
    const value = raw[i + 1];
    if (key === "link") {
      link = link === undefined ? value : `${link}, ${value}`;
      continue;
    }
    let at = start;
    while (at < out.length && out[at] !== key) at += 2;
    if (at >= out.length) out.push(key, value);
    else if (!FIRST_ONLY.has(key)) out[at + 1] = `${out[at + 1]}, ${value}`;
  }
  if (link !== undefined) {
    const match = NEXT_LINK.exec(link);
    if (match) out.push("link", `<${linkBase}${searchOf(match[1])}>; rel="next"`);
  }
  return out;
};

/** The same for headers already read into an object (an answer read whole), as an object. */
export const answerHeaders = (headers: IncomingHttpHeaders, prefix: HeaderPrefix, linkBase: string): Record<string, string> => {
  const raw = Object.entries(headers).flatMap(([name, value]) => (value === undefined ? [] : [name, Array.isArray(value) ? value.join(", ") : value]));
  const pairs = answerHeadersOf(raw, prefix, linkBase);
  const out: Record<string, string> = {};
  for (let i = 0; i < pairs.length; i += 2) out[pairs[i]] = pairs[i + 1];
  return out;
};

/** A query (its "?" included) of characters only, which WHATWG URL parsing leaves as they are (its special-query percent-encode set excluded). */
const PLAIN_QUERY = /^\?[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/;
export const isPlainQuery = (search: string): boolean => PLAIN_QUERY.test(search);
/** Whether the part of a Link target before its query parses as a URL, per part seen (the receiver's own URL, the same on every page). */
const parsable = new Map<string, boolean>();
const MAX_PARSABLE = 64;

/**
 * The query of the receiver's next-page URL, as `new URL(target).search`
 * reads it ("" when it does not parse): the URL is parsed once per part
 * before the query, which is the receiver's own list URL on every page of a
 * crawl, and a query of plain characters is taken as it is (URL parsing
 * would not change it); any other target is parsed whole.
 */
const searchOf = (target: string): string => {
  const mark = target.indexOf("?");
  if (mark >= 0 && !target.includes("#") && isPlainQuery(target.slice(mark))) {
    const before = target.slice(0, mark);
    let ok = parsable.get(before);
    if (ok === undefined) {
      ok = URL.canParse(before);
      if (parsable.size >= MAX_PARSABLE) parsable.clear();
      parsable.set(before, ok);
    }
    return ok && mark < target.length - 1 ? target.slice(mark) : "";
  }
  try {
    return new URL(target).search;
  } catch {
    return "";
  }
};
