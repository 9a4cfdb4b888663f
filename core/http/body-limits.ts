import type { IncomingMessage, ServerResponse } from "node:http";
import { Transform, type Readable, type TransformCallback } from "node:stream";
import { createGunzip, createInflate } from "node:zlib";
import { DEFAULT_INBOUND, type GatewayConfig, type InboundServerConfig } from "../../config/types";
import { OcpiError } from "../contract/errors";
import { Status } from "../protocol/status";
import { heavyLaneOf, isHeavy, type HeavyLaneSettings, type HeavyTicket } from "./heavy-lane";
import { refusalAnswered } from "./refusal-pacing";
import type { WeightyTurnSettings } from "./weighty-turns";

/**
 * What a request body may weigh (README "Config reference", `server.inbound.max_*`): its bytes, the members
 * of one object, the members and array elements of the whole body, its objects' layouts and the bytes of one
 * string or number; and from what weight on it is heavy (`server.inbound.heavy_body_*`, core/http/heavy-lane.ts).
 * Every body the gateway reads goes through here — a body of one of our routes, one the hub forwards (parsed
 * or streamed), a result posted to a hub response URL, an adapter's webhook — so that a body is refused as it
 * arrives, before it costs what parsing, checking and storing it would.
 */
export type BodyLimits = Pick<
  InboundServerConfig,
  "max_body_bytes" | "max_object_members" | "max_body_members" | "max_body_layouts" | "max_string_bytes" | "refusals_per_second"
> &
  HeavyLaneSettings &
  WeightyTurnSettings;

/** one object per gateway config: the heavy lane and the weighty turns are the gateway's (heavyLaneOf, weightyTurnsOf key them by this object) */
const limitsOfConfig = new WeakMap<GatewayConfig, BodyLimits>();

export const bodyLimitsOf = (config: GatewayConfig): BodyLimits => {
  let limits = limitsOfConfig.get(config);
  if (!limits) limitsOfConfig.set(config, (limits = { ...DEFAULT_INBOUND, ...config.server.inbound }));
  return limits;
};

/**
 * How deeply arrays and objects may nest in a request body. The deepest OCPI
 * object (a CDR's tariffs → elements → price_components → …) is about 8
 * levels; 32 leaves room for partners' custom properties while keeping every
 * walk over a body (null stripping, validation) far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 32;

/** A refused body: the rest of it is never parsed, and the answer closes the connection (core/http/refusal-pacing.ts refusalAnswered). */
const refused = (message: string, httpStatus = 413): OcpiError => new OcpiError(Status.INVALID_PARAMETERS, message, httpStatus, { Connection: "close" });

/** a key that would set an object's prototype wherever a body is merged into another object */
export const protoMember = (): OcpiError => refused('Request body has a member named "__proto__"', 400);

const tooLong = (limit: number): OcpiError => refused(`Request body has a string or number longer than ${limit} bytes (server.inbound.max_string_bytes)`);

/** Whether a parsed body has a member "__proto__" anywhere: a walk with a stack, never deeper than the call stack allows. */
export const hasProtoMember = (value: unknown): boolean => {
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === null || typeof next !== "object") continue;
    if (!Array.isArray(next) && Object.hasOwn(next, "__proto__")) return true;
    for (const child of Object.values(next)) if (child !== null && typeof child === "object") stack.push(child);
  }
  return false;
};

export const bodyTooLarge = (limits: BodyLimits): OcpiError => refused(`Request body larger than ${limits.max_body_bytes} bytes (server.inbound.max_body_bytes)`);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const LOWER_N = 0x6e;
/** FNV-1a over a member name's bytes, from a basis drawn per process so that no one can write names that hash alike */
const FNV_PRIME = 0x01000193;
const NAME_BASIS = (Math.random() * 0x1_0000_0000) >>> 0;
const PROTO = Buffer.from("__proto__");
const PROTO_HASH = PROTO.reduce((hash, byte) => Math.imul(hash ^ byte, FNV_PRIME), NAME_BASIS) >>> 0;
/** layouts are numbered below this; a transition is keyed by layout × 2³² + name hash, exact in a double */
const MAX_LAYOUT_ID = 2 ** 20;

