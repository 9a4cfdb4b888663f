import { inScope, type Cdr, type PageRequest, type PortContext, type Session } from "../../kit";
import { getJson } from "../contracts";
import type { TransactionRow } from "../db/rows";
import type { TransactionContext } from "../mapping/sessions";
import { KEYS, type PollContext } from "../poll/context";
import { cdrOf, mappedTransactions } from "../poll/sessions";

export interface TransactionObjects {
  session: Session;
  /** only for a finished transaction whose Location maps */
  cdr?: Cdr;
}

/**
 * What the gateway knows of a transaction SteVe does not: what the poller
 * decided and kept, else the tag registry's owner (a transaction from before
 * the gateway, or not polled yet). Read only: the poller alone decides and keeps.
 */
async function knownContext(ctx: PollContext, tx: TransactionRow): Promise<TransactionContext> {
  const kept = await getJson<TransactionContext>(ctx.kv, KEYS.context(tx.transactionPk));
  if (kept) return kept;
  const tag = await ctx.tags.ownerOf(tx.idTag);
  return tag ? { token: { ...tag.owner, uid: tag.uid, type: tag.type, contract_id: tag.contract_id } } : {};
}

/** Sessions (and CDRs of finished ones) of SteVe transactions, mapped and priced as the poller publishes them. */
export async function transactionObjects(ctx: PollContext, txs: TransactionRow[]): Promise<TransactionObjects[]> {
  const out: TransactionObjects[] = [];
  for await (const { sources, location, session, priced, tx } of mappedTransactions(ctx, txs, (tx) => knownContext(ctx, tx))) {
    const cdr = tx.stopEventTimestamp ? cdrOf(sources, location, priced, ctx) : undefined;
    out.push(cdr ? { session, cdr } : { session });
  }
  return out;
}

/**
 * A page of objects by the list rules of the Sender ports: only those the
 * partner may see (`ctx.scope`: the token's owner), last_updated within
 * [dateFrom, dateTo), oldest first (ties by id), then offset/limit.
 */
export function pageOf<T extends { id: string; last_updated: string; cdr_token?: { country_code?: string; party_id?: string } }>(
  objects: T[],
  page: PageRequest,
  ctx: PortContext,
): { items: T[]; total: number } {
  const scope = ctx.scope;
  const matching = objects
    .filter((o) => !scope || (o.cdr_token?.country_code && inScope(scope, { country_code: o.cdr_token.country_code, party_id: o.cdr_token.party_id ?? "" })))
    .filter((o) => inRange(o.last_updated, page))
    .sort((a, b) => Date.parse(a.last_updated) - Date.parse(b.last_updated) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length };
}

export const inRange = (lastUpdated: string, page: PageRequest): boolean => {
  const t = Date.parse(lastUpdated);
  return (page.dateFrom === undefined || t >= page.dateFrom) && (page.dateTo === undefined || t < page.dateTo);
};

/** A database pre-filter for a date_from: everything changed at or after it (the mapping's last_updated is the newest row). */
export const changedSince = (page: PageRequest): Date | undefined => (page.dateFrom === undefined ? undefined : new Date(page.dateFrom - 1));
