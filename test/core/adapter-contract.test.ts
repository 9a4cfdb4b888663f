import "reflect-metadata";
import pino from "pino";
import { Gateway, StartupError } from "../../app/gateway";
import { CredentialsPlugin } from "../../plugins/credentials/module";
import { LocationsPlugin } from "../../plugins/locations/module";
import { defineAdapter, type PortMap } from "../../adapters/kit";
import { type LocationsReceiverPort, type LocationsSenderPort } from "../../plugins/locations/ports";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";

/**
 * Start-up checks an adapter against the contract of the modules routed to
 * it: not only that it names a port, but that the port has every method the
 * plugin declares it needs (`portMethods`), and a CHANGES port its apply().
 */
const sender: LocationsSenderPort = { list: async () => ({ items: [], total: 0 }), get: async () => undefined };
const receiver: LocationsReceiverPort = { get: async () => undefined, put: async () => "created" };

const adapterWith = (ports: Record<string, unknown>, started: string[] = []) =>
  defineAdapter({
    type: "partial",
    portNames: ["locations.SENDER", "locations.RECEIVER"],
    create: async () => ({ ports: ports as Partial<PortMap>, start: async () => void started.push("started") }),
  });

const start = (factory: ReturnType<typeof adapterWith>) =>
  Gateway.create(testGatewayConfig({ port: 9, modules: { locations: { adapter: "partial" } }, adapters: { partial: {} } }), {
    logger: pino({ level: "silent" }),
    plugins: [CredentialsPlugin, LocationsPlugin],
    adapters: [factory],
  });

const startupErrors = async (factory: ReturnType<typeof adapterWith>): Promise<string[]> => {
  const error = await start(factory).then(
    (gateway) => gateway.close().then(() => undefined),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StartupError);
  return (error as StartupError).errors;
};

afterAll(removeTempDirs);

describe("adapter contract at start-up", () => {
  it("refuses an adapter whose port lacks a method its plugin needs, naming the port and the method, before starting it", async () => {
    const started: string[] = [];
    const { list: _list, ...withoutList } = sender;
    const { put: _put, ...withoutPut } = receiver;
    const errors = await startupErrors(adapterWith({ "locations.SENDER": withoutList, "locations.RECEIVER": withoutPut }, started));
    expect(errors).toEqual([
      'modules.locations: adapter "partial" port locations.SENDER lacks list()',
      'modules.locations: adapter "partial" port locations.RECEIVER lacks put()',
    ]);
    expect(started).toEqual([]);
  });

  it("refuses a method that is not a function", async () => {
    const errors = await startupErrors(adapterWith({ "locations.SENDER": { ...sender, get: "yes" }, "locations.RECEIVER": receiver }));
    expect(errors).toEqual(['modules.locations: adapter "partial" port locations.SENDER lacks get()']);
  });

  it("refuses a CHANGES port without apply()", async () => {
    const errors = await startupErrors(adapterWith({ "locations.SENDER": sender, "locations.RECEIVER": receiver, "locations.CHANGES": {} }));
    expect(errors).toEqual(['modules.locations: adapter "partial" port locations.CHANGES lacks apply()']);
  });

  it("starts an adapter with every method a port needs; optional capabilities (a receiver's atomic update) may be left out", async () => {
    const started: string[] = [];
    const gateway = await start(adapterWith({ "locations.SENDER": sender, "locations.RECEIVER": receiver }, started));
    expect(started).toEqual(["started"]);
    await gateway.close();
  });
});
