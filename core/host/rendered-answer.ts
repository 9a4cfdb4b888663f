import type { OcpiReply, RouteSpec } from "../contract/module-plugin";
import type { PartyRef, VersionNumber } from "../protocol/types";
import type { TranslationContext } from "../contract/object-type";
import { envelope, ocpiTimestamp, type Envelope } from "../http/envelope";
import { isJsonPage, type JsonPage, type Page } from "../contract/page";
import { Status } from "../protocol/status";

/** A reply whose page, if any, is of objects (a JsonPage parsed: objectReply). */
export type ObjectReply = Omit<OcpiReply, "page"> & { page?: Page };

/** The reply's data in the partner's version. */
export const translateDown = (reply: ObjectReply, route: RouteSpec, version: VersionNumber, tx: (name: string) => TranslationContext): unknown => {
  const down = (item: unknown) =>
    route.response && item !== null && item !== undefined ? route.response.down(item, version, tx(route.response.name)) : item;
  if (reply.page) return reply.page.items.map(down);
  return Array.isArray(reply.data) ? reply.data.map(down) : down(reply.data);
};

interface Drop {
  object: string;
  field: string;
  why: string;
}

/** A cached answer's data part in one version, serialised, and the fields its translation dropped. */
export interface Rendered {
  /** JSON of the envelope's `data`; undefined when the envelope has none */
  data?: Buffer;
  /** logged again for every partner served these bytes, as translating would (once per partner, object, field) */
  drops: Drop[];
  /** the whole envelope of the current second (timestamps have whole seconds) */
  envelope?: { second: number; statusCode: number; bytes: Buffer };
}

/**
 * Where a cached answer's rendering is kept in the answer's memo
 * (ResponseCache.memo): one per version, route and owner (the translation
 * may fill the owner in: 2.1.1 objects lack owner fields).
 */
export const renderedKey = (version: VersionNumber, route: RouteSpec, owner: PartyRef | undefined): string =>
  `${version}|${route.method} ${route.path}|${owner ? `${owner.country_code}*${owner.party_id}` : ""}`;

export const render = (reply: ObjectReply, route: RouteSpec, version: VersionNumber, tx: (name: string) => TranslationContext): Rendered => {
  const drops = new Map<string, Drop>();
  const recording = (object: string): TranslationContext => {
    const inner = tx(object);
    return {
      ...inner,
      dropped: (field, why) => {
        drops.set(`${object}\u0000${field}\u0000${why}`, { object, field, why });
        inner.dropped(field, why);
      },
    };
  };
  const json = JSON.stringify(translateDown(reply, route, version, recording));
  return { data: json === undefined ? undefined : Buffer.from(json), drops: [...drops.values()] };
};

/**
 * A JsonPage's data in `version` when the route's type takes the objects' stored JSON as it is
 * (ObjectType.wireJson; a route without a response type sends its objects untranslated): the page's
 * text, byte for byte what translating and serialising the parsed objects gives. Undefined when they
 * have to be translated.
 */
export const splicedPage = (page: JsonPage, route: RouteSpec, version: VersionNumber): Rendered | undefined => {
  const wire = wireText(page, route, version);
  return wire === undefined ? undefined : { data: Buffer.from(wire), drops: [] };
};

/** splicedPage's data as text. */
const wireText = (page: JsonPage, route: RouteSpec, version: VersionNumber): string | undefined =>
  route.response ? route.response.wireJson?.(page.json, version) : page.json;

/** The reply with a JsonPage's objects parsed and completed by the route (RouteSpec.completeItems), for translation. */
export const objectReply = async (reply: OcpiReply & { page: JsonPage }, route: RouteSpec): Promise<ObjectReply> => {
  const parsed = JSON.parse(reply.page.json) as unknown[];
  const items = route.completeItems ? await route.completeItems(parsed) : parsed;
  return { ...reply, page: { items, total: reply.page.total } };
};

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const ENVELOPE_END = Buffer.from("}");

/** Byte for byte what `JSON.stringify(envelope(data, statusCode))` gives, from the data's serialised form. */
export const envelopeBytes = (rendered: Rendered & { data: Buffer }, statusCode: number): Buffer => {
  const second = Math.floor(Date.now() / 1000);
  const cached = rendered.envelope;
  if (cached && cached.second === second && cached.statusCode === statusCode) return cached.bytes;
  const bytes = Buffer.concat([envelopeHead(second, statusCode), rendered.data, ENVELOPE_END]);
  rendered.envelope = { second, statusCode, bytes };
  return bytes;
};

/** The envelope's bytes before its data, the last one made kept for its second (timestamps have whole seconds). */
let lastHead = { second: 0, statusCode: 0, bytes: Buffer.alloc(0) };
const envelopeHead = (second: number, statusCode: number): Buffer => {
  if (lastHead.second !== second || lastHead.statusCode !== statusCode) {
    const bytes = Buffer.from(`{"status_code":${statusCode},"timestamp":"${ocpiTimestamp(new Date(second * 1000))}","data":`);
    lastHead = { second, statusCode, bytes };
  }
  return lastHead.bytes;
};

/**
 * `envelopeBytes` of data given as its JSON text, for an answer rendered once (a page not cached): the
 * text written into the envelope's one buffer, where making its bytes first would copy them again.
 */
const envelopeOfText = (data: string, statusCode: number): Buffer => {
  const head = envelopeHead(Math.floor(Date.now() / 1000), statusCode);
  const bytes = Buffer.allocUnsafe(head.length + Buffer.byteLength(data) + ENVELOPE_END.length);
  head.copy(bytes);
  ENVELOPE_END.copy(bytes, head.length + bytes.write(data, head.length));
  return bytes;
};

/**
 * The body of the answer to `reply` in `version`: the envelope's bytes (JSON) where the data part is
 * serialised here (a cached reply's, once per version and owner, kept in its `memo`; a JsonPage's, spliced
 * as stored or translated), else the envelope for Koa to serialise. `owner`: whom the translation may
 * fill in (2.1.1 objects lack owner fields); `tx` logs what it drops, again for each partner served a
 * memoised rendering.
 */
export const answerBody = async (
  reply: OcpiReply,
  route: RouteSpec,
  version: VersionNumber,
  tx: (name: string) => TranslationContext,
  owner: PartyRef | undefined,
  memo?: Map<string, unknown>,
): Promise<Buffer | Envelope> => {
  const jsonPage = reply.page && isJsonPage(reply.page) ? (reply as OcpiReply & { page: JsonPage }) : undefined;
  const wire = jsonPage && !memo ? wireText(jsonPage.page, route, version) : undefined;
  if (wire !== undefined) return envelopeOfText(wire, reply.statusCode ?? Status.SUCCESS);
  if (memo || jsonPage) {
    const key = renderedKey(version, route, owner);
    let rendered = memo?.get(key) as Rendered | undefined;
    if (rendered) for (const drop of rendered.drops) tx(drop.object).dropped(drop.field, drop.why);
    else {
      rendered = jsonPage
        ? (splicedPage(jsonPage.page, route, version) ?? render(await objectReply(jsonPage, route), route, version, tx))
        : render(reply as ObjectReply, route, version, tx);
      memo?.set(key, rendered);
    }
    if (rendered.data !== undefined) return envelopeBytes(rendered as Rendered & { data: Buffer }, reply.statusCode ?? Status.SUCCESS);
  }
  return envelope(translateDown(reply as ObjectReply, route, version, tx), reply.statusCode);
};
