/** The `audit` section: the CDR audit (README "Auditing CDRs and invoices"). */
import { z } from "zod";
import { DEFAULT_AUDIT_CONFIG } from "../types";
import { decimal, nullAsAbsent } from "./blocks";

const TOLERANCE = "must be an amount from 0 to 1000 (the difference a CDR's totals may have from the re-priced ones)";

export const auditSchema = nullAsAbsent(
  z
    .strictObject({
      tolerance: decimal(0, 1000, TOLERANCE).default(DEFAULT_AUDIT_CONFIG.tolerance),
      tolerance_by_currency: nullAsAbsent(
        // keyed by the currency as CDRs carry it (ISO 4217, e.g. EUR)
        z.record(z.string(), decimal(0, 1000, TOLERANCE)).default({}),
      ),
    })
    .prefault({}),
);
