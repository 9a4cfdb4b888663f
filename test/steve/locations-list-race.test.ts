import "reflect-metadata";
import type { Pool } from "mysql2/promise";
import type { Gateway } from "../../app/gateway";
import { removeTempDirs } from "../support/gateway-config";
import { startMariaDb, type MariaDb } from "../support/mariadb";
import type { SteveGeneration } from "../support/steve-schema";
import { ALPHA, BETA } from "../support/steve-seed";
import { eventually } from "./steve-env";
import { startListGateway, type ListGateway } from "./list-gateway";

/**
 * The steve Locations list held in memory (adapters/steve/location-order.ts)
 * against a charge box edited in SteVe and edited back while a poll runs.
 * Before 3.13 nothing dates a change: a poll tells a changed box by its
 * facts' hash, and the list reads the box's rows itself, at other times
 * (its first whole read, a poll's refresh). The polls of a real gateway are held at
 * chosen statements by a LOCK TABLES … WRITE of the table that statement
 * reads (seen waiting in MariaDB's process list), so each edit falls
 * between two known reads. After the next poll, the list must show the box
 * as SteVe holds it and as a GET by id answers.
 */

type Json = Record<string, any>;

let maria: MariaDb;
beforeAll(async () => void (maria = await startMariaDb()), 30_000);
afterAll(async () => {
  await maria?.stop();
  removeTempDirs();
});

/** What each held poll waits at: its first statement once a list is held (the clock and the list's watch), */
const POLL_START = "FROM (SELECT COUNT(*) AS n FROM charge_box)";
/** the rows of a changed box's Location read for its PUT (after the poll's read of every box), */
const LOCATION_PUT = "LEFT JOIN connector_status cs";
/** and its transactions (after the list's refresh). */
const TRANSACTIONS = "FROM transaction_start s";

describe.each(["3.14", "3.12"] as SteveGeneration[])("SteVe %s schema", (generation) => {
  const current = generation === "3.14";
  let writer: Pool;
  let gateway: Gateway;
  let request: ListGateway["request"];
  let worlds = 0;
  /** tables this test holds locked: released before the gateway closes, should the test fail holding one */
  const locks: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    ({ writer, gateway, request } = await startListGateway(maria, `race_${generation.replace(".", "_")}_${++worlds}`, generation, { pollMs: 100 }));
  }, 30_000);

  afterEach(async () => {
    for (const release of locks.splice(0)) await release();
    await gateway?.close();
    await writer?.end();
  });

  const list = async () => {
    const res = await request("");
    return { items: (res.body as Json).data as Json[], total: Number(res.headers["x-total-count"]) };
  };
  const listed = async (id: string) => (await list()).items.find((l) => l.id === id);
  /** Beta's city in SteVe (its address row: an edit of charge_box would wait for the locks too, its foreign keys cascade to the locked tables) */
  const moveBeta = async (city: string | null) => {
    const [[box]] = await writer.query<any[]>("SELECT address_pk FROM charge_box WHERE charge_box_id = ?", [BETA.id]);
    await writer.query("UPDATE address SET city = ? WHERE address_pk = ?", [city, box.address_pk]);
  };

  /**
   * Locks `table` on a connection of its own: SteVe's readers of it wait
   * until the lock is released. (LOCK TABLES also locks the tables its
   * foreign keys name: two locks held at once must not meet there.)
   */
  const lockTable = async (table: string) => {
    const connection = await writer.getConnection();
    await connection.query(`LOCK TABLES ${table} WRITE`);
    const release = async () => {
      if (locks.includes(release)) locks.splice(locks.indexOf(release), 1);
      await connection.query("UNLOCK TABLES");
      connection.release();
    };
    locks.push(release);
    return release;
  };
  /** Until a poll's statement containing `sql` waits for a lock. */
  const pollWaitsAt = (sql: string) => eventually(async () => (await maria.lockWaits()).some((waiting) => waiting.includes(sql)));

  /**
   * Waits for a poll that began after now and finished: a status row of
   * ALPHA-1 reaches the list through the first poll that reads it, which
   * may have begun before it was written; a second one, written once the
   * first is listed, is read by a poll that began after that one ended.
   */
  const nextPoll = async () => {
    const pk = current ? "evse_pk" : "connector_pk";
    const evse = current ? "evse" : "connector";
    const number = current ? "evse_id" : "connector_id";
    for (const [status, listedAs] of [["Available", "AVAILABLE"], ["Faulted", "OUTOFORDER"]]) {
      await writer.query(
        `INSERT INTO connector_status (${pk}, status_timestamp, status, error_code)
         SELECT ${pk}, NOW(6), ?, 'NoError' FROM ${evse} WHERE charge_box_id = ? AND ${number} = 1`,
        [status, ALPHA.id],
      );
      await eventually(async () => (await listed(ALPHA.id))?.evses[0].status === listedAs);
    }
  };

  const expectListedAsSteveHoldsIt = async (city: string) => {
    expect(((await request(`/${BETA.id}`)).body as Json).data.city).toBe(city);
    const { items, total } = await list();
    expect([items.find((l) => l.id === BETA.id)?.city, total]).toEqual([city, 2]);
  };

  test("a box changed before the list's first read and changed back before the next poll is listed as SteVe holds it", async () => {
    // A poll that has read every box (Beta) and hashed it waits at its transactions: no other poll runs meanwhile.
    const releasePoll = await lockTable("transaction_start");
    await pollWaitsAt(TRANSACTIONS);
    await moveBeta("Amersfoort");
    // The list's first read: Beta in Amersfoort, as SteVe holds it now.
    expect((await listed(BETA.id))?.city).toBe("Amersfoort");
    await moveBeta(BETA.address.city);
    await releasePoll();
    await nextPoll();
    await expectListedAsSteveHoldsIt(BETA.address.city);
  });

  test("a box left out of the list's first read (no city) and put back before the next poll is listed and counted again", async () => {
    const releasePoll = await lockTable("transaction_start");
    await pollWaitsAt(TRANSACTIONS);
    await moveBeta(null);
    // A Location without a city is not published (docs/steve.md, "Locations, EVSEs and connectors"): one left.
    const first = await list();
    expect([first.items.map((l) => l.id), first.total]).toEqual([[ALPHA.id], 1]);
    await moveBeta(BETA.address.city);
    await releasePoll();
    await nextPoll();
    await expectListedAsSteveHoldsIt(BETA.address.city);
  });

  test("a box changed while a poll reads it and changed back before the next poll is listed as SteVe holds it", async () => {
    expect((await listed(BETA.id))?.city).toBe(BETA.address.city); // the list is held from here on
    // Polls wait at their start; Beta moves before the next one reads it.
    const releaseStart = await lockTable("reservation");
    await pollWaitsAt(POLL_START);
    await moveBeta("Amersfoort");
    // That poll reads every box, sees Beta changed, and waits reading Beta's Location for its PUT.
    const releasePut = await lockTable("connector_status");
    await releaseStart();
    await pollWaitsAt(LOCATION_PUT);
    // Moved again after the poll's read, before the list's refresh reads Beta: which then holds "Zeist".
    await moveBeta("Zeist");
    const releaseTransactions = await lockTable("transaction_start");
    await releasePut();
    await pollWaitsAt(TRANSACTIONS);
    expect((await listed(BETA.id))?.city).toBe("Zeist");
    // Back to what the poll read, before the next poll.
    await moveBeta("Amersfoort");
    await releaseTransactions();
    await nextPoll();
    await expectListedAsSteveHoldsIt("Amersfoort");
  });
});
