import { APPLIED, defaultTarget, unknownObject, unsupportedChange, type PushSpec } from "../../core/contract/push-spec";
import { silentTranslation } from "../../core/model/object-type";
import type { TokensReceiverPort } from "./ports";
import { DEFAULT_TOKEN_TYPE, type Token, type TokenType } from "./model";
import { tokenObjectType } from "./translate";
import { TOKEN_CHANGES, patchedToken } from "./patch";
import { updateStored } from "../../core/modules/update-stored";
import { checkChanged } from "../../core/modules/receiver-writes";

/** The type of a change's token: a PATCH names it when it is not RFID, as the receiver's `?type=` does. */
const typeOf = (object: Record<string, unknown> | undefined): TokenType => (object?.type as TokenType | undefined) ?? DEFAULT_TOKEN_TYPE;

/**
 * Our tokens to partners' Receivers: PUT whole, PATCH a fragment; the path
 * is the uid, `?type=` the partner version's TokenType (2.1.1 receiver URLs
 * carry none).
 */
export const TOKENS_PUSH: PushSpec<TokensReceiverPort> = {
  objectTypes: [tokenObjectType],
  idFields: ["uid"],
  methods: { upsert: "PUT", patch: "PATCH" },
  target: (change, version) => {
    if (version === "2.1.1") return defaultTarget(change);
    const wire = tokenObjectType.down({ type: typeOf(change.object) } as Token, version, silentTranslation()) as Token;
    return { ...defaultTarget(change), query: { type: wire.type } };
  },
  resync: true,
  async apply(receiver, change, ctx) {
    // a PATCH names the token's type when it is not RFID, as the receiver's ?type= does
    const ref = { uid: change.path[0], type: typeOf(change.object) };
    if (change.kind === "upsert") {
      await receiver.put(change.owner, change.object as unknown as Token, ctx);
      return APPLIED;
    }
    if (change.kind === "patch") {
      // our own backend's change: no partner strictness, an invalid result is refused
      const patch = patchedToken(change.object as Partial<Token>);
      const patched = await updateStored(receiver, change.owner, ref, (current) => checkChanged(TOKEN_CHANGES, patch(current)), ctx);
      return patched ? APPLIED : unknownObject(`Token ${ref.uid}`);
    }
    return unsupportedChange(change);
  },
};
