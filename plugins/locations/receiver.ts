import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { Status } from "../../core/protocol/status";
import { ocpiTimestamp } from "../../core/http/envelope";
import type { PutOutcome } from "../../core/contract/port-context";
import { checkBodyIdentity } from "../../core/modules/receiver-rules";
import { changeStored, patchStored, putWhole, written } from "../../core/modules/receiver-writes";
import { notFound } from "../../core/contract/errors";
import type { Connector, Evse, Location } from "./model";
import type { LocationsReceiverPort } from "./ports";
import { connectorType, evseType, locationType } from "./translate";
import { LOCATION_CHANGES, findConnector, findEvse, patchConnector, patchEvse, patchLocation, putConnector, putEvse } from "./merge";

const LOC = "/:country_code/:party_id/:location_id";
const EVSE = `${LOC}/:evse_uid`;
const CONNECTOR = `${EVSE}/:connector_id`;

/**
 * Receiver interface (eMSP side): Locations pushed by their CPO, with
 * EVSEs and Connectors addressed below them. Pushing an EVSE or Connector
 * into an unknown Location (or a Connector into an unknown EVSE) answers
 * HTTP 404 with 2001, the same as a PATCH of an unknown object: the parent
 * must be PUT first.
 */
export const receiverRoutes = (port: LocationsReceiverPort): RouteSpec[] => {
  const stored = async (req: OcpiRequest): Promise<Location> => {
    const location = await port.get(req.owner!, req.params.location_id, req.port);
    if (!location) throw notFound(`Location ${req.params.location_id}`, Status.UNKNOWN_LOCATION);
    return location;
  };
  const storedEvse = async (req: OcpiRequest): Promise<Evse> => {
    const evse = findEvse(await stored(req), req.params.evse_uid);
    if (!evse) throw notFound(`EVSE ${req.params.evse_uid}`, Status.UNKNOWN_LOCATION);
    return evse;
  };

  /** 404 for a change of an unknown Location: its EVSEs and Connectors are PUT into it once it was PUT. */
  const known = (req: OcpiRequest, location: Location | undefined): void => {
    if (!location) throw notFound(`Location ${req.params.location_id}`, Status.UNKNOWN_LOCATION);
  };

  /** A PATCH at any depth: the fragment's identity against its own path segment, merged into the stored Location. */
  const patch = async (req: OcpiRequest, ids: Record<string, string>, apply: (current: Location, stamp: string) => Location) => {
    const stamp = stampOf(req.body as { last_updated?: string });
    known(req, await patchStored(req, port, req.params.location_id, ids, (current) => apply(current, stamp), LOCATION_CHANGES));
    return written();
  };

  /** A PUT of a child: reports whether it created or replaced the child. */
  const putChild = async (req: OcpiRequest, apply: (current: Location) => { location: Location; outcome: PutOutcome }) => {
    let outcome: PutOutcome = "created";
    const change = (current: Location) => {
      const result = apply(current);
      outcome = result.outcome;
      return result.location;
    };
    known(req, await changeStored(req, port, req.params.location_id, change, LOCATION_CHANGES, "PUT"));
    return written(outcome);
  };

  return [
    { method: "GET", path: LOC, response: locationType, handle: async (req) => ({ data: await stored(req) }) },
    { method: "GET", path: EVSE, response: evseType, handle: async (req) => ({ data: await storedEvse(req) }) },
    {
      method: "GET",
      path: CONNECTOR,
      response: connectorType,
      handle: async (req) => {
        const connector = findConnector(await storedEvse(req), req.params.connector_id);
        if (!connector) throw notFound(`Connector ${req.params.connector_id}`, Status.UNKNOWN_LOCATION);
        return { data: connector };
      },
    },
    {
      method: "PUT",
      path: LOC,
      body: { type: locationType, mode: "full" },
      handle: (req) => putWhole(req, port, { id: req.params.location_id }),
    },
    {
      method: "PUT",
      path: EVSE,
      body: { type: evseType, mode: "full" },
      handle: async (req) => {
        const evse = req.body as Evse;
        checkBodyIdentity(evse, req.owner!, { uid: req.params.evse_uid });
        return putChild(req, (current) => putEvse(current, evse));
      },
    },
    {
      method: "PUT",
      path: CONNECTOR,
      body: { type: connectorType, mode: "full" },
      handle: async (req) => {
        const connector = req.body as Connector;
        checkBodyIdentity(connector, req.owner!, { id: req.params.connector_id });
        return putChild(req, (current) => putConnector(current, req.params.evse_uid, connector));
      },
    },
    {
      method: "PATCH",
      path: LOC,
      body: { type: locationType, mode: "patch" },
      handle: (req) => patch(req, { id: req.params.location_id }, (current, stamp) => patchLocation(current, req.body as Partial<Location>, stamp)),
    },
    {
      method: "PATCH",
      path: EVSE,
      body: { type: evseType, mode: "patch" },
      handle: (req) => patch(req, { uid: req.params.evse_uid }, (current, stamp) => patchEvse(current, req.params.evse_uid, req.body as Partial<Evse>, stamp)),
    },
    {
      method: "PATCH",
      path: CONNECTOR,
      body: { type: connectorType, mode: "patch" },
      handle: (req) =>
        patch(req, { id: req.params.connector_id }, (current, stamp) =>
          patchConnector(current, req.params.evse_uid, req.params.connector_id, req.body as Partial<Connector>, stamp),
        ),
    },
  ];
};

/** The PATCH's last_updated; 2.1.1 PATCHes may lack it, then the time of receipt stands in. */
const stampOf = (fragment: { last_updated?: string }): string =>
  fragment.last_updated ?? ocpiTimestamp();