/**
 * An array at depth 1 or 2 of a body (JsonScanner with `recordArrays`), by byte offsets: its `[`, its closing
 * bracket (-1 while open), and per element where it begins and the members and elements counted before it
 * (pairs, flat), and the count when it closed. Offsets fall on ASCII bytes, never inside a UTF-8 sequence.
 */
export interface ArraySpan {
  open: number;
  close: number;
  elements: number[];
  membersAtClose: number;
}

/**
 * Reads JSON text as it arrives, chunk by chunk, and refuses it the moment it
 * passes a limit: one pass over the bytes, no value built, so a body that
 * would take seconds to parse and store (hundreds of thousands of members in
 * one object) is refused after its first few kilobytes. It checks structure
 * only as far as counting needs; whether the text is JSON is JSON.parse's
 * to say once the whole body is in.
 *
 * Layouts: each object's member names, in order, retrace a path through a
 * tree of the layouts seen so far in this body (as V8 gives objects hidden
 * classes); a name not yet taken from where the object stands is a new
 * layout. A body of repeated objects (a Location's EVSEs) has a few dozen;
 * one whose objects keep bringing new names has one a member, and each costs
 * V8 a new hidden class wherever the body is parsed, copied or written.
 */
export class JsonScanner {
  private depth = 0;
  /** per open container (index = depth): members so far, whether it is an object, and its layout so far */
  private readonly counts = new Int32Array(MAX_JSON_DEPTH + 1);
  private readonly objects = new Uint8Array(MAX_JSON_DEPTH + 1);
  private readonly layoutAt = new Int32Array(MAX_JSON_DEPTH + 1);
  /** (layout, name hash) → the layout that name leads to from there; layout 0 is the empty object */
  private readonly transitions = new Map<number, number>();
  private layouts = 1;
  private total = 0;
  private inString = false;
  private escaped = false;
  /** after `{`, `[` or `,`: the next token starts a member (object) or an element (array) */
  private expecting = false;
  /** the current string is a key */
  private key = false;
  /** hash of the current key's bytes (as sent, escapes unread) so far */
  private keyHash = 0;
  /** bytes of the current string, number or literal */
  private length = 0;
  /** a key was written with an escape, or hashes like "__proto__" across two chunks: only the parsed body tells whether it is "__proto__" */
  suspectKey = false;
  /** some object has a member whose value is the literal null (what core/model/without-nulls.ts looks for) */
  nullMember = false;
  /** bytes fed before the current chunk */
  private position = 0;
  /** with `recordArrays`: the arrays at depth 1 and 2 (the body itself, its members' values), where their elements begin */
  readonly arrays: ArraySpan[] = [];
  private readonly openArrays: (ArraySpan | undefined)[] = [undefined, undefined, undefined];

  /** `recordArrays`: keep `arrays`, for a body parsed in pieces (core/http/pieced-parse.ts) */
  constructor(
    private readonly limits: BodyLimits,
    private readonly recordArrays = false,
  ) {}

  /** members and array elements so far */
  get members(): number {
    return this.total;
  }

  /** layouts so far (the empty object's included) */
  get layoutCount(): number {
    return this.layouts;
  }

