import type { PushSpec } from "../../core/push/push-spec";
import { tariffType } from "./translate";

/** Our tariffs to partners' Receivers: PUT whole, DELETE when no longer used (2.2+ has no tariff PATCH). */
export const TARIFFS_PUSH: PushSpec = {
  objectTypes: [tariffType],
  idFields: ["id"],
  methods: { upsert: "PUT", delete: "DELETE" },
  resync: true,
};
