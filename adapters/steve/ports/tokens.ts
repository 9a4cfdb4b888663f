import { ciKey, partyKey, type PartyRef, type Store, type Token, type TokenRef, type TokensReceiverPort } from "../../kit";
import { STEVE_COLLECTION } from "../store-kv";
import type { SteveTags } from "../tags";
import { fromRest } from "../unavailable";

/** uid is a CiString: one spelling per token. */
const tokenKey = (owner: PartyRef, ref: TokenRef) => `token:${partyKey(owner)}:${ref.type}:${ciKey(ref.uid)}`;

/**
 * Tokens eMSPs push: an ocpp_tag in SteVe through its REST API (tags.ts),
 * and the whole OCPI token in the gateway's store, which SteVe cannot hold
 * (GET answers from it). A PATCH is the plugin's get → merge → put, which
 * provisions the tag again (its block state follows `valid`). SteVe down:
 * the push answers 503 and nothing is stored, so the eMSP retries.
 */
export const tokensReceiver = (tags: SteveTags, store: Store): TokensReceiverPort => ({
  get: (owner, ref) => store.get<Token>(STEVE_COLLECTION, tokenKey(owner, ref)),
  async put(owner, token) {
    await fromRest(() => tags.push(owner, token));
    const key = tokenKey(owner, token);
    const existed = (await store.get(STEVE_COLLECTION, key)) !== undefined;
    await store.put(STEVE_COLLECTION, key, token);
    return existed ? "updated" : "created";
  },
});
