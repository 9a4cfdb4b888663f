import type { OcpiRequest, RouteSpec } from "../../core/plugin";
import { Status } from "../../core/protocol/status";
import { ocpiTimestamp } from "../../core/http/envelope";
import { httpStatusOf, type PutOutcome } from "../../core/ports";
import { checkBodyIdentity } from "../../core/modules/receiver-rules";
import { invalid, notFound, describeIssues } from "../../core/http/errors";
import { issuesOf, silentTranslation } from "../../core/model/object-type";
import type { Connector, Evse, Location } from "./model";
import type { LocationsReceiverPort } from "./ports";
import { connectorType, evseType, locationType } from "./translate";
import { findConnector, findEvse, patchConnector, patchEvse, patchLocation, putConnector, putEvse } from "./merge";
import { updateStored } from "../../core/modules/update-stored";

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

  /** Applies a change to the stored Location, validating the result; 404 when the Location is unknown. */
  const change = async (req: OcpiRequest, apply: (current: Location) => Location): Promise<void> => {
    const owner = req.owner!;
    const updated = await updateStored(port, owner, req.params.location_id, (current) => checked(req, apply(current)), req.port);
    if (!updated) throw notFound(`Location ${req.params.location_id}`, Status.UNKNOWN_LOCATION);
  };

  /** A PUT of a child: reports whether it created or replaced the child. */
  const putChild = async (req: OcpiRequest, apply: (current: Location) => { location: Location; outcome: PutOutcome }) => {
    let outcome: PutOutcome = "created";
    await change(req, (current) => {
      const result = apply(current);
      outcome = result.outcome;
      return result.location;
    });
    return { httpStatus: httpStatusOf(outcome) };
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
      handle: async (req) => {
        const owner = req.owner!;
        const location = req.body as Location;
        checkBodyIdentity(location, owner, { id: req.params.location_id });
        return { httpStatus: httpStatusOf(await port.put(owner, location, req.port)) };
      },
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
      handle: async (req) => {
        const fragment = req.body as Partial<Location>;
        checkBodyIdentity(fragment, req.owner!, { id: req.params.location_id });
        const stamp = stampOf(fragment);
        await change(req, (current) => patchLocation(current, fragment, stamp));
        return { data: null };
      },
    },
    {
      method: "PATCH",
      path: EVSE,
      body: { type: evseType, mode: "patch" },
      handle: async (req) => {
        const fragment = req.body as Partial<Evse>;
        checkBodyIdentity(fragment, req.owner!, { uid: req.params.evse_uid });
        const stamp = stampOf(fragment);
        await change(req, (current) => patchEvse(current, req.params.evse_uid, fragment, stamp));
        return { data: null };
      },
    },
    {
      method: "PATCH",
      path: CONNECTOR,
      body: { type: connectorType, mode: "patch" },
      handle: async (req) => {
        const fragment = req.body as Partial<Connector>;
        checkBodyIdentity(fragment, req.owner!, { id: req.params.connector_id });
        const stamp = stampOf(fragment);
        await change(req, (current) => patchConnector(current, req.params.evse_uid, req.params.connector_id, fragment, stamp));
        return { data: null };
      },
    },
  ];
};

/** The PATCH's last_updated; 2.1.1 PATCHes may lack it, then the time of receipt stands in. */
const stampOf = (fragment: { last_updated?: string }): string =>
  fragment.last_updated ?? ocpiTimestamp();

/**
 * Never store a half-valid Location: the result of a merge must still be a
 * whole, valid Location in the partner's version (a `strictness: log`
 * partner gets a warning instead, as for its bodies).
 */
const checked = (req: OcpiRequest, location: Location): Location => {
  const { version } = req.ctx;
  const wire = locationType.down(location, version, silentTranslation());
  const result = locationType.schema(version, "full").safeParse(wire);
  if (result.success) return location;
  const problems = describeIssues(issuesOf(result.error));
  if (req.ctx.profile.strictness === "reject") throw invalid(`the Location after this change would be invalid: ${problems}`);
  req.ctx.log.warn({ problems }, "stored a Location that is invalid after a change (strictness: log)");
  return location;
};
