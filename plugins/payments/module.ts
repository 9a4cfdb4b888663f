import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRoute } from "../../core/contract/admin-route";
import type { InterfaceRole, PartyRef, Role, VersionNumber } from "../../core/protocol/types";
import type { SyncSpec } from "../../core/contract/sync-spec";
import type { PushSpec } from "../../core/contract/push-spec";
import { TOKENS } from "../../core/contract/injection-tokens";
import { DataModulePlugin } from "../../core/modules/data-module";
import { PartnerClient } from "../../core/client/partner-client";
import { PartnerRegistry } from "../../core/partners/partner-registry";
import { ChangeFeed } from "../../core/contract/change-feed";
import type { Store } from "../../core/contract/store";
import { FACS, TERMINALS, type FinancialAdviceConfirmation, type Terminal } from "./model";
import type { PaymentsReceiverPort, PaymentsSenderPort } from "./ports";
import { PAYMENTS_TRANSLATION_LOSSES, facObjectType, terminalObjectType } from "./translate";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import { paymentsPush } from "./push";
import { paymentsAdminRoutes, withheldFacsRoute } from "./admin";
import { AuthorizationReferences } from "./authorization-references";
import { FacOwners } from "./fac-owner";
import { PtpDesk } from "./ptp-desk";

/** Pulled Terminals and FACs name no PTP: they belong to the partner's (first) party. */
const partnerParty = (_object: unknown, parties: readonly PartyRef[]): PartyRef | undefined => parties[0];

/**
 * The payments module (2.3.0 Payments, Part A; OCPI 2.3.0 Payments module): a
 * payment-terminal provider (PTP) owns Terminals and Financial Advice
 * Confirmations. SENDER: we are the PTP (e.g. over a terminal system, the
 * `tms` adapter). RECEIVER: we are the CPO, taking what a PTP partner
 * posts, pulling its lists (`partners[].sync.payments`) and acting on its
 * terminals through the admin API and the CLI (ptp-desk.ts). A FAC we send
 * as the PTP goes only to the CPO party it belongs to (fac-owner.ts). One `payments` endpoint per role is
 * listed in version details; the sub-resources `/terminals` and
 * `/financial-advice-confirmations` are appended to it, as implementations
 * do (the spec leaves it open). Served in 2.3.0 and, for the direct-payment
 * extension, in 2.2.1 (its Price shape); not in 2.1.1.
 */
@injectable()
export class PaymentsPlugin extends DataModulePlugin<PaymentsSenderPort, PaymentsReceiverPort> {
  readonly module = "payments";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1"];
  /** OCPI 2.3.0's module (Payments module, Part A); in 2.2.1 it exists only for partners on the direct-payment extension */
  readonly extensionOnly = { "2.2.1": "direct_payment" } as const;
  readonly translationLosses = PAYMENTS_TRANSLATION_LOSSES;
  readonly dataOwner: Role = "PTP";
  readonly portMethods = {
    SENDER: ["listTerminals", "getTerminal", "updateTerminal", "assignTerminal", "activateTerminal", "deactivateTerminal", "listFacs", "getFac"],
    RECEIVER: ["getTerminal", "putTerminal", "getFac", "putFac"],
  } as const;
  private readonly owners: FacOwners;
  readonly pushSpec: PushSpec<PaymentsReceiverPort>;
  /** a PTP partner's Terminals, then its FACs, in one pull under one watermark */
  readonly syncSpec: SyncSpec<Terminal, PaymentsReceiverPort> = {
    type: terminalObjectType,
    path: `/${TERMINALS}`,
    owner: partnerParty,
    upsert: (port, owner, terminal, ctx) => port.putTerminal(owner, terminal, ctx),
    more: [
      {
        type: facObjectType,
        path: `/${FACS}`,
        owner: partnerParty,
        upsert: (port, owner, fac: FinancialAdviceConfirmation, ctx) => port.putFac(owner, fac, ctx),
      },
    ],
  };

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Store) store: Store,
    @inject(TOKENS.Logger) log: Logger,
    private readonly partners: PartnerClient,
    private readonly registry: PartnerRegistry,
    private readonly changes: ChangeFeed,
    private readonly references: AuthorizationReferences,
  ) {
    super();
    this.owners = new FacOwners(references, store, changes, log.child({ module: "payments" }));
    this.pushSpec = paymentsPush((change) => this.owners.audienceOf(change));
  }

  /**
   * As the CPO, our own Sessions and CDRs are indexed by authorization_reference
   * as their changes come (FAC links); as the PTP, a partner's Session or CDR
   * may give a withheld FAC its owner.
   */
  connect(role: InterfaceRole, port: unknown): void {
    super.connect(role, port);
    if (role === "RECEIVER") this.changes.subscribe((change) => this.references.follow(change));
    else this.references.onPartnerLink((reference) => this.owners.reconsider(reference));
  }

  /** What the CPO's backend does on a PTP partner (admin API and CLI); undefined unless we serve the payments Receiver. */
  get desk(): PtpDesk | undefined {
    const receiver = this.ports.RECEIVER;
    return receiver && new PtpDesk(this.partners, receiver, this.registry, this.references, this.config);
  }

  protected senderRoutes(port: PaymentsSenderPort): RouteSpec[] {
    return senderRoutes(port, this.owners);
  }

  protected receiverRoutes(port: PaymentsReceiverPort): RouteSpec[] {
    return receiverRoutes(port);
  }

  adminRoutes(role: InterfaceRole, port: unknown): AdminRoute[] {
    if (role === "SENDER") return [withheldFacsRoute(this.owners)];
    return paymentsAdminRoutes(new PtpDesk(this.partners, port as PaymentsReceiverPort, this.registry, this.references, this.config));
  }
}
