import type { OcpiRequest, RouteSpec } from "../../core/plugin";
import { invalidFields, notFound } from "../../core/http/errors";
import { issuesOf } from "../../core/model/object-type";
import { httpStatusOf } from "../../core/ports";
import { checkBodyIdentity } from "../../core/modules/receiver-rules";
import type { Session, SessionPatch } from "./model";
import type { SessionsReceiverPort } from "./ports";
import { applySessionPatch } from "./patch";
import { updateStored } from "../../core/modules/update-stored";
import { sessionSchema } from "./schemas";
import { sessionType } from "./translate";

const PATH = "/:country_code/:party_id/:session_id";

/** Our eMSP interface: sessions a CPO pushes (PUT creates/replaces, PATCH updates and appends charging periods). */
export const receiverRoutes = (port: SessionsReceiverPort): RouteSpec[] => [
  {
    method: "GET",
    path: PATH,
    response: sessionType,
    handle: async (req) => {
      const owner = req.owner!;
      const session = await port.get(owner, req.params.session_id, req.port);
      if (!session) throw notFound(`Session ${owner.country_code}/${owner.party_id}/${req.params.session_id}`);
      return { data: session };
    },
  },
  {
    method: "PUT",
    path: PATH,
    body: { type: sessionType, mode: "full" },
    handle: async (req) => {
      const owner = req.owner!;
      const session = req.body as Session;
      checkBodyIdentity(session, owner, { id: req.params.session_id });
      return { httpStatus: httpStatusOf(await port.put(owner, session, req.port)) };
    },
  },
  {
    method: "PATCH",
    path: PATH,
    body: { type: sessionType, mode: "patch" },
    handle: async (req) => {
      const owner = req.owner!;
      const id = req.params.session_id;
      const fragment = req.body as SessionPatch;
      checkBodyIdentity(fragment, owner, { id });
      const patched = await updateStored(
        port,
        owner,
        id,
        (current) => {
          const merged = applySessionPatch(current, fragment);
          checkMerged(req, merged);
          return merged;
        },
        req.port,
      );
      if (!patched) throw notFound(`Session ${owner.country_code}/${owner.party_id}/${id}`);
      return {};
    },
  },
];

/** Never store a half-valid session: the patched result must still be a valid canonical Session. */
const checkMerged = (req: OcpiRequest, merged: Session): void => {
  const result = sessionSchema("2.3.0").safeParse(merged);
  if (result.success) return;
  const issues = issuesOf(result.error);
  if (req.ctx.profile.strictness === "reject") throw invalidFields(issues);
  req.ctx.log.warn({ issues }, "accepted a PATCH leaving an invalid Session (strictness: log)");
};
