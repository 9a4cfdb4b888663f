import { z } from "zod";
import { httpUrlSetting, readTypedStrings, settingsErrors, type OcpiBackendSpec } from "../kit";

/**
 * `adapters.<name>` of type `proxy` in gateway.config.yaml: a backend that
 * already speaks OCPI for the modules routed to it.
 *
 *   base_url        the backend's versions endpoint, e.g. https://csms.internal/ocpi/versions; its version
 *                   details and module endpoints are discovered from it and must be on its origin, the only
 *                   one the gateway calls for this adapter (the outbound URL policy)
 *   token           the token the backend issued to the gateway; a secret: write it as ${CSMS_TOKEN}
 *   version         the version to speak with the backend (default: the highest both support)
 *   token_encoding  auto (default), base64 or raw, as for partners
 *   header_prefix   OCPI (default) or ROAMING: the routing headers sent to the backend
 *   strictness      reject (default), log or repair: how invalid objects in its answers are read
 *
 * Messages say what is expected and never echo the value (it may be a secret).
 */

const MESSAGES = {
  baseUrl: "must be an absolute http:// or https:// URL without user name or password (the backend's versions endpoint)",
  token: "must be 1-64 printable ASCII characters (write it as ${ENV_VAR}: it is a secret)",
  version: "must be one of: 2.3.0, 2.2.1, 2.1.1",
} as const;

const baseUrl = httpUrlSetting(MESSAGES.baseUrl);

export const proxySettingsSchema = z.strictObject({
  type: z.literal("proxy").optional(),
  base_url: baseUrl,
  token: z.string({ error: MESSAGES.token }).regex(/^[\x21-\x7E]{1,64}$/, MESSAGES.token),
  version: z.enum(["2.3.0", "2.2.1", "2.1.1"], { error: MESSAGES.version }).optional(),
  token_encoding: z.enum(["auto", "base64", "raw"], { error: "must be one of: auto, base64, raw" }).default("auto"),
  header_prefix: z.enum(["OCPI", "ROAMING"], { error: "must be one of: OCPI, ROAMING" }).default("OCPI"),
  strictness: z.enum(["reject", "log", "repair"], { error: "must be one of: reject, log, repair" }).default("reject"),
});

/** The backend as the gateway's OCPI client sees it; named by its host, which an operator recognises. */
export const parseProxySettings = (input: Record<string, unknown>, base: string): { ok: true; spec: OcpiBackendSpec } | { ok: false; errors: string[] } => {
  const parsed = proxySettingsSchema.safeParse(readTypedStrings(proxySettingsSchema, input));
  if (!parsed.success) return { ok: false, errors: settingsErrors(parsed.error, base) };
  const s = parsed.data;
  return {
    ok: true,
    spec: {
      name: new URL(s.base_url).host,
      versionsUrl: s.base_url,
      version: s.version,
      token: s.token,
      tokenEncoding: s.token_encoding,
      headerPrefix: s.header_prefix,
      strictness: s.strictness,
    },
  };
};
