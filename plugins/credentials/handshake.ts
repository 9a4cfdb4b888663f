import type { GatewayConfig } from "../../config/types";
import type { Credentials, VersionNumber } from "../../core/protocol/types";
import type { PartnerRegistry } from "../../core/partners/partner-registry";
import type { PartnerRecord } from "../../core/contract/partner-record";
import type { ModuleCatalog } from "../../core/modules/module-catalog";
import type { Discovered, DiscoveryRequest } from "../../core/client/discovery";
import type { ObjectType } from "../../core/contract/object-type";
import type { Logger } from "pino";
import { discover } from "../../core/client/discovery";
import { OcpiClient, PartnerCallError } from "../../core/client/ocpi-client";
import { OcpiError, methodNotAllowed, describeIssues, invalid } from "../../core/contract/errors";
import { Status } from "../../core/protocol/status";
import { outboundProblem } from "../../core/partners/outbound-policy";
import { callTargetOf } from "../../core/client/call-target";
import { checkRoleClaims } from "../../core/partners/role-claims";
import { silentTranslation } from "../../core/model/object-type";
import type { TolerantReader } from "../../core/model/tolerant-reader";
import { ourCredentials } from "./our-credentials";

/**
 * The credentials exchange, both as the server a partner registers with and
 * as the initiator (`ocpi-gateway partners register|update|unregister`).
 */
export class CredentialsHandshake {
  constructor(
    private readonly config: GatewayConfig,
    private readonly registry: PartnerRegistry,
    private readonly client: OcpiClient,
    private readonly catalog: ModuleCatalog,
    private readonly type: ObjectType<Credentials>,
    private readonly log: Logger,
    private readonly reader: TolerantReader,
  ) {}

  /** Server side of POST (register) and PUT (update) on our credentials endpoint of `version`. */
  async accept(partnerId: string, version: VersionNumber, theirs: Credentials, update: boolean): Promise<Credentials> {
    const record = await this.registry.require(partnerId);
    if (update && record.status !== "registered") throw methodNotAllowed("Not registered: use POST to register");
    if (!update && record.status === "registered") throw methodNotAllowed("Already registered: use PUT to update or DELETE to unregister");
    // Without versions_url in config the partner may register from any origin, on a public address unless callback_hosts names it.
    const profile = this.registry.profileOf({ ...record, versionsUrl: theirs.url, version: undefined });
    // refused before the partner is called; the registration applies the same rule as it stores them, and refuses a
    // party another partner holds. The rule reads the YAML entry as written (role-claims.ts), so it gets the raw one.
    checkRoleClaims(this.config, profile.config, theirs.roles, theirs.hub_party_id);
    const problem = outboundProblem(theirs.url, profile.policy);
    if (problem) throw invalid(`url ${problem}`);
    const found = await this.discover(partnerId, {
      versionsUrl: theirs.url,
      target: callTargetOf(profile, theirs.url, {}, theirs.token),
      allowed: profile.versions,
      required: version,
      roleOf211: (m) => this.catalog.partnerRoleOf211(m),
    });
    requireCredentialsEndpoint(found);
    const token = await this.registry.recordIssuingToken(partnerId, {
      version,
      versionsUrl: theirs.url,
      endpoints: found.endpoints,
      roles: theirs.roles,
      hubPartyId: theirs.hub_party_id,
      tokenToPartner: theirs.token,
    });
    return ourCredentials(this.config, token);
  }

  async remove(partnerId: string): Promise<void> {
    const record = await this.registry.require(partnerId);
    if (record.status !== "registered") throw methodNotAllowed("Not registered");
    await this.registry.unregister(partnerId);
  }

  /** Initiator: registers with a partner using the token A it gave us. */
  async register(partnerId: string): Promise<PartnerRecord> {
    const record = await this.registry.require(partnerId);
    // token A and the versions URL to start from are the YAML entry's own (the profile's versionsUrl may be a registered one)
    const { config } = this.registry.profileOf(record);
    if (record.status === "registered") throw new Error(`Partner ${partnerId} is already registered; use update`);
    if (!config.versions_url || !config.token_a)
      throw new Error(`Partner ${partnerId} needs versions_url and token_a in the config to be registered from this side`);
    return this.exchange(partnerId, "POST", config.versions_url, config.token_a);
  }

