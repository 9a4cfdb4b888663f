import { createConnection, type ResultSetHeader } from "mysql2/promise";
import { mapCdrSkeleton } from "../../adapters/steve/mapping/cdrs";
import { mapLocations } from "../../adapters/steve/mapping/locations";
import { mapSession } from "../../adapters/steve/mapping/sessions";
import { cdrType } from "../../plugins/cdrs/translate";
import type { Connector, Location } from "../../plugins/locations/model";
import { locationType } from "../../plugins/locations/translate";
import { sessionType } from "../../plugins/sessions/translate";
import { ACTIVE, ALPHA, at, BETA, FINISHED, RESERVATION, SEED_NOW, TAGS } from "../support/steve-seed";
import { iso, settings, steveDatabases, valid } from "./steve-db.fixtures";

const env = steveDatabases();

describe.each(["3.14", "3.12"] as const)("SteVe %s schema", (generation) => {
  const current = generation === "3.14";
  const db = () => env[generation].db;
  const ids = () => env[generation].ids;

  test("the generation is detected from the tables", () => {
    expect(db().schema).toMatchObject({
      topology: current ? "evse" : "connector",
      evsePk: current ? "evse_pk" : "connector_pk",
      hasEvseConnector: current,
      hasUpdatedAt: current,
      hasTimeZone: current,
      addressCoordinates: true,
    });
  });

  test("the adapter's account can only read", async () => {
    const connection = await createConnection(env[generation].access.reader);
    try {
      await expect(connection.query("INSERT INTO ocpp_tag (id_tag) VALUES ('X')")).rejects.toMatchObject({ code: "ER_TABLEACCESS_DENIED_ERROR" });
    } finally {
      await connection.end();
    }
  });

  test("charge boxes come with their addresses", async () => {
    const [alpha, beta] = await db().chargeBoxes();
    expect(alpha).toEqual({
      chargeBoxPk: 1,
      chargeBoxId: ALPHA.id,
      ocppProtocol: "ocpp1.6J",
      registrationStatus: "Accepted",
      description: ALPHA.description,
      meterSerialNumber: ALPHA.meterSerial,
      lastHeartbeat: ALPHA.heartbeat,
      updatedAt: current ? ALPHA.updatedAt : null,
      address: { ...ALPHA.address, timeZone: current ? ALPHA.address.timeZone : null },
    });
    expect(beta).toMatchObject({
      chargeBoxId: BETA.id,
      meterSerialNumber: null,
      updatedAt: current ? BETA.connectorUpdatedAt : null,
      address: { ...BETA.address, latitude: null, longitude: null, timeZone: null },
    });
    expect((await db().chargeBoxes([BETA.id])).map((b) => b.chargeBoxId)).toEqual([BETA.id]);
  });

  test("EVSEs (not the station's connector 0) come with their plugs", async () => {
    const evses = await db().evses();
    expect(evses.map((e) => [e.evsePk, e.chargeBoxId, e.evseId])).toEqual([
      [ids().evsePk[`${ALPHA.id}-1`], ALPHA.id, 1],
      [ids().evsePk[`${ALPHA.id}-2`], ALPHA.id, 2],
      [ids().evsePk[`${BETA.id}-1`], BETA.id, 1],
    ]);
    const unknown = { connectorId: 1, connectorType: null, connectorFormat: null, powerType: null, maxVoltage: null, maxAmperage: null, maxElectricPower: null };
    const plug = (c: typeof ALPHA.evse1) => ({
      connectorId: 1, connectorType: c.type, connectorFormat: c.format, powerType: c.power, maxVoltage: c.voltage, maxAmperage: c.amperage, maxElectricPower: c.watts,
    });
    expect(evses[0].connectors).toEqual([{ ...(current ? plug(ALPHA.evse1) : unknown), updatedAt: current ? ALPHA.updatedAt : null }]);
    expect(evses[1].connectors).toEqual([{ ...(current ? plug(ALPHA.evse2) : unknown), updatedAt: current ? ALPHA.updatedAt : null }]);
    expect(evses[1].evseIdExternal).toBe(current ? ALPHA.evse2.external : null);
    expect(evses[2].connectors).toEqual([{ ...unknown, updatedAt: current ? BETA.connectorUpdatedAt : null }]);
  });

  test("the newest status per EVSE, with the station's own, its registration, heartbeat and reservation", async () => {
    const facts = await db().currentStatuses(SEED_NOW);
    const byEvse = Object.fromEntries(facts.map((f) => [`${f.chargeBoxId}-${f.evseId}`, f]));
    expect(Object.keys(byEvse)).toEqual([`${ALPHA.id}-1`, `${ALPHA.id}-2`, `${BETA.id}-1`]);
    expect(byEvse[`${ALPHA.id}-1`]).toMatchObject({
      latest: { status: "Charging", statusTimestamp: at(-60), errorCode: "NoError" },
      station: { evseId: 0, status: "Available", statusTimestamp: at(-300) },
      registrationStatus: "Accepted",
      lastHeartbeat: ALPHA.heartbeat,
      reservation: null,
    });
    expect(byEvse[`${ALPHA.id}-2`]).toMatchObject({
      latest: { status: "Available", statusTimestamp: at(-118) },
      reservation: { reservationPk: ids().reservationPk, idTag: RESERVATION.idTag, expiry: RESERVATION.expiry },
    });
    expect(byEvse[`${BETA.id}-1`]).toMatchObject({
      latest: { status: "Available", statusTimestamp: at(-90) },
      station: { status: "Faulted", errorCode: "GroundFailure", statusTimestamp: at(-30) },
      reservation: null,
    });
    // Past its expiry the reservation no longer counts.
    const later = await db().currentStatuses(at(51), [ALPHA.id]);
    expect(later.map((f) => f.reservation)).toEqual([null, null]);
  });

  test("a held list's watch in one statement: SteVe's clock, the box count, the reservations still to expire", async () => {
    const { writer } = env[generation];
    const pk = current ? "evse_pk" : "connector_pk";
    const evsePk = ids().evsePk[`${BETA.id}-1`];
    // The seeded reservation expired long ago by the database's clock; one made now is active until used or cancelled.
    const [made] = await writer.query<ResultSetHeader>(
      `INSERT INTO reservation (${pk}, id_tag, start_datetime, expiry_datetime, status) VALUES (?, ?, NOW(6), NOW(6) + INTERVAL 1 HOUR, 'ACCEPTED')`,
      [evsePk, TAGS.carol],
    );
    try {
      const { now, watch } = await db().nowWithListWatch();
      expect(Math.abs(now.getTime() - Date.now())).toBeLessThan(60_000);
      expect(watch.boxCount).toBe(2);
      expect([...watch.reservations.keys()]).toEqual([evsePk]);
      expect(watch.reservations.get(evsePk)).toMatchObject({ reservationPk: made.insertId, idTag: TAGS.carol });
      expect(watch.reservations.get(evsePk)!.expiry.getTime()).toBeGreaterThan(now.getTime());
      expect(await db().clock()).toBeInstanceOf(Date);
      await writer.query("UPDATE reservation SET status = 'CANCELLED' WHERE reservation_pk = ?", [made.insertId]);
      expect((await db().nowWithListWatch()).watch).toEqual({ boxCount: 2, reservations: new Map() });
    } finally {
      await writer.query("DELETE FROM reservation WHERE reservation_pk = ?", [made.insertId]);
    }
  });

  test("transactions carry their meter values, energy in kWh and sample times", async () => {
    const [finished, active] = await db().transactions();
    expect(finished).toMatchObject({
      transactionPk: ids().finishedPk,
      chargeBoxId: ALPHA.id,
      evseId: 2,
      idTag: FINISHED.idTag,
      startTimestamp: FINISHED.start,
      startValue: FINISHED.startWh,
      stopTimestamp: FINISHED.stop,
      stopEventTimestamp: FINISHED.stopEvent,
      stopValue: FINISHED.stopWh,
      stopReason: FINISHED.stopReason,
      stopEventActor: "station",
      kwh: FINISHED.kwh,
    });
    expect(finished.energy).toEqual([
      { at: FINISHED.start, kwh: 10 },
      { at: at(-165), kwh: 12.5 },
      { at: at(-150), kwh: 15 },
      { at: at(-135), kwh: 18.5 },
      { at: FINISHED.stop, kwh: 21 },
    ]);
    // Six rows stored; the station left measurand, unit and context out of the first: OCPP defaults apply.
    expect(finished.meterValues).toHaveLength(6);
    expect(finished.meterValues[0]).toEqual({
      timestamp: at(-165), value: "12500", readingContext: "Sample.Periodic", format: "Raw",
      measurand: "Energy.Active.Import.Register", location: "Outlet", unit: "Wh", phase: null,
    });
    expect(active).toMatchObject({ transactionPk: ids().activePk, evseId: 1, idTag: ACTIVE.idTag, stopTimestamp: null, stopValue: null, kwh: ACTIVE.kwh });
    expect(active.energy.map((e) => [e.at, e.kwh])).toEqual([[ACTIVE.start, 50], ...ACTIVE.samples.map((s) => [s.at, Number(s.value) / 1000])]);
    expect((await db().transactions({ active: true })).map((t) => t.transactionPk)).toEqual([ids().activePk]);
    expect((await db().transactions({ active: false })).map((t) => t.transactionPk)).toEqual([ids().finishedPk]);
    expect((await db().transactions({ changedAfter: at(-20) })).map((t) => t.transactionPk)).toEqual([ids().activePk]);
  });

  test("watermarks: finished transactions, status rows, charge box updates", async () => {
    expect((await db().finishedTransactionsSince(at(-121))).map((t) => t.transactionPk)).toEqual([ids().finishedPk]);
    expect(await db().finishedTransactionsSince(FINISHED.stopEvent)).toEqual([]);
    const statuses = await db().statusesSince(at(-61));
    expect(statuses.map((s) => [s.chargeBoxId, s.evseId, s.status, s.statusTimestamp])).toEqual([
      [ALPHA.id, 1, "Charging", at(-60)],
      [BETA.id, 0, "Faulted", at(-30)],
    ]);
    // Before 3.13 nothing records updates: every charge box is returned for the caller to compare.
    const updated = await db().chargeBoxesUpdatedSince(at(-120));
    expect(updated.map((b) => b.chargeBoxId)).toEqual(current ? [BETA.id] : [ALPHA.id, BETA.id]);
    if (current) expect(await db().chargeBoxesUpdatedSince(BETA.connectorUpdatedAt)).toEqual([]);
  });

  test("ocpp tags and reservations", async () => {
    const tags = await db().ocppTags();
    expect(tags.map((t) => [t.idTag, t.parentIdTag, t.maxActiveTransactionCount, t.activeTransactionCount])).toEqual([
      [TAGS.parent, null, 1, 0],
      [TAGS.alice, TAGS.parent, 1, 0],
      [TAGS.blocked, null, 0, 0],
      [TAGS.bob, null, 1, 1],
      [TAGS.carol, null, 1, 0],
    ]);
    expect(tags[1].note).toBe("Alice");
    expect(tags[4].expiryDate).toEqual(at(30 * 24 * 60));
    expect((await db().ocppTags([TAGS.bob])).map((t) => t.idTag)).toEqual([TAGS.bob]);
    const reservations = await db().reservations();
    expect(reservations.map((r) => [r.chargeBoxId, r.evseId, r.idTag, r.status])).toEqual([
      [BETA.id, 1, TAGS.carol, "CANCELLED"],
      [ALPHA.id, 2, TAGS.carol, "ACCEPTED"],
    ]);
    expect(reservations[1]).toMatchObject({ startDatetime: RESERVATION.start, expiryDatetime: RESERVATION.expiry, transactionPk: null });
    expect((await db().reservations(at(-15))).map((r) => r.reservationPk)).toEqual([ids().reservationPk]);
  });

  const facts = async () => ({ chargeBoxes: await db().chargeBoxes(), evses: await db().evses(), statuses: await db().currentStatuses(SEED_NOW) });

  test("charge boxes map to valid 2.3.0 Locations, every field from the seed or the settings", async () => {
    const { locations, skipped } = mapLocations(await facts(), settings, SEED_NOW);
    expect(skipped).toEqual([]);
    for (const location of locations) valid(locationType.schema("2.3.0", "full"), location);
    const [alpha, beta] = locations;
    const capabilities = ["REMOTE_START_STOP_CAPABLE", "UNLOCK_CAPABLE", "RESERVABLE"];
    const connector = (c: typeof ALPHA.evse1, lastUpdated: Date): Connector =>
      current
        ? { id: "1", standard: c.type, format: c.format as Connector["format"], power_type: c.power, max_voltage: c.voltage, max_amperage: c.amperage, max_electric_power: c.watts, tariff_ids: ["STD"], last_updated: iso(ALPHA.updatedAt) }
        : { id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 16, max_electric_power: 11_000, tariff_ids: ["STD"], last_updated: iso(lastUpdated) };
    expect(alpha).toEqual<Location>({
      country_code: "DE",
      party_id: "ABC",
      id: ALPHA.id,
      publish: true,
      name: "Alpha Hub",
      address: "Hauptstraße 12",
      city: "Berlin",
      postal_code: "10115",
      country: "DEU",
      coordinates: { latitude: "52.5200066", longitude: "13.4049540" },
      time_zone: current ? "Europe/Berlin" : "Europe/Amsterdam",
      operator: { name: "Alpha Charging" },
      facilities: ["SUPERMARKET"],
      opening_times: { twentyfourseven: true },
      parking_type: "PARKING_LOT",
      evses: [
        {
          uid: `${ALPHA.id}-1`,
          evse_id: "DE*ABC*ECBALPHA*1",
          status: "CHARGING",
          capabilities,
          connectors: [connector(ALPHA.evse1, at(-60))],
          last_updated: iso(at(-60)),
        },
        {
          uid: `${ALPHA.id}-2`,
          evse_id: current ? ALPHA.evse2.external : "DE*ABC*ECBALPHA*2",
          status: "RESERVED",
          capabilities,
          connectors: [connector(ALPHA.evse2, at(-118))],
          last_updated: iso(at(-118)),
        },
      ],
      last_updated: iso(at(-60)),
    });
    expect(beta).toEqual<Location>({
      country_code: "DE",
      party_id: "ABC",
      id: BETA.id,
      publish: true,
      name: "Beta",
      address: "Oudegracht 231",
      city: "Utrecht",
      postal_code: "3511 NK",
      country: "NLD",
      coordinates: { latitude: "52.0907400", longitude: "5.1214200" },
      time_zone: "Europe/Amsterdam",
      operator: { name: "Alpha Charging" },
      facilities: ["CAFE"],
      opening_times: { twentyfourseven: true },
      parking_type: "PARKING_LOT",
      evses: [
        {
          uid: `${BETA.id}-1`,
          evse_id: "DE*ABC*ECBBETA*1",
          status: "OUTOFORDER",
          capabilities,
          connectors: [
            {
              id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 16,
              max_electric_power: 11_000, tariff_ids: ["BETA-AC"], last_updated: iso(current ? BETA.connectorUpdatedAt : at(-30)),
            },
          ],
          last_updated: iso(at(-30)),
        },
      ],
      last_updated: iso(at(-30)),
    });
  });

  test("grouping per YAML; a Location without coordinates anywhere is skipped, not invented", async () => {
    const grouped = mapLocations(await facts(), { ...settings, locations: [{ id: "HUB-1", name: "The Hub", charge_boxes: [ALPHA.id, BETA.id], tariff_ids: ["HUB"] }] }, SEED_NOW);
    expect(grouped.locations).toHaveLength(1);
    const hub = grouped.locations[0];
    valid(locationType.schema("2.3.0", "full"), hub);
    expect(hub).toMatchObject({ id: "HUB-1", name: "The Hub", address: "Hauptstraße 12", country: "DEU" });
    expect(hub.evses!.map((e) => [e.uid, e.connectors[0].tariff_ids])).toEqual([
      [`${ALPHA.id}-1`, ["HUB"]],
      [`${ALPHA.id}-2`, ["HUB"]],
      [`${BETA.id}-1`, ["BETA-AC"]],
    ]);
    const bare = mapLocations(await facts(), { ...settings, charge_boxes: {} }, SEED_NOW);
    expect(bare.locations.map((l) => l.id)).toEqual([ALPHA.id]);
    expect(bare.skipped).toEqual([{ id: BETA.id, reason: "no coordinates in SteVe or the YAML" }]);
  });

  test("transactions map to valid 2.3.0 Sessions; the finished one to a CDR skeleton", async () => {
    const [finished, active] = await db().transactions();
    const chargeBoxes = await db().chargeBoxes();
    const evses = await db().evses();
    const sources = (tx: typeof finished) => ({
      tx,
      chargeBox: chargeBoxes.find((b) => b.chargeBoxId === tx.chargeBoxId),
      evse: evses.find((e) => e.evsePk === tx.evsePk),
    });
    const running = mapSession(sources(active), settings);
    valid(sessionType.schema("2.3.0", "full"), running);
    expect(running).toEqual({
      country_code: "DE",
      party_id: "ABC",
      id: String(ids().activePk),
      start_date_time: iso(ACTIVE.start),
      kwh: 7.25,
      cdr_token: { country_code: "DE", party_id: "ABC", uid: TAGS.bob, type: "RFID", contract_id: TAGS.bob },
      auth_method: "WHITELIST",
      location_id: ALPHA.id,
      evse_uid: `${ALPHA.id}-1`,
      connector_id: "1",
      meter_id: ALPHA.meterSerial,
      currency: "EUR",
      charging_periods: [
        { start_date_time: iso(at(-60)), dimensions: [{ type: "ENERGY", volume: 2 }, { type: "TIME", volume: 0.25 }] },
        { start_date_time: iso(at(-45)), dimensions: [{ type: "ENERGY", volume: 2.5 }, { type: "TIME", volume: 0.25 }] },
        { start_date_time: iso(at(-30)), dimensions: [{ type: "ENERGY", volume: 2.75 }, { type: "TIME", volume: 0.25 }] },
      ],
      status: "ACTIVE",
      last_updated: iso(at(-15)),
    });

    const emspToken = { country_code: "NL", party_id: "EMS", uid: "ABC123456789", type: "APP_USER", contract_id: "NL-EMS-C12345678-X" };
    const context = { token: emspToken, authMethod: "COMMAND" as const, authorizationReference: "AUTH-1" };
    const done = mapSession({ ...sources(finished), context }, settings);
    valid(sessionType.schema("2.3.0", "full"), done);
    expect(done).toMatchObject({
      id: String(ids().finishedPk), status: "COMPLETED", kwh: 11, end_date_time: iso(FINISHED.stop), cdr_token: emspToken,
      auth_method: "COMMAND", authorization_reference: "AUTH-1", evse_uid: `${ALPHA.id}-2`, last_updated: iso(FINISHED.stopEvent),
    });

    const alpha = mapLocations(await facts(), settings, SEED_NOW).locations[0];
    expect(mapCdrSkeleton(sources(active), alpha, settings)).toBeUndefined();
    const cdr = mapCdrSkeleton({ ...sources(finished), context }, alpha, settings)!;
    // Priced later by the tariff engine: with a cost it is a valid 2.3.0 CDR.
    valid(cdrType.schema("2.3.0", "full"), { ...cdr, total_cost: { before_taxes: 0 } });
    expect(cdr).toEqual({
      country_code: "DE",
      party_id: "ABC",
      id: String(ids().finishedPk),
      session_id: String(ids().finishedPk),
      start_date_time: iso(FINISHED.start),
      end_date_time: iso(FINISHED.stop),
      cdr_token: emspToken,
      auth_method: "COMMAND",
      authorization_reference: "AUTH-1",
      meter_id: ALPHA.meterSerial,
      currency: "EUR",
      cdr_location: {
        id: ALPHA.id,
        name: "Alpha Hub",
        address: "Hauptstraße 12",
        city: "Berlin",
        postal_code: "10115",
        country: "DEU",
        coordinates: { latitude: "52.5200066", longitude: "13.4049540" },
        evse_uid: `${ALPHA.id}-2`,
        evse_id: current ? ALPHA.evse2.external : "DE*ABC*ECBALPHA*2",
        connector_id: "1",
        connector_standard: current ? ALPHA.evse2.type : "IEC_62196_T2",
        connector_format: current ? ALPHA.evse2.format : "SOCKET",
        connector_power_type: current ? ALPHA.evse2.power : "AC_3_PHASE",
      },
      charging_periods: [
        { start_date_time: iso(at(-180)), dimensions: [{ type: "ENERGY", volume: 2.5 }, { type: "TIME", volume: 0.25 }] },
        { start_date_time: iso(at(-165)), dimensions: [{ type: "ENERGY", volume: 2.5 }, { type: "TIME", volume: 0.25 }] },
        // The 11 kW power sample falls in this period; the per-phase and signed samples count nowhere.
        { start_date_time: iso(at(-150)), dimensions: [{ type: "ENERGY", volume: 3.5 }, { type: "TIME", volume: 0.25 }, { type: "POWER", volume: 11 }] },
        { start_date_time: iso(at(-135)), dimensions: [{ type: "ENERGY", volume: 2.5 }, { type: "TIME", volume: 0.25 }] },
      ],
      total_energy: 11,
      total_time: 1,
      last_updated: iso(FINISHED.stopEvent),
    });
  });
});
