import type { CdrsSenderPort, SessionsSenderPort } from "../../kit";
import type { SteveBackend } from "../backend";
import { fromDatabase } from "../unavailable";
import { transactionObjects, transactionsPage } from "./transactions";

/**
 * Sessions and CDRs from SteVe's transactions, read on each call (SteVe is
 * the truth; nothing is copied into the gateway's store): a list's page is
 * chosen and counted in SQL, then only its transactions are mapped
 * (transactionsPage). A Session's id is its transaction_pk; a CDR exists
 * once the transaction stopped.
 */
export const sessionsSender = (backend: SteveBackend): SessionsSenderPort => ({
  list: (page, ctx) =>
    fromDatabase(async () => {
      const { objects, total } = await transactionsPage(backend, page, ctx, false);
      return { items: objects.map((o) => o.session), total };
    }),
  get: (sessionId) =>
    fromDatabase(async () => {
      const pk = Number(sessionId);
      if (!/^[1-9]\d{0,15}$/.test(sessionId) || !Number.isSafeInteger(pk)) return undefined;
      const engine = backend.require();
      const txs = await engine.db.transactions({ transactionPks: [pk] });
      const [found] = await transactionObjects(backend.readContext(engine, await engine.db.clock()), txs);
      return found?.session;
    }),
  // SteVe cannot take charging preferences (no smart-charging API): every request is answered so.
  setChargingPreferences: async () => "NOT_POSSIBLE",
});

export const cdrsSender = (backend: SteveBackend): CdrsSenderPort => ({
  list: (page, ctx) =>
    fromDatabase(async () => {
      const { objects, total } = await transactionsPage(backend, page, ctx, true);
      return { items: objects.flatMap((o) => (o.cdr ? [o.cdr] : [])), total };
    }),
});
