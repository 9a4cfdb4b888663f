/**
 * zod 4 schema of gateway.config.yaml (after `${ENV}` interpolation), with the
 * defaults filled in: the sections (config/schema/*.ts), the rules across them,
 * and `validateConfigObject`, whose errors are human `path: message` lines
 * (config/issue-format.ts) with the messages of config/schema-messages.ts.
 */
import { z } from "zod";
import type { GatewayConfig } from "./types";
import { formatIssues, humanIssueMessage } from "./issue-format";
import { isObj, readTypedStrings } from "./typed-strings";
import { MESSAGES } from "./schema-messages";
import { msg, nullAsAbsent, PARTY_REF_RE } from "./schema/blocks";
import { cacheSchema } from "./schema/cache";
import { auditSchema } from "./schema/audit";
import { moduleIdKey, moduleRouteSchema } from "./schema/modules";
import { partySchema } from "./schema/parties";
import { partnerSchema } from "./schema/partner";
import { serverSchema } from "./schema/server";
import { storeSchema } from "./schema/store";

export const gatewayConfigSchema = z
  .strictObject({
    server: serverSchema,
    parties: z.array(partySchema).min(1, { error: "must list at least one party (the platform's own identity)" }),
    store: storeSchema,
    modules: nullAsAbsent(z.record(moduleIdKey, moduleRouteSchema).default({})),
    adapters: nullAsAbsent(
      z
        .record(
          z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, { error: MESSAGES.adapterName }),
          z.preprocess((v) => (v === null ? {} : v), z.record(z.string(), z.unknown(), { error: msg(MESSAGES.adapterSettings) })),
        )
        .default({}),
    ),
    partners: nullAsAbsent(z.array(partnerSchema).default([])),
    cache: cacheSchema,
    audit: auditSchema,
  })
  // Cross-field rules. `when` makes them run even when other fields failed, so
  // every problem is reported in one go; the value may be partly invalid here.
  .superRefine(crossFieldChecks, { when: () => true });

export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
export type GatewayConfigOutput = z.output<typeof gatewayConfigSchema>;

// Compile-time proof that the schema output is a GatewayConfig. (It is the same
// shape; only logo.category is narrower: the OCPI ImageCategory values.)
const _outputIsGatewayConfig = (c: GatewayConfigOutput): GatewayConfig => c;
void _outputIsGatewayConfig;

// ---------------------------------------------------------------------------
// Cross-field checks
// ---------------------------------------------------------------------------

function crossFieldChecks(value: unknown, ctx: z.RefinementCtx): void {
  if (!isObj(value)) return;
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: "custom", path, message });

  // parties: role + country_code + party_id unique
  const partyRefs = new Set<string>();
  let partiesUsable = Array.isArray(value.parties) && value.parties.length > 0;
  if (Array.isArray(value.parties)) {
    const seen = new Map<string, number>();
    value.parties.forEach((p, i) => {
      const cc = isObj(p) ? p.country_code : undefined;
      const pid = isObj(p) ? p.party_id : undefined;
      const role = isObj(p) ? p.role : undefined;
      if (typeof cc !== "string" || !/^[A-Z]{2}$/.test(cc) || typeof pid !== "string" || !/^[A-Z0-9]{3}$/.test(pid)) {
        partiesUsable = false;
        return;
      }
      partyRefs.add(cc + pid);
      if (typeof role !== "string") return;
      const key = `${role} ${cc} ${pid}`;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, i);
      else
        issue(
          ["parties", i],
          `duplicate party: role ${role} with country_code ${cc} and party_id ${pid} is already declared at parties[${first}]`,
        );
    });
  }

  // modules.*.parties must name configured parties
  if (partiesUsable && isObj(value.modules)) {
    const declared = [...partyRefs].join(", ");
    for (const [moduleId, route] of Object.entries(value.modules)) {
      if (!isObj(route) || !Array.isArray(route.parties)) continue;
      route.parties.forEach((item, i) => {
        const ref = isObj(item) ? item.party : item;
        const path = isObj(item) ? ["modules", moduleId, "parties", i, "party"] : ["modules", moduleId, "parties", i];
        if (typeof ref === "string" && PARTY_REF_RE.test(ref) && !partyRefs.has(ref)) {
          issue(path, `party ${ref} is not declared in parties (declared: ${declared})`);
        }
      });
    }
  }

  // partners: unique ids, and no two partners sharing a token A
  if (Array.isArray(value.partners)) {
    const ids = new Map<string, number>();
    const tokens = new Map<string, number>();
    value.partners.forEach((p, i) => {
      if (!isObj(p)) return;
      if (typeof p.id === "string" && p.id !== "") {
        const first = ids.get(p.id);
        if (first === undefined) ids.set(p.id, i);
        else issue(["partners", i, "id"], `duplicate partner id "${p.id}" (already used by partners[${first}])`);
      }
      if (typeof p.token_a === "string" && /^[\x21-\x7E]{1,64}$/.test(p.token_a)) {
        const first = tokens.get(p.token_a);
        if (first === undefined) tokens.set(p.token_a, i);
        else issue(["partners", i, "token_a"], `same token as partners[${first}].token_a; every partner needs its own token`);
      }
    });
  }
}

// --- entry point ---------------------------------------------------------------

export type ValidationResult = { ok: true; config: GatewayConfig } | { ok: false; errors: string[] };

/** Validates an already interpolated config object; errors are `path: message` lines. */
export function validateConfigObject(input: unknown): ValidationResult {
  if (input === undefined || input === null) return { ok: false, errors: ["(root): the configuration is empty"] };
  if (!isObj(input)) return { ok: false, errors: ["(root): must be a mapping with the sections server, parties, store, modules, adapters, partners"] };
  const result = gatewayConfigSchema.safeParse(readTypedStrings(gatewayConfigSchema, input), { error: humanIssueMessage });
  if (result.success) return { ok: true, config: result.data };
  return { ok: false, errors: formatIssues(result.error.issues, gatewayConfigSchema, input) };
}
