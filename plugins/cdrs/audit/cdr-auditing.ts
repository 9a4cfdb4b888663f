import { Lifecycle, inject, injectable, scoped } from "tsyringe";
import type { Logger } from "pino";
import { Counter, Registry } from "prom-client";
import type { GatewayConfig } from "../../../config/types";
import type { Store } from "../../../core/contract/store";
import { TOKENS } from "../../../core/contract/injection-tokens";
import { ChangeFeed, type DataChange } from "../../../core/contract/change-feed";
import { BackgroundServices } from "../../../core/contract/background";
import { ModuleCatalog } from "../../../core/modules/module-catalog";
import { PartnerRegistry } from "../../../core/partners/partner-registry";
import type { PartnerFigure } from "../../../core/contract/partner-figure";
import type { PortContext } from "../../../core/contract/port-context";
import type { PartyRef } from "../../../core/protocol/types";
import type { CdrsReceiverPort } from "../ports";
import type { Cdr } from "../model";
import { AuditStore, type QueuedCdr } from "./audit-store";
import { AuditInputs } from "./audit-inputs";
import { AuditWorker } from "./audit-worker";
import { auditKey, type CdrAudit } from "./model";
import { invoicesOf, type CdrInvoices } from "./invoice-findings";

const DAY_MS = 86_400_000;

/**
 * The CDR audit of one gateway (its container): every CDR that passes is
 * queued once, without the partner that sent it waiting for that (the
 * enqueue is not awaited), and audited by the worker in the background
 * (audit-worker.ts). CDRs pass the cdrs RECEIVER port (a partner's push, our
 * pull of its list: both wrapped here) or the change feed (our own, which
 * the push sends to the token's owner).
 */
@injectable()
@scoped(Lifecycle.ContainerScoped)
export class CdrAuditing {
  readonly audits: AuditStore;
  readonly worker: AuditWorker;
  /** `ocpi_cdr_audits_total{partner, verdict}`, served with the gateway's metrics */
  readonly metrics = new Registry();
  private readonly verdicts: Counter<"partner" | "verdict">;
  private following = false;

  constructor(
    @inject(TOKENS.Store) store: Store,
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Logger) private readonly log: Logger,
    private readonly catalog: ModuleCatalog,
    private readonly registry: PartnerRegistry,
    private readonly changes: ChangeFeed,
    private readonly background: BackgroundServices,
  ) {
    this.audits = new AuditStore(store);
    this.verdicts = new Counter({
      name: "ocpi_cdr_audits_total",
      help: "CDRs audited, by partner (none: ours, for a token no registered partner holds) and verdict (match, mismatch, unpriceable)",
      labelNames: ["partner", "verdict"] as const,
      registers: [this.metrics],
    });
    const inputs = new AuditInputs(config, catalog, registry, this.audits);
    this.worker = new AuditWorker(store, this.audits, inputs, log, (audit) => this.verdicts.inc({ partner: audit.partner ?? "none", verdict: audit.verdict }));
  }

  /** Once per gateway: our CDRs are followed on the change feed, and the worker runs with the background services. */
  follow(): void {
    if (this.following) return;
    this.following = true;
    this.changes.subscribe((change) => this.ours(change));
    this.background.add(this.worker);
  }

  /** The cdrs RECEIVER port, queueing every CDR it stores for the audit. */
  receiver(port: CdrsReceiverPort): CdrsReceiverPort {
    return {
      get: (owner, id, ctx) => port.get(owner, id, ctx),
      insert: async (owner: PartyRef, cdr: Cdr, ctx: PortContext) => {
        const inserted = await port.insert(owner, cdr, ctx);
        if (inserted)
          this.queue({
            key: auditKey("received", owner, cdr.id),
            direction: "received",
            ...(ctx.partnerId ? { partner: ctx.partnerId } : {}),
            ...(ctx.version ? { version: ctx.version } : {}),
            cdr,
          });
        return inserted;
      },
    };
  }

  /** How many of the partner's CDRs were audited in the last day, and how many mismatch. */
  async partnerFigures(partnerId: string, now: number): Promise<PartnerFigure[]> {
    const { audited, mismatches } = await this.audits.counts(partnerId, now - DAY_MS);
    return [
      { id: "cdrs-audited", label: "CDRs audited, 24 h", value: audited },
      { id: "cdr-mismatches", label: "CDR mismatches, 24 h", value: mismatches, alarming: true },
    ];
  }

  private ours(change: DataChange): void {
    if (change.module !== "cdrs" || change.kind !== "upsert" || !change.object) return;
    const cdr = change.object as unknown as Cdr;
    this.queue({ key: auditKey("sent", change.owner, cdr.id), direction: "sent", cdr: { ...cdr, country_code: change.owner.country_code, party_id: change.owner.party_id } });
  }

  /** Not awaited by the caller: the partner's answer does not wait for the store. */
  private queue(entry: QueuedCdr): void {
    this.audits.enqueue(entry).then(
      (queued) => queued && this.worker.wake(),
      (error: unknown) => this.log.error({ err: error, cdr: entry.cdr.id }, "could not queue a CDR for the audit"),
    );
  }

  /**
   * The audits of CDRs with this id, ours (our parties) and those of every registered partner's parties, each with
   * what the invoices exchanged with its partner say of it when the invoicereconciliation module is served.
   */
  async byId(id: string): Promise<(CdrAudit & { invoices?: CdrInvoices })[]> {
    const partners = await this.registry.list();
    const owners = [...this.config.parties, ...partners.flatMap((p) => p.roles)];
    const audits = await this.audits.byId(id, owners);
    return Promise.all(
      audits.map(async (audit) => {
        const invoices = await invoicesOf(this.catalog, this.config, this.registry, audit);
        return invoices ? { ...audit, invoices } : audit;
      }),
    );
  }
}
