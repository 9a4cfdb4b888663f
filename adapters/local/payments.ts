import {
  TERMINALS,
  inScope,
  ocpiTimestamp,
  paymentsChange,
  type FinancialAdviceConfirmation,
  type Page,
  type PageRequest,
  type PartyRef,
  type PartyScope,
  type PaymentsReceiverPort,
  type PaymentsSenderPort,
  type PortContext,
  type Store,
  type Terminal,
  type TerminalOutcome,
} from "../kit";
import type { LocalModule, LocalModuleContext, LocalModulePorts } from "./local-module";
import { OwnedCollection } from "./owned-collection";

/** A terminal's lifecycle, which the Terminal object does not carry (Part A: "states: not shown"). */
type TerminalState = "pending" | "active" | "inactive";
const STATES = "local:payments:state";

/** How many terminals a scoped list reads per store call. */
const CHUNK = 500;

const partyOf = (party: PartyRef): PartyRef => ({ country_code: party.country_code.toUpperCase(), party_id: party.party_id.toUpperCase() });

const cpoOf = (terminal: Terminal): PartyRef | undefined =>
  terminal.country_code && terminal.party_id ? partyOf({ country_code: terminal.country_code, party_id: terminal.party_id }) : undefined;

const visible = (terminal: Terminal, scope?: PartyScope): boolean => {
  if (!scope) return true;
  const cpo = cpoOf(terminal);
  return cpo !== undefined && inScope(scope, cpo);
};

/** Fields a request leaves out do not clear the stored ones. */
const defined = <T extends object>(object: T): Partial<T> =>
  Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as Partial<T>;

const union = (current: string[] | undefined, added: string[] | undefined): string[] | undefined => {
  if (added === undefined) return current;
  const seen = new Set((current ?? []).map((v) => v.toUpperCase()));
  return [...(current ?? []), ...added.filter((v) => !seen.has(v.toUpperCase()) && seen.add(v.toUpperCase()))];
};

/** A page of what `keep` accepts, counted for X-Total-Count: one pass over the owner's objects in the date range. */
const filteredList = async <T extends { last_updated: string }>(
  collection: OwnedCollection<T>,
  owner: PartyRef,
  page: PageRequest,
  keep: (object: T) => Promise<boolean>,
): Promise<Page<T>> => {
  const items: T[] = [];
  let total = 0;
  for (let offset = 0; ; offset += CHUNK) {
    const chunk = await collection.list(owner, { ...page, offset, limit: CHUNK });
    for (const object of chunk.items) {
      if (!(await keep(object))) continue;
      if (total >= page.offset && items.length < page.limit) items.push(object);
      total++;
    }
    if (chunk.items.length < CHUNK) return { items, total };
  }
};

/**
 * Payments on the `local` adapter. As the PTP (Sender) it is a small
 * terminal system over the store: terminals written as change events
 * (POST /admin/v1/events, path `["terminals", id]`) or seeded are pending
 * until a CPO activates them; activation without a terminal_id takes the
 * first pending terminal with the CPO's customer_reference, or naming no
 * CPO, or this CPO; every change it makes is reported on the change feed
 * and so POSTed to the CPO. As the CPO (Receiver) it keeps what PTP
 * partners post, under their party.
 */
