import type { OcpiRequest, RouteSpec } from "../../core/plugin";
import { checkBodyIdentity } from "../../core/modules/receiver-rules";
import { httpStatusOf } from "../../core/ports";
import { invalid, invalidFields, notFound } from "../../core/http/errors";
import { issuesOf } from "../../core/model/object-type";
import type { Tariff } from "./model";
import type { TariffsReceiverPort } from "./ports";
import { TARIFF_SCHEMAS } from "./schemas";
import { tariffType } from "./translate";
import { updateStored } from "../../core/modules/update-stored";

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
      checkBodyIdentity(body, owner, { id });
      // identity from the path when a lenient (strictness: log) partner left it out
      const tariff: Tariff = { ...body, country_code: body.country_code ?? owner.country_code, party_id: body.party_id ?? owner.party_id, id: body.id ?? id };
      const outcome = await port.put(owner, tariff, req.port);
      return { data: null, httpStatus: httpStatusOf(outcome) };
    },
  },
  {
    method: "DELETE",
    path: PATH,
    handle: async (req) => {
      const owner = req.owner!;
      if (!(await port.delete(owner, tariffIdOf(req), req.port))) throw notFound("Tariff");
      return { data: null };
    },
  },
];

/**
 * 2.1.1 only (2.2+ has no tariff PATCH: the router answers 405): PATCH replaces the top-level fields given. The merged tariff
 * must still be a valid canonical Tariff before it is stored, so a fragment
 * can never leave a half-valid object behind.
 */
export const patchRoute = (port: TariffsReceiverPort): RouteSpec => ({
  method: "PATCH",
  path: PATH,
  versions: ["2.1.1"],
  body: { type: tariffType, mode: "patch" },
  handle: async (req) => {
    const owner = req.owner!;
    const id = tariffIdOf(req);
    const fragment = req.body as Partial<Tariff>;
    checkBodyIdentity(fragment, owner, { id });
    const patched = await updateStored(
      port,
      owner,
      id,
      (current) => {
        const merged = { ...current, ...fragment } as Tariff;
        const check = TARIFF_SCHEMAS["2.3.0"].safeParse(merged);
        if (!check.success) throw invalidFields(issuesOf(check.error));
        return merged;
      },
      req.port,
    );
    if (!patched) throw notFound("Tariff");
    return { data: null };
  },
});
