import type { Logger } from "pino";
import type { Endpoint, InterfaceRole, PartyRef, VersionNumber } from "../protocol/types";
import type { Page, PageRequest } from "../contract/page";
import type { PortContext, PutOutcome } from "../contract/port-context";
import type { ObjectType } from "../contract/object-type";
import type { LossyTranslationLog } from "../model/lossy";
import type { TolerantReader } from "../model/tolerant-reader";
import { SUPPORTED_VERSIONS } from "../protocol/types";
import { Status } from "../protocol/status";
import { BackendUnavailableError, OcpiError, describeIssues } from "../contract/errors";
import { ocpiTimestamp } from "../http/envelope";
import { outboundPolicy } from "../partners/outbound-policy";
import { type OutboundPolicy } from "../contract/partner-profile";
import { discover } from "./discovery";
import { PartnerCallError, type CallResult, type OcpiClient } from "./ocpi-client";
import type { CallTarget } from "./call-target";
import type { OcpiBackend, OcpiBackendSpec } from "../contract/ocpi-backend";

export interface OcpiBackendDeps {
  http: OcpiClient;
  /** the module's top-level object type (as its plugin declares it), undefined for a module without one */
  typeOf(module: string): ObjectType<any> | undefined;
  lossy: LossyTranslationLog;
  reader: TolerantReader;
  log: Logger;
}

export const ocpiBackend = (spec: OcpiBackendSpec, deps: OcpiBackendDeps): OcpiBackend => new BackendClient(spec, deps);

class BackendClient implements OcpiBackend {
  private readonly policy: OutboundPolicy;
  private discovered?: Promise<{ version: VersionNumber; endpoints: Endpoint[] }>;

  constructor(
    private readonly spec: OcpiBackendSpec,
    private readonly deps: OcpiBackendDeps,
  ) {
    this.policy = outboundPolicy({ versions_url: spec.versionsUrl, callback_hosts: [] });
  }

  async list<T>(module: string, page: PageRequest, ctx: PortContext): Promise<Page<T>> {
    const query: Record<string, string> = { offset: String(page.offset), limit: String(page.limit) };
    if (page.dateFrom !== undefined) query.date_from = ocpiTimestamp(new Date(page.dateFrom));
    if (page.dateTo !== undefined) query.date_to = ocpiTimestamp(new Date(page.dateTo));
    const result = await this.call<unknown[]>("GET", module, "SENDER", "", ctx, { query });
    const data = result.envelope.data;
    if (!Array.isArray(data)) throw this.unusable(`its ${module} list is not an array`);
    const items: T[] = [];
    for (const raw of data) items.push(await this.readObject<T>(module, raw, ctx.party));
    // a backend that leaves out X-Total-Count (required, but often missing) has at least what it showed
    const total = Number(result.headers.get("x-total-count") ?? NaN);
    return { items, total: Number.isFinite(total) ? total : page.offset + items.length };
  }

  async get<T>(module: string, role: InterfaceRole, path: string, ctx: PortContext, owner?: PartyRef): Promise<T | undefined> {
    try {
      const result = await this.call("GET", module, role, path, ctx, { from: owner });
      return result.envelope.data === undefined || result.envelope.data === null
        ? undefined
        : await this.readObject<T>(module, result.envelope.data, owner ?? ctx.party);
    } catch (error) {
      if (error instanceof OcpiError && error.httpStatus === 404) return undefined;
      throw error;
    }
  }

  async put(module: string, path: string, object: unknown, ctx: PortContext, owner: PartyRef): Promise<PutOutcome> {
    const result = await this.call("PUT", module, "RECEIVER", path, ctx, { from: owner, body: await this.wire(module, object, owner) });
    return result.httpStatus === 201 ? "created" : "updated";
  }

  async post(module: string, object: unknown, ctx: PortContext, owner: PartyRef): Promise<void> {
    await this.call("POST", module, "RECEIVER", "", ctx, { from: owner, body: await this.wire(module, object, owner) });
  }

  async delete(module: string, path: string, ctx: PortContext, owner: PartyRef): Promise<boolean> {
    try {
      await this.call("DELETE", module, "RECEIVER", path, ctx, { from: owner });
      return true;
    } catch (error) {
      if (error instanceof OcpiError && error.httpStatus === 404) return false;
      throw error;
    }
  }

  async ready(): Promise<boolean> {
    try {
      await this.endpoints();
      return true;
    } catch {
      return false;
    }
  }