export const localPayments: LocalModule = {
  seedKey: "payments",
  portNames: ["payments.SENDER", "payments.RECEIVER"],
  create(store: Store, context?: LocalModuleContext): LocalModulePorts {
    const terminals = new OwnedCollection<Terminal>(store, "payments.terminals");
    const facs = new OwnedCollection<FinancialAdviceConfirmation>(store, "payments.facs");
    const stateOf = async (owner: PartyRef, id: string): Promise<TerminalState> =>
      (await store.get<TerminalState>(STATES, `${owner.country_code}${owner.party_id}:${id.toUpperCase()}`)) ?? "pending";
    const setState = (owner: PartyRef, id: string, state: TerminalState) => store.put(STATES, `${owner.country_code}${owner.party_id}:${id.toUpperCase()}`, state);

    /** Stores one of our terminals and reports it (pushed to the CPO it names). */
    const written = async (ctx: PortContext, terminal: Terminal): Promise<TerminalOutcome> => {
      const owner = partyOf(ctx.party);
      await terminals.put(owner, terminal.terminal_id, terminal);
      await context?.changes?.publish(paymentsChange(owner, TERMINALS, terminal));
      return { kind: "done", terminal };
    };

    const scopedList = (owner: PartyRef, page: PageRequest, scope?: PartyScope): Promise<Page<Terminal>> =>
      scope ? filteredList(terminals, owner, page, async (terminal) => visible(terminal, scope)) : terminals.list(owner, page);

    /** The first pending terminal the requesting CPO may have (its customer_reference, or no CPO yet, or itself). */
    const nextPending = async (owner: PartyRef, cpo: PartyRef, customerReference?: string): Promise<Terminal | undefined> => {
      for (let offset = 0; ; offset += CHUNK) {
        const chunk = await terminals.list(owner, { offset, limit: CHUNK });
        for (const terminal of chunk.items) {
          if ((await stateOf(owner, terminal.terminal_id)) !== "pending") continue;
          const named = cpoOf(terminal);
          if (named && !(named.country_code === cpo.country_code && named.party_id === cpo.party_id)) continue;
          if (customerReference && terminal.customer_reference && terminal.customer_reference.toUpperCase() !== customerReference.toUpperCase()) continue;
          return terminal;
        }
        if (chunk.items.length < CHUNK) return undefined;
      }
    };

    const sender: PaymentsSenderPort = {
      listTerminals: (page, ctx) => scopedList(partyOf(ctx.party), page, ctx.scope),
      getTerminal: (id, ctx) => terminals.get(partyOf(ctx.party), id),
      async updateTerminal(terminal, ctx) {
        if (!(await terminals.get(partyOf(ctx.party), terminal.terminal_id))) return { kind: "unknown_terminal" };
        return written(ctx, terminal);
      },
      async assignTerminal(id, assignment, ctx) {
        const current = await terminals.get(partyOf(ctx.party), id);
        if (!current) return { kind: "unknown_terminal" };
        const location_ids = union(current.location_ids, assignment.location_ids);
        const evse_uids = union(current.evse_uids, assignment.evse_uids);
        return written(ctx, { ...current, ...defined({ location_ids, evse_uids }), last_updated: ocpiTimestamp() });
      },
      async activateTerminal(request, ctx) {
        const owner = partyOf(ctx.party);
        const cpo = partyOf({ country_code: request.country_code!, party_id: request.party_id! });
        let current: Terminal | undefined;
        if (request.terminal_id !== undefined) {
          current = await terminals.get(owner, request.terminal_id);
          if (!current) return { kind: "unknown_terminal" };
          if ((await stateOf(owner, current.terminal_id)) === "active")
            return { kind: "refused", field: "terminal_id", reason: `terminal ${current.terminal_id} is already active` };
        } else {
          current = await nextPending(owner, cpo, request.customer_reference);
          if (!current)
            return { kind: "refused", field: "terminal_id", reason: `no terminal in stock for ${cpo.country_code}/${cpo.party_id}: name one with terminal_id` };
        }
        const terminal: Terminal = { ...current, ...defined(request), terminal_id: current.terminal_id, last_updated: ocpiTimestamp() };
        await setState(owner, terminal.terminal_id, "active");
        return written(ctx, terminal);
      },
      async deactivateTerminal(id, ctx) {
        const owner = partyOf(ctx.party);
        const current = await terminals.get(owner, id);
        if (!current) return { kind: "unknown_terminal" };
        await setState(owner, current.terminal_id, "inactive");
        return written(ctx, { ...current, last_updated: ocpiTimestamp() });
      },
      // FACs name no CPO: the plugin says which the partner may see (plugins/payments/ports.ts)
      listFacs: (page, ctx, visible) => filteredList(facs, partyOf(ctx.party), page, visible),
      getFac: (id, ctx) => facs.get(partyOf(ctx.party), id),
    };

    const receiver: PaymentsReceiverPort = {
      getTerminal: (owner, id) => terminals.get(partyOf(owner), id),
      putTerminal: (owner, terminal) => terminals.put(partyOf(owner), terminal.terminal_id, terminal),
      getFac: (owner, id) => facs.get(partyOf(owner), id),
      putFac: (owner, fac) => facs.put(partyOf(owner), fac.id, fac),
    };

    return {
      ports: { "payments.SENDER": sender, "payments.RECEIVER": receiver },
      async seed(object) {
        const party = context?.parties[0];
        if (!party) throw new Error("payments are seeded for our first party, and there is none");
        const owner = partyOf(party);
        if (typeof object.last_updated !== "string") throw new Error("a Terminal or FAC needs last_updated");
        if (typeof object.terminal_id === "string") await terminals.put(owner, object.terminal_id, object as Terminal);
        else if (typeof object.id === "string") await facs.put(owner, object.id, object as FinancialAdviceConfirmation);
        else throw new Error("a Terminal needs terminal_id, a FAC id");
      },
    };
  },
};

