import "reflect-metadata";
import { loadConfig } from "../config/load-config";
import { defineAdapter, type LocationsSenderPort } from "../adapters/kit";
import { Gateway } from "../app/gateway";
import { createLocalAdapterFactory } from "../adapters/local/factory";
import { localLocations } from "../adapters/local/locations";

/**
 * The cache benchmark's server: a gateway process whose locations Sender is
 * the `local` adapter made artificially slow (a legacy system answering in
 * `delay` ms). Arguments: config file, delay in ms. On SIGTERM it prints
 * how many calls reached the adapter, then exits.
 */
const [configFile, delay] = process.argv.slice(2);
const delayMs = Number(delay);
let calls = 0;

const slow = async <T>(call: () => Promise<T>): Promise<T> => {
  calls++;
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  return call();
};

const local = createLocalAdapterFactory([localLocations]);
const slowLocal = defineAdapter({
  ...local,
  async create(settings, deps) {
    const adapter = await local.create(settings, deps);
    const sender = adapter.ports["locations.SENDER"]!;
    const slowSender: LocationsSenderPort = {
      list: (page, ctx) => slow(() => sender.list(page, ctx)),
      get: (id, ctx) => slow(() => sender.get(id, ctx)),
    };
    return { ...adapter, ports: { ...adapter.ports, "locations.SENDER": slowSender } };
  },
});

const main = async () => {
  const gateway = await Gateway.create(loadConfig(configFile), { adapters: [slowLocal] });
  const port = await gateway.listen();
  process.stdout.write(`listening on ${port}\n`);
  process.once("SIGTERM", () => {
    process.stdout.write(`adapter calls: ${calls}\n`);
    void gateway.close().then(() => process.exit(0));
  });
};

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
