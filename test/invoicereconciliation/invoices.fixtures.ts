import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import pino from "pino";
import request from "supertest";
import { Gateway } from "../../app/gateway";
import type { InterfaceRole, PartyRef, Role, VersionNumber } from "../../core/protocol/types";
import { tempDir, testGatewayConfig, type PartnerSpec } from "../support/gateway-config";
import { cdrOf } from "../support/ocpi-objects";

export type Json = Record<string, any>;

/**
 * One gateway (our party NL/GWY, a CPO) serving invoicereconciliation and cdrs on `local`, with partners
 * registered in-process the way a credentials exchange leaves them (as test/support/module-harness.ts does):
 * emsp-a (DE/AAA) and emsp-b (FR/BBB) on 2.3.0, old (IT/OLD) on 2.2.1, and without-ir (BE/NIR) on 2.3.0 but
 * not offered the module (`partners[].modules`). Its store is seeded with CDRs the records name: ours and
 * DE/AAA's.
 */

export const OURS: PartyRef = { country_code: "NL", party_id: "GWY" };
export const AAA: PartyRef = { country_code: "DE", party_id: "AAA" };
export const ADMIN = "admin-token-for-invoices-0123";

const at = (minute: number) => `2025-03-01T10:${String(minute).padStart(2, "0")}:00Z`;
const cdr = (owner: PartyRef, id: string, extra: Json = {}): Json => ({ ...cdrOf({ owner, id, start: at(0), end: at(30), kwh: 10, cost: 4 }), ...extra });

/** Ours: CDR-1, CDR-2, CDR-2-C crediting CDR-2, CDR-X-C crediting a CDR nobody knows; DE/AAA's: A-CDR-1. */
export const SEEDED_CDRS: Json[] = [
  cdr(OURS, "CDR-1"),
  cdr(OURS, "CDR-2"),
  cdr(OURS, "CDR-2-C", { credit: true, credit_reference_id: "CDR-2", total_cost: { before_taxes: -4 } }),
  cdr(OURS, "CDR-X-C", { credit: true, credit_reference_id: "CDR-GONE", total_cost: { before_taxes: -4 } }),
  cdr(AAA, "A-CDR-1"),
];

interface PartnerEntry {
  id: string;
  party: PartyRef & { role: Role };
  version: VersionNumber;
  config?: Partial<PartnerSpec>;
}

const PARTNERS: PartnerEntry[] = [
  { id: "emsp-a", party: { ...AAA, role: "EMSP" }, version: "2.3.0" },
  { id: "emsp-b", party: { country_code: "FR", party_id: "BBB", role: "EMSP" }, version: "2.3.0" },
  { id: "old", party: { country_code: "IT", party_id: "OLD", role: "EMSP" }, version: "2.2.1" },
  { id: "without-ir", party: { country_code: "BE", party_id: "NIR", role: "EMSP" }, version: "2.3.0", config: { modules: ["cdrs"] } },
];

export interface InvoiceWorld {
  gateway: Gateway;
  http: ReturnType<typeof request>;
  /** Authorization header of each partner, by id */
  auth: Record<string, string>;
  close(): Promise<void>;
}

export const startInvoiceWorld = async (roles?: InterfaceRole[]): Promise<InvoiceWorld> => {
  const dir = tempDir("ocpi-invoices-");
  const seed = path.join(dir, "seed.json");
  fs.writeFileSync(seed, JSON.stringify({ cdrs: SEEDED_CDRS }));
  const config = testGatewayConfig({
    port: 9,
    party: { ...OURS, role: "CPO" },
    modules: { invoicereconciliation: { adapter: "local", ...(roles ? { roles } : {}) }, cdrs: { adapter: "local" } },
    adapters: { local: { seed } },
    server: { admin_token: ADMIN },
    partners: PARTNERS.map((p) => ({ id: p.id, ...p.config })),
  });
  const gateway = await Gateway.create(config, { logger: pino({ level: "silent" }) });
  const auth: Record<string, string> = {};
  for (const partner of PARTNERS) {
    const token = await gateway.registry.issueToken(partner.id);
    await gateway.registry.recordRegistration(partner.id, {
      version: partner.version,
      versionsUrl: "http://127.0.0.1:9/versions",
      endpoints: [],
      roles: [{ ...partner.party, business_details: { name: partner.id } }],
      tokenToPartner: `unused-token-to-${partner.id}`,
    });
    auth[partner.id] = `Token ${Buffer.from(token).toString("base64")}`;
  }
  return { gateway, http: request(gateway.app.callback()), auth, close: () => gateway.close() };
};

/** A record of `owner` as a partner's Receiver takes it. */
export const recordOf = (owner: PartyRef, id: string, invoiceId: string, cdrs: string[], lastUpdated = "2025-03-02T08:00:00Z"): Json => ({
  ...owner,
  id,
  invoice_id: invoiceId,
  cdrs,
  last_updated: lastUpdated,
});

export const RECEIVER = "/ocpi/2.3.0/receiver/invoicereconciliation";
export const SENDER = "/ocpi/2.3.0/sender/invoicereconciliation";
