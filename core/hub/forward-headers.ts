import type { IncomingHttpHeaders } from "node:http";
import type { HeaderPrefix } from "../../config/types";

/** Request headers that reach the receiver besides the ones the hub writes (token, ids, routing). */
export const REQUEST_HEADERS = new Set(["content-type", "content-length", "transfer-encoding", "accept", "host", "connection"]);
/** Answer headers that reach the sender besides its own ids; routing headers are rewritten in the sender's prefix. */
export const ANSWER_HEADERS = new Set(["content-type", "content-length", "transfer-encoding", "x-total-count", "x-limit", "link", "retry-after"]);

export const lower = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

export const flatten = (headers: Record<string, string | string[] | undefined>): IncomingHttpHeaders => {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return out;
};

const ROUTING_HEADER = /^(?:ocpi|roaming)-(from|to)-(country-code|party-id)$/;

/**
 * The receiver's answer headers as the sender gets them: only the protocol's
 * (pagination, content), routing headers in the sender's prefix, and the
 * Link to the next page rewritten onto our URL (the sender cannot, and must
 * not, call the receiver itself). Its ids are dropped: the sender's own stay.
 */
export const answerHeaders = (headers: IncomingHttpHeaders, prefix: HeaderPrefix, linkBase: string): IncomingHttpHeaders => {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const routing = ROUTING_HEADER.exec(name);
    if (routing) out[`${prefix}-${routing[1]}-${routing[2]}`.toLowerCase()] = value;
    else if (ANSWER_HEADERS.has(name)) out[name] = value;
  }
  const link = out.link;
  if (typeof link === "string") {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(link);
    if (match) {
      let search = "";
      try {
        search = new URL(match[1]).search;
      } catch {
        search = "";
      }
      out.link = `<${linkBase}${search}>; rel="next"`;
    } else delete out.link;
  }
  return out;
};
