import "reflect-metadata";
import type { Pool, ResultSetHeader } from "mysql2/promise";
import type { Gateway } from "../../app/gateway";
import { removeTempDirs } from "../support/gateway-config";
import { startMariaDb, type MariaDb } from "../support/mariadb";
import type { SteveGeneration } from "../support/steve-schema";
import { ALPHA, BETA, TAGS } from "../support/steve-seed";
import { eventually } from "./steve-env";
import { startListGateway, type ListGateway } from "./list-gateway";

/**
 * The steve Locations list over HTTP while SteVe changes (the list's order
 * and rows are kept in memory between polls,
 * adapters/steve/location-order.ts): on each schema generation, a status
 * row moves its Location to the end of the list with its new status, a
 * reservation shows, an edited address is listed, a new charge box appears
 * and a deleted one goes, and every answer is checked
 * against the Locations read one by one (GET by id): oldest last_updated
 * first, ties by id, `date_from` inclusive, `date_to` exclusive,
 * X-Total-Count the number in the bounds. Each test changes SteVe, so
 * each gets a freshly seeded database and a gateway of its own, whose list
 * is held before the test begins.
 */

type Json = Record<string, any>;

let maria: MariaDb;
beforeAll(async () => void (maria = await startMariaDb()), 30_000);
afterAll(async () => {
  await maria?.stop();
  removeTempDirs();
});

