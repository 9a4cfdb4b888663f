import { inScope, type Cdr, type PageRequest, type PortContext, type Session } from "../../kit";
import type { SteveBackend } from "../backend";
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
 * A page of Sessions or CDRs by the Sender list rules: only transactions of
 * tokens whose owner is in `ctx.scope` (none: all), last_updated within
 * [dateFrom, dateTo), oldest first (ties by id), then offset/limit, all
 * done by MariaDB (db/transaction-page.ts), so only the page's transactions
 * are read whole and mapped. A finished transaction whose Location cannot
 * be mapped has no CDR: it is counted in a CDRs list's total but leaves its
 * page one short (the poller logs it).
 */
export async function transactionsPage(
  backend: SteveBackend,
  page: PageRequest,
  ctx: PortContext,
  finished: boolean,
): Promise<{ objects: TransactionObjects[]; total: number }> {
  const engine = backend.require();
  const idTags = ctx.scope ? await backend.tagOwners.idTagsIn(ctx.scope) : undefined;
  const { pks, total } = await engine.db.transactionPage({ finished, idTags, dateFrom: page.dateFrom, dateTo: page.dateTo, offset: page.offset, limit: page.limit });
  if (pks.length === 0) return { objects: [], total };
  const txs = await engine.db.transactions({ transactionPks: pks });
  const byId = new Map((await transactionObjects(backend.readContext(engine, await engine.db.clock()), txs)).map((o) => [o.session.id, o]));
  const scope = ctx.scope;
  // The token the poller decided at first sight wins over the registry (a local card's idTag pushed later stays local).
  const visible = (o: TransactionObjects) => !scope || inScope(scope, { country_code: o.session.cdr_token.country_code, party_id: o.session.cdr_token.party_id });
  return { objects: pks.flatMap((pk) => byId.get(String(pk)) ?? []).filter(visible), total };
}
