import { inject, injectable } from "tsyringe";
import type { GatewayConfig } from "../../config/types";
import type { RouteSpec } from "../../core/contract/module-plugin";
import { CDR_TRANSLATION_LOSSES, cdrType } from "./translate";
import { DataModulePlugin } from "../../core/modules/data-module";
import { TOKENS } from "../../core/contract/injection-tokens";
import type { CdrsReceiverPort, CdrsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import type { SyncSpec } from "../../core/contract/sync-spec";
import type { Cdr } from "./model";
import { CDRS_PUSH } from "./push";
import { AuthorizationReferences } from "../payments/authorization-references";
import type { InterfaceRole } from "../../core/protocol/types";
import type { AdminRoute } from "../../core/contract/admin-route";
import type { PartnerFigure } from "../../core/contract/partner-figure";
import { CdrAuditing } from "./audit/cdr-auditing";
import { auditAdminRoutes } from "./audit/audit-admin";
import type { Registry } from "prom-client";

/** The CDRs module: CPOs serve their CDRs (Sender) and push them to eMSPs (Receiver). */
@injectable()
export class CdrsPlugin extends DataModulePlugin<CdrsSenderPort, CdrsReceiverPort> {
  readonly module = "cdrs";
  readonly translationLosses = CDR_TRANSLATION_LOSSES;
  readonly dataOwner = "CPO" as const;
  readonly portMethods = { SENDER: ["list"], RECEIVER: ["get", "insert"] } as const;
  readonly pushSpec = CDRS_PUSH;
  /** CDRs are immutable: one we already have is left as it is, so a repeated pull stores nothing twice */
  readonly syncSpec: SyncSpec<Cdr, CdrsReceiverPort> = {
    type: cdrType,
    upsert: (port, owner, cdr, ctx) => this.receiver(port).insert(owner, cdr, ctx),
  };
  /** `ocpi_cdr_audits_total`: the verdicts of the CDR audit (audit/cdr-auditing.ts) */
  readonly metrics: Registry;
  private auditRoutesGiven = false;

  /** the public URL is needed for the Location header a POSTed CDR is answered with; stored CDRs are indexed by authorization_reference (FAC links) */
  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    private readonly references: AuthorizationReferences,
    private readonly auditing: CdrAuditing,
  ) {
    super();
    this.metrics = auditing.metrics;
  }

  /** Every CDR either interface passes is audited in the background (README "Auditing CDRs and invoices"). */
  override connect(role: InterfaceRole, port: unknown): void {
    super.connect(role, port);
    this.auditing.follow();
  }

  /** The audit's routes, once whatever roles are served. */
  adminRoutes(): AdminRoute[] {
    if (this.auditRoutesGiven) return [];
    this.auditRoutesGiven = true;
    return auditAdminRoutes(this.auditing.audits, (id) => this.auditing.byId(id));
  }

  partnerFigures(partnerId: string, now: number): Promise<readonly PartnerFigure[]> {
    return this.auditing.partnerFigures(partnerId, now);
  }

  /** What stores a partner's CDR (its POST, our pull): recorded under its authorization_reference and queued for the audit. */
  private receiver(port: CdrsReceiverPort): CdrsReceiverPort {
    return this.references.cdrsReceiver(this.auditing.receiver(port));
  }

  protected senderRoutes(port: CdrsSenderPort): RouteSpec[] {
    return senderRoutes(port);
  }

  protected receiverRoutes(port: CdrsReceiverPort): RouteSpec[] {
    return receiverRoutes(this.receiver(port), this.config.server.public_url);
  }
}
