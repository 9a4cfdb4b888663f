import http from "node:http";
import type { AddressInfo } from "node:net";

/** A request the quirky partner received on a receiver endpoint. */
export interface RecordedRequest {
  method: string;
  path: string;
  body: any;
}

export interface OffSpecPartnerOptions {
  /** its one party, e.g. { country_code: "NL", party_id: "QRK" } (a CPO) */
  party: { country_code: string; party_id: string };
  /** its SENDER lists: what a GET of …/2.2.1/<module> answers (one page, no Link) */
  lists: Record<string, unknown[]>;
  /** what a call of a Receiver endpoint answers, by path (e.g. "/2.2.1/commands/START_SESSION"); default null */
  answers?: Record<string, unknown>;
  /** its credentials name its one role as an object instead of a list of one */
  singleRole?: boolean;
}

/**
 * A 2.2.1 CPO on loopback (node:http) that no one here wrote, as real
 * partners are: it registers through the credentials handshake, serves
 * whatever its `lists` say (off-spec objects included) on its Sender
 * interface (lists, and single objects by id), records what is sent to its Receiver interface (tokens,
 * commands) and answers with a success envelope carrying `answers`. It accepts any
 * token: the tests are about what the gateway reads and sends.
 */
export class OffSpecPartner {
  readonly received: RecordedRequest[] = [];
  /** the token the gateway gave it in its credentials POST: how it calls the gateway */
  tokenToGateway?: string;
  private readonly server: http.Server;
  private port = 0;

  constructor(private readonly options: OffSpecPartnerOptions) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

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
    let text = "";
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : undefined;
    const path = new URL(req.url!, this.base).pathname;
    const answer = (data: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(200, { "Content-Type": "application/json", ...headers });
      res.end(JSON.stringify({ data, status_code: 1000, timestamp: new Date().toISOString() }));
    };
    if (path === "/versions") return answer([{ version: "2.2.1", url: `${this.base}/2.2.1` }]);
    if (path === "/2.2.1") return answer({ version: "2.2.1", endpoints: this.endpoints() });
    if (path === "/2.2.1/credentials" && req.method === "POST") {
      this.tokenToGateway = body.token;
      const { country_code, party_id } = this.options.party;
      const role = { role: "CPO", country_code, party_id, business_details: { name: "Quirky CPO" } };
      return answer({ token: "quirky-partner-token-C-0123456789", url: this.versionsUrl, roles: this.options.singleRole ? role : [role] });
    }
    const list = /^\/2\.2\.1\/(\w+)$/.exec(path);
    if (list && req.method === "GET" && this.options.lists[list[1]]) {
      const items = this.options.lists[list[1]];
      return answer(items, { "X-Total-Count": String(items.length), "X-Limit": "100" });
    }
    const one = /^\/2\.2\.1\/(\w+)\/([^/]+)$/.exec(path);
    const item = one && req.method === "GET" ? this.options.lists[one[1]]?.find((o) => (o as { id?: string }).id === one[2]) : undefined;
    if (item) return answer(item);
    this.received.push({ method: req.method!, path, body });
    return answer(this.options.answers?.[path] ?? null);
  }

  private endpoints() {
    const url = (module: string) => `${this.base}/2.2.1/${module}`;
    return [
      { identifier: "credentials", role: "RECEIVER", url: url("credentials") },
      ...Object.keys(this.options.lists).map((module) => ({ identifier: module, role: "SENDER", url: url(module) })),
      { identifier: "tokens", role: "RECEIVER", url: url("tokens") },
      { identifier: "commands", role: "RECEIVER", url: url("commands") },
      { identifier: "chargingprofiles", role: "RECEIVER", url: url("chargingprofiles") },
    ];
  }
}
