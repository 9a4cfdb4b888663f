/** The `partners` section: the platforms the gateway roams with, and how each is spoken to. */
import { z } from "zod";
import { validate as validateCron } from "node-cron";
import { ROLES, SUPPORTED_VERSIONS } from "../../core/protocol/vocabulary";
import { HEADER_PREFIXES, MESSAGES, oneOf, PARTNER_EXTENSIONS, STRICTNESS, TOKEN_ENCODINGS } from "../schema-messages";
import { httpUrl, int, isCallbackHost, msg, MODULE_ID_RE, nullAsAbsent, PARTY_REF_RE, str, uniqueItems } from "./blocks";
import { moduleIdKey } from "./modules";

export const partnerSchema = z.strictObject({
  id: str(/^[A-Za-z0-9_.-]{1,64}$/, MESSAGES.partnerId),
  token_a: str(/^[\x21-\x7E]{1,64}$/, MESSAGES.tokenA).optional(),
  versions_url: httpUrl().optional(),
  versions: z
    .array(z.enum(SUPPORTED_VERSIONS, { error: msg(MESSAGES.version) }))
    .min(1, { error: "must list at least one version (or be left out to accept all)" })
    .superRefine(uniqueItems("version"))
    .default([...SUPPORTED_VERSIONS]),
  token_encoding: z.enum(TOKEN_ENCODINGS, { error: msg(MESSAGES.tokenEncoding) }).default("auto"),
  header_prefix: z.enum(HEADER_PREFIXES, { error: msg(MESSAGES.headerPrefix) }).default("OCPI"),
  modules: z.array(str(MODULE_ID_RE, MESSAGES.moduleId)).superRefine(uniqueItems("module")).optional(),
  // extensions of its version the partner speaks: `direct_payment` offers it the payments module in 2.2.1 (the payments plugin declares it: extensionOnly, read by core/partners/module-offers.ts)
  extensions: z
    .array(z.enum(PARTNER_EXTENSIONS, { error: msg(oneOf(PARTNER_EXTENSIONS)) }))
    .superRefine(uniqueItems("extension"))
    .optional(),
  roles: z
    .array(
      z.strictObject({
        role: z.enum(ROLES, { error: msg(MESSAGES.role) }),
        party: str(PARTY_REF_RE, MESSAGES.partyRef).optional(),
      }),
    )
    .min(1, { error: "must list at least one role (or be left out: any role but HUB)" })
    .optional(),
  strictness: z.enum(STRICTNESS, { error: msg(MESSAGES.strictness) }).default("reject"),
  send_nulls_for_optional: z.boolean({ error: msg("must be true or false") }).optional(),
  callback_hosts: nullAsAbsent(
    z
      .array(
        z
          .string({ error: msg(MESSAGES.callbackHost) })
          .refine(isCallbackHost, { error: MESSAGES.callbackHost })
          .transform((h) => h.toLowerCase().replace(/\.(?=:\d+$|$)/, "")),
      )
      .default([]),
  ),
  sync: z
    .record(
      moduleIdKey,
      z.string({ error: msg(MESSAGES.cron) }).refine((s) => s.trim() !== "" && validateCron(s), { error: MESSAGES.cron }),
    )
    .optional(),
  sync_overlap_seconds: int(0, 86400, MESSAGES.syncOverlap).optional(),
  sync_retry: z
    .strictObject({
      retries: int(0, 100, MESSAGES.syncRetries).optional(),
      base_delay_ms: int(1, 3_600_000, MESSAGES.syncRetryDelay).optional(),
      max_delay_ms: int(1, 3_600_000, MESSAGES.syncRetryDelay).optional(),
    })
    .optional(),
  max_page_limit: int(1, 10000, MESSAGES.maxPageLimit).optional(),
  // Forwarding (issue #13): whether requests of this partner addressed to another partner's party are forwarded.
  forward: z
    .union([z.boolean(), z.array(str(/^[A-Za-z0-9_.-]{1,64}$/, MESSAGES.partnerId)).superRefine(uniqueItems("partner"))], {
      error: msg("must be true, false or a list of partner ids"),
    })
    .optional(),
  push: z
    .strictObject({
      base_delay_ms: int(1, 86_400_000, MESSAGES.pushDelay).optional(),
      max_delay_ms: int(1, 86_400_000, MESSAGES.pushDelay).optional(),
      backlog_window_ms: int(1, 2_592_000_000, MESSAGES.pushWindow).optional(),
      concurrency: int(1, 256, MESSAGES.pushConcurrency).optional(),
    })
    .optional(),
});
