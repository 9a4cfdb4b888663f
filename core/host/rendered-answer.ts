import type { OcpiReply, RouteSpec } from "../contract/module-plugin";
import type { PartyRef, VersionNumber } from "../protocol/types";
import type { TranslationContext } from "../contract/object-type";
import { ocpiTimestamp } from "../http/envelope";

/** The reply's data in the partner's version. */
export const translateDown = (reply: OcpiReply, route: RouteSpec, version: VersionNumber, tx: (name: string) => TranslationContext): unknown => {
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

export const render = (reply: OcpiReply, route: RouteSpec, version: VersionNumber, tx: (name: string) => TranslationContext): Rendered => {
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

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const ENVELOPE_END = Buffer.from("}");

/** Byte for byte what `JSON.stringify(envelope(data, statusCode))` gives, from the data's serialised form. */
export const envelopeBytes = (rendered: Rendered & { data: Buffer }, statusCode: number): Buffer => {
  const second = Math.floor(Date.now() / 1000);
  const cached = rendered.envelope;
  if (cached && cached.second === second && cached.statusCode === statusCode) return cached.bytes;
  const head = Buffer.from(`{"status_code":${statusCode},"timestamp":"${ocpiTimestamp(new Date(second * 1000))}","data":`);
  const bytes = Buffer.concat([head, rendered.data, ENVELOPE_END]);
  rendered.envelope = { second, statusCode, bytes };
  return bytes;
};
