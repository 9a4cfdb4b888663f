import type { GatewayConfig } from "../../../config/types";
import { DEFAULT_AUDIT_CONFIG } from "../../../config/types";
import type { ModuleCatalog } from "../../../core/modules/module-catalog";
import type { ServedModule } from "../../../core/modules/served-modules";
import type { PortContext } from "../../../core/contract/port-context";
import type { PartnerRegistry } from "../../../core/partners/partner-registry";
import { sameParty, type InterfaceRole, type PartyRef } from "../../../core/protocol/types";
import { locationLookup } from "../../locations/location-lookup";
import type { Tariff } from "../../tariffs/model";
import type { TariffsReceiverPort, TariffsSenderPort } from "../../tariffs/ports";
import type { Session } from "../../sessions/model";
import type { SessionsReceiverPort, SessionsSenderPort } from "../../sessions/ports";
import { tokenOwnerOf } from "../../sessions/token-owner";
import type { CdrsReceiverPort } from "../ports";
import type { AuditedCdr } from "./audited-cdr";
import type { AuditContext } from "./audit-cdr";
import type { AuditStore, QueuedCdr } from "./audit-store";
import { amountsOf } from "./credit-check";
import { auditKey, type KeptAudit } from "./model";

/**
 * What the audit of a queued CDR needs from the rest of the gateway, read
 * through the ports as the catalog serves them: a partner's CDR (received)
 * against what that partner gave us (its tariffs and Locations held by our
 * RECEIVER ports, its Session), ours (sent) against our own (SENDER ports).
 * A batch of the worker reads its CDRs' inputs at once, each at most once
 * (`Batch.prepare`), since a batch's CDRs mostly share their tariffs and
 * Locations; the contexts are then built without waiting (`contextOf`).
 */
export class AuditInputs {
  constructor(
    private readonly config: GatewayConfig,
    private readonly catalog: ModuleCatalog,
    private readonly registry: PartnerRegistry,
    private readonly audits: AuditStore,
  ) {}

  batch(): Batch {
    return new Batch(this.config, this.catalog, this.registry, this.audits);
  }
}

const ownerOf = (cdr: AuditedCdr): PartyRef => ({ country_code: cdr.country_code, party_id: cdr.party_id });
const roleOf = (entry: QueuedCdr): InterfaceRole => (entry.direction === "received" ? "RECEIVER" : "SENDER");
const partyOf = (owner: PartyRef): string => `${owner.country_code}${owner.party_id}`;

/** What a batch reads an input under (`prepare`) and finds it by (`contextOf`). */
const inputKey = {
  partner: (tokenOwner: PartyRef) => `partner ${partyOf(tokenOwner)}`,
  tariff: (role: InterfaceRole, owner: PartyRef, id: string) => `tariff ${role} ${partyOf(owner)} ${id}`,
  timeZone: (role: InterfaceRole, owner: PartyRef, locationId: string) => `tz ${role} ${partyOf(owner)} ${locationId}`,
  session: (role: InterfaceRole, owner: PartyRef, id: string) => `session ${role} ${partyOf(owner)} ${id}`,
  original: (auditKey: string) => `original ${auditKey}`,
};

/** The inputs a queued CDR's audit needs, by their keys (inputKey): the partner holding its token's owner (ours), its tariffs, time zone, Session and credited CDR. */
interface Needs {
  tokenOwner: PartyRef | undefined;
  partner: string | undefined;
  tariffIds: string[];
  tariffs: string[];
  timeZone: string;
  session: string | undefined;
  original: { auditKey: string; reference: string; input: string } | undefined;
}

export class Batch {
  /** every input of the batch's CDRs by what it is (inputKey), read once */
  private readonly found = new Map<string, unknown>();
  private readonly reading = new Map<string, Promise<void>>();
  private readonly servedBy = new Map<string, ServedModule | undefined>();
  /** the inputs each entry's audit needs, by their keys (`needsOf`) */
  private readonly needs = new Map<QueuedCdr, Needs>();
  /** the amounts of the CDRs audited in this batch that a credit CDR of it names (`prepare`), not stored yet: a credit may follow its original in one batch */
  private readonly amounts = new Map<string, Record<string, number>>();
  /** the audit keys of the CDRs the batch's credit CDRs credit */
  private readonly credited = new Set<string>();
  private readonly audit: NonNullable<GatewayConfig["audit"]>;

