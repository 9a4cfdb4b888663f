import type { InterfaceRole, ModuleId, PartyRef, VersionNumber } from "../protocol/types";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { LossyTranslationLog } from "../model/lossy";
import type { ObjectType } from "../contract/object-type";
import type { TolerantReader, ReadResult } from "../model/tolerant-reader";
import type { RepairedType } from "../model/repair";
import type { z } from "zod";
import { bodyForPartner } from "../model/schema-walk";
import { OcpiClient, PartnerCallError, type CallResult } from "./ocpi-client";
import { ListWalk, type PageHeaders } from "./next-page";
import type { OutboundRequest } from "./outbound-request";
import type { QueuedObjects } from "./outbound-request";
import type { GatewayConfig as Config } from "../../config/types";
import type { PartnerProfile, PartnerSettings } from "../contract/partner-profile";
import { describeIssues } from "../contract/errors";
import { callTargetOf, type CallTarget } from "./call-target";
import { addresseeOf } from "./addressee";

export interface ModuleCall {
  module: ModuleId;
  /** the partner's interface role we call */
  role: InterfaceRole;
  method: "GET" | "PUT" | "PATCH" | "POST" | "DELETE";
  /** appended to the endpoint URL, e.g. "/NL/ABC/LOC1" */
  path?: string;
  query?: Record<string, string | number | undefined>;
  /** canonical body and its type, translated down to the partner's version */
  body?: { type: ObjectType<any>; value: unknown };
  /** our sending party; default: our first party */
  from?: PartyRef;
  /** the party the call is for (core/client/addressee.ts makes it the to-headers); absent: data for everyone */
  to?: PartyRef;
  /**
   * owner of the object a GET reads, for versions whose objects name none (2.1.1);
   * default: the partner's first role on its SENDER interface, our sending party on its RECEIVER interface (what we pushed)
   */
  owner?: PartyRef;
  correlationId?: string;
}

export interface ListFilters {
  date_from?: string;
  date_to?: string;
  /** page size wanted; the partner's X-Limit caps it */
  limit?: number;
}

/**
 * Calls a registered partner's module endpoints in its negotiated version:
 * endpoint lookup, token, header prefix, translation from and to the
 * canonical model, and Link-following pagination. Module clients
 * (plugins/<module>/client.ts) are thin typed layers over it.
 */
export class PartnerClient {
  constructor(
    private readonly config: Config,
    private readonly registry: PartnerRegistry,
    private readonly http: OcpiClient,
    private readonly lossy: LossyTranslationLog,
    private readonly reader: TolerantReader,
  ) {}

