import { createHash } from "node:crypto";
import { ciKey } from "../kit";
import type { Token } from "./ocpi";
import { partyKey, type PartyRef } from "../kit";
import { getJson, setJson, type KeyValue, type SteveLog } from "./contracts";
import type { SteveRest } from "./rest/client";
import type { TagOwners } from "./tag-owners";

/**
 * Tokens of partners' eMSPs as SteVe `ocpp_tag`s (docs/steve.md, "Tokens and idTags").
 *
 * - idTag: the token's uid when SteVe takes it (≤20 characters of
 *   [a-zA-Z0-9.:_#-], the OCPP 1.6 idTag limit its API enforces) and no other
 *   token holds it; else an alias `#` + 19 hex digits of a hash of
 *   (owner, type, uid), stable so it survives a lost alias table.
 * - The registry (KeyValue) keeps, per idTag, which party owns it and the
 *   token's uid/type/contract_id, so Sessions and CDRs carry the eMSP's
 *   cdr_token and reach only that partner.
 * - valid=false blocks the tag (maxActiveTransactionCount 0, reversible);
 *   whitelist NEVER is not provisioned when pushed (SteVe cannot ask the eMSP
 *   at a swipe), only just in time by a START_SESSION/RESERVE_NOW.
 * - Commands with a token nobody pushed follow `unknown_tags`: allow
 *   (provision it), deny (REJECTED), ask_emsp (the eMSP's real-time
 *   authorization, through `askEmsp`, decides).
 */

export type UnknownTagPolicy = "allow" | "deny" | "ask_emsp";

/** The token's owner's real-time authorization (POST tokens/{uid}/authorize), provided by the wiring. */
export type AskEmsp = (owner: PartyRef, token: Pick<Token, "uid" | "type">) => Promise<"ALLOWED" | "BLOCKED" | "EXPIRED" | "NO_CREDIT" | "NOT_ALLOWED">;

export interface TagRecord {
  idTag: string;
  owner: PartyRef;
  uid: string;
  type: string;
  contract_id: string;
  valid: boolean;
  whitelist: string;
}

export type TagDecision = { allowed: true; idTag: string } | { allowed: false; reason: string };

