import { z } from "zod";
import { httpUrlSetting, millisecondsSetting as ms, readTypedStrings, settingsErrors } from "../kit";

/**
 * `adapters.tms` in gateway.config.yaml (a payment-terminal system, TMS v1:
 * docs/tms-v1.md, "Settings"):
 *
 *   base_url          the system's URL, e.g. http://tms.internal:9300
 *   api_key           sent as X-Api-Key; a secret: write it as ${TMS_API_KEY}
 *   webhook_secret    the HMAC-SHA256 key of its webhook signatures; a secret: ${TMS_WEBHOOK_SECRET}
 *   poll_interval_ms  how often changes are polled (changed_after) to catch a lost webhook (30000)
 *   poll_overlap_ms   how far before the last change seen a poll asks again (1000: changes of one millisecond)
 *   request_timeout_ms  timeout of a call to the system (10000)
 *   page_limit        page size asked of the system's lists (100, at most 500)
 *
 * Messages say what is expected and never echo the value (it may be a secret).
 */

const MESSAGES = {
  baseUrl: "must be an absolute http:// or https:// URL without user name or password",
  secret: "must be a non-empty string (write it as ${ENV_VAR}: it is a secret)",
  webhookSecret: "must be at least 16 characters (write it as ${ENV_VAR}: it is a secret)",
} as const;

const baseUrl = httpUrlSetting(MESSAGES.baseUrl);

export const tmsSettingsSchema = z.strictObject({
  type: z.literal("tms").optional(),
  base_url: baseUrl,
  api_key: z.string({ error: MESSAGES.secret }).min(1, MESSAGES.secret),
  webhook_secret: z.string({ error: MESSAGES.webhookSecret }).min(16, MESSAGES.webhookSecret),
  poll_interval_ms: ms(100, 86_400_000, 30_000),
  poll_overlap_ms: ms(0, 3_600_000, 1_000),
  request_timeout_ms: ms(100, 600_000, 10_000),
  page_limit: z.number().int().min(1).max(500).default(100),
});

export type TmsSettings = z.output<typeof tmsSettingsSchema>;

/** The settings, or every problem as `path: message` under `base`. */
export const parseTmsSettings = (input: Record<string, unknown>, base = "adapters.tms"): { ok: true; settings: TmsSettings } | { ok: false; errors: string[] } => {
  const parsed = tmsSettingsSchema.safeParse(readTypedStrings(tmsSettingsSchema, input));
  if (parsed.success) return { ok: true, settings: parsed.data };
  return { ok: false, errors: settingsErrors(parsed.error, base) };
};