  feed(bytes: Buffer): void {
    const { counts, objects } = this;
    const { max_object_members: perObject, max_body_members: perBody, max_string_bytes: perString } = this.limits;
    let { depth, total, inString, escaped, expecting, key, length, keyHash } = this;
    // where the current key began in this chunk; -1: in an earlier one
    let keyStart = -1;
    try {
      for (let i = 0; i < bytes.length; i++) {
        let c = bytes[i];
        if (inString) {
          if (escaped) {
            escaped = false;
            if (key) keyHash = Math.imul(keyHash ^ c, FNV_PRIME);
          } else {
            // the body of a string: on to its next quote or backslash in one tight loop (a key's bytes hashed)
            let j = i;
            if (key)
              while (j < bytes.length && (c = bytes[j]) !== QUOTE && c !== BACKSLASH) {
                keyHash = Math.imul(keyHash ^ c, FNV_PRIME);
                j++;
              }
            else while (j < bytes.length && (c = bytes[j]) !== QUOTE && c !== BACKSLASH) j++;
            length += j - i;
            i = j;
            if (length > perString) throw tooLong(perString);
            if (j === bytes.length) break;
            if (c === QUOTE) {
              inString = false;
              if (key) this.member(depth, keyHash >>> 0, length, bytes, keyStart);
              key = false;
              continue;
            }
            escaped = true;
            if (key) {
              this.suspectKey = true;
              keyHash = Math.imul(keyHash ^ c, FNV_PRIME);
            }
          }
          if (++length > perString) throw tooLong(perString);
          continue;
        }
        if (c === SPACE || c === LF || c === CR || c === TAB) {
          length = 0;
          continue;
        }
        if (expecting && c !== CLOSE_BRACE && c !== CLOSE_BRACKET) {
          expecting = false;
          if (objects[depth] === 1 && ++counts[depth] > perObject)
            throw refused(`Request body has an object with more than ${perObject} members (server.inbound.max_object_members)`);
          if (depth <= 2 && objects[depth] === 0 && this.openArrays[depth] !== undefined) this.openArrays[depth]!.elements.push(this.position + i, total);
          if (++total > perBody) throw refused(`Request body has more than ${perBody} members and array elements in all (server.inbound.max_body_members)`);
          key = objects[depth] === 1;
        }
        switch (c) {
          case QUOTE:
            inString = true;
            length = 0;
            keyHash = NAME_BASIS;
            keyStart = i + 1;
            break;
          case OPEN_BRACE:
          case OPEN_BRACKET:
            if (++depth > MAX_JSON_DEPTH) throw refused(`Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, 400);
            counts[depth] = 0;
            objects[depth] = c === OPEN_BRACE ? 1 : 0;
            this.layoutAt[depth] = 0;
            if (depth <= 2 && c === OPEN_BRACKET && this.recordArrays) {
              const span: ArraySpan = { open: this.position + i, close: -1, elements: [], membersAtClose: 0 };
              this.arrays.push(span);
              this.openArrays[depth] = span;
            }
            expecting = true;
            length = 0;
            break;
          case CLOSE_BRACE:
          case CLOSE_BRACKET:
            if (depth <= 2 && this.openArrays[depth] !== undefined) {
              const span = this.openArrays[depth]!;
              span.close = this.position + i;
              span.membersAtClose = total;
              this.openArrays[depth] = undefined;
            }
            if (depth > 0) depth--;
            expecting = false;
            length = 0;
            break;
          case COMMA:
            expecting = depth > 0;
            length = 0;
            break;
          case COLON:
            length = 0;
            break;
          default:
            // a number or a literal; in an object, one starting with "n" is a member's null
            if (c === LOWER_N && objects[depth] === 1) this.nullMember = true;
            if (++length > perString) throw tooLong(perString);
        }
      }
    } finally {
      Object.assign(this, { depth, total, inString, escaped, expecting, key, length, keyHash });
      this.position += bytes.length;
    }
  }

  /**
   * The object at `depth` has a member next whose name (`length` bytes as sent, from `start` in `bytes`
   * when this chunk holds them all, else -1) hashes to `nameHash`: the layout it leads to, a new one counted.
   */
  private member(depth: number, nameHash: number, length: number, bytes: Buffer, start: number): void {
    if (nameHash === PROTO_HASH && length === PROTO.length) {
      if (start >= 0 && PROTO.equals(bytes.subarray(start, start + length))) throw protoMember();
      this.suspectKey = true;
    }
    const transition = this.layoutAt[depth] * 0x1_0000_0000 + nameHash;
    let next = this.transitions.get(transition);
    if (next === undefined) {
      const limit = Math.min(this.limits.max_body_layouts, MAX_LAYOUT_ID - 1);
      if (this.layouts > limit) throw refused(`Request body has objects of more than ${limit} layouts (orders of member names; server.inbound.max_body_layouts)`);
      next = this.layouts++;
      this.transitions.set(transition, next);
    }
    this.layoutAt[depth] = next;
  }
}

const refuseBody = (req: IncomingMessage, limits: BodyLimits, error: unknown, reject: (error: unknown) => void): void => {
  void refusalAnswered(req, limits).then(() => reject(error));
};

/**
 * The request body as bytes, read as it arrives and refused (HTTP 413, the
 * connection closed after the answer, the rest dropped unparsed) once it
 * passes `max_body_bytes` — at once when its Content-Length says so — or,
 * with a scanner, once its JSON passes a limit. A gzip or deflate body is
 * counted as it inflates. A heavy body (by its Content-Length, or by what
 * has come of it) enters the gateway's heavy lane (core/http/heavy-lane.ts):
 * it is read once it has a place there, handed over once whole and given
 * its turn, or refused (429) after waiting too long.
 */
export const readRawBody = (req: IncomingMessage, res: ServerResponse, limits: BodyLimits, scanner?: JsonScanner): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const encoding = (req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
    // no Content-Length (a GET, a chunked body): 0, its weight counted as it comes; NaN would be taken as heavy
    const declared = encoding === "identity" ? Number(req.headers["content-length"] ?? 0) || 0 : 0;
    if (declared > limits.max_body_bytes) return refuseBody(req, limits, bodyTooLarge(limits), reject);
    let inflater: Transform | undefined;
    if (encoding === "gzip" || encoding === "x-gzip") inflater = createGunzip();
    else if (encoding === "deflate") inflater = createInflate();
    else if (encoding !== "identity") return refuseBody(req, limits, refused(`Content-Encoding ${encoding.slice(0, 40)} is not supported (identity, gzip, deflate)`, 415), reject);
    let ticket: HeavyTicket | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const refuse = (error: unknown) => {
      ticket?.end();
      if (inflater) {
        req.unpipe(inflater);
        inflater.destroy();
      }
      refuseBody(req, limits, error, reject);
    };
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      source?.off("data", onData).off("end", onEnd).off("error", onError);
      req.off("close", onClose);
      if (error !== undefined) return refuse(error);
      const body = Buffer.concat(chunks, size);
      if (!ticket) return resolve(body);
      ticket.ready();
      ticket.turn.then(() => resolve(body), refuse);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.max_body_bytes) return settle(bodyTooLarge(limits));
      try {
        scanner?.feed(chunk);
      } catch (error) {
        return settle(error);
      }
      chunks.push(chunk);
      if (!ticket && isHeavy(limits, { bytes: size, members: scanner?.members ?? 0, layouts: scanner?.layoutCount ?? 0 })) {
        // heavy from here on: the rest waits unread until the body has a place in the lane
        ticket = heavyLaneOf(limits).enter(req, res);
        source!.pause();
        ticket.place.then(() => !settled && source!.resume(), settle);
      }
    };
    const onEnd = () => settle();
    const onError = () => settle(refused("Request body could not be read (broken or incomplete)", 400));
    const onClose = () => {
      if (!req.complete) onError();
    };
    let source: Readable | undefined;
    const read = () => {
      if (settled) return;
      source = inflater ? req.pipe(inflater) : req;
      source.on("data", onData).once("end", onEnd).once("error", onError);
    };
    req.once("close", onClose);
    if (declared < limits.heavy_body_bytes) return read();
    // heavy by its Content-Length: not read at all until it has a place
    ticket = heavyLaneOf(limits).enter(req, res);
    ticket.place.then(read, settle);
  });

/**
 * A same-version forwarded body on its way to the receiver (core/hub/forwarder.ts): passed through as it
 * comes, and ended with `bodyTooLarge` once it passes `max_body_bytes`, before the byte that passes it;
 * with `scanned` (a body sent as it is, not compressed), also ended with the scanner's refusal once its
 * JSON passes a limit (depth, members, layouts, string length), as a body we read ourselves is.
 */
export const byteLimited = (limits: BodyLimits, scanned = false): Transform => {
  let size = 0;
  const scanner = scanned ? new JsonScanner(limits) : undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      size += chunk.length;
      if (size > limits.max_body_bytes) return done(bodyTooLarge(limits));
      try {
        scanner?.feed(chunk);
      } catch (error) {
        return done(error as Error);
      }
      done(null, chunk);
    },
  });
};
