import type { PushSpec } from "../../core/push/push-spec";
import { cdrType } from "./translate";

/**
 * Our CDRs to partners' Receivers: POST to the module URL, delivered at
 * least once (the receiver answers an identical re-POST with success), so
 * never dropped and never part of a resync.
 */
export const CDRS_PUSH: PushSpec = {
  objectTypes: [cdrType],
  idFields: ["id"],
  methods: { upsert: "POST" },
  target: () => ({ path: "" }),
  essential: () => true,
  resync: false,
};
