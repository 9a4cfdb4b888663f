import { createPool, format, type Pool, type RowDataPacket } from "mysql2/promise";
import { SteveDb } from "../../adapters/steve/db/steve-db";
import { statusesSince } from "../../adapters/steve/db/statuses";
import { changedTransactions } from "../../adapters/steve/db/transactions";
import { startMariaDb, type MariaDb } from "../support/mariadb";
import type { SteveGeneration } from "../support/steve-schema";
import { at, createSteveSchema, seedSteve, TAGS, writerPool } from "../support/steve-seed";

/**
 * The poll's change queries on real SteVe's indexes (test/support/steve-schema.ts
 * has exactly those): with a long history, EXPLAIN shows no full scan of
 * connector_status, transaction_start, transaction_stop or connector_meter_value,
 * and the rows MariaDB expects to examine do not grow with the history.
 */

const HISTORY_PER_EVSE = 4_000;
const FINISHED_TRANSACTIONS = 2_000;
const HISTORY_TABLES = ["connector_status", "transaction_start", "transaction_stop", "connector_meter_value"];

let maria: MariaDb;
beforeAll(async () => {
  maria = await startMariaDb();
}, 60_000);
afterAll(async () => {
  await maria?.stop();
});

/** A pool that keeps every statement it ran, with its parameters in place. */
function recording(pool: Pool): { pool: Pool; statements: string[] } {
  const statements: string[] = [];
  const proxy = new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === "query") return (sql: string, params?: unknown) => (statements.push(format(sql, params as any[])), target.query(sql, params as any[]));
      return Reflect.get(target, prop, receiver);
    },
  });
  return { pool: proxy, statements };
}

interface PlanRow {
  table: string;
  type: string;
  key: string | null;
  rows: number;
  Extra: string;
}

