import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A 2.3.0 CPO on loopback (node:http) that no one here wrote: it registers through the credentials handshake,
 * lists a bookings Sender endpoint, and answers every POST there with a success envelope carrying `answer`,
 * whatever it is. For what the eMSP side does with a CPO's answer it cannot take.
 */
export class AnsweringCpo {
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  private port = 0;

  constructor(private readonly answer: unknown) {}

  get versionsUrl(): string {
    return `${this.base}/versions`;
  }

  private get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    for await (const _chunk of req);
    const path = new URL(req.url!, this.base).pathname;
    const reply = (data: unknown) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ data, status_code: 1000, timestamp: new Date().toISOString() }));
    };
    if (path === "/versions") return reply([{ version: "2.3.0", url: `${this.base}/2.3.0` }]);
    if (path === "/2.3.0")
      return reply({
        version: "2.3.0",
        endpoints: [
          { identifier: "credentials", role: "RECEIVER", url: `${this.base}/2.3.0/credentials` },
          { identifier: "bookings", role: "SENDER", url: `${this.base}/2.3.0/bookings` },
        ],
      });
    if (path === "/2.3.0/credentials" && req.method === "POST")
      return reply({
        token: "answering-cpo-token-C-0123456789",
        url: this.versionsUrl,
        roles: [{ role: "CPO", country_code: "NL", party_id: "ANS", business_details: { name: "Answering CPO" } }],
      });
    return reply(this.answer);
  }
}
