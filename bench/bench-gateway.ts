import "reflect-metadata";
import path from "node:path";
import { writeFileSync } from "node:fs";
import type { GatewayConfig } from "../config/types";
import { Gateway } from "../app/gateway";
import { HOST } from "./support";

export const benchLocation = (i: number) => ({
  country_code: "NL",
  party_id: "GWY",
  id: `LOC${String(i).padStart(5, "0")}`,
  publish: true,
  name: `Bench site ${i}`,
  address: `Benchstraat ${i}`,
  city: "Utrecht",
  postal_code: "3500AA",
  country: "NLD",
  coordinates: { latitude: "52.09074", longitude: "5.12142" },
  time_zone: "Europe/Amsterdam",
  evses: [
    {
      uid: `EVSE${i}`,
      evse_id: `NL*GWY*E${i}`,
      status: "AVAILABLE",
      connectors: [
        { id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 32, last_updated: "2026-01-01T00:00:00Z" },
      ],
      last_updated: "2026-01-01T00:00:00Z",
    },
  ],
  last_updated: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"),
});

/** A CPO gateway serving 1,000 seeded locations from the local adapter on SQLite in `dir`, for one bench partner. */
export const benchGatewayConfig = (dir: string, port: number): GatewayConfig => {
  writeFileSync(path.join(dir, "seed.json"), JSON.stringify({ locations: Array.from({ length: 1000 }, (_, i) => benchLocation(i)) }));
  return {
    server: { port, host: HOST, public_url: `http://${HOST}:${port}`, max_page_limit: 100, token_grace_seconds: 0, request_timeout_ms: 5000, log_level: "warn" },
    parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Bench CPO" } }],
    store: { type: "sqlite", path: path.join(dir, "gateway.db") },
    modules: { locations: { adapter: "local" } },
    adapters: { local: { seed: path.join(dir, "seed.json") } },
    partners: [{ id: "bench", versions: ["2.3.0"], token_encoding: "auto", header_prefix: "OCPI", strictness: "reject", callback_hosts: [] }],
  };
};

/** Registers the bench partner in the store the way a credentials exchange would leave it; resolves with its token. */
export const registerBenchPartner = async (config: GatewayConfig): Promise<string> => {
  const setup = await Gateway.create(config);
  try {
    const token = await setup.registry.issueToken("bench");
    await setup.registry.recordRegistration("bench", {
      version: "2.3.0",
      versionsUrl: `http://${HOST}:1/versions`,
      endpoints: [],
      roles: [{ country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "Bench eMSP" } }],
      tokenToPartner: "unused",
    });
    return token;
  } finally {
    await setup.close();
  }
};
