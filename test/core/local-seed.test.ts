import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, sqliteStore, tempDir, testGatewayConfig } from "../support/gateway-config";

/** `adapters.local.seed`: every object is checked as a 2.3.0 object of its module, and the seed can be applied at every start. */

afterAll(() => removeTempDirs());

const silent = pino({ level: "silent" });

const cdr = {
  country_code: "NL",
  party_id: "GWY",
  id: "CDR1",
  start_date_time: "2026-01-01T10:00:00Z",
  end_date_time: "2026-01-01T11:00:00Z",
  cdr_token: { country_code: "DE", party_id: "EMS", uid: "T1", type: "RFID", contract_id: "C1" },
  auth_method: "WHITELIST",
  cdr_location: {
    id: "LOC1",
    address: "Straat 1",
    city: "Utrecht",
    country: "NLD",
    coordinates: { latitude: "52.09074", longitude: "5.12142" },
    evse_uid: "E1",
    evse_id: "NL*GWY*E1",
    connector_id: "1",
    connector_standard: "IEC_62196_T2",
    connector_format: "SOCKET",
    connector_power_type: "AC_3_PHASE",
  },
  currency: "EUR",
  charging_periods: [{ start_date_time: "2026-01-01T10:00:00Z", dimensions: [{ type: "ENERGY", volume: 10 }] }],
  total_cost: { before_taxes: 3.5 },
  total_energy: 10,
  total_time: 1,
  last_updated: "2026-01-01T11:00:00Z",
};

const gatewayWithSeed = (seed: unknown, store = sqliteStore()) => {
  const file = path.join(tempDir("ocpi-seed-"), "seed.json");
  fs.writeFileSync(file, JSON.stringify(seed));
  const config = testGatewayConfig({
    port: 9, // never listened on: the gateway is only created
    store,
    modules: { cdrs: { adapter: "local" }, locations: { adapter: "local" } },
    adapters: { local: { seed: file } },
  });
  return Gateway.create(config, { logger: silent });
};

it("refuses to start on a seed object that is not a valid 2.3.0 object, naming where and what", async () => {
  const broken = { ...cdr, id: "CDR2", currency: "euro" };
  delete (broken as Record<string, unknown>).total_energy;
  const failure = await gatewayWithSeed({ cdrs: [cdr, broken] }).then(
    () => undefined,
    (error: Error) => error.message,
  );
  expect(failure).toMatch(/^adapters\.local\.seed: cdrs\[1\]: not a valid 2\.3\.0 object: /);
  expect(failure).toContain("/currency");
  expect(failure).toContain("/total_energy");
});

it("applies the same seed again at the next start: CDRs are immutable, but the same CDR again is no change", async () => {
  const store = sqliteStore();
  const first = await gatewayWithSeed({ cdrs: [cdr] }, store);
  await first.close();
  const second = await gatewayWithSeed({ cdrs: [cdr] }, store);
  await second.close();
  await expect(gatewayWithSeed({ cdrs: [{ ...cdr, total_energy: 11 }] }, store)).rejects.toThrow(/cdrs\[0\]: CDR NL\/GWY\/CDR1 is already stored with other content/);
});
