import type { ModulePlugin, PortMethods, RouteSpec } from "../contract/module-plugin";
import { portNameOf } from "../contract/module-plugin";
import type { InterfaceRole, Role, VersionNumber } from "../protocol/types";
import { SUPPORTED_VERSIONS } from "../protocol/types";

/**
 * What every module over adapter ports (locations, sessions, CDRs, tariffs,
 * tokens, payments; commands and charging profiles through
 * core/async/async-module.ts) has in common: both interface roles, by
 * default in every supported version, and one adapter port per role named
 * `<module>.<ROLE>`. A module supplies its id, its data owner, the methods
 * its ports need and the routes of each role, made by the route factories of
 * its sender.ts and receiver.ts; the receivers' writes go through
 * core/modules/receiver-writes.ts. A new module starts as a copy of a
 * sibling. Ports come from the kernel untyped and are handed on typed here,
 * once start-up checked them against `portMethods`.
 */
export abstract class DataModulePlugin<SenderPort extends object, ReceiverPort extends object> implements ModulePlugin {
  abstract readonly module: string;
  /** said by every module, undefined for one that 2.1.1 lacks (it only chooses which one URL 2.1.1 lists) */
  abstract readonly dataOwner: Role | undefined;
  abstract readonly portMethods: PortMethods<{ SENDER: SenderPort; RECEIVER: ReceiverPort }>;
  readonly versions: readonly VersionNumber[] = SUPPORTED_VERSIONS;
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  /** the ports of the roles served here, for rules that need one outside a route (a push's audience) */
  protected readonly ports: { SENDER?: SenderPort; RECEIVER?: ReceiverPort } = {};

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  connect(role: InterfaceRole, port: unknown): void {
    if (role === "SENDER") this.ports.SENDER = port as SenderPort;
    else this.ports.RECEIVER = port as ReceiverPort;
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    return role === "SENDER" ? this.senderRoutes(port as SenderPort) : this.receiverRoutes(port as ReceiverPort);
  }

  protected abstract senderRoutes(port: SenderPort): RouteSpec[];
  protected abstract receiverRoutes(port: ReceiverPort): RouteSpec[];
}
