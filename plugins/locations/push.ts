import type { DataChange } from "../../core/contract/change-feed";
import type { PortContext } from "../../core/contract/port-context";
import { APPLIED, orUnknownObject, unknownObject, unsupportedChange, type ChangeOutcome, type PushSpec } from "../../core/contract/push-spec";
import type { LocationsReceiverPort, LocationsSenderPort } from "./ports";
import type { Connector, Evse, Location } from "./model";
import { patchConnector, patchEvse, patchLocation, putConnector, putEvse } from "./merge";
import { connectorType, evseType, locationType } from "./translate";
import { isPublished, publishedPage } from "./published";
import { updateStored } from "../../core/modules/update-stored";

/** Fields of an EVSE status update: a PATCH setting only these supersedes the waiting one before it. */
const STATUS_FIELDS = new Set(["status", "last_updated"]);

const isStatusPatch = (change: DataChange): boolean =>
  change.kind === "patch" && change.path.length === 2 && Object.keys(change.object ?? {}).every((field) => STATUS_FIELDS.has(field));

/**
 * Our Locations, EVSEs and Connectors to partners' Receivers: PUT a whole
 * object, PATCH a fragment (Locations are never deleted; a removed EVSE
 * is PUT with status REMOVED). Repeated EVSE status changes collapse.
 */
export const LOCATIONS_PUSH: PushSpec<LocationsReceiverPort, LocationsSenderPort> = {
  objectTypes: [locationType, evseType, connectorType],
  idFields: ["id", "uid", "id"],
  methods: { upsert: "PUT", patch: "PATCH" },
  collapse: (change) => (isStatusPatch(change) ? "status" : undefined),
  resync: true,
  resyncPage: publishedPage,
  apply: (receiver, change, ctx) => applyLocationChange(receiver, change, ctx),
};

/**
 * A change of our own Location, EVSE or Connector, stored with the merge and
 * last_updated rules of a partner's push. A change to an unpublished
 * Location is marked withheld: it is for the token owners in
 * publish_allowed_to only, which the gateway cannot address one by one.
 */
const applyLocationChange = async (receiver: LocationsReceiverPort, c: DataChange, ctx: PortContext): Promise<ChangeOutcome> => {
  const [locationId, evseUid, connectorId] = c.path;
  const object = c.object ?? {};
  const stamp = String(object.last_updated);
  const update = (apply: (current: Location) => Location) =>
    orUnknownObject(async () => {
      const stored = await updateStored(receiver, c.owner, locationId, apply, ctx);
      if (!stored) return unknownObject(`Location ${locationId}`);
      c.withheld = !isPublished(stored);
      return APPLIED;
    });
  switch (`${c.kind}/${c.path.length}`) {
    case "upsert/1":
      await receiver.put(c.owner, object as unknown as Location, ctx);
      c.withheld = !isPublished(object as unknown as Location);
      return APPLIED;
    case "patch/1":
      return update((current) => patchLocation(current, object as Partial<Location>, stamp));
    case "upsert/2":
      return update((current) => putEvse(current, object as unknown as Evse).location);
    case "patch/2":
      return update((current) => patchEvse(current, evseUid, object as Partial<Evse>, stamp));
    case "upsert/3":
      return update((current) => putConnector(current, evseUid, object as unknown as Connector).location);
    case "patch/3":
      return update((current) => patchConnector(current, evseUid, connectorId, object as Partial<Connector>, stamp));
    default:
      return unsupportedChange(c);
  }
};
