import type { PushSpec } from "../../core/push/push-spec";
import type { DataChange } from "../../core/events/change-feed";
import { connectorType, evseType, locationType } from "./translate";

/** Fields of an EVSE status update: a PATCH setting only these supersedes the waiting one before it. */
const STATUS_FIELDS = new Set(["status", "last_updated"]);

const isStatusPatch = (change: DataChange): boolean =>
  change.kind === "patch" && change.path.length === 2 && Object.keys(change.object ?? {}).every((field) => STATUS_FIELDS.has(field));

/**
 * Our Locations, EVSEs and Connectors to partners' Receivers: PUT a whole
 * object, PATCH a fragment (Locations are never deleted; a removed EVSE
 * is PUT with status REMOVED). Repeated EVSE status changes collapse.
 */
export const LOCATIONS_PUSH: PushSpec = {
  objectTypes: [locationType, evseType, connectorType],
  idFields: ["id", "uid", "id"],
  methods: { upsert: "PUT", patch: "PATCH" },
  collapse: (change) => (isStatusPatch(change) ? "status" : undefined),
  resync: true,
};
