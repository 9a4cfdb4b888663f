import { createHmac, timingSafeEqual } from "node:crypto";
import type { Logger } from "pino";
import type { InboundRoute } from "../kit";
import type { WebhookEvent } from "./contract";
import type { TmsClient } from "./client";
import type { TmsPublisher } from "./publisher";

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * The system's change notifications (docs/tms-v1.md, "Webhook"):
 * `POST /adapters/<name>/webhook`, signed with `X-Tms-Signature:
 * sha256=<hex HMAC-SHA256 of the raw body>`. The signature is compared in
 * constant time over the bytes as they came, before the body is read; a
 * missing or bad one is HTTP 401 and nothing happens. A signed event names
 * what changed: the current device or settlement is fetched from the
 * system (the event carries no object) and reported. Delivery is best
 * effort: the poll (poller.ts) catches what never comes.
 */
export const webhookRoute = (secret: string, tms: TmsClient, publisher: TmsPublisher, log: Logger): InboundRoute => ({
  method: "POST",
  path: "/webhook",
  async handle({ rawBody, headers }) {
    if (!signedBy(secret, rawBody, headers["x-tms-signature"])) {
      log.warn("payment-terminal system webhook refused: missing or bad signature");
      return { httpStatus: 401, message: "Missing or bad X-Tms-Signature" };
    }
    const event = eventOf(rawBody);
    if (!event) return { httpStatus: 400, message: "Body must be { event, id, at }" };
    if (event.event === "device.updated") {
      const device = await tms.device(event.id);
      if (device) await publisher.device(device);
    } else {
      const settlement = await tms.settlement(event.id);
      if (settlement) await publisher.settlement(settlement);
    }
    return { httpStatus: 200 };
  },
});

export const signatureOf = (secret: string, body: Buffer | string): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

const signedBy = (secret: string, body: Buffer, header: string | undefined): boolean => {
  const match = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (!match) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(match[1], "hex"));
};

const eventOf = (body: Buffer): WebhookEvent | undefined => {
  try {
    const event = JSON.parse(body.toString("utf8")) as Partial<WebhookEvent>;
    if ((event.event === "device.updated" || event.event === "settlement.created") && typeof event.id === "string" && event.id.length > 0)
      return event as WebhookEvent;
  } catch {
    // not JSON
  }
  return undefined;
};
