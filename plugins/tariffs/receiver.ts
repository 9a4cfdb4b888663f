import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { patchStored, putWhole, written, type ChangeRule } from "../../core/modules/receiver-writes";
import { invalid, notFound } from "../../core/contract/errors";
import type { Tariff } from "./model";
import type { TariffsReceiverPort } from "./ports";
import { tariffType } from "./translate";

const PATH = "/:country_code/:party_id/:tariff_id";

const tariffIdOf = (req: OcpiRequest): string => {
  const id = req.params.tariff_id;
  if (id.length > 36) throw invalid("path tariff_id must be at most 36 characters");
  return id;
};

/**
 * Receiver interface: GET/PUT/DELETE of a partner's tariff (2.2+ has no
 * PATCH); 2.1.1 adds PATCH. The owner in the path must be one of the
 * partner's parties and must match the body.
 */
export const receiverRoutes = (port: TariffsReceiverPort): RouteSpec[] => [
  {
    method: "GET",
    path: PATH,
    response: tariffType,
    handle: async (req) => {
      const owner = req.owner!;
      const tariff = await port.get(owner, tariffIdOf(req), req.port);
      if (!tariff) throw notFound("Tariff");
      return { data: tariff };
    },
  },
  {
    method: "PUT",
    path: PATH,
    body: { type: tariffType, mode: "full" },
    handle: async (req) => {
      const owner = req.owner!;
      const id = tariffIdOf(req);
      const body = req.body as Tariff;
      // identity from the path when a lenient (strictness: log) partner left it out; what it gave must be the path's
      const tariff: Tariff = { ...body, country_code: body.country_code ?? owner.country_code, party_id: body.party_id ?? owner.party_id, id: body.id ?? id };
      return putWhole(req, port, { id }, tariff);
    },
  },
  {
    method: "DELETE",
    path: PATH,
    handle: async (req) => {
      const owner = req.owner!;
      if (!(await port.delete(owner, tariffIdOf(req), req.port))) throw notFound("Tariff");
      return written();
    },
  },
];

/**
 * A PATCH must leave a valid canonical Tariff, whatever the partner's
 * strictness: a fragment never leaves a half-valid price list behind.
 */
const TARIFF_CHANGES: ChangeRule<Tariff> = { type: tariffType, alwaysRefused: true };

/**
 * 2.1.1 only (2.2+ has no tariff PATCH: the router answers 405): PATCH replaces the top-level fields given,
 * checked by TARIFF_CHANGES before it is stored.
 */
export const patchRoute = (port: TariffsReceiverPort): RouteSpec => ({
  method: "PATCH",
  path: PATH,
  versions: ["2.1.1"],
  body: { type: tariffType, mode: "patch" },
  handle: async (req) => {
    const id = tariffIdOf(req);
    const fragment = req.body as Partial<Tariff>;
    const patched = await patchStored(req, port, id, { id }, (current) => ({ ...current, ...fragment }) as Tariff, TARIFF_CHANGES);
    if (!patched) throw notFound("Tariff");
    return written();
  },
});
