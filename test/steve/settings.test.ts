import { maskSteveSettings, parseSteveSettings, SECRET_SETTINGS } from "../../adapters/steve/settings";

const minimal = () => ({
  database: { host: "db.internal", user: "steve_ro", password: "db-secret-1", database: "stevedb" },
  rest: { base_url: "https://steve.internal:8443/steve", user: "gateway", password: "api-secret-2" },
  locations: { country_code: "DE", party_id: "ABC", currency: "EUR" },
});

test("a minimal adapters.steve gets its defaults and becomes mapping settings", () => {
  const result = parseSteveSettings(minimal());
  if (!result.ok) throw new Error(result.errors.join("\n"));
  expect(result.settings).toMatchObject({
    database: { port: 3306 },
    rest: { timeout_ms: 120_000, answer_wait_ms: 1_000 },
    poll_interval_ms: 2_000,
    poll_overlap_ms: 60_000,
    unknown_tags: "deny",
    tariffs: [],
    mapping: { country_code: "DE", party_id: "ABC", currency: "EUR", publish: true, time_zone: "UTC", locations: [], charge_boxes: {}, status: { preparing: "AVAILABLE" } },
  });
});

test("groups, per-box overrides and tariffs: the tariff gets our party, the groups become the mapping's locations", () => {
  const input = {
    ...minimal(),
    locations: {
      ...minimal().locations,
      time_zone: "Europe/Berlin",
      tariff_ids: ["AC"],
      groups: [{ id: "HUB-1", charge_boxes: ["CB-1", "CB-2"], name: "Hub" }],
      charge_boxes: { "CB-3": { coordinates: { latitude: "52.5200066", longitude: "13.4049540" }, tariff_ids: ["DC"] } },
    },
    tariffs: [
      { id: "AC", currency: "EUR", tax_included: "NO", elements: [{ price_components: [{ type: "ENERGY", price: 0.39, vat: 19, step_size: 1 }] }] },
      { id: "DC", currency: "EUR", tax_included: "YES", elements: [{ price_components: [{ type: "ENERGY", price: 0.59, vat: 19, step_size: 1 }] }] },
    ],
    unknown_tags: "ask_emsp",
  };
  const result = parseSteveSettings(input);
  if (!result.ok) throw new Error(result.errors.join("\n"));
  expect(result.settings.mapping.locations).toEqual([{ id: "HUB-1", charge_boxes: ["CB-1", "CB-2"], name: "Hub" }]);
  expect(result.settings.tariffs[0]).toMatchObject({ country_code: "DE", party_id: "ABC", id: "AC", last_updated: "1970-01-01T00:00:00Z" });
});

test("errors are path: message lines and never carry the value", () => {
  const result = parseSteveSettings({
    database: { host: "", port: 70000, user: "u", password: "db-secret-1" },
    rest: { base_url: "https://gateway:api-secret-2@steve.internal/steve", user: "gateway", password: "api-secret-2", timeout_ms: 5 },
    poll_interval_ms: "fast",
    locations: { country_code: "de", party_id: "ABC", currency: "EUR", tariff_ids: ["NOPE"], colour: "red" },
    unknown_tags: "maybe",
  });
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.errors).toEqual(
    expect.arrayContaining([
      "adapters.steve.database.host: must be a non-empty string",
      "adapters.steve.database.port: must be an integer between 1 and 65535",
      "adapters.steve.rest.base_url: must be an absolute http:// or https:// URL without user name or password (use rest.user and rest.password)",
      "adapters.steve.rest.timeout_ms: must be a whole number of milliseconds between 1000 and 600000",
      "adapters.steve.poll_interval_ms: must be a number",
      "adapters.steve.locations.country_code: must be exactly 2 uppercase letters (ISO 3166-1 alpha-2)",
      "adapters.steve.locations.colour: unknown key",
      "adapters.steve.unknown_tags: must be one of: allow, deny, ask_emsp",
    ]),
  );
  expect(result.errors.join("\n")).not.toMatch(/secret|70000|fast|maybe/);
  // Missing parts are named too.
  expect(parseSteveSettings({}, "adapters.cpo1")).toEqual({
    ok: false,
    errors: ["adapters.cpo1.database: is required", "adapters.cpo1.rest: is required", "adapters.cpo1.locations: is required"],
  });
});

test("a tariff id nobody defines is named where it is used", () => {
  const result = parseSteveSettings({ ...minimal(), locations: { ...minimal().locations, groups: [{ id: "G", charge_boxes: ["CB-1"], tariff_ids: ["X"] }] } });
  expect(result).toEqual({ ok: false, errors: ["adapters.steve.locations.groups[0].tariff_ids[0]: names no tariff in adapters.steve.tariffs"] });
});

test("secrets: which keys, and masking", () => {
  expect(SECRET_SETTINGS).toEqual(["database.password", "rest.password"]);
  const masked = maskSteveSettings(minimal());
  expect(masked.database.password).toBe("***");
  expect(masked.rest.password).toBe("***");
  expect(JSON.stringify(masked)).not.toMatch(/secret/);
  expect(minimal().database.password).toBe("db-secret-1");
});
