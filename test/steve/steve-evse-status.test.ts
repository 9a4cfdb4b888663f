import type { EvseStatusFacts } from "../../adapters/steve/db/rows";
import { evseStatus } from "../../adapters/steve/mapping/status";
import { SEED_NOW } from "../support/steve-seed";
import { settings } from "./steve-db.fixtures";

describe("EVSE status from SteVe's facts (notes §4.2)", () => {
  const base: EvseStatusFacts = {
    evsePk: 1, chargeBoxId: "CB", evseId: 1, latest: null, station: null, registrationStatus: "Accepted", lastHeartbeat: SEED_NOW, reservation: null,
  };
  const row = (status: string) => ({ evsePk: 1, chargeBoxId: "CB", evseId: 1, status, statusTimestamp: SEED_NOW, errorCode: null, errorInfo: null, vendorErrorCode: null });
  const status = (facts: Partial<EvseStatusFacts>, policy = settings.status) => evseStatus({ ...base, ...facts }, SEED_NOW, policy);

  test.each([
    ["Available", "AVAILABLE"], ["Preparing", "AVAILABLE"], ["Charging", "CHARGING"], ["SuspendedEV", "CHARGING"], ["SuspendedEVSE", "CHARGING"],
    ["Occupied", "CHARGING"], ["Finishing", "CHARGING"], ["Reserved", "RESERVED"], ["Unavailable", "INOPERATIVE"], ["Faulted", "OUTOFORDER"], ["Bogus", "UNKNOWN"],
  ])("OCPP %s is %s", (ocpp, ocpi) => {
    expect(status({ latest: row(ocpp) })).toBe(ocpi);
  });

  test("no status at all is UNKNOWN; Preparing and Finishing follow the policy", () => {
    expect(status({})).toBe("UNKNOWN");
    expect(status({ latest: row("Preparing") }, { ...settings.status, preparing: "BLOCKED" })).toBe("BLOCKED");
    expect(status({ latest: row("Finishing") }, { ...settings.status, finishing: "BLOCKED" })).toBe("BLOCKED");
  });

  test("station-level overrides, strongest first", () => {
    const charging = { latest: row("Charging") };
    expect(status({ ...charging, registrationStatus: "Pending", lastHeartbeat: null })).toBe("INOPERATIVE");
    expect(status({ ...charging, lastHeartbeat: new Date(SEED_NOW.getTime() - 601_000) })).toBe("UNKNOWN");
    expect(status({ ...charging, lastHeartbeat: null }, { preparing: "AVAILABLE", finishing: "CHARGING" })).toBe("CHARGING");
    expect(status({ ...charging, station: row("Faulted") })).toBe("OUTOFORDER");
    expect(status({ ...charging, station: row("Unavailable") })).toBe("INOPERATIVE");
    const reservation = { reservationPk: 1, idTag: "T", expiry: new Date(SEED_NOW.getTime() + 1) };
    expect(status({ latest: row("Available"), reservation })).toBe("RESERVED");
    expect(status({ ...charging, reservation })).toBe("CHARGING");
    expect(status({ latest: row("Available"), reservation: { ...reservation, expiry: SEED_NOW } })).toBe("AVAILABLE");
  });
});
