import type { Cdr, CdrsSenderPort, Session, SessionsSenderPort } from "../../kit";
import type { SteveBackend } from "../backend";
import { fromDatabase } from "../unavailable";
import { changedSince, pageOf, transactionObjects } from "./transactions";

/**
 * Sessions and CDRs from SteVe's transactions, read on each call (SteVe is
 * the truth; nothing is copied into the gateway's store). A Session's id is
 * its transaction_pk; a CDR exists once the transaction stopped.
 */
export const sessionsSender = (backend: SteveBackend): SessionsSenderPort => ({
  list: (page, ctx) =>
    fromDatabase(async () => {
      const engine = backend.require();
      const since = changedSince(page);
      const txs = await engine.db.transactions(since ? { changedAfter: since } : {});
      const objects = await transactionObjects(backend.readContext(engine, await engine.db.now()), txs);
      return pageOf<Session>(objects.map((o) => o.session), page, ctx);
    }),
  get: (sessionId) =>
    fromDatabase(async () => {
      const pk = Number(sessionId);
      if (!/^[1-9]\d{0,15}$/.test(sessionId) || !Number.isSafeInteger(pk)) return undefined;
      const engine = backend.require();
      const txs = await engine.db.transactions({ transactionPks: [pk] });
      const [found] = await transactionObjects(backend.readContext(engine, await engine.db.now()), txs);
      return found?.session;
    }),
  // SteVe cannot take charging preferences (no smart-charging API): every request is answered so.
  setChargingPreferences: async () => "NOT_POSSIBLE",
});

export const cdrsSender = (backend: SteveBackend): CdrsSenderPort => ({
  list: (page, ctx) =>
    fromDatabase(async () => {
      const engine = backend.require();
      const since = changedSince(page);
      const txs = await engine.db.transactions({ active: false, ...(since ? { changedAfter: since } : {}) });
      const objects = await transactionObjects(backend.readContext(engine, await engine.db.now()), txs);
      return pageOf<Cdr>(objects.flatMap((o) => (o.cdr ? [o.cdr] : [])), page, ctx);
    }),
});
