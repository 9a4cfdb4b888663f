/** Configurations as YAML and the errors they raise, for the config tests (test/config/config*.test.ts). */
import path from "node:path";
import { stringify } from "yaml";
import { ConfigError, parseConfig } from "../../config/load-config";

export const EXAMPLE = path.join(__dirname, "..", "..", "gateway.config.yaml");
export const TOKEN_MSG = "must be 1-64 printable ASCII characters (U+0021-U+007E)";

/** A small valid configuration, as plain data; tests mutate a copy and turn it into YAML. */
export function baseConfig(): Record<string, any> {
  return {
    server: { public_url: "https://gw.example.com/ocpi" },
    parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Example CPO" } }],
    adapters: { local: {} },
    partners: [{ id: "emsp-a", token_a: "token-a-0001" }],
  };
}

export function yamlWith(mutate: (c: Record<string, any>) => void): string {
  const c = baseConfig();
  mutate(c);
  return stringify(c);
}

/** The ConfigError thrown by parseConfig (fails the test if nothing is thrown). */
export function errorOf(yamlText: string, env: Record<string, string | undefined> = {}): ConfigError {
  try {
    parseConfig(yamlText, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("expected parseConfig to throw a ConfigError");
}
