import http from "node:http";
import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Device, Settlement, TmsSite } from "../../adapters/tms/contract";

/**
 * A payment-terminal system speaking TMS v1 (docs/tms-v1.md)
 * on a free loopback port, for the `tms` adapter's tests: X-Api-Key,
 * cursor-paged lists by `changed_after` in ascending `updated`, devices
 * (activation with and without serial, 409 on a second activation,
 * `no_stock`, assignments as a union, PUT, deactivation), settlements,
 * maintenance (every call 503), faults (`fault`: another status, a body
 * that is not JSON or not TMS v1's shape, a body that stalls after the
 * headers), and the HMAC-signed webhook after each change, which a test
 * may switch off (a lost webhook).
 */
export interface TmsFault {
  /** the calls it strikes, matched against "METHOD /path" (every call when left out) */
  on?: RegExp;
  /** the answer's status (default 200) */
  status?: number;
  /** sent as JSON; a string is sent as it is (a body that is not JSON) */
  body?: unknown;
  headers?: Record<string, string>;
  /** sends the status, the headers and the start of the body, then never ends it */
  stall?: boolean;
}

export class TmsSimulator {
  readonly devices = new Map<string, Device>();
  readonly settlements = new Map<string, Settlement>();
  /** every request, as "METHOD /path" */
  readonly requests: string[] = [];
  maintenance = false;
  /** what the system answers instead of doing its work, until set back to undefined */
  fault?: TmsFault;
  /** false: changes happen but no webhook is sent (lost) */
  webhooks = true;
  private webhookUrl?: string;
  private clock = 0;
  private server?: http.Server;
  baseUrl = "";

  constructor(
    readonly apiKey: string,
    readonly webhookSecret: string,
  ) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", () => resolve()));
    this.baseUrl = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** Where the system posts its change notifications. */
  setWebhook(url: string): void {
    this.webhookUrl = url;
  }

  /** A device shipped but not activated. */
  ship(serial: string, extra: Partial<Device> = {}): Device {
    const device: Device = { serial, model: "PT-100", state: "pending", merchant_ref: null, operator: null, site: null, receipts: null, assigned: { sites: [], points: [] }, updated: this.tick(), ...extra };
    this.devices.set(serial, device);
    return device;
  }

  /** A change made in the system itself (its own back office), notified like any other. */
  async change(serial: string, change: Partial<Device>): Promise<Device> {
    const device = { ...this.devices.get(serial)!, ...change, updated: this.tick() };
    this.devices.set(serial, device);
    await this.notify("device.updated", serial);
    return device;
  }

  /** A capture at the PSP: a new settlement, notified. */
  async capture(settlement: Omit<Settlement, "updated">): Promise<Settlement> {
    const stored = { ...settlement, updated: this.tick() };
    this.settlements.set(settlement.settlement_id, stored);
    await this.notify("settlement.created", settlement.settlement_id);
    return stored;
  }

  /** Signs and posts a notification as the system does (best effort: failures are ignored). */
  async notify(event: "device.updated" | "settlement.created", id: string): Promise<void> {
    if (!this.webhooks || !this.webhookUrl) return;
    const body = JSON.stringify({ event, id, at: Date.now() });
    const signature = `sha256=${createHmac("sha256", this.webhookSecret).update(body).digest("hex")}`;
    try {
      await fetch(this.webhookUrl, { method: "POST", headers: { "Content-Type": "application/json", "X-Tms-Signature": signature }, body });
    } catch {
      // best effort, like the real system
    }
  }