  private async call<T = unknown>(
    method: string,
    module: string,
    role: InterfaceRole,
    path: string,
    ctx: PortContext,
    options: { query?: Record<string, string>; from?: PartyRef; body?: unknown },
  ): Promise<CallResult<T>> {
    const { version, endpoints } = await this.endpoints();
    // 2.1.1 lists one endpoint per module, without a role
    const endpoint = endpoints.find((e) => e.identifier === module && (version === "2.1.1" || e.role === role));
    if (!endpoint) throw this.unusable(`it offers no ${module} ${role} interface in ${version}`);
    const url = new URL(endpoint.url);
    // the path's own query (a Token's `?type=`) joins the list parameters
    const below = new URL(path || "/", "http://path.invalid");
    if (path) url.pathname = `${url.pathname.replace(/\/+$/, "")}/${below.pathname.replace(/^\/+/, "")}`;
    for (const [key, value] of [...below.searchParams, ...Object.entries(options.query ?? {})]) url.searchParams.set(key, value);
    const routed = version !== "2.1.1";
    const target: CallTarget = {
      ...this.target(),
      url: url.toString(),
      version,
      from: routed ? options.from : undefined,
      to: routed ? ctx.party : undefined,
      correlationId: ctx.correlationId,
    };
    try {
      return await this.deps.http.call<T>(method, target, options.body);
    } catch (error) {
      throw this.failure(error, method, module);
    }
  }

  private target(): Omit<CallTarget, "url"> {
    return { policy: this.policy, token: this.spec.token, encoding: this.spec.tokenEncoding, headerPrefix: this.spec.headerPrefix };
  }

  /** The backend's version and endpoints, discovered once; a failed discovery is tried again on the next call. */
  private endpoints(): Promise<{ version: VersionNumber; endpoints: Endpoint[] }> {
    this.discovered ??= discover(this.deps.http, {
      versionsUrl: this.spec.versionsUrl,
      target: this.target(),
      allowed: this.spec.version ? [this.spec.version] : SUPPORTED_VERSIONS,
      roleOf211: () => "SENDER",
    }).catch((error: unknown) => {
      this.discovered = undefined;
      this.deps.log.warn({ adapter: this.spec.name, reason: (error as Error).message }, "proxy backend: discovery failed");
      throw new BackendUnavailableError(`${this.spec.name} backend`);
    });
    return this.discovered;
  }

  /** A failed call as the port's answer; anything but the backend's own 2xxx means it cannot be used now. */
  private failure(error: unknown, method: string, module: string): Error {
    if (!(error instanceof PartnerCallError)) return error as Error;
    const code = error.statusCode;
    if (code !== undefined && code >= 2000 && code < 3000)
      return new OcpiError(code, `${this.spec.name} backend: ${error.answer ?? `status_code ${code}`}`, error.httpStatus && error.httpStatus >= 400 ? error.httpStatus : 200);
    if (error.httpStatus === 404 && method !== "PUT" && method !== "POST") return new OcpiError(Status.INVALID_PARAMETERS, `${module} object not found`, 404);
    // endpoints may have moved (the backend upgraded): discover again next time
    this.discovered = undefined;
    this.deps.log.warn({ adapter: this.spec.name, reason: error.message }, "proxy backend call failed");
    return new BackendUnavailableError(`${this.spec.name} backend`);
  }

  private unusable(why: string): OcpiError {
    return new OcpiError(Status.CLIENT_API_UNREACHABLE, `Unable to use the ${this.spec.name} backend: ${why}`, 502);
  }

  /** An object of the backend's, read under its strictness in its version and translated up. */
  private async readObject<T>(module: string, raw: unknown, owner: PartyRef): Promise<T> {
    const type = this.deps.typeOf(module);
    if (!type) return raw as T;
    const { version } = await this.endpoints();
    const read = await this.deps.reader.read({ partnerId: this.spec.name, strictness: this.spec.strictness, type, schema: type.schema(version, "full"), raw, sender: owner });
    if (!read.ok) throw this.unusable(`it answered an invalid ${type.name}: ${describeIssues(read.issues)}`);
    return type.up(read.value, version, this.deps.lossy.context(this.spec.name, type.name, version, {}, owner)) as T;
  }

  /** A canonical object in the backend's version. */
  private async wire(module: string, object: unknown, owner: PartyRef): Promise<unknown> {
    const type = this.deps.typeOf(module);
    if (!type) return object;
    const { version } = await this.endpoints();
    return type.down(object, version, this.deps.lossy.context(this.spec.name, type.name, version, {}, owner));
  }
}