export const STEVE_ID_TAG = /^[a-zA-Z0-9.:_#-]{1,20}$/;
const NOTE_PREFIX = "OCPI token of";

const recordKey = (idTag: string) => `steve:tag:${idTag}`;
/** uid is a CiString: one idTag per token whatever the letter case it is pushed or commanded in. */
const identityKey = (owner: PartyRef, uid: string, type: string) => `steve:tag-id:${partyKey(owner)}:${type}:${ciKey(uid)}`;
/** where a gateway before that kept it: the uid as first pushed */
const spelledIdentityKey = (owner: PartyRef, uid: string, type: string) => `steve:tag-id:${partyKey(owner)}:${type}:${uid}`;

export const aliasOf = (owner: PartyRef, uid: string, type: string): string =>
  `#${createHash("sha256").update(`${partyKey(owner)}\u0000${type}\u0000${uid}`).digest("hex").slice(0, 19)}`;

export interface SteveTagsOptions {
  rest: SteveRest;
  kv: KeyValue;
  log: SteveLog;
  policy: UnknownTagPolicy;
  askEmsp?: AskEmsp;
  /** the owner index the Sessions and CDRs lists filter by (absent where nothing lists them) */
  owners?: TagOwners;
}

export class SteveTags {
  constructor(private readonly o: SteveTagsOptions) {}

  /** The idTag of a token in SteVe, allocated (and remembered) on first use. */
  async idTagFor(owner: PartyRef, uid: string, type: string): Promise<string> {
    const known = await this.knownIdTag(owner, uid, type);
    if (known) return known;
    const holder = STEVE_ID_TAG.test(uid) ? await getJson<TagRecord>(this.o.kv, recordKey(uid)) : undefined;
    const taken = holder && !(partyKey(holder.owner) === partyKey(owner) && holder.type === type && ciKey(holder.uid) === ciKey(uid));
    const idTag = STEVE_ID_TAG.test(uid) && !taken ? uid : aliasOf(owner, uid, type);
    await this.o.kv.set(identityKey(owner, uid, type), idTag);
    return idTag;
  }

  /** Who owns an idTag SteVe reports (transaction_start.id_tag): undefined for our own local cards. */
  ownerOf(idTag: string): Promise<TagRecord | undefined> {
    return getJson<TagRecord>(this.o.kv, recordKey(idTag));
  }

  async get(owner: PartyRef, uid: string, type: string): Promise<TagRecord | undefined> {
    const idTag = await this.knownIdTag(owner, uid, type);
    return idTag ? this.ownerOf(idTag) : undefined;
  }

  /** The idTag allocated to a token, in any letter case of its uid (also one kept under its first spelling). */
  private async knownIdTag(owner: PartyRef, uid: string, type: string): Promise<string | undefined> {
    const known = await this.o.kv.get(identityKey(owner, uid, type));
    if (known) return known;
    const spelled = await this.o.kv.get(spelledIdentityKey(owner, uid, type));
    if (spelled) await this.o.kv.set(identityKey(owner, uid, type), spelled);
    return spelled;
  }

  /** A token an eMSP pushed (PUT, or the merged result of a PATCH) → its ocpp_tag. Throws when SteVe refuses or is unreachable. */
  async push(owner: PartyRef, token: Token): Promise<TagRecord> {
    const record = await this.remember(owner, token);
    if (token.whitelist === "NEVER") {
      // Not usable by a swipe: block it if it was provisioned before, else leave SteVe without it.
      const existing = await this.o.rest.findTag(record.idTag);
      if (existing && existing.maxActiveTransactionCount !== 0) await this.o.rest.updateTag(existing.ocppTagPk, this.form(record, 0));
      return record;
    }
    await this.provision(record, token.valid ? 1 : 0);
    return record;
  }

  /**
   * START_SESSION / RESERVE_NOW: the idTag to send, with the tag provisioned
   * in SteVe (stations re-authorize the idTag of a RemoteStart with SteVe).
   * Throws a SteveRestError when SteVe cannot be reached.
   */
  async forCommand(token: Token): Promise<TagDecision> {
    const owner = { country_code: token.country_code, party_id: token.party_id };
    const known = await this.get(owner, token.uid, token.type);
    if (known && !known.valid) return { allowed: false, reason: "the token is not valid" };
    if (!known) {
      const denied = await this.unknownDenied(owner, token);
      if (denied) return { allowed: false, reason: denied };
    }
    const record = known ?? (await this.remember(owner, token));
    await this.provision(record, 1);
    return { allowed: true, idTag: record.idTag };
  }

  /** undefined: allowed; else why not */
  private async unknownDenied(owner: PartyRef, token: Token): Promise<string | undefined> {
    if (this.o.policy === "allow") return undefined;
    if (this.o.policy === "deny") return "the token is unknown (unknown_tags: deny)";
    if (!this.o.askEmsp) {
      this.o.log.warn({ policy: "ask_emsp" }, "steve: unknown_tags is ask_emsp but no eMSP authorization is wired; refused");
      return "the token is unknown and could not be authorized";
    }
    try {
      const allowed = await this.o.askEmsp(owner, { uid: token.uid, type: token.type });
      return allowed === "ALLOWED" ? undefined : `the token's eMSP answered ${allowed}`;
    } catch (err) {
      this.o.log.warn({ party: partyKey(owner), err: (err as Error).message }, "steve: real-time authorization of an unknown token failed; refused");
      return "the token is unknown and its eMSP could not be asked";
    }
  }

  private async remember(owner: PartyRef, token: Token): Promise<TagRecord> {
    const record: TagRecord = {
      idTag: await this.idTagFor(owner, token.uid, token.type),
      owner: { country_code: owner.country_code, party_id: owner.party_id },
      uid: token.uid,
      type: token.type,
      contract_id: token.contract_id,
      valid: token.valid,
      whitelist: token.whitelist,
    };
    await setJson(this.o.kv, recordKey(record.idTag), record);
    await this.o.owners?.add(record.owner, record.idTag);
    return record;
  }

  private form(record: TagRecord, maxActive: number) {
    return { idTag: record.idTag, maxActiveTransactionCount: maxActive, note: `${NOTE_PREFIX} ${partyKey(record.owner)} (${record.type})` };
  }

  /** Creates the ocpp_tag or brings its block state in line; no call when it already is. */
  private async provision(record: TagRecord, maxActive: number): Promise<void> {
    const existing = await this.o.rest.findTag(record.idTag);
    if (!existing) {
      await this.o.rest.createTag(this.form(record, maxActive));
      return;
    }
    const blocked = existing.maxActiveTransactionCount === 0;
    if (blocked !== (maxActive === 0)) await this.o.rest.updateTag(existing.ocppTagPk, { ...this.form(record, maxActive), note: existing.note ?? this.form(record, maxActive).note });
  }
}
