import { z } from "zod";

/**
 * The TMS v1 objects as its API sends them (docs/tms-v1.md, "Objects and
 * their mapping"): timestamps in epoch milliseconds, money in minor units
 * of its currency incl. VAT. The schemas are what the client checks every
 * answer against before anything maps it: an answer of another shape
 * counts as the system failing (docs/tms-v1.md, "Errors and how they are
 * answered"), never as a crash. Fields the adapter does not use are let
 * through unread; `state` and `model` are read but not mapped, so any
 * string is taken.
 */

const epochMs = z.number().int().nonnegative();
const text = z.string();
const nullableText = z.string().nullable();

export const tmsOperatorSchema = z.object({ country: text, party: text });
export type TmsOperator = z.infer<typeof tmsOperatorSchema>;

export const tmsSiteSchema = z.object({
  street: text,
  city: text,
  zip: nullableText.optional(),
  region: nullableText.optional(),
  country_iso3: text,
  lat: z.number(),
  lon: z.number(),
});
export type TmsSite = z.infer<typeof tmsSiteSchema>;

export const tmsReceiptsSchema = z.object({ issuer: z.enum(["operator", "terminal"]), base_url: nullableText });
export type TmsReceipts = z.infer<typeof tmsReceiptsSchema>;

export const tmsAssignmentSchema = z.object({ sites: z.array(text), points: z.array(text) });
export type TmsAssignment = z.infer<typeof tmsAssignmentSchema>;

/** `pending` (shipped), `active`, `inactive`: read, not mapped. */
export type DeviceState = "pending" | "active" | "inactive" | (string & {});

export const deviceSchema = z.object({
  serial: z.string().min(1),
  model: text.optional(),
  state: text as z.ZodType<DeviceState>,
  merchant_ref: nullableText,
  operator: tmsOperatorSchema.nullable(),
  site: tmsSiteSchema.nullable(),
  receipts: tmsReceiptsSchema.nullable(),
  assigned: tmsAssignmentSchema.nullable(),
  updated: epochMs,
});
export type Device = z.infer<typeof deviceSchema>;

/** What `PUT /v1/devices/{serial}` replaces. */
export type DeviceUpdate = Pick<Device, "merchant_ref" | "operator" | "site" | "receipts" | "assigned">;

export interface ActivationRequest {
  serial?: string;
  merchant_ref?: string;
  operator?: TmsOperator;
  site?: TmsSite;
}

export const settlementSchema = z.object({
  settlement_id: z.string().min(1),
  auth_ref: text,
  amount_minor: z.number().int(),
  vat_minor: z.number().int(),
  vat_rate: z.number(),
  /** ISO 4217 alphabetic code: it decides the minor unit (mapping.ts) */
  currency: z.string().regex(/^[A-Z]{3}$/),
  outcome: z.enum(["captured", "partial", "declined"]),
  outcome_text: nullableText,
  receipt_lines: z.array(text),
  updated: epochMs,
});
export type Settlement = z.infer<typeof settlementSchema>;

export const tmsPageSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: nullableText.optional() });
export interface TmsPage<T> {
  items: T[];
  next_cursor?: string | null;
}

/** The body of the system's error answers; `field`, when present, names what it refused in our request (a dotted path). */
export const tmsErrorSchema = z.object({ error: text.optional(), message: text.optional(), field: text.optional() });
export type TmsErrorBody = z.infer<typeof tmsErrorSchema>;

export interface WebhookEvent {
  event: "device.updated" | "settlement.created";
  id: string;
  at: number;
}
