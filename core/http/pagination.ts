import type { Context } from "koa";
import { invalid } from "../contract/errors";
import { parseDateTime } from "../protocol/datetime";
import { pageLength, type JsonPage, type Page, type PageRequest } from "../contract/page";

const nonNegativeInt = (name: string, raw: string | undefined, min: number): number | undefined => {
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw invalid(`query parameter ${name} must be an integer >= ${min}`);
  return Number(raw);
};

const dateParam = (name: string, raw: string | undefined): number | undefined => {
  if (raw === undefined || raw === "") return undefined;
  const ms = parseDateTime(raw);
  if (ms === undefined) throw invalid(`query parameter ${name} must be an OCPI DateTime, e.g. 2024-01-31T12:00:00Z`);
  return ms;
};

/** A parsed query string: one value, or all of a repeated parameter's (Koa's `ctx.query`). */
export type Query = Context["query"];

/** A query string parsed as Koa parses `ctx.query`, for requests answered before Koa (core/host/cached-get.ts). */
export const parseQuery = (text: string): Query => {
  const params = new URLSearchParams(text);
  const query: Query = {};
  for (const key of params.keys()) {
    const values = params.getAll(key);
    // defined, not assigned: a key named __proto__ stays a plain key
    Object.defineProperty(query, key, { value: values.length <= 1 ? values[0] : values, writable: true, enumerable: true, configurable: true });
  }
  return query;
};

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** Query parameters with one value each: a repeated parameter counts by its first occurrence. */
export const flatQuery = (query: Query): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(query).map(([k, v]) => [k, single(v)]));

export const parsePageRequest = (query: Query, maxLimit: number): PageRequest => {
  const requested = nonNegativeInt("limit", single(query.limit), 1);
  return {
    offset: nonNegativeInt("offset", single(query.offset), 0) ?? 0,
    limit: Math.min(requested ?? maxLimit, maxLimit),
    dateFrom: dateParam("date_from", single(query.date_from)),
    dateTo: dateParam("date_to", single(query.date_to)),
  };
};

/**
 * X-Total-Count, X-Limit (the server's cap, 2.2+ semantics) and a Link to
 * the next page that keeps the original filters, built on the public URL
 * so it is right behind a reverse proxy. No Link on the last page.
 */
export const pageHeaders = (page: Page | JsonPage, request: PageRequest, maxLimit: number, publicUrl: string, path: string, query: Query): [string, string][] => {
  const headers: [string, string][] = [
    ["X-Total-Count", String(page.total)],
    ["X-Limit", String(maxLimit)],
  ];
  const length = pageLength(page);
  const nextOffset = request.offset + length;
  if (length === 0 || nextOffset >= page.total) return headers;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (key === "offset" || key === "limit" || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, v);
  }
  params.set("offset", String(nextOffset));
  params.set("limit", String(request.limit));
  headers.push(["Link", `<${publicUrl}${path}?${params.toString()}>; rel="next"`]);
  return headers;
};
