import { defaultTarget, type PushSpec } from "../../core/push/push-spec";
import { silentTranslation } from "../../core/model/object-type";
import { DEFAULT_TOKEN_TYPE, type Token, type TokenType } from "./model";
import { tokenObjectType } from "./translate";

/** The type of a change's token: a PATCH names it when it is not RFID, as the receiver's `?type=` does. */
const typeOf = (object: Record<string, unknown> | undefined): TokenType => (object?.type as TokenType | undefined) ?? DEFAULT_TOKEN_TYPE;

/**
 * Our tokens to partners' Receivers: PUT whole, PATCH a fragment; the path
 * is the uid, `?type=` the partner version's TokenType (2.1.1 receiver URLs
 * carry none).
 */
export const TOKENS_PUSH: PushSpec = {
  objectTypes: [tokenObjectType],
  idFields: ["uid"],
  methods: { upsert: "PUT", patch: "PATCH" },
  target: (change, version) => {
    if (version === "2.1.1") return defaultTarget(change);
    const wire = tokenObjectType.down({ type: typeOf(change.object) } as Token, version, silentTranslation()) as Token;
    return { ...defaultTarget(change), query: { type: wire.type } };
  },
  resync: true,
};
