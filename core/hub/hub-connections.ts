import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { Store } from "../contract/store";
import type { BackgroundService } from "../contract/background";
import type { Outbox } from "../outbox/outbox";
import type { EnqueueRequest } from "../outbox/outbox-message";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerRecord } from "../contract/partner-record";
import type { Page, PageRequest } from "../contract/page";
import type { PartyRef, Role } from "../protocol/types";
import { HUB_CLIENT_INFO, credentialsRoleOf, partyKey } from "../protocol/types";
import { OcpiClient, PartnerCallError } from "../client/ocpi-client";
import { callTargetOf } from "../client/call-target";
import { isEntitled } from "../push/entitled-partners";
import { storeUnavailableIn } from "../contract/store-unavailable";
import { PartnerHealth } from "./partner-health";
import { hubSettings } from "./hub-config";
import type { ClientInfo, ConnectionStatus, PublishedClientInfo } from "./client-info";

/** ClientInfo the hub publishes, by party (key CC+party id), sorted by last_updated. */
export const PUBLISHED = "hub:clientinfo";
const MONITOR_LOCK = "hub:monitor";

/**
 * The gateway as a hub: the connection status of every party of every
 * partner (README "Hubs and forwarding"), derived from registrations and
 * delivery health, published as ClientInfo (the hubclientinfo Sender list)
 * and pushed to every connected partner that offers a hubclientinfo
 * RECEIVER endpoint whenever a status changes.
 *
 * - a partner that never registered (its parties from `partners[].roles`) is PLANNED;
 * - an unregistered one SUSPENDED;
 * - a registered one CONNECTED, or OFFLINE once its calls (probes of its
 *   versions URL every `server.hub.probe_interval_ms`, forwarded requests,
 *   pushes waiting in the outbox) have failed for `server.hub.offline_after_ms`;
 *   back to CONNECTED on the next success.
 */
export class HubConnections implements BackgroundService {
  readonly name = "hub-connections";
  readonly health: PartnerHealth;
  private readonly owner = randomUUID();
  private timer?: NodeJS.Timeout;
  private turn?: Promise<void>;

  constructor(
    private readonly config: GatewayConfig,
    /** the gateway's store, also where the hub keeps its relays of asynchronous results (core/hub/result-relay.ts) */
    readonly store: Store,
    private readonly registry: PartnerRegistry,
    private readonly outbox: Outbox,
    private readonly client: OcpiClient,
    private readonly log: Logger,
  ) {
    this.health = new PartnerHealth(store);
  }

  start(): void {
    const { probe_interval_ms } = hubSettings(this.config);
    this.timer = setInterval(() => this.kick(), probe_interval_ms);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.turn;
  }

  /** Probes and publishes now, unless a turn is under way. */
  kick(): void {
    if (this.turn) return;
    this.turn = this.monitor()
      .catch((error) => {
        if (!storeUnavailableIn(error)) this.log.error({ err: error }, "hub: connection monitor failed");
      })
      .finally(() => (this.turn = undefined));
  }

  /** One turn: every registered partner probed, then every status published; one instance at a time. */
  async monitor(): Promise<void> {
    const ttl = Math.max(2 * hubSettings(this.config).probe_interval_ms, 5_000);
    if (!(await this.store.acquireLock(MONITOR_LOCK, this.owner, ttl))) return;
    try {
      const partners = await this.registry.list();
      await Promise.all(partners.filter((p) => p.status === "registered").map((p) => this.probe(p)));
      await this.publish(await this.registry.list());
    } finally {
      await this.store.releaseLock(MONITOR_LOCK, this.owner);
    }
  }

  /** A forwarded request or a probe went through, or failed to reach the partner. */
  async reached(partnerId: string, ok: boolean): Promise<void> {
    // the common case, a success of a partner this instance last knew healthy, costs no store read
    if (ok && this.health.knownHealthy(partnerId)) return;
    const before = (await this.health.of(partnerId)).failingSince !== undefined;
    if (ok) await this.health.success(partnerId);
    else await this.health.failure(partnerId);
    // A partner that answers again is CONNECTED at once (the next success), not at the next probe.
    if (ok && before) this.kick();
  }

  /** The status of a partner's parties now. */
  async statusOf(record: PartnerRecord): Promise<ConnectionStatus> {
    if (record.status === "pending") return "PLANNED";
    if (record.status === "unregistered") return "SUSPENDED";
    const { offline_after_ms } = hubSettings(this.config);
    const now = Date.now();
    const health = await this.health.of(record.id);
    if (health.failingSince !== undefined && now - health.failingSince >= offline_after_ms) return "OFFLINE";
    const head = await this.outbox.head(record.id);
    if (head?.firstFailureAt !== undefined && now - head.firstFailureAt >= offline_after_ms) return "OFFLINE";
    return "CONNECTED";
  }