  /** Initiator: PUT to the partner's credentials, re-negotiating the version and rotating both tokens. */
  async update(partnerId: string): Promise<PartnerRecord> {
    const record = await this.registry.require(partnerId);
    if (record.status !== "registered" || !record.tokenToPartner || !record.versionsUrl)
      throw new Error(`Partner ${partnerId} is not registered`);
    return this.exchange(partnerId, "PUT", record.versionsUrl, record.tokenToPartner);
  }

  /** Initiator: DELETE on the partner's credentials, then forget every token of the partnership. */
  async unregister(partnerId: string): Promise<void> {
    const record = await this.registry.require(partnerId);
    if (record.status !== "registered" || !record.tokenToPartner) throw new Error(`Partner ${partnerId} is not registered`);
    const endpoint = record.endpoints.find((e) => e.identifier === "credentials");
    if (endpoint) {
      await this.client.call("DELETE", callTargetOf(this.registry.profileOf(record), endpoint.url));
    }
    await this.registry.unregister(partnerId);
  }

  private async exchange(partnerId: string, method: "POST" | "PUT", versionsUrl: string, token: string): Promise<PartnerRecord> {
    // the version is the one this exchange negotiates, the versions URL the one it starts from
    const current = await this.registry.require(partnerId);
    const profile = this.registry.profileOf({ ...current, versionsUrl, version: undefined });
    const target = callTargetOf(profile, versionsUrl, {}, token);
    const found = await this.discover(partnerId, {
      versionsUrl,
      target,
      allowed: profile.versions,
      roleOf211: (m) => this.catalog.partnerRoleOf211(m),
    });
    const endpoint = requireCredentialsEndpoint(found);
    const ourToken = await this.registry.issueToken(partnerId, { holdPrevious: method === "PUT" });
    const body = this.type.down(ourCredentials(this.config, ourToken), found.version, silentTranslation());
    let answer: unknown;
    try {
      answer = (await this.client.call(method, { ...target, url: endpoint.url, version: found.version }, body)).envelope.data;
    } catch (error) {
      if (error instanceof PartnerCallError) throw new Error(`Credentials ${method} failed: ${error.message}`);
      throw error;
    }
    // Read like every object a partner sends (core/model/tolerant-reader.ts): nulls mean absent (OCPI 2.2.1 Types),
    // `"website": null` is no website, and the partner's strictness applies.
    const schema = this.type.schema(found.version, "full");
    const read = await this.reader.read({ partnerId, strictness: profile.strictness, type: this.type, schema, raw: answer });
    if (!read.ok) throw new Error(`Partner answered invalid credentials: ${describeIssues(read.issues)}`);
    const theirs = this.type.up(read.value, found.version, silentTranslation());
    let record: PartnerRecord;
    try {
      record = await this.registry.recordRegistration(partnerId, {
        version: found.version,
        versionsUrl: theirs.url,
        endpoints: found.endpoints,
        roles: theirs.roles,
        hubPartyId: theirs.hub_party_id,
        tokenToPartner: theirs.token,
      });
    } catch (error) {
      // a role it may not claim, or a party another partner holds (role-claims.ts): nothing was stored
      if (error instanceof OcpiError) throw new Error(`Partner answered credentials we cannot accept: ${error.message}`);
      throw error;
    }
    await this.registry.settleRotation(partnerId);
    return record;
  }

  /** Discovery, with a warning for each endpoint left out by the outbound policy (the partner's module stays unusable until it fixes the URL or the operator allows it). */
  private async discover(partnerId: string, request: DiscoveryRequest): Promise<Discovered> {
    const found = await discover(this.client, request);
    for (const { identifier, role, url, problem } of found.dropped)
      this.log.warn({ partner: partnerId, module: identifier, role, url }, `partner endpoint outside the outbound URL policy; left out: URL ${problem}`);
    return found;
  }
}

const requireCredentialsEndpoint = (found: Discovered) => {
  const endpoint = found.endpoints.find((e) => e.identifier === "credentials");
  if (!endpoint) throw new OcpiError(Status.NO_MATCHING_ENDPOINTS, `Partner's ${found.version} version details list no credentials endpoint`);
  return endpoint;
};
