import http from "node:http";
import { benchLocation } from "./bench-gateway";

/**
 * A partner CPO for the pull benchmark: serves `total` generated Locations
 * (OCPI 2.3.0) as a paginated sender list with Link headers, `pageSize` per
 * page, on loopback. Every page is serialised once at start, so serving costs
 * next to nothing and the benchmark measures the side that pulls.
 * Arguments: port, total, page size.
 */
const [port, total, pageSize] = process.argv.slice(2).map(Number);
const base = `http://127.0.0.1:${port}/ocpi/2.3.0/sender/locations`;

const pages: Buffer[] = [];
for (let offset = 0; offset < total; offset += pageSize) {
  const data = Array.from({ length: Math.min(pageSize, total - offset) }, (_, i) => benchLocation(offset + i));
  pages.push(Buffer.from(JSON.stringify({ data, status_code: 1000, timestamp: "2026-01-01T00:00:00Z" })));
}

http
  .createServer((req, res) => {
    const url = new URL(req.url ?? "/", base);
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const page = pages[offset / pageSize];
    if (url.pathname !== "/ocpi/2.3.0/sender/locations" || page === undefined) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ status_code: 2000, status_message: "no such page", timestamp: "2026-01-01T00:00:00Z" }));
      return;
    }
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-total-count": String(total),
      "x-limit": String(pageSize),
    };
    if (offset + pageSize < total) headers.link = `<${base}?offset=${offset + pageSize}&limit=${pageSize}>; rel="next"`;
    res.writeHead(200, headers);
    res.end(page);
  })
  .listen(port, "127.0.0.1", () => process.stdout.write("listening on mock partner\n"));
process.once("SIGTERM", () => process.exit(0));
