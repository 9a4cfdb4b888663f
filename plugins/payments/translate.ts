import type { z } from "zod";
import { defineObjectType } from "../../core/model/object-type";
import { type TranslationContext, type TranslationLoss } from "../../core/contract/object-type";
import { priceDown, priceUp, type Price, type Price22 } from "../../core/model/price";
import type { VersionNumber } from "../../core/protocol/types";
import type { FinancialAdviceConfirmation, Terminal, TerminalActivation, TerminalAssignment } from "./model";
import { financialAdviceConfirmationSchema, terminalAssignmentSchema, terminalSchema, type TerminalForm } from "./schemas";

/**
 * Payments objects across versions. The module is 2.3.0's; 2.2.1 partners
 * on the direct-payment extension use the same objects with the 2.2.1 Price
 * (`excl_vat`/`incl_vat`) for `total_costs`, the shape the spec's own FAC
 * examples use (OCPI 2.3.0 Payments module, "spec inconsistency"). 2.1.1 is not
 * served (PaymentsPlugin.versions); its schema entry only completes the record.
 */

type Wire = Record<string, unknown>;

export const PAYMENTS_TRANSLATION_LOSSES: readonly TranslationLoss[] = [
  {
    object: "FinancialAdviceConfirmation",
    field: "total_costs.taxes",
    versions: ["2.2.1"],
    why: "2.2.1 Price has only incl_vat: tax names, rates and accounts are summed away",
  },
];

const perVersion = (schema: (version: "2.3.0" | "2.2.1") => z.ZodType): Record<VersionNumber, z.ZodType> => ({
  "2.3.0": schema("2.3.0"),
  "2.2.1": schema("2.2.1"),
  "2.1.1": schema("2.2.1"),
});

const same = <T>() => ({ up: (wire: unknown) => wire as T, down: (object: T) => object });

const terminalType = <T>(name: string, form: TerminalForm) =>
  defineObjectType<T>({
    name,
    schemas: perVersion((v) => terminalSchema(v, form)),
    translators: { "2.2.1": same<T>(), "2.1.1": same<T>() },
  });

/** A whole Terminal: GET answers, pushes to the CPO, sync pulls. */
export const terminalObjectType = terminalType<Terminal>("Terminal", "object");
/** A Terminal the PTP creates at the CPO (POST {terminals}); last_updated may be left out. */
export const createdTerminalObjectType = terminalType<Terminal>("Terminal", "created");
/** A Terminal the CPO sends in a PUT; its id comes from the path. */
export const terminalUpdateObjectType = terminalType<Partial<Terminal>>("Terminal", "update");
/** `POST {terminals}/activate`: a Terminal with an optional terminal_id. */
export const terminalActivationObjectType = terminalType<TerminalActivation>("Terminal", "activation");

export const terminalAssignmentObjectType = defineObjectType<TerminalAssignment>({
  name: "TerminalAssignment",
  schemas: perVersion(() => terminalAssignmentSchema()),
  translators: { "2.2.1": same<TerminalAssignment>(), "2.1.1": same<TerminalAssignment>() },
});

const facUp = (wire: Wire): FinancialAdviceConfirmation =>
  (wire.total_costs === undefined ? wire : { ...wire, total_costs: priceUp(wire.total_costs as Price22) }) as FinancialAdviceConfirmation;

const facDown = (fac: FinancialAdviceConfirmation, tx: TranslationContext): Wire =>
  fac.total_costs === undefined ? fac : { ...fac, total_costs: priceDown(fac.total_costs as Price, tx, "total_costs") };

export const facObjectType = defineObjectType<FinancialAdviceConfirmation>({
  name: "FinancialAdviceConfirmation",
  schemas: perVersion(financialAdviceConfirmationSchema),
  translators: { "2.2.1": { up: facUp, down: facDown }, "2.1.1": { up: facUp, down: facDown } },
});
