import http from "node:http";
import type { AddressInfo } from "node:net";
import { OcpiClient, PartnerCallError } from "../../core/client/ocpi-client";
import { outboundPolicy } from "../../core/partners/outbound-policy";

/**
 * The one HTTP client to partners (core/client/ocpi-client.ts) bounds the whole exchange, answer body
 * included, by `server.request_timeout_ms`, and reads the answer's headers by name as `Headers.get` does.
 */
describe("OcpiClient: timeout of the whole exchange, answer headers", () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === "/silent") return; // never answers
      if (req.url === "/trickle") {
        // the headers at once, then part of the body, then nothing
        res.writeHead(200, { "Content-Type": "application/json" });
        res.write('{"status_code":1000,');
        return;
      }
      res.setHeader("Content-Type", "application/json");
      res.setHeader("Link", '<http://127.0.0.1/next>; rel="next"');
      res.setHeader("X-Total-Count", "7");
      res.appendHeader("X-Many", "a");
      res.appendHeader("X-Many", "b");
      res.end(JSON.stringify({ status_code: 1000, data: [], timestamp: new Date().toISOString() }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const target = (path: string) => ({
    url: `${base}${path}`,
    policy: outboundPolicy({ versions_url: `${base}/versions`, callback_hosts: [] }),
    token: "secret-token-of-the-test",
    encoding: "raw" as const,
    headerPrefix: "OCPI" as const,
  });

  it.each(["/silent", "/trickle"])("a partner that stops answering (%s) is a timeout after request_timeout_ms, naming no token", async (path) => {
    const client = new OcpiClient(300);
    const started = Date.now();
    const error = (await client.call("GET", target(path)).catch((e: unknown) => e)) as PartnerCallError;
    expect(error).toBeInstanceOf(PartnerCallError);
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe(`GET ${base}${path} timed out after 300 ms`);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reads the answer's headers by name, in any case, several values joined", async () => {
    const result = await new OcpiClient(2000).call("GET", target("/list"));
    expect(result.headers.get("link")).toBe('<http://127.0.0.1/next>; rel="next"');
    expect(result.headers.get("X-Total-Count")).toBe("7");
    expect(result.headers.get("x-many")).toBe("a, b");
    expect(result.headers.get("retry-after")).toBeNull();
  });
});
