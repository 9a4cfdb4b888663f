import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { notFound, OcpiError } from "../../core/contract/errors";
import { Status } from "../../core/protocol/status";
import { DEFAULT_TOKEN_TYPE, type LocationReferences } from "./model";
import type { AuthorizeOutcome, TokensSenderPort } from "./ports";
import { authorizationInfoObjectType, locationReferencesObjectType, tokenObjectType } from "./translate";
import { queryTokenType, storedTypesBehind } from "./token-paths";

/**
 * Sender interface (eMSP side): our party's tokens, paginated, and real-time
 * authorization at `/{token_uid}/authorize?type=` (default RFID) with an
 * optional LocationReferences body (OCPI 2.2.1 Tokens module).
 */
export const senderRoutes = (port: TokensSenderPort): RouteSpec[] => [
  {
    method: "GET",
    path: "",
    paginated: true,
    cache: true,
    response: tokenObjectType,
    handle: async (req) => ({ page: await port.list(req.page, req.port) }),
  },
  {
    method: "POST",
    path: "/:token_uid/authorize",
    body: { type: locationReferencesObjectType, mode: "full", optional: true },
    response: authorizationInfoObjectType,
    handle: async (req: OcpiRequest<LocationReferences | undefined>) => {
      const type = queryTokenType(req) ?? DEFAULT_TOKEN_TYPE;
      const types = storedTypesBehind(req.ctx.version, type);
      let outcome: AuthorizeOutcome = { kind: "unknown_token" };
      for (const candidate of types) {
        outcome = await port.authorize({ uid: req.params.token_uid, type: candidate }, req.body, req.port);
        if (outcome.kind !== "unknown_token") break;
      }
      switch (outcome.kind) {
        case "answered":
          return { data: outcome.info };
        case "unknown_token":
          // 2.1.1 has no 2004 and does not define this answer (a gap in the spec text): 404 with the generic client error.
          throw notFound("Token", req.ctx.version === "2.1.1" ? Status.CLIENT_ERROR : Status.UNKNOWN_TOKEN);
        case "location_required":
          throw new OcpiError(Status.NOT_ENOUGH_INFORMATION, outcome.reason);
      }
    },
  },
];
