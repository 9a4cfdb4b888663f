import type { ModulePlugin, PortMethods, RouteSpec } from "../plugin";
import type { AdminRoute } from "../admin/admin-api";
import type { InterfaceRole, VersionNumber } from "../protocol/types";
import { portNameOf } from "../plugin";
import type { PendingKind, PendingRequests } from "./pending-requests";

/** One interface role of an asynchronous module: its routes, its admin routes, and the pending requests it settles. */
export interface AsyncRoleHandler extends PendingKind<any, any> {
  routes(): RouteSpec[];
  adminRoutes(): AdminRoute[];
}

/**
 * What the asynchronous modules (commands, charging profiles) share: one
 * handler per interface role, created once from the role's adapter port,
 * registered with the pending requests so its timeouts fire; the receiver
 * handler is also the sink its adapter reports outcomes to.
 */
export abstract class AsyncModulePlugin<
  ReceiverPort extends { connect(sink: ReceiverHandler): void },
  SenderPort extends object,
  ReceiverHandler extends AsyncRoleHandler,
  SenderHandler extends AsyncRoleHandler,
> implements ModulePlugin
{
  abstract readonly module: string;
  abstract readonly versions: readonly VersionNumber[];
  abstract readonly portMethods: PortMethods<{ SENDER: SenderPort; RECEIVER: ReceiverPort }>;
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  private receiver?: ReceiverHandler;
  private sender?: SenderHandler;

  constructor(protected readonly pending: PendingRequests) {}

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  connect(role: InterfaceRole, port: unknown): void {
    if (role === "RECEIVER") {
      const receiver = this.receiverFor(port);
      this.pending.register(receiver);
      (port as ReceiverPort).connect(receiver);
    } else {
      this.pending.register(this.senderFor(port));
    }
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    return this.handlerFor(role, port).routes();
  }

  adminRoutes(role: InterfaceRole, port: unknown): AdminRoute[] {
    return this.handlerFor(role, port).adminRoutes();
  }

  protected abstract createReceiver(port: ReceiverPort): ReceiverHandler;
  protected abstract createSender(port: SenderPort): SenderHandler;

  private handlerFor(role: InterfaceRole, port: unknown): AsyncRoleHandler {
    return role === "RECEIVER" ? this.receiverFor(port) : this.senderFor(port);
  }

  private receiverFor(port: unknown): ReceiverHandler {
    this.receiver ??= this.createReceiver(port as ReceiverPort);
    return this.receiver;
  }

  private senderFor(port: unknown): SenderHandler {
    this.sender ??= this.createSender(port as SenderPort);
    return this.sender;
  }
}