  /** The published ClientInfo list, oldest change first, filtered by last_updated like every OCPI list. */
  async list(page: PageRequest): Promise<Page<ClientInfo>> {
    const stored = await this.store.range<PublishedClientInfo>(PUBLISHED, { from: page.dateFrom, to: page.dateTo, offset: page.offset, limit: page.limit });
    return { items: stored.items.map((p) => p.info), total: stored.total };
  }

  async get(party: PartyRef): Promise<PublishedClientInfo | undefined> {
    return this.store.get<PublishedClientInfo>(PUBLISHED, partyKey(party));
  }

  private async probe(record: PartnerRecord): Promise<void> {
    if (!record.versionsUrl || !record.tokenToPartner) return;
    try {
      await this.client.call("GET", callTargetOf(this.registry.profileOf(record), record.versionsUrl));
      await this.reached(record.id, true);
    } catch (error) {
      // An answer, even an error envelope, shows the partner is there; no answer, or a 5xx without envelope, does not.
      const down =
        !(error instanceof PartnerCallError) ||
        error.kind === "unreachable" ||
        error.kind === "timeout" ||
        error.kind === "refused" ||
        (error.kind === "http" && (error.httpStatus ?? 500) >= 500);
      await this.reached(record.id, !down);
    }
  }

  /** Every partner's parties with their status now; each change stored and pushed. */
  private async publish(records: PartnerRecord[]): Promise<void> {
    const connectedBefore = new Set<string>();
    const statuses = new Map<string, ConnectionStatus>();
    for (const record of records) statuses.set(record.id, await this.statusOf(record));
    const changed: PublishedClientInfo[] = [];
    for (const record of records) {
      const status = statuses.get(record.id)!;
      for (const party of this.partiesOf(record)) {
        const key = partyKey(party);
        const current = await this.store.get<PublishedClientInfo>(PUBLISHED, key);
        if (current?.info.status === "CONNECTED" && current.partnerId === record.id) connectedBefore.add(record.id);
        if (current && current.info.status === status && current.info.role === party.role && current.partnerId === record.id) continue;
        const now = new Date();
        const info: ClientInfo = {
          country_code: party.country_code.toUpperCase(),
          party_id: party.party_id.toUpperCase(),
          role: party.role,
          status,
          last_updated: now.toISOString(),
        };
        const published = { info, partnerId: record.id };
        await this.store.put(PUBLISHED, key, published, now.getTime());
        changed.push(published);
        this.log.info({ partner: record.id, party: key, status, was: current?.info.status }, "hub: connection status changed");
      }
    }
    if (changed.length === 0) return;
    const audience = records.filter((r) => statuses.get(r.id) === "CONNECTED" && isEntitled(this.registry, r, HUB_CLIENT_INFO));
    const messages: EnqueueRequest[] = [];
    for (const partner of audience) {
      // A partner that has just become CONNECTED learns every other party's status, not only what changed.
      const catchingUp = !connectedBefore.has(partner.id) && changed.some((c) => c.partnerId === partner.id);
      const infos = catchingUp ? (await this.store.range<PublishedClientInfo>(PUBLISHED, { offset: 0, limit: 10_000 })).items : changed;
      for (const published of infos) if (published.partnerId !== partner.id) messages.push(this.messageFor(partner, published.info));
    }
    await this.outbox.enqueueAll(messages);
  }

  private messageFor(partner: PartnerRecord, info: ClientInfo): EnqueueRequest {
    const key = partyKey(info);
    return {
      partnerId: partner.id,
      request: {
        method: "PUT",
        target: { module: HUB_CLIENT_INFO, role: "RECEIVER", path: `/${encodeURIComponent(info.country_code)}/${encodeURIComponent(info.party_id)}` },
        body: info,
      },
      label: `PUT ${HUB_CLIENT_INFO} ${info.country_code}/${info.party_id} ${info.status}`,
      collapseKey: `hubclientinfo:${key}`,
    };
  }

  /**
   * The parties a partner connects: those it registered with (not its HUB
   * role: a hub's own party is no client), else the parties `partners[].roles` names.
   */
  private partiesOf(record: PartnerRecord): (PartyRef & { role: Role })[] {
    const registered = record.roles.filter((r) => r.role !== "HUB");
    if (registered.length > 0) return registered;
    return (this.registry.profileOf(record).roles ?? [])
      .filter((r) => r.party !== undefined && r.role !== "HUB")
      // as it will claim it: a PTP is OTHER (core/protocol/vocabulary.ts credentialsRoleOf)
      .map((r) => ({ country_code: r.party!.slice(0, 2), party_id: r.party!.slice(2), role: credentialsRoleOf(r.role) }));
  }
}