  /** Strictly increasing epoch ms, so `updated` orders every change. */
  private tick(): number {
    this.clock = Math.max(Date.now(), this.clock + 1);
    return this.clock;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://tms");
    this.requests.push(`${req.method} ${url.pathname}`);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers["x-api-key"] !== this.apiKey) return send(401, { error: "unauthorized" });
    if (this.maintenance) return send(503, { error: "maintenance", message: "scheduled maintenance" });
    const fault = this.fault;
    if (fault && (!fault.on || fault.on.test(`${req.method} ${url.pathname}`))) return this.answerFault(fault, res);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    const route = `${req.method} /${parts.slice(0, 2).join("/")}${parts.length > 2 ? "/:id" : ""}${parts.length > 3 ? `/${parts[3]}` : ""}`;
    const id = parts[2];
    switch (route) {
      case "GET /v1/devices":
        return this.list(url, [...this.devices.values()], (d) => d.serial, send);
      case "GET /v1/settlements":
        return this.list(url, [...this.settlements.values()], (s) => s.settlement_id, send);
      case "GET /v1/settlements/:id":
        return this.settlements.has(id) ? send(200, this.settlements.get(id)) : send(404, { error: "not_found" });
      case "GET /v1/devices/:id":
        return this.devices.has(id) ? send(200, this.devices.get(id)) : send(404, { error: "not_found" });
      case "PUT /v1/devices/:id": {
        if (!this.devices.has(id)) return send(404, { error: "not_found" });
        const { merchant_ref, operator, site, receipts, assigned } = body;
        return send(200, await this.change(id, { merchant_ref, operator, site, receipts, assigned }));
      }
      case "POST /v1/devices/:id/assignments": {
        const device = this.devices.get(id);
        if (!device) return send(404, { error: "not_found" });
        const union = (a: string[], b: string[] = []) => [...a, ...b.filter((v) => !a.includes(v))];
        const assigned = { sites: union(device.assigned?.sites ?? [], body?.sites), points: union(device.assigned?.points ?? [], body?.points) };
        return send(200, await this.change(id, { assigned }));
      }
      case "POST /v1/devices/:id/deactivate":
        if (!this.devices.has(id)) return send(404, { error: "not_found" });
        return send(200, await this.change(id, { state: "inactive" }));
      case "POST /v1/activations":
        return this.activate(body ?? {}, send);
      default:
        return send(404, { error: "not_found", message: `no route ${route}` });
    }
  }

  private answerFault(fault: TmsFault, res: http.ServerResponse): void {
    const body = fault.body === undefined ? "" : typeof fault.body === "string" ? fault.body : JSON.stringify(fault.body);
    res.writeHead(fault.status ?? 200, { "Content-Type": "application/json", ...fault.headers });
    if (!fault.stall) return void res.end(body);
    // the headers and a first part of the body, then silence: the caller's timeout has to end it (stop() closes it)
    res.write(body.slice(0, Math.ceil(body.length / 2)) || "{");
  }

  private async activate(body: { serial?: string; merchant_ref?: string; operator?: Device["operator"]; site?: TmsSite }, send: (s: number, b: unknown) => void) {
    let device: Device | undefined;
    if (body.serial !== undefined) {
      device = this.devices.get(body.serial);
      if (!device) return send(404, { error: "not_found" });
      if (device.state === "active") return send(409, { error: "conflict", message: `device ${body.serial} is already active` });
    } else {
      device = [...this.devices.values()].find((d) => d.state === "pending" && (d.merchant_ref === null || d.merchant_ref === (body.merchant_ref ?? null)));
      if (!device) return send(404, { error: "no_stock", message: "no pending device for this merchant" });
    }
    const change: Partial<Device> = { state: "active" };
    if (body.merchant_ref !== undefined) change.merchant_ref = body.merchant_ref;
    if (body.operator !== undefined) change.operator = body.operator;
    if (body.site !== undefined) change.site = body.site;
    return send(200, await this.change(device.serial, change));
  }

  private list<T extends { updated: number }>(url: URL, all: T[], idOf: (item: T) => string, send: (s: number, b: unknown) => void) {
    const after = Number(url.searchParams.get("changed_after") ?? "-1");
    const limit = Number(url.searchParams.get("limit") ?? "100");
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) return send(400, { error: "bad_request", message: "limit must be 1..500" });
    const sorted = all.filter((item) => item.updated > after).sort((a, b) => a.updated - b.updated || idOf(a).localeCompare(idOf(b)));
    // the cursor: the last (updated, id) of the previous page, opaque to callers
    const cursor = url.searchParams.get("cursor");
    let start = 0;
    if (cursor) {
      const [updated, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [number, string];
      start = sorted.findIndex((item) => item.updated > updated || (item.updated === updated && idOf(item) > id));
      if (start < 0) start = sorted.length;
    }
    const items = sorted.slice(start, start + limit);
    const last = items.at(-1);
    const more = start + limit < sorted.length;
    send(200, { items, next_cursor: more && last ? Buffer.from(JSON.stringify([last.updated, idOf(last)])).toString("base64url") : null });
  }
}
