import type { Page, PageRequest } from "../contract/page";
import type { PortContext } from "../contract/port-context";
import { partyKey, type PartyRef } from "../protocol/types";

/** One of our parties and the port serving its part of a module. */
export interface PartyPort {
  party: PartyRef;
  port: object;
}

/**
 * The port of a (module, role) served for several of our parties, each
 * party's calls going to its own adapter's port (`modules.<id>.parties`
 * with `{ party, adapter }`). Every port method takes its PortContext last:
 * a call goes to the port of `ctx.party`. A call without one (`connect`,
 * which hands over an outcome sink) goes to every port. A method is offered
 * only when every party's port has it, so an optional capability (a
 * Receiver's atomic `update`) is used only where all can. A list with
 * `ctx.parties` set (a GET All addressed to none of our parties) is each
 * party's list in turn (`mergedPage`).
 */
export const partyPorts = (ports: readonly PartyPort[]): object => {
  const byParty = new Map(ports.map((p) => [partyKey(p.party), p.port as Record<string, unknown>]));
  const distinct = [...new Set(byParty.values())];
  // A request's party is one of the module's (the kernel resolves it); work on our own behalf that names
  // another of our parties (a command we send "from our first party") goes to the module's first, as an unaddressed request would.
  const portOf = (party: PartyRef): Record<string, unknown> => byParty.get(partyKey(party)) ?? (ports[0].port as Record<string, unknown>);
  const methods = new Map<string, (...args: unknown[]) => unknown>();
  return new Proxy(
    {},
    {
      get(_target, key) {
        if (typeof key !== "string" || !distinct.every((port) => typeof port[key] === "function")) return undefined;
        let method = methods.get(key);
        if (!method) {
          method = (...args: unknown[]) => {
            const ctx = portContextOf(args[args.length - 1]);
            if (!ctx) return distinct.map((port) => (port[key] as (...a: unknown[]) => unknown)(...args))[0];
            if (ctx.parties && isPageRequest(args[0]))
              return mergedPage(args[0], ctx.parties, (page, party) =>
                (portOf(party)[key] as (...a: unknown[]) => Promise<Page>)(page, ...args.slice(1, -1), { ...ctx, party, parties: undefined }),
              );
            return (portOf(ctx.party)[key] as (...a: unknown[]) => unknown)(...args);
          };
          methods.set(key, method);
        }
        return method;
      },
      has: (_target, key) => typeof key === "string" && distinct.every((port) => typeof port[key] === "function"),
    },
  );
};

const portContextOf = (arg: unknown): PortContext | undefined => {
  const party = (arg as PortContext | undefined)?.party;
  return typeof party === "object" && party !== null && typeof party.party_id === "string" ? (arg as PortContext) : undefined;
};

const isPageRequest = (arg: unknown): arg is PageRequest =>
  typeof arg === "object" && arg !== null && typeof (arg as PageRequest).offset === "number" && typeof (arg as PageRequest).limit === "number";

/**
 * One page of the parties' lists one after the other, in the order of
 * `modules.<id>.parties`: `total` is their sum, and `page.offset` counts
 * through them in that order, so Link pages walk every party's objects once
 * (each party's part oldest first). A party's list that answers a shorter page
 * than asked (a backend's own cap) ends the page there; the next one goes on
 * from it. Each object names its owner (`country_code`, `party_id`), as in a
 * hub's GET All (README "Several parties on one gateway").
 */
export const mergedPage = async <T>(
  page: PageRequest,
  parties: readonly PartyRef[],
  list: (page: PageRequest, party: PartyRef) => Promise<Page<T>>,
): Promise<Page<T>> => {
  const items: T[] = [];
  let total = 0;
  let offset = page.offset;
  let open = page.limit > 0;
  for (const party of parties) {
    if (!open) {
      // past the page: only this party's total counts
      total += (await list({ ...page, offset: 0, limit: 1 }, party)).total;
      continue;
    }
    const wanted = page.limit - items.length;
    const part = await list({ ...page, offset, limit: wanted }, party);
    total += part.total;
    if (offset >= part.total) {
      offset -= part.total;
      continue;
    }
    const taken = part.items.slice(0, wanted);
    items.push(...taken);
    // the party holds more than it gave (the page is full, or its backend capped it): the page ends here
    if (offset + taken.length < part.total || items.length >= page.limit) open = false;
    offset = 0;
  }
  return { items, total };
};
