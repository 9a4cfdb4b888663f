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
import type { Cdr } from "../model";
import type { AuditContext } from "./audit-cdr";
import type { AuditStore, QueuedCdr } from "./audit-store";
import { amountsOf } from "./credit-check";
import { auditKey, type CdrAudit } from "./model";

/**
 * What the audit of a queued CDR needs from the rest of the gateway, read
 * through the ports as the catalog serves them: a partner's CDR (received)
 * against what that partner gave us (its tariffs and Locations held by our
 * RECEIVER ports, its Session), ours (sent) against our own (SENDER ports).
 * Lookups are remembered for one batch of the worker (`Batch`), since a batch's
 * CDRs mostly share their tariffs and Locations.
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

export class Batch {
  private readonly memo = new Map<string, Promise<unknown>>();
  /** the amounts of the CDRs audited in this batch, not stored yet: a credit may follow its original in one batch */
  private readonly amounts = new Map<string, Record<string, number>>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly catalog: ModuleCatalog,
    private readonly registry: PartnerRegistry,
    private readonly audits: AuditStore,
  ) {}

  async contextOf(entry: QueuedCdr, now: string): Promise<AuditContext> {
    const { cdr, direction } = entry;
    const owner = { country_code: cdr.country_code, party_id: cdr.party_id };
    const role: InterfaceRole = direction === "received" ? "RECEIVER" : "SENDER";
    const [partner, heldTariffs, timeZone, session, original] = await Promise.all([
      entry.partner ?? this.partnerOf(cdr),
      this.tariffs(role, owner, cdr),
      this.remember(`tz ${role} ${owner.country_code}${owner.party_id} ${cdr.cdr_location.id}`, async () =>
        (await locationLookup(this.catalog, role)(owner, cdr.cdr_location.id))?.time_zone,
      ),
      cdr.session_id ? this.session(role, owner, cdr.session_id) : undefined,
      cdr.credit ? this.original(entry, owner) : undefined,
    ]);
    const audit = this.config.audit ?? DEFAULT_AUDIT_CONFIG;
    return {
      direction,
      ...(partner ? { partner } : {}),
      ...(entry.version ? { version: entry.version } : {}),
      heldTariffs,
      ...(timeZone ? { timeZone } : {}),
      ...(session ? { session } : {}),
      ...(original ? { original } : {}),
      tolerance: audit.tolerance_by_currency[cdr.currency] ?? audit.tolerance,
      now,
    };
  }

  audited(audit: CdrAudit): void {
    this.amounts.set(audit.key, audit.amounts);
  }

  private remember<T>(key: string, find: () => Promise<T>): Promise<T> {
    let found = this.memo.get(key) as Promise<T> | undefined;
    if (!found) {
      found = find().catch(() => undefined as T);
      this.memo.set(key, found);
    }
    return found;
  }

  private served(module: string, role: InterfaceRole, owner: PartyRef): ServedModule | undefined {
    const all = this.catalog.served.filter((s) => s.plugin.module === module && s.role === role);
    return all.find((s) => s.parties.some((p) => sameParty(p, owner))) ?? all[0];
  }

  private ctx(served: ServedModule, owner: PartyRef, role: InterfaceRole): PortContext {
    return { party: role === "SENDER" ? owner : served.parties[0] };
  }

  /** Our CDR goes to the registered partner holding its token's owner. */
  private partnerOf(cdr: Cdr): Promise<string | undefined> {
    const owner = tokenOwnerOf(cdr);
    if (!owner) return Promise.resolve(undefined);
    return this.remember(`partner ${owner.country_code}${owner.party_id}`, async () => {
      const partners = await this.registry.list();
      return partners.find((p) => p.status === "registered" && p.roles.some((r) => sameParty(r, owner)))?.id;
    });
  }

  /** The tariffs the CDR names (its periods' and the embedded ones' ids), as held: a partner's (RECEIVER) or ours (SENDER). */
  private async tariffs(role: InterfaceRole, owner: PartyRef, cdr: Cdr): Promise<Tariff[]> {
    const named = [...cdr.charging_periods.map((p) => p.tariff_id), ...(cdr.tariffs ?? []).map((t) => t.id)];
    const ids = [...new Set(named.filter((id): id is string => !!id))];
    const served = this.served("tariffs", role, owner);
    if (!served || !ids.length) return [];
    const found = await Promise.all(
      ids.map((id) =>
        this.remember(`tariff ${role} ${owner.country_code}${owner.party_id} ${id}`, async () => {
          if (role === "RECEIVER") return (served.port as TariffsReceiverPort).get(owner, id, this.ctx(served, owner, role));
          return (await this.ownTariffs(served, owner)).find((t) => t.id === id);
        }),
      ),
    );
    return found.filter((t): t is Tariff => t !== undefined);
  }

  /** Our party's tariffs: the SENDER port only lists them. */
  private ownTariffs(served: ServedModule, owner: PartyRef): Promise<Tariff[]> {
    return this.remember(`own tariffs ${owner.country_code}${owner.party_id}`, async () => {
      const port = served.port as TariffsSenderPort;
      const tariffs: Tariff[] = [];
      for (let offset = 0; ; ) {
        const page = await port.list({ offset, limit: 100 }, { party: owner });
        tariffs.push(...page.items);
        offset += page.items.length;
        if (!page.items.length || offset >= page.total) return tariffs;
      }
    });
  }

  private async session(role: InterfaceRole, owner: PartyRef, id: string): Promise<Session | undefined> {
    const served = this.served("sessions", role, owner);
    if (!served) return undefined;
    try {
      if (role === "RECEIVER") return await (served.port as SessionsReceiverPort).get(owner, id, this.ctx(served, owner, role));
      return await (served.port as SessionsSenderPort).get(id, { party: owner });
    } catch {
      return undefined;
    }
  }

  /** The credited CDR's amounts: from its audit, else (a partner's) from the cdrs RECEIVER port. */
  private async original(entry: QueuedCdr, owner: PartyRef): Promise<Record<string, number> | undefined> {
    const reference = entry.cdr.credit_reference_id;
    if (!reference) return undefined;
    const key = auditKey(entry.direction, owner, reference);
    if (this.amounts.has(key)) return this.amounts.get(key);
    const audited = await this.audits.get(key);
    if (audited) return audited.amounts;
    const served = entry.direction === "received" ? this.served("cdrs", "RECEIVER", owner) : undefined;
    const held = served ? await (served.port as CdrsReceiverPort).get(owner, reference, this.ctx(served, owner, "RECEIVER")).catch(() => undefined) : undefined;
    return held ? amountsOf(held) : undefined;
  }
}
