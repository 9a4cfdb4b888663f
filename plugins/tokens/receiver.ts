import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { Status } from "../../core/protocol/status";
import { notFound } from "../../core/contract/errors";
import { checkBodyIdentity } from "../../core/modules/receiver-rules";
import { changeStored, putWhole, written } from "../../core/modules/receiver-writes";
import type { Token } from "./model";
import type { TokensReceiverPort } from "./ports";
import { tokenObjectType } from "./translate";
import { receiverTokenRefs } from "./token-paths";
import { TOKEN_CHANGES, patchedToken } from "./patch";

const PATH = "/:country_code/:party_id/:token_uid";

/**
 * Receiver interface (CPO side): tokens pushed by an eMSP, addressed by
 * owner, uid and `?type=` (OCPI 2.2.1 Tokens module). No POST or DELETE: an eMSP
 * invalidates a token with `valid: false`.
 */
export const receiverRoutes = (port: TokensReceiverPort): RouteSpec[] => [
  {
    method: "GET",
    path: PATH,
    response: tokenObjectType,
    handle: async (req) => {
      const owner = req.owner!;
      for (const ref of receiverTokenRefs(req)) {
        const token = await port.get(owner, ref, req.port);
        if (token) return { data: token };
      }
      throw notFound("Token", req.ctx.version === "2.1.1" ? Status.CLIENT_ERROR : Status.UNKNOWN_TOKEN);
    },
  },
  {
    method: "PUT",
    path: PATH,
    body: { type: tokenObjectType, mode: "full" },
    handle: async (req: OcpiRequest<Token>) => {
      const [ref] = receiverTokenRefs(req, req.body.type);
      return putWhole(req, port, { uid: ref.uid, type: ref.type });
    },
  },
  {
    method: "PATCH",
    path: PATH,
    body: { type: tokenObjectType, mode: "patch" },
    handle: async (req: OcpiRequest<Partial<Token>>) => {
      const owner = req.owner!;
      const refs = receiverTokenRefs(req, req.body.type);
      // The fragment may repeat the identity, but not change it.
      checkBodyIdentity(req.body, owner, { uid: refs[0].uid, type: refs.length === 1 ? refs[0].type : undefined });
      for (const ref of refs) {
        if (await changeStored(req, port, ref, patchedToken(req.body), TOKEN_CHANGES)) return written();
      }
      throw notFound("Token", req.ctx.version === "2.1.1" ? Status.CLIENT_ERROR : Status.UNKNOWN_TOKEN);
    },
  },
];