describe.each(["3.14", "3.12"] as SteveGeneration[])("SteVe %s schema", (generation) => {
  const current = generation === "3.14";
  let writer: Pool;
  let gateway: Gateway;
  let request: ListGateway["request"];

  let worlds = 0;

  beforeEach(async () => {
    ({ writer, gateway, request } = await startListGateway(maria, `list_${generation.replace(".", "_")}_${++worlds}`, generation, { pollMs: 200, chargeBoxes: (boxes) => ({ ...boxes, "CB-GAMMA": boxes[BETA.id] }) }));
    // a test's change comes after the list is read and held, so it reaches the list through the poller
    await get();
  }, 30_000);

  afterEach(async () => {
    await gateway?.close();
    await writer?.end();
  });

  const get = async (query = "") => {
    const res = await request(query);
    return { items: (res.body as Json).data as Json[], total: Number(res.headers["x-total-count"]) };
  };

  /** Each listed Location as GET by id answers it (but `undated`, whose last_updated is the time of reading), in list order: oldest first, ties by id. */
  const expectOrdered = async (items: Json[], undated?: string) => {
    const one = await Promise.all(items.map(async (l) => (await request(`/${l.id}`)).body as Json));
    const dated = (l: Json) => [l.id, l.id === undated ? "now" : l.last_updated];
    expect(items.map(dated)).toEqual(one.map((b) => dated(b.data)));
    const sorted = [...items].sort((a, b) => a.last_updated.localeCompare(b.last_updated) || (a.id < b.id ? -1 : 1));
    expect(items.map((l) => l.id)).toEqual(sorted.map((l) => l.id));
  };

  /** Pages of one and the date bounds around `at`, against the whole list. */
  const expectPagesAndBounds = async (all: Json[], at: string) => {
    for (let offset = 0; offset < all.length; offset++) {
      const page = await get(`?offset=${offset}&limit=1`);
      expect([page.items.map((l) => l.id), page.total]).toEqual([[all[offset].id], all.length]);
    }
    const from = await get(`?date_from=${at}`);
    const to = await get(`?date_to=${at}`);
    const fromIds = all.filter((l) => l.last_updated >= at).map((l) => l.id);
    expect([from.items.map((l) => l.id), from.total]).toEqual([fromIds, fromIds.length]);
    const toIds = all.filter((l) => l.last_updated < at).map((l) => l.id);
    expect([to.items.map((l) => l.id), to.total]).toEqual([toIds, toIds.length]);
  };

  const lastIdIs = async (id: string, count: number) =>
    eventually(async () => {
      const list = await get();
      return list.total === count && list.items.at(-1)?.id === id && list;
    });

  test("the seeded Locations, oldest first, and their pages and date bounds", async () => {
    const { items, total } = await get();
    expect([items.map((l) => l.id), total]).toEqual([[ALPHA.id, BETA.id], 2]);
    await expectOrdered(items);
    await expectPagesAndBounds(items, items[1].last_updated);
  });

  /** A status row for the charge box's EVSE 1 (its connector 1 before 3.13), as the station would send it now. */
  const statusRow = (chargeBoxId: string, status: string) => {
    const evse = current ? "evse" : "connector";
    const pk = current ? "evse_pk" : "connector_pk";
    const number = current ? "evse_id" : "connector_id";
    return writer.query(
      `INSERT INTO connector_status (${pk}, status_timestamp, status, error_code)
       SELECT ${pk}, NOW(6), ?, 'NoError' FROM ${evse} WHERE charge_box_id = ? AND ${number} = 1`,
      [status, chargeBoxId],
    );
  };

  test("a status row moves its Location to the end once the poller saw it", async () => {
    await statusRow(ALPHA.id, "Available");
    const { items } = await lastIdIs(ALPHA.id, 2);
    expect(items.map((l) => l.id)).toEqual([BETA.id, ALPHA.id]);
    expect(items[1].evses[0]).toMatchObject({ uid: `${ALPHA.id}-1`, status: "AVAILABLE" });
    await expectOrdered(items);
    await expectPagesAndBounds(items, items[1].last_updated);
  });

  test("a reservation made in SteVe shows its EVSE RESERVED in the list once the poller saw it", async () => {
    const evse = current ? "evse" : "connector";
    const pk = current ? "evse_pk" : "connector_pk";
    const number = current ? "evse_id" : "connector_id";
    // The seed's newest status of ALPHA-1 is Charging, and a reservation turns only an AVAILABLE EVSE RESERVED (docs/steve.md, "EVSE status").
    await statusRow(ALPHA.id, "Available");
    await writer.query(
      `INSERT INTO reservation (${pk}, id_tag, start_datetime, expiry_datetime, status)
       SELECT ${pk}, ?, NOW(6), NOW(6) + INTERVAL 1 HOUR, 'ACCEPTED' FROM ${evse} WHERE charge_box_id = ? AND ${number} = 1`,
      [TAGS.carol, ALPHA.id],
    );
    await eventually(async () => (await get()).items.find((l) => l.id === ALPHA.id)?.evses[0].status === "RESERVED");
    expect(((await request(`/${ALPHA.id}`)).body as Json).data.evses[0].status).toBe("RESERVED");
  });

  test("a registration changed in SteVe (no status row) reaches the list's EVSEs once the poller saw it, and back", async () => {
    const statuses = async () => (await get()).items.find((l) => l.id === BETA.id)?.evses.map((e: Json) => e.status);
    const direct = async () => ((await request(`/${BETA.id}`)).body as Json).data.evses.map((e: Json) => e.status);
    const before = await direct();
    expect(before.every((s: string) => s !== "INOPERATIVE")).toBe(true);
    await writer.query("UPDATE charge_box SET registration_status = 'Pending' WHERE charge_box_id = ?", [BETA.id]);
    await eventually(async () => (await statuses())?.every((s: string) => s === "INOPERATIVE"));
    await writer.query("UPDATE charge_box SET registration_status = 'Accepted' WHERE charge_box_id = ?", [BETA.id]);
    await eventually(async () => JSON.stringify(await statuses()) === JSON.stringify(before));
    expect(await direct()).toEqual(before);
    await expectOrdered((await get()).items);
  });

  test("an address edited in SteVe is in the list's page once the poller saw it, and in a GET at once", async () => {
    await writer.query("UPDATE address a JOIN charge_box cb ON cb.address_pk = a.address_pk SET a.city = 'Potsdam' WHERE cb.charge_box_id = ?", [ALPHA.id]);
    expect(((await request(`/${ALPHA.id}`)).body as Json).data.city).toBe("Potsdam");
    const { items } = await eventually(async () => {
      const list = await get();
      return list.items.find((l) => l.id === ALPHA.id)?.city === "Potsdam" && list;
    });
    await expectOrdered(items);
  });

  test("a new charge box is listed and counted, a deleted one is gone", async () => {
    const address = (await writer.query<ResultSetHeader>("INSERT INTO address (street, house_number, zip_code, city, country) VALUES ('Gammaweg', '3', '1011', 'Amsterdam', 'NL')"))[0].insertId;
    await writer.query("INSERT INTO charge_box (charge_box_id, ocpp_protocol, registration_status, description, address_pk) VALUES ('CB-GAMMA', 'ocpp1.6J', 'Accepted', 'Gamma', ?)", [address]);
    const evsePk = (await writer.query<ResultSetHeader>(current ? "INSERT INTO evse (charge_box_id, evse_id) VALUES ('CB-GAMMA', 1)" : "INSERT INTO connector (charge_box_id, connector_id) VALUES ('CB-GAMMA', 1)"))[0].insertId;
    if (current) await writer.query("INSERT INTO evse_connector (evse_pk, connector_id) VALUES (?, 1)", [evsePk]);
    // Before 3.13 nothing dates a box without status rows: its last_updated is the time of reading, the newest of all.
    const { items } = await lastIdIs("CB-GAMMA", 3);
    await expectPagesAndBounds(items, items[2].last_updated);

    await writer.query("DELETE FROM charge_box WHERE charge_box_id = ?", [BETA.id]);
    const after = await eventually(async () => {
      const list = await get();
      return list.total === 2 && list;
    });
    expect(after.items.map((l) => l.id)).toEqual([ALPHA.id, "CB-GAMMA"]);
    await expectOrdered(after.items, current ? undefined : "CB-GAMMA");
  });
});
