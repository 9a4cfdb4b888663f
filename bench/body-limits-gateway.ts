import "reflect-metadata";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { subscribe } from "node:diagnostics_channel";
import { PerformanceObserver, createHistogram, monitorEventLoopDelay } from "node:perf_hooks";
import { loadConfig } from "../config/load-config";
import { Gateway } from "../app/gateway";
import { applyHeapGrowth } from "../app/heap-growth";
import { HOST } from "./support";

/**
 * The body-limits benchmark's server: a gateway process (as `ocpi-gateway
 * start` runs it: the config's heap growth applied) with the partner "bench"
 * registered as an eMSP (DE/EMS) and a CPO (DE/CPX), and a second loopback
 * listener whose every GET answers its event loop's delay since the previous
 * GET (max and p99, ms; perf_hooks monitorEventLoopDelay at 1 ms resolution)
 * and the CPU time it used meanwhile (ms, user + system), the time it took to
 * serve each GET of the partner API meanwhile (`served`, p50 and p99 in ms:
 * from node's parsing of the request to the end of the answer, what the
 * gateway itself spent on it, not the wait before its event loop got to
 * it), and starts a new measure. Argument: config file. Prints
 * `listening on <port> delay on <port> token <token>`.
 */
const main = async () => {
  const config = loadConfig(process.argv[2]);
  applyHeapGrowth(config.server);
  const gateway = await Gateway.create(config);
  const token = await gateway.registry.issueToken("bench");
  await gateway.registry.recordRegistration("bench", {
    version: "2.3.0",
    versionsUrl: `http://${HOST}:1/versions`,
    endpoints: [],
    roles: [
      { country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "Bench eMSP" } },
      { country_code: "DE", party_id: "CPX", role: "CPO", business_details: { name: "Bench CPO" } },
    ],
    tokenToPartner: "unused",
  });
  const port = await gateway.listen();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let cpu = process.cpuUsage();
  // garbage collections meanwhile: their pauses are part of the loop's delay
  let gc = { ms: 0, maxMs: 0, count: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gc = { ms: gc.ms + entry.duration, maxMs: Math.max(gc.maxMs, entry.duration), count: gc.count + 1 };
  }).observe({ entryTypes: ["gc"] });
  // node's HTTP diagnostics channels: a request's start (its head parsed) and its answer's end
  let served = createHistogram();
  const began = new WeakMap<object, bigint>();
  subscribe("http.server.request.start", (message) => {
    const { request } = message as { request: http.IncomingMessage };
    if (request.method === "GET" && request.url?.startsWith("/ocpi/")) began.set(request, process.hrtime.bigint());
  });
  subscribe("http.server.response.finish", (message) => {
    const start = began.get((message as { request: object }).request);
    if (start !== undefined) served.record(Math.max(1, Number(process.hrtime.bigint() - start)));
  });
  const probe = http.createServer((_req, res) => {
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    const measured = {
      max: delay.max / 1e6,
      p99: delay.percentile(99) / 1e6,
      cpuMs: (used.user + used.system) / 1000,
      gc,
      served: { count: served.count, p50: served.percentile(50) / 1e6, p99: served.percentile(99) / 1e6 },
    };
    delay.reset();
    served = createHistogram();
    gc = { ms: 0, maxMs: 0, count: 0 };
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify(measured));
  });
  await new Promise<void>((resolve) => probe.listen(0, HOST, resolve));
  process.stdout.write(`listening on ${port} delay on ${(probe.address() as AddressInfo).port} token ${token}\n`);
  process.once("SIGTERM", () => {
    probe.close();
    void gateway.close().then(() => process.exit(0));
  });
};

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