  async call<T = unknown>(partnerId: string, call: ModuleCall): Promise<CallResult<T>> {
    const { profile, url } = await this.endpoint(partnerId, call.module, call.role);
    const target = withPath(url, call.path);
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) target.searchParams.set(k, String(v));
    const body = call.body ? this.render(profile, call.method, call.body.type, call.body.value) : undefined;
    return this.http.call<T>(call.method, { ...this.targetFor(profile, target.toString(), call.from, call.to), correlationId: call.correlationId }, body);
  }

  /**
   * Sends an outbox message. One carrying a canonical object (`request.object`) is rendered now, as `call` renders a
   * body, from the partner's profile at this moment (the version it is registered in, its YAML), and a push's receiver
   * path and query with it (`objects`: the push specs, core/push/pushed-objects.ts); one that cannot be (no object type
   * of its module at its path) is refused, so never retried. A wire body (a command result, or any message queued
   * before objects were) goes as it is. A URL target is one the partner handed us (e.g. a response_url); it gets the
   * partner's token like any other call, under the same outbound policy.
   */
  async send(partnerId: string, request: OutboundRequest, objects?: QueuedObjects): Promise<void> {
    if ("module" in request.target) {
      const { module, role } = request.target;
      const { profile, url } = await this.endpoint(partnerId, module, role);
      let { path, query } = request.target;
      let body = request.body;
      const object = request.object;
      if (object) {
        const type = objects?.typeOf(module, object);
        if (!type) throw new PartnerCallError("refused", `${request.method} ${module}: no object type at ${object.path.join("/")} to render the message with`);
        ({ path, query } = objects!.targetOf(module, object, profile.version!) ?? { path, query });
        body = this.render(profile, request.method, type, object.value, object.owner);
      }
      const target = withPath(url, path);
      for (const [k, v] of Object.entries(query ?? {})) target.searchParams.set(k, v);
      await this.http.call(request.method, this.targetFor(profile, target.toString(), request.from, request.to), body);
      return;
    }
    const profile = await this.registry.currentProfile(partnerId);
    if (!profile || profile.record.status !== "registered" || !profile.record.tokenToPartner)
      throw new PartnerCallError("unreachable", `Partner ${partnerId} is not registered`);
    await this.http.call(request.method, this.targetFor(profile, request.target.url, request.from, request.to), request.body);
  }

  /**
   * A canonical body as the partner takes it now: translated down to its version (what the version cannot carry
   * logged once, core/model/lossy.ts) and shaped by its profile (bodyForPartner: nulls for optional fields). The one
   * rendering of what we send, for direct calls and queued messages alike.
   */
  private render(profile: PartnerProfile, method: string, type: ObjectType<any>, value: unknown, owner?: PartyRef): unknown {
    const version: VersionNumber = profile.version!;
    const wire = type.down(value, version, this.lossy.context(profile.id, type.name, version, {}, owner));
    return bodyForPartner({ send_nulls_for_optional: profile.sendNullsForOptional }, method, () => type.schema(version, "full"), wire);
  }

  private targetFor(profile: PartnerProfile, url: string, from?: PartyRef, to?: PartyRef): CallTarget {
    return callTargetOf(profile, url, { from: from ?? this.config.parties[0], to: addresseeOf(profile, to) });
  }

  /** GET one object and translate it up; undefined when the partner answers 404. */
  async get<T>(partnerId: string, call: Omit<ModuleCall, "method" | "body">, type: ObjectType<T>): Promise<T | undefined> {
    try {
      const result = await this.call(partnerId, { ...call, method: "GET" });
      const profile = this.registry.profileOf((await this.registry.get(partnerId))!);
      const { record } = profile;
      const version = record.version!;
      // 2.1.1 objects name no owner: the partner's own party is, or ours for what we pushed to its receiver.
      const owner = call.owner ?? (call.role === "RECEIVER" ? (call.from ?? this.config.parties[0]) : record.roles[0]);
      const read = await this.read(profile, type, type.schema(version, "full"), result.envelope.data, owner);
      if (!read.ok) throw new PartnerCallError("malformed", `GET ${call.module}: the partner's ${type.name} is invalid: ${describeIssues(read.issues)}`);
      return type.up(read.value, version, this.lossy.context(partnerId, type.name, version, {}, owner));
    } catch (error) {
      if (error instanceof PartnerCallError && error.httpStatus === 404) return undefined;
      throw error;
    }
  }

  /**
   * Pages through a partner's sender list, following Link headers, and by
   * offset where a page sends none though X-Total-Count says more remain
   * (ListWalk, next-page.ts). Honours X-Limit and stops on a Link that points
   * back at a page already read, so a misbehaving partner cannot make it
   * loop. Objects are read under the partner's strictness: repaired
   * (`repair`), taken as they are (`log`), or skipped and reported to
   * `onInvalid` (`reject`; the protocol's advice: process the valid ones).
   * Each page is fetched through `retry` (a sync pull's budget:
   * core/sync/page-retry.ts).
   */
  async *list<T>(
    partnerId: string,
    module: ModuleId,
    type: ObjectType<T>,
    filters: ListFilters = {},
    onInvalid: (object: unknown, problems: string) => void = () => undefined,
    retry: <R>(fetch: () => Promise<R>) => Promise<R> = (fetch) => fetch(),
    /** below the endpoint URL, for a module with sub-resources (payments: "/terminals") */
    path?: string,
  ): AsyncGenerator<T[]> {
    const { profile, url } = await this.endpoint(partnerId, module, "SENDER");
    const first = withPath(url, path);
    if (filters.date_from) first.searchParams.set("date_from", filters.date_from);
    if (filters.date_to) first.searchParams.set("date_to", filters.date_to);
    if (filters.limit) first.searchParams.set("limit", String(filters.limit));
    const walk = new ListWalk(first.toString(), filters.limit, `GET ${module}`);
    for (let page = walk.next(); page; page = walk.next()) {
      const url = page.url;
      const fetch = () => retry(() => this.http.call<unknown[]>("GET", this.targetFor(profile, url)));
      const { items, headers, firstObject } = await this.readPage(profile, type, fetch, onInvalid);
      walk.read(page, headers, firstObject);
      yield items;
    }
  }

  /**
   * One page of a list, read and translated. Only the objects, the pagination headers and the page's first
   * object as sent (to tell a page read again) leave here, so the partner's answer (its parsed body) can be
   * collected while the page is stored. One translation context serves the page: it carries the page's owner
   * and reports losses once per field anyway.
   */
  private async readPage<T>(
    profile: PartnerProfile,
    type: ObjectType<T>,
    fetch: () => Promise<CallResult<unknown[]>>,
    onInvalid: (object: unknown, problems: string) => void,
  ): Promise<{ items: T[]; headers: PageHeaders; firstObject: unknown }> {
    const result = await fetch();
    const { record } = profile;
    const version = record.version!;
    const schema = type.schema(version, "full");
    const tx = this.lossy.context(profile.id, type.name, version, {}, record.roles[0]);
    const items: T[] = [];
    const data = Array.isArray(result.envelope.data) ? result.envelope.data : [];
    for (const raw of data) {
      const read = await this.read(profile, type, schema, raw, record.roles[0]);
      if (read.ok) items.push(type.up(read.value, version, tx));
      else onInvalid(raw, describeIssues(read.issues));
    }
    const h = result.headers;
    return {
      items,
      headers: { link: h.get("link"), total: h.get("x-total-count"), xLimit: h.get("x-limit"), count: data.length },
      firstObject: data[0],
    };
  }

  /**
   * An answer to one of our requests that its module checks itself
   * (CommandResponse, ChargingProfileResponse): under `strictness: repair`
   * the repaired answer when repairs make it valid, else the answer as it came.
   */
  async repaired(partnerId: string, type: RepairedType, schema: z.ZodType, answer: unknown): Promise<unknown> {
    // strictness is the YAML's: no registration read for it
    const settings = this.registry.settingsOf(partnerId);
    if (settings.strictness !== "repair") return answer;
    const read = await this.read(settings, type, schema, answer);
    return read.ok ? read.value : answer;
  }

  /** One object the partner sent, read under its strictness (core/model/tolerant-reader.ts); `sender`: the party it came from. */
  private read(partner: PartnerSettings, type: RepairedType, schema: z.ZodType, raw: unknown, sender?: PartyRef): Promise<ReadResult> {
    return this.reader.read({ partnerId: partner.id, strictness: partner.strictness, type, schema, raw, sender });
  }

  /** The partner's current profile (PartnerRegistry.currentProfile), its record, and the URL of its `module` `role` endpoint. */
  async endpoint(partnerId: string, module: ModuleId, role: InterfaceRole) {
    const profile = await this.registry.currentProfile(partnerId);
    const record = profile?.record;
    if (!profile || !record || record.status !== "registered" || !record.tokenToPartner || !record.version)
      throw new PartnerCallError("unreachable", `Partner ${partnerId} is not registered`);
    const endpoint = record.endpoints.find((e) => e.identifier === module && e.role === role);
    if (!endpoint) throw new PartnerCallError("unreachable", `Partner ${partnerId} has no ${module} ${role} endpoint`);
    return { record, profile, url: endpoint.url };
  }
}

/**
 * The endpoint URL exactly as the partner advertised it (a trailing slash
 * kept: some partners answer 404 without it), with `path` ("/NL/ABC/LOC1")
 * appended as segments of its own with exactly one slash between (a
 * Location's tail below a `…/cdrs/` endpoint comes without its own).
 */
const withPath = (endpoint: string, path: string | undefined): URL => {
  const url = new URL(endpoint);
  if (path) url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  return url;
};
