/**
 * A rule of the Redis stores alone (one Redis, Redis Cluster): every key a script of the indexed records touches is one
 * it was handed in KEYS, as Redis Cluster and key ACLs require, even when a record put leaves index sets it was in and
 * that the client did not name. Seen through MONITOR on every master: a script's own commands follow its EVALSHA.
 */
import { Redis } from "ioredis";
import type { IndexedRecord, RecordIndexes, Store } from "../../../core/contract/store";

const INDEXES: RecordIndexes = [["partner"], ["partner", "verdict"], ["verdict"]];
const record = (key: string, fields: Record<string, string>): IndexedRecord<{ id: string }> => ({ key, sortKey: 1, fields, value: { id: key } });

interface Touched {
  command: string;
  key: string;
  declared: boolean;
}

export function scriptKeysRule(storeOf: () => Store, masters: () => Promise<string[]>, collection: string): void {
  it("touches only the keys a script is handed: the index sets a record leaves are named to it", async () => {
    const store = storeOf();
    await store.indexedRecords.add(collection, INDEXES, [record("a", { partner: "p1", verdict: "match" }), record("b", { partner: "p1" })]);
    const touched: Touched[] = [];
    const clients = (await masters()).map((url) => new Redis(url));
    const monitors = await Promise.all(clients.map((client) => client.monitor()));
    try {
      for (const monitor of monitors) {
        let declared: string[] = [];
        monitor.on("monitor", (_time: string, args: string[], source: string) => {
          if (source !== "lua") {
            const command = args[0].toLowerCase();
            declared = command === "evalsha" || command === "eval" ? args.slice(3, 3 + Number(args[2])) : [];
          } else if (args[1]?.includes(`{${collection}}`)) touched.push({ command: args[0].toLowerCase(), key: args[1], declared: declared.includes(args[1]) });
        });
      }
      // MONITOR starts with the next command each master sees
      await Promise.all(clients.map((client) => client.ping()));
      // a moves to other sets (leaving the three it was in), b to none; c is new
      await store.indexedRecords.put(collection, INDEXES, [record("a", { partner: "p2", verdict: "mismatch" }), record("b", {}), record("c", { verdict: "match" })]);
      // each master's MONITOR lines of the put come before its answer to a later command
      await Promise.all(clients.map((client) => client.ping()));
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      for (const connection of [...monitors, ...clients]) connection.disconnect();
    }
    expect(touched.filter((t) => t.command === "zrem").length).toBe(4);
    expect(touched.filter((t) => !t.declared)).toEqual([]);
    expect((await store.indexedRecords.range(collection, INDEXES, { where: { partner: "p1" }, offset: 0, limit: 10 })).total).toBe(0);
    expect((await store.indexedRecords.range(collection, INDEXES, { where: { verdict: "match" }, offset: 0, limit: 10 })).items).toEqual([{ id: "c" }]);
  });
}
