import type { RouteSpec } from "../../core/contract/module-plugin";
import { notFound } from "../../core/contract/errors";
import { patchStored, putWhole, written } from "../../core/modules/receiver-writes";
import type { SessionPatch } from "./model";
import type { SessionsReceiverPort } from "./ports";
import { SESSION_CHANGES, applySessionPatch } from "./patch";
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
    handle: (req) => putWhole(req, port, { id: req.params.session_id }),
  },
  {
    method: "PATCH",
    path: PATH,
    body: { type: sessionType, mode: "patch" },
    handle: async (req) => {
      const owner = req.owner!;
      const id = req.params.session_id;
      const fragment = req.body as SessionPatch;
      const patched = await patchStored(req, port, id, { id }, (current) => applySessionPatch(current, fragment), SESSION_CHANGES);
      if (!patched) throw notFound(`Session ${owner.country_code}/${owner.party_id}/${id}`);
      return written();
    },
  },
];
