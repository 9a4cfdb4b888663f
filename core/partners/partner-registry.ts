import type { GatewayConfig, PartnerConfig } from "../../config/types";
import type { Store } from "../store/port";
import type { PartnerIdentity } from "../context";
import type { CredentialsRole, Endpoint, VersionNumber } from "../protocol/types";
import { SUPPORTED_VERSIONS } from "../protocol/types";
import { PARTNERS, TOKEN_INDEX, newPartnerRecord, type PartnerRecord, type TokenIndexEntry } from "./partner-record";
import { generateToken, hashToken, readAuthorization, sameHash } from "./token-vault";

/** Settings for a partner that was added with `partners add` and has no entry in the YAML. */
export const defaultPartnerConfig = (id: string): PartnerConfig => ({
  id,
  versions: [...SUPPORTED_VERSIONS],
  token_encoding: "auto",
  header_prefix: "OCPI",
  strictness: "reject",
  callback_hosts: [],
});

export interface RegistrationResult {
  version: VersionNumber;
  versionsUrl: string;
  endpoints: Endpoint[];
  roles: CredentialsRole[];
  hubPartyId?: string;
  tokenToPartner: string;
}

/**
 * Partners: their YAML settings joined with what the store remembers of
 * their registration, and the tokens that authenticate them. The store is
 * read on every request (no cache) so a CLI process registering a partner
 * and the serving process always agree.
 */
export class PartnerRegistry {
  constructor(
    private readonly config: GatewayConfig,
    private readonly store: Store,
  ) {}

  /** Makes every configured token A usable, unless a registration already used it up. */
  async init(): Promise<void> {
    for (const partner of this.config.partners) {
      if (!partner.token_a) {
        await this.store.putIfAbsent(PARTNERS, partner.id, newPartnerRecord(partner.id));
        continue;
      }
      const hash = hashToken(partner.token_a);
      const record = await this.store.update<PartnerRecord>(PARTNERS, partner.id, (current) => {
        const record = current ?? newPartnerRecord(partner.id);
        // A token A that differs from the one remembered was handed over anew by the operator.
        if (record.tokenAHash === hash) return current ? undefined : { value: record };
        return { value: { ...record, tokenAHash: hash, tokenAConsumed: false, updatedAt: now() } };
      });
      if (record && !record.tokenAConsumed) await this.index(hash, { partnerId: partner.id, kind: "token_a" });
    }
  }

  configOf(id: string): PartnerConfig {
    return this.config.partners.find((p) => p.id === id) ?? defaultPartnerConfig(id);
  }

  async get(id: string): Promise<PartnerRecord | undefined> {
    return this.store.get<PartnerRecord>(PARTNERS, id);
  }

  async require(id: string): Promise<PartnerRecord> {
    const record = await this.get(id);
    if (!record) throw new Error(`Unknown partner ${id}`);
    return record;
  }

  async list(): Promise<PartnerRecord[]> {
    const page = await this.store.range<PartnerRecord>(PARTNERS, { offset: 0, limit: 100_000 });
    return page.items;
  }

  /** Creates a partner that is not in the YAML and returns its fresh token A, for the offline hand-over. */
  async add(id: string): Promise<string> {
    const tokenA = generateToken();
    const hash = hashToken(tokenA);
    const created = await this.store.putIfAbsent(PARTNERS, id, { ...newPartnerRecord(id), tokenAHash: hash });
    if (!created) throw new Error(`Partner ${id} already exists`);
    await this.index(hash, { partnerId: id, kind: "token_a" });
    return tokenA;
  }

  /** Who sent this Authorization header, if anyone we know. */
  async authenticate(header: string | undefined): Promise<PartnerIdentity | undefined> {
    for (const candidate of readAuthorization(header)) {
      const hash = hashToken(candidate.value);
      const entry = await this.store.get<TokenIndexEntry>(TOKEN_INDEX, hash);
      if (!entry || (entry.expiresAt !== undefined && entry.expiresAt <= Date.now())) continue;
      const config = this.configOf(entry.partnerId);
      if (config.token_encoding !== "auto" && config.token_encoding !== candidate.encoding) continue;
      const record = await this.get(entry.partnerId);
      if (!record) continue;
      const via = this.tokenKind(record, entry, hash);
      if (via) return { id: record.id, config, record, via, token: candidate.value };
    }
    return undefined;
  }

