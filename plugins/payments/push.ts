import { APPLIED, unsupportedChange, type ChangeObject, type PushSpec } from "../../core/contract/push-spec";
import type { DataChange } from "../../core/contract/change-feed";
import type { PartyRef } from "../../core/protocol/types";
import { FACS, TERMINALS, type FinancialAdviceConfirmation, type Terminal } from "./model";
import type { PaymentsReceiverPort } from "./ports";
import { facObjectType, terminalObjectType } from "./translate";
import { terminalCpo } from "./terminal-scope";

/**
 * Our Terminals and FACs (we are the PTP) to CPO partners' Receivers: each
 * a POST of the whole object to its sub-resource (OCPI 2.3.0 Payments module: "PTP
 * then POSTs a Terminal to the CPO", "PTP must POST a FAC after capture").
 * A change's path is `["terminals", terminal_id]` or
 * `["financial-advice-confirmations", id]`, its owner our PTP party.
 * A Terminal goes only to the CPO it names, a FAC only to the CPO party it
 * is attributed to (fac-owner.ts; withheld from all when there is none).
 * FACs are delivered at least once.
 */
export const paymentsPush = (facAudience: (change: DataChange) => Promise<PartyRef | undefined>): PushSpec<PaymentsReceiverPort> => ({
  objectTypes: [],
  idFields: [],
  objectOf: ({ path }): ChangeObject | undefined => {
    if (path.length !== 2) return undefined;
    if (path[0] === TERMINALS) return { type: terminalObjectType, idField: "terminal_id", id: path[1] };
    if (path[0] === FACS) return { type: facObjectType, idField: "id", id: path[1] };
    return undefined;
  },
  methods: { upsert: "POST" },
  target: (change) => ({ path: `/${change.path[0]}` }),
  essential: (change) => change.path[0] === FACS,
  audience: async (change) =>
    change.path[0] !== FACS
      ? terminalCpo((change.object ?? {}) as Partial<Terminal>)
      : change.object && facAudience(change),
  resync: false,
  async apply(receiver, change, ctx) {
    if (change.kind !== "upsert" || !change.object) return unsupportedChange(change);
    if (change.path[0] === TERMINALS) await receiver.putTerminal(change.owner, change.object as Terminal, ctx);
    else await receiver.putFac(change.owner, change.object as FinancialAdviceConfirmation, ctx);
    return APPLIED;
  },
});

/** The change that reports a Terminal or FAC of our PTP party. */
export const paymentsChange = (owner: DataChange["owner"], resource: typeof TERMINALS | typeof FACS, object: Terminal | FinancialAdviceConfirmation): DataChange => ({
  module: "payments",
  owner,
  path: [resource, resource === TERMINALS ? (object as Terminal).terminal_id : (object as FinancialAdviceConfirmation).id],
  kind: "upsert",
  object: object as Record<string, unknown>,
});