describe.each(["3.14", "3.12"] as const)("SteVe %s schema: the poll's queries use SteVe's indexes", (generation: SteveGeneration) => {
  const pk = generation === "3.14" ? "evse_pk" : "connector_pk";
  const table = generation === "3.14" ? "evse" : "connector";
  let writer: Pool;
  let reader: Pool;
  let db: SteveDb;
  const aliases = new Map<string, string>();

  beforeAll(async () => {
    const access = await maria.createDatabase(`explain_${generation.replace(".", "")}`);
    writer = writerPool(access.writer);
    await createSteveSchema(writer, generation);
    await seedSteve(writer, generation);
    const [evses] = await writer.query<RowDataPacket[]>(`SELECT ${pk} AS pk FROM ${table}`);
    // Years of status history: HISTORY_PER_EVSE rows per EVSE, all older than the watermark.
    const history = evses.flatMap((e) => Array.from({ length: HISTORY_PER_EVSE }, (_, i) => [e.pk, new Date(at(-100_000).getTime() - i * 60_000), i % 2 ? "Available" : "Charging", "NoError"]));
    for (let i = 0; i < history.length; i += 5_000) await writer.query(`INSERT INTO connector_status (${pk}, status_timestamp, status, error_code) VALUES ?`, [history.slice(i, i + 5_000)]);
    // Many finished transactions, long ago, each with a stop row and meter values.
    const first = evses[0].pk;
    const [res] = await writer.query<any>(
      `INSERT INTO transaction_start (event_timestamp, ${pk}, id_tag, start_timestamp, start_value) VALUES ?`,
      [Array.from({ length: FINISHED_TRANSACTIONS }, (_, i) => [at(-200_000 - i), first, TAGS.alice, at(-200_000 - i), "0"])],
    );
    const pks = Array.from({ length: FINISHED_TRANSACTIONS }, (_, i) => res.insertId + i);
    await writer.query("INSERT INTO transaction_stop (transaction_pk, event_timestamp, stop_timestamp, stop_value) VALUES ?", [pks.map((p) => [p, at(-199_000), at(-199_000), "1000"])]);
    await writer.query(`INSERT INTO connector_meter_value (${pk}, transaction_pk, value_timestamp, value) VALUES ?`, [pks.map((p) => [first, p, at(-199_500), "500"])]);
    for (const t of HISTORY_TABLES) await writer.query(`ANALYZE TABLE ${t}`);
    reader = createPool({ ...access.reader, timezone: "Z", connectionLimit: 2 });
    db = await SteveDb.open(access.reader);
    for (const a of ["cs", "x", "s", "t", "mv", "connector_status", "transaction_start", "transaction_stop", "connector_meter_value"]) aliases.set(a, a);
  }, 180_000);

  afterAll(async () => {
    await db?.close();
    await reader?.end();
    await writer?.end();
  });

  const explain = async (sql: string): Promise<PlanRow[]> => {
    const [rows] = await writer.query<RowDataPacket[]>(`EXPLAIN ${sql}`);
    return rows as PlanRow[];
  };
  /** plan rows that read one of SteVe's history tables (by the aliases the adapter gives them) */
  const historyReads = (plan: PlanRow[]) => plan.filter((r) => ["cs", "x", "s", "t", "mv", "n", ...HISTORY_TABLES].includes(r.table));

  it("a time range on connector_status alone is a full scan on SteVe's indexes (why the poll does not ask it)", async () => {
    const plan = await explain(format("SELECT * FROM connector_status cs WHERE cs.status_timestamp > ?", [at(-1)]));
    expect(plan[0].type).toBe("ALL");
  });

  it("status rows since the watermark: a loose index scan per EVSE, then a range of (pk, status_timestamp)", async () => {
    const { pool, statements } = recording(reader);
    // since a watermark after the history: a poll reads only the newer rows, by (pk, status_timestamp)
    const rows = await statusesSince(pool, db.schema, at(-1_000));
    expect(rows.length).toBeGreaterThan(0);
    expect(statements).toHaveLength(2);
    const [newest, rowsOf] = [await explain(statements[0]), await explain(statements[1])];
    expect(newest.some((r) => /Using index for group-by/.test(r.Extra ?? ""))).toBe(true);
    const reads = [...newest, ...rowsOf].filter((r) => r.table === "connector_status" || r.table === "cs");
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r.type).not.toBe("ALL");
    expect(rowsOf.find((r) => r.table === "cs")).toEqual(expect.objectContaining({ type: "range", key: expect.stringMatching(/pk_st_idx$/) }));
    // each read touches a bounded number of index entries, far below the history
    const [[{ n }]] = await writer.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM connector_status");
    for (const r of reads) expect(Number(r.rows)).toBeLessThan(Number(n) / 100);
    // nothing newer: the loose index scan alone
    const idle = recording(reader);
    expect(await statusesSince(idle.pool, db.schema, at(1_000))).toEqual([]);
    expect(idle.statements).toHaveLength(1);
  });

  it("the transaction cursor: a stop below it is found for a transaction it holds open, and it passes starts older than the overlap", async () => {
    const [[{ last }]] = await writer.query<RowDataPacket[]>("SELECT MAX(transaction_pk) AS last FROM transaction_start");
    const old = Number(last) - 5; // stopped at(-199_000)
    const since = { events: at(-199_500), samples: at(1) };
    const held = await changedTransactions(reader, db.schema, since, { fromPk: Number(last) + 1, openPks: [old] }, at(-1));
    expect(held.rows.map((r) => r.transactionPk)).toEqual([old]);
    expect(held.next).toEqual({ fromPk: Number(last) + 1, openPks: [] });
    const notHeld = await changedTransactions(reader, db.schema, since, { fromPk: Number(last) + 1, openPks: [] }, at(-1));
    expect(notHeld.rows).toEqual([]);
    const passing = await changedTransactions(reader, db.schema, { events: at(1), samples: at(1) }, { fromPk: Number(last) - 2, openPks: [] }, at(-1));
    expect(passing.next.fromPk).toBe(Number(last) + 1);
  });

  it("transactions since the watermarks: by primary key and value_timestamp, never the whole history", async () => {
    const { pool, statements } = recording(reader);
    const [[{ next }]] = await writer.query<RowDataPacket[]>("SELECT MAX(transaction_pk) + 1 AS next FROM transaction_start");
    const { rows } = await changedTransactions(pool, db.schema, { events: at(-60), samples: at(-60) }, { fromPk: Number(next) - 2, openPks: [] }, at(-1));
    expect(rows.length).toBeGreaterThan(0);
    expect(statements.length).toBeGreaterThanOrEqual(2);
    for (const sql of statements) {
      const plan = await explain(sql);
      for (const r of historyReads(plan)) {
        expect({ sql, table: r.table, type: r.type }).not.toEqual(expect.objectContaining({ type: "ALL" }));
        expect(Number(r.rows)).toBeLessThan(FINISHED_TRANSACTIONS / 10);
      }
    }
  });
});
