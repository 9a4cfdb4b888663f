import { inject, injectable } from "tsyringe";
import type { GatewayConfig } from "../../config/types";
import type { RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRoute } from "../../core/contract/admin-route";
import type { InterfaceRole, Role, VersionNumber } from "../../core/protocol/types";
import type { SyncSpec } from "../../core/contract/sync-spec";
import type { PushSpec } from "../../core/contract/push-spec";
import type { Store } from "../../core/contract/store";
import { TOKENS } from "../../core/contract/injection-tokens";
import { ChangeFeed } from "../../core/contract/change-feed";
import { DataModulePlugin } from "../../core/modules/data-module";
import { PartnerRegistry } from "../../core/partners/partner-registry";
import type { InvoiceReconciliationRecord } from "./model";
import type { InvoiceReconciliationReceiverPort, InvoiceReconciliationSenderPort } from "./ports";
import { invoiceRecordType } from "./translate";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import { Addressees, INVOICE_RECONCILIATION, invoiceRecordsPush } from "./push";
import { InvoiceDesk } from "./desk";
import { invoiceAdminRoutes } from "./admin";

/**
 * The invoicereconciliation module (OCPI 2.3.0 edition 2, Invoice Reconciliation module; only 2.3.0 has it):
 * which CDRs each invoice covers. The party that issues the invoices is the Sender: the CPO for direct billing,
 * the eMSP for reverse billing; which one we are is configuration, `modules.invoicereconciliation.roles`
 * (SENDER: we issue, RECEIVER: a partner issues to us; both by default). As the Sender we issue records
 * through the admin API and the CLI (desk.ts), list them to the partner they are addressed to, and push them to
 * its Receiver; as the Receiver we take a partner's records, and may pull its list (`partners[].sync`).
 * Offered to a partner in 2.3.0 unless `partners[].modules` leaves it out. docs/invoicereconciliation.md.
 */
@injectable()
export class InvoiceReconciliationPlugin extends DataModulePlugin<InvoiceReconciliationSenderPort, InvoiceReconciliationReceiverPort> {
  readonly module = INVOICE_RECONCILIATION;
  readonly versions: readonly VersionNumber[] = ["2.3.0"];
  /** no 2.1.1, whose one URL per module this would choose */
  readonly dataOwner: Role | undefined = undefined;
  readonly portMethods = {
    SENDER: ["list", "get", "put", "delete", "findCdr"],
    RECEIVER: ["get", "put", "delete", "list", "findCdr"],
  } as const;
  private readonly addressees: Addressees;
  readonly pushSpec: PushSpec<InvoiceReconciliationReceiverPort>;
  /** a partner's records, pulled from its Sender list under their own owner */
  readonly syncSpec: SyncSpec<InvoiceReconciliationRecord, InvoiceReconciliationReceiverPort> = {
    type: invoiceRecordType,
    upsert: (port, owner, record, ctx) => port.put(owner, record, ctx),
  };

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Store) store: Store,
    private readonly registry: PartnerRegistry,
    private readonly changes: ChangeFeed,
  ) {
    super();
    this.addressees = new Addressees(store);
    this.pushSpec = invoiceRecordsPush(this.addressees);
  }

  /** What the operator does on the records, over the ports of the roles served (connected before the gateway serves). */
  get desk(): InvoiceDesk {
    return new InvoiceDesk(this.config, this.registry, this.changes, this.addressees, this.ports, this.versions);
  }

  protected senderRoutes(port: InvoiceReconciliationSenderPort): RouteSpec[] {
    return senderRoutes(port);
  }

  protected receiverRoutes(port: InvoiceReconciliationReceiverPort): RouteSpec[] {
    return receiverRoutes(port);
  }

  /** One set of admin routes for both roles (the desk reads the ports served): mounted with the first role served. */
  adminRoutes(role: InterfaceRole): AdminRoute[] {
    const first = this.ports.SENDER ? "SENDER" : "RECEIVER";
    return role === first ? invoiceAdminRoutes(this.desk) : [];
  }
}
