import { defineAdapter, type Adapter, type PartyRef } from "../kit";
import { TmsClient } from "./client";
import { paymentsSender } from "./ports";
import { TmsPoller } from "./poller";
import { TmsPublisher } from "./publisher";
import { parseTmsSettings } from "./settings";
import { webhookRoute } from "./webhook";

/**
 * The `tms` adapter: the gateway as a payment-terminal provider (PTP) in
 * front of a terminal system speaking TMS v1 (docs/tms-v1.md).
 * It serves the payments SENDER port from the system (ports.ts), reports
 * its changes on the change feed from the signed webhook
 * (`POST /adapters/<name>/webhook`, webhook.ts) and a `changed_after` poll
 * (poller.ts), so Terminals and FACs are POSTed to the CPO partners by the
 * push machinery. The changes belong to our PTP party: the first of
 * `parties[]` with role PTP, else the first.
 */
export const tmsAdapterFactory = defineAdapter({
  type: "tms",
  portNames: ["payments.SENDER"],
  checkSettings(settings, base) {
    const parsed = parseTmsSettings(settings, base);
    return parsed.ok ? [] : parsed.errors;
  },
  async create(input, deps): Promise<Adapter> {
    const parsed = parseTmsSettings(input);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const settings = parsed.settings;
    const log = deps.log.child({ adapter: "tms" });
    const party = deps.config.parties.find((p) => p.role === "PTP") ?? deps.config.parties[0];
    const owner: PartyRef = { country_code: party.country_code.toUpperCase(), party_id: party.party_id.toUpperCase() };
    const tms = new TmsClient(settings, log);
    const publisher = new TmsPublisher(deps.store, deps.changes, owner);
    const poller = new TmsPoller(tms, publisher, deps.store, settings, log);
    return {
      ports: { "payments.SENDER": paymentsSender(tms, publisher) },
      inbound: [webhookRoute(settings.webhook_secret, tms, publisher, log)],
      start: async () => poller.start(),
      stop: () => poller.stop(),
    };
  },
});
