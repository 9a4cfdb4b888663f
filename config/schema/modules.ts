/** The `modules` section: which adapter serves a module, for which roles and parties. */
import { z } from "zod";
import { INTERFACE_ROLES } from "../../core/protocol/vocabulary";
import { MESSAGES } from "../schema-messages";
import { msg, MODULE_ID_RE, PARTY_REF_RE, str, uniqueItems } from "./blocks";

/** A module id as a key (`modules`, `partners[].sync`, `cache.ttl_seconds`). */
export const moduleIdKey = z.string().regex(MODULE_ID_RE, { error: MESSAGES.moduleId });

const modulePartyRouteSchema = z.strictObject({
  party: str(PARTY_REF_RE, MESSAGES.partyRef),
  adapter: z.string({ error: msg(MESSAGES.adapterRef) }).min(1, { error: MESSAGES.adapterRef }),
});

export const moduleRouteSchema = z.strictObject({
  adapter: z.string({ error: msg(MESSAGES.adapterRef) }).min(1, { error: MESSAGES.adapterRef }),
  roles: z
    .array(z.enum(INTERFACE_ROLES, { error: msg(MESSAGES.interfaceRole) }))
    .min(1, { error: "must list at least one role (or be left out to serve every role)" })
    .superRefine(uniqueItems("role"))
    .optional(),
  // A plain party is served by `adapter`; `{ party, adapter }` sends that party's part of the module to another adapter.
  parties: z
    .array(z.union([str(PARTY_REF_RE, MESSAGES.partyRef), modulePartyRouteSchema], { error: msg(MESSAGES.modulePartyRoute) }))
    .min(1, { error: "must list at least one party (or be left out to serve all parties)" })
    .superRefine((items, ctx) => uniqueItems("party")(items.map((item) => (typeof item === "string" ? item : item.party)), ctx))
    .optional(),
});
