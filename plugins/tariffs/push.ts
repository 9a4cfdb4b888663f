import { APPLIED, unknownObject, unsupportedChange, type PushSpec } from "../../core/contract/push-spec";
import type { TariffsReceiverPort } from "./ports";
import type { Tariff } from "./model";
import { tariffType } from "./translate";

/** Our tariffs to partners' Receivers: PUT whole, DELETE when no longer used (2.2+ has no tariff PATCH). */
export const TARIFFS_PUSH: PushSpec<TariffsReceiverPort> = {
  objectTypes: [tariffType],
  idFields: ["id"],
  methods: { upsert: "PUT", delete: "DELETE" },
  resync: true,
  async apply(receiver, change, ctx) {
    const [id] = change.path;
    if (change.kind === "upsert") {
      await receiver.put(change.owner, change.object as unknown as Tariff, ctx);
      return APPLIED;
    }
    if (change.kind === "delete") return (await receiver.delete(change.owner, id, ctx)) ? APPLIED : unknownObject(`Tariff ${id}`);
    return unsupportedChange(change);
  },
};
