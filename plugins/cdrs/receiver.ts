import { isDeepStrictEqual } from "node:util";
import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { invalid, notFound } from "../../core/contract/errors";
import { absolute, modulePath } from "../../core/http/urls";
import { written } from "../../core/modules/receiver-writes";
import type { Cdr } from "./model";
import type { CdrsReceiverPort } from "./ports";
import { cdrType } from "./translate";

/**
 * Receiver interface (OCPI 2.2.1 CDRs module): POST a full, final CDR to the module
 * URL, answered with a Location header where it can be fetched; GET at that
 * URL. CDRs are immutable: no PUT, PATCH or DELETE, and a second POST of an
 * id with other content is refused (a correction is a credit CDR with an id
 * of its own); the identical CDR again is a retry and succeeds, so senders
 * can deliver at least once. The owner is the CDR's own country_code/party_id
 * (2.1.1: filled in from the partner's role), checked by the kernel (`owner: "body"`).
 */
export const receiverRoutes = (port: CdrsReceiverPort, publicUrl: string): RouteSpec[] => [
  {
    method: "POST",
    path: "",
    body: { type: cdrType, mode: "full" },
    owner: "body",
    handle: async (req: OcpiRequest<Cdr>) => {
      const cdr = req.body;
      const owner = req.owner!;
      const ctx = req.port;
      if (cdr.credit === true && cdr.credit_reference_id !== undefined) {
        // The original may legitimately be missing here (pushed while we were unreachable): accept, but say so.
        const original = await port.get(owner, cdr.credit_reference_id, ctx);
        if (!original) req.ctx.log.warn({ cdr: cdr.id, credit_reference_id: cdr.credit_reference_id }, "credit CDR references a CDR we do not hold");
      }
      const stored = { ...cdr, country_code: owner.country_code, party_id: owner.party_id };
      const location = absolute(
        publicUrl,
        `${modulePath(req.ctx.version, "cdrs", "RECEIVER")}/${owner.country_code}/${owner.party_id}/${encodeURIComponent(cdr.id)}`,
      );
      if (await port.insert(owner, stored, ctx)) return written("created", { Location: location });
      // A sender retrying a delivery it could not confirm sends the same CDR again: that is not a change.
      const existing = await port.get(owner, cdr.id, ctx);
      if (existing && isDeepStrictEqual(existing, stored)) return written("updated", { Location: location });
      throw invalid(`CDR ${cdr.id} of ${owner.country_code}/${owner.party_id} already exists; CDRs cannot be replaced (send a credit CDR)`);
    },
  },
  {
    method: "GET",
    path: "/:country_code/:party_id/:cdr_id",
    response: cdrType,
    handle: async (req) => {
      const owner = req.owner!;
      const cdr = await port.get(owner, req.params.cdr_id, req.port);
      if (!cdr) throw notFound(`CDR ${req.params.cdr_id}`);
      return { data: cdr };
    },
  },
];
