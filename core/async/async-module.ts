import type { AdminRoute } from "../contract/admin-route";
import type { InterfaceRole } from "../protocol/types";
import { DataModulePlugin } from "../modules/data-module";
import type { PendingEntry, PendingKind, PendingRequests } from "./pending-requests";

/** Where an adapter reports the outcome of a request it accepted; false when the request already has one (our timeout) or is unknown. */
export interface OutcomeSink<R> {
  report(requestId: string, outcome: R): Promise<boolean>;
}

/**
 * The asynchronous requests of one interface role, declared by the module as
 * it declares its push and sync specs: their kind's name in the store, the
 * outcome when none came in time, and how an outcome is delivered (queued
 * for the partner, handed to the role's adapter port). Registered with the
 * pending requests, bound to the port, once the role is connected.
 */
export interface PendingSpec<Port, T, R> {
  readonly name: string;
  timeoutOutcome(entry: PendingEntry<T, R>): R;
  /** see PendingKind.deliver: runs again after a failure, so it must be idempotent */
  deliver(port: Port, entry: PendingEntry<T, R>, outcome: R): Promise<void>;
}

/** A receiver port of an asynchronous module: told once where to report the outcomes of what it accepted. */
export interface OutcomeReportingPort {
  connect(sink: OutcomeSink<any>): void;
}

/**
 * What the asynchronous modules (commands, charging profiles) share: the
 * anatomy of a data module (core/modules/data-module.ts: typed ports, a
 * route factory per role), plus the requests of each role that are answered
 * now and whose outcome follows later (`received`, `sent`: PendingSpec),
 * kept in the store by PendingRequests so their timeouts fire on any
 * instance, and admin routes per role for the backend. The receiver's port
 * reports outcomes to a sink that settles its pending requests.
 */
export abstract class AsyncModulePlugin<SenderPort extends object, ReceiverPort extends OutcomeReportingPort> extends DataModulePlugin<
  SenderPort,
  ReceiverPort
> {
  /** requests partners sent to our RECEIVER interface; their outcomes come from our adapter */
  abstract readonly received: PendingSpec<ReceiverPort, any, any>;
  /** requests our backend sent to partners' RECEIVER interfaces; their outcomes come to our SENDER interface */
  abstract readonly sent: PendingSpec<SenderPort, any, any>;

  constructor(protected readonly pending: PendingRequests) {
    super();
  }

  connect(role: InterfaceRole, port: unknown): void {
    super.connect(role, port);
    if (role === "RECEIVER") {
      const receiver = port as ReceiverPort;
      this.pending.register(bound(this.received, receiver));
      receiver.connect(outcomeSink(this.pending, this.received.name));
    } else {
      this.pending.register(bound(this.sent, port as SenderPort));
    }
  }

  adminRoutes(role: InterfaceRole, port: unknown): AdminRoute[] {
    return role === "SENDER" ? this.senderAdminRoutes(port as SenderPort) : this.receiverAdminRoutes(port as ReceiverPort);
  }

  protected abstract senderAdminRoutes(port: SenderPort): AdminRoute[];
  protected abstract receiverAdminRoutes(port: ReceiverPort): AdminRoute[];
}

const bound = <Port, T, R>(spec: PendingSpec<Port, T, R>, port: Port): PendingKind<T, R> => ({
  name: spec.name,
  timeoutOutcome: (entry) => spec.timeoutOutcome(entry),
  deliver: (entry, outcome) => spec.deliver(port, entry, outcome),
});

/** The first outcome reported for a pending request wins (PendingRequests.settle); the adapter learns whether it was its own. */
export const outcomeSink = <R>(pending: PendingRequests, kind: string): OutcomeSink<R> => ({
  report: async (requestId, outcome) => (await pending.settle(kind, requestId, outcome)) === "settled",
});