  constructor(
    config: GatewayConfig,
    private readonly catalog: ModuleCatalog,
    private readonly registry: PartnerRegistry,
    private readonly audits: AuditStore,
  ) {
    this.audit = config.audit ?? DEFAULT_AUDIT_CONFIG;
  }

  /** Reads what the audits of `entries` need, each input once, all at the same time; a failed read is an input not held. */
  async prepare(entries: readonly QueuedCdr[]): Promise<void> {
    const before = new Set<string>();
    for (const entry of entries) {
      const { cdr } = entry;
      const owner = ownerOf(cdr);
      const role = roleOf(entry);
      const needs = this.needsOf(entry, owner, role);
      if (needs.partner) {
        const tokenOwner = needs.tokenOwner!;
        this.read(needs.partner, () => this.partnerOf(tokenOwner));
      }
      needs.tariffIds.forEach((id, i) => this.read(needs.tariffs[i], () => this.tariff(role, owner, id)));
      this.read(needs.timeZone, async () => (await locationLookup(this.catalog, role)(owner, cdr.cdr_location.id))?.time_zone);
      if (needs.session) {
        const id = cdr.session_id!;
        this.read(needs.session, () => this.session(role, owner, id));
      }
      // the amounts of a CDR credited earlier in the batch are its audit's (`audited`)
      if (needs.original && !before.has(needs.original.auditKey)) {
        const { auditKey: key, reference } = needs.original;
        this.read(needs.original.input, () => this.original(entry, owner, key, reference));
      }
      before.add(entry.key);
    }
    await Promise.all(this.reading.values());
  }

  /** The context of one of the batch's CDRs, from what `prepare` read. */
  contextOf(entry: QueuedCdr, now: string): AuditContext {
    const { cdr, direction } = entry;
    const needs = this.needs.get(entry) ?? this.needsOf(entry, ownerOf(cdr), roleOf(entry));
    const partner = entry.partner ?? (needs.partner && (this.found.get(needs.partner) as string | undefined));
    const heldTariffs: Tariff[] = [];
    for (const key of needs.tariffs) {
      const tariff = this.found.get(key) as Tariff | undefined;
      if (tariff !== undefined) heldTariffs.push(tariff);
    }
    const timeZone = this.found.get(needs.timeZone) as string | undefined;
    const session = needs.session ? (this.found.get(needs.session) as Session | undefined) : undefined;
    const original = needs.original ? (this.amounts.get(needs.original.auditKey) ?? (this.found.get(needs.original.input) as Record<string, number> | undefined)) : undefined;
    // the optional keys set when present (an object literal of conditional spreads is slower)
    const ctx = { direction, heldTariffs, tolerance: this.audit.tolerance_by_currency[cdr.currency] ?? this.audit.tolerance, now } as AuditContext;
    if (partner) ctx.partner = partner;
    if (entry.version) ctx.version = entry.version;
    if (timeZone) ctx.timeZone = timeZone;
    if (session) ctx.session = session;
    if (original) ctx.original = original;
    return ctx;
  }

  /** What inputs the entry's audit needs, by their keys (inputKey), worked out once for `prepare` and `contextOf`. */
  private needsOf(entry: QueuedCdr, owner: PartyRef, role: InterfaceRole): Needs {
    const { cdr } = entry;
    const tokenOwner = entry.partner ? undefined : tokenOwnerOf(cdr);
    const tariffIds = this.tariffIds(cdr);
    const reference = cdr.credit ? cdr.credit_reference_id : undefined;
    const credited = reference ? auditKey(entry.direction, owner, reference) : undefined;
    const needs: Needs = {
      tokenOwner,
      partner: tokenOwner && inputKey.partner(tokenOwner),
      tariffIds,
      tariffs: tariffIds.map((id) => inputKey.tariff(role, owner, id)),
      timeZone: inputKey.timeZone(role, owner, cdr.cdr_location.id),
      session: cdr.session_id ? inputKey.session(role, owner, cdr.session_id) : undefined,
      original: credited ? { auditKey: credited, reference: reference!, input: inputKey.original(credited) } : undefined,
    };
    if (credited) this.credited.add(credited);
    this.needs.set(entry, needs);
    return needs;
  }