  private tokenKind(record: PartnerRecord, entry: TokenIndexEntry, hash: string): PartnerIdentity["via"] | undefined {
    switch (entry.kind) {
      case "token_a":
        return !record.tokenAConsumed && record.tokenAHash && sameHash(record.tokenAHash, hash) ? "bootstrap" : undefined;
      case "current":
        // Token B works on versions while we initiate a registration, before the partner has answered.
        if (!record.issuedTokenHash || !sameHash(record.issuedTokenHash, hash)) return undefined;
        return record.status === "registered" ? "registered" : "bootstrap";
      case "previous":
        return record.status === "registered" &&
          record.previousTokenHash &&
          sameHash(record.previousTokenHash, hash) &&
          (record.previousTokenExpiresAt ?? 0) > Date.now()
          ? "registered"
          : undefined;
    }
  }

  /**
   * Generates the token the partner will present to us from now on. The one
   * it replaces keeps working for `server.token_grace_seconds`, or, when we
   * initiate the rotation (`holdPrevious`), until `settleRotation` is called
   * after the partner has confirmed it: a failed PUT must not lock it out.
   */
  async issueToken(id: string, options: { holdPrevious?: boolean } = {}): Promise<string> {
    const token = generateToken();
    const hash = hashToken(token);
    await this.index(hash, { partnerId: id, kind: "current" });
    const holdMs = options.holdPrevious ? PENDING_ROTATION_MS : this.config.server.token_grace_seconds * 1000;
    let replaced: string | undefined;
    await this.store.update<PartnerRecord>(PARTNERS, id, (current) => {
      const record = current ?? newPartnerRecord(id);
      replaced = record.issuedTokenHash;
      const keep = holdMs > 0 && replaced !== undefined;
      return {
        value: {
          ...record,
          issuedTokenHash: hash,
          previousTokenHash: keep ? replaced : undefined,
          previousTokenExpiresAt: keep ? Date.now() + holdMs : undefined,
          updatedAt: now(),
        },
      };
    });
    if (replaced) {
      if (holdMs > 0) await this.index(replaced, { partnerId: id, kind: "previous", expiresAt: Date.now() + holdMs });
      else await this.store.delete(TOKEN_INDEX, replaced);
    }
    return token;
  }

  /** Ends a rotation we initiated: the previous token now gets only the configured grace period. */
  async settleRotation(id: string): Promise<void> {
    const graceMs = this.config.server.token_grace_seconds * 1000;
    let previous: string | undefined;
    await this.store.update<PartnerRecord>(PARTNERS, id, (current) => {
      if (!current?.previousTokenHash) return undefined;
      previous = current.previousTokenHash;
      const keep = graceMs > 0;
      return {
        value: {
          ...current,
          previousTokenHash: keep ? previous : undefined,
          previousTokenExpiresAt: keep ? Date.now() + graceMs : undefined,
        },
      };
    });
    if (!previous) return;
    if (graceMs > 0) await this.index(previous, { partnerId: id, kind: "previous", expiresAt: Date.now() + graceMs });
    else await this.store.delete(TOKEN_INDEX, previous);
  }

  /** Stores the outcome of a credentials exchange and retires token A. */
  async recordRegistration(id: string, result: RegistrationResult): Promise<PartnerRecord> {
    const record = await this.store.update<PartnerRecord>(PARTNERS, id, (current) => ({
      value: {
        ...(current ?? newPartnerRecord(id)),
        status: "registered",
        tokenAConsumed: true,
        version: result.version,
        versionsUrl: result.versionsUrl,
        endpoints: result.endpoints,
        roles: result.roles,
        hubPartyId: result.hubPartyId,
        tokenToPartner: result.tokenToPartner,
        registeredAt: current?.registeredAt ?? now(),
        updatedAt: now(),
      },
    }));
    if (record?.tokenAHash) await this.store.delete(TOKEN_INDEX, record.tokenAHash);
    return record!;
  }

  /** Both directions of automated communication end; every token of the partner stops working. */
  async unregister(id: string): Promise<void> {
    let hashes: (string | undefined)[] = [];
    await this.store.update<PartnerRecord>(PARTNERS, id, (current) => {
      if (!current) return undefined;
      hashes = [current.issuedTokenHash, current.previousTokenHash];
      return {
        value: {
          ...current,
          status: "unregistered",
          tokenToPartner: undefined,
          issuedTokenHash: undefined,
          previousTokenHash: undefined,
          previousTokenExpiresAt: undefined,
          endpoints: [],
          updatedAt: now(),
        },
      };
    });
    for (const hash of hashes) if (hash) await this.store.delete(TOKEN_INDEX, hash);
  }

  private async index(hash: string, entry: TokenIndexEntry): Promise<void> {
    await this.store.put(TOKEN_INDEX, hash, entry);
  }
}

const now = (): string => new Date().toISOString();

/** How long a token we are rotating away from stays valid while the partner has not confirmed the new one. */
const PENDING_ROTATION_MS = 60 * 60 * 1000;