  audited(audit: KeptAudit): void {
    if (this.credited.has(audit.key)) this.amounts.set(audit.key, audit.amounts);
  }

  private read(key: string, find: () => Promise<unknown>): void {
    if (this.reading.has(key)) return;
    this.reading.set(
      key,
      find().then(
        (value) => void this.found.set(key, value),
        () => undefined,
      ),
    );
  }

  /** The tariffs the CDR names: its periods' and the embedded ones' ids, each once. */
  private tariffIds(cdr: AuditedCdr): string[] {
    const ids: string[] = [];
    for (const { tariff_id } of cdr.charging_periods) if (tariff_id && !ids.includes(tariff_id)) ids.push(tariff_id);
    for (const { id } of cdr.tariffs ?? []) if (id && !ids.includes(id)) ids.push(id);
    return ids;
  }

  private served(module: string, role: InterfaceRole, owner: PartyRef): ServedModule | undefined {
    const key = `${module} ${role} ${partyOf(owner)}`;
    if (this.servedBy.has(key)) return this.servedBy.get(key);
    const all = this.catalog.served.filter((s) => s.plugin.module === module && s.role === role);
    const served = all.find((s) => s.parties.some((p) => sameParty(p, owner))) ?? all[0];
    this.servedBy.set(key, served);
    return served;
  }

  private ctx(served: ServedModule, owner: PartyRef, role: InterfaceRole): PortContext {
    return { party: role === "SENDER" ? owner : served.parties[0] };
  }

  /** Our CDR goes to the registered partner holding its token's owner. */
  private async partnerOf(tokenOwner: PartyRef): Promise<string | undefined> {
    const partners = await this.registry.list();
    return partners.find((p) => p.status === "registered" && p.roles.some((r) => sameParty(r, tokenOwner)))?.id;
  }

  /** A tariff the CDR names, as held: a partner's (RECEIVER) or ours (SENDER). */
  private async tariff(role: InterfaceRole, owner: PartyRef, id: string): Promise<Tariff | undefined> {
    const served = this.served("tariffs", role, owner);
    if (!served) return undefined;
    if (role === "RECEIVER") return (served.port as TariffsReceiverPort).get(owner, id, this.ctx(served, owner, role));
    return (await this.ownTariffs(served, owner)).find((t) => t.id === id);
  }

  /** Our party's tariffs: the SENDER port only lists them; listed once per batch. */
  private ownTariffs(served: ServedModule, owner: PartyRef): Promise<Tariff[]> {
    const key = `own tariffs ${partyOf(owner)}`;
    this.read(key, async () => {
      const port = served.port as TariffsSenderPort;
      const tariffs: Tariff[] = [];
      for (let offset = 0; ; ) {
        const page = await port.list({ offset, limit: 100 }, { party: owner });
        tariffs.push(...page.items);
        offset += page.items.length;
        if (!page.items.length || offset >= page.total) return tariffs;
      }
    });
    return this.reading.get(key)!.then(() => (this.found.get(key) as Tariff[] | undefined) ?? []);
  }

  private async session(role: InterfaceRole, owner: PartyRef, id: string): Promise<Session | undefined> {
    const served = this.served("sessions", role, owner);
    if (!served) return undefined;
    if (role === "RECEIVER") return (served.port as SessionsReceiverPort).get(owner, id, this.ctx(served, owner, role));
    return (served.port as SessionsSenderPort).get(id, { party: owner });
  }

  /** The credited CDR's amounts: from its audit, else (a partner's) from the cdrs RECEIVER port. */
  private async original(entry: QueuedCdr, owner: PartyRef, key: string, reference: string): Promise<Record<string, number> | undefined> {
    const audited = await this.audits.get(key);
    if (audited) return audited.amounts;
    const served = entry.direction === "received" ? this.served("cdrs", "RECEIVER", owner) : undefined;
    const held = served ? await (served.port as CdrsReceiverPort).get(owner, reference, this.ctx(served, owner, "RECEIVER")).catch(() => undefined) : undefined;
    return held ? amountsOf(held) : undefined;
  }
}
