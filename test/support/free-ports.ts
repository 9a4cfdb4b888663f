import fs from "node:fs";
import net from "node:net";

/**
 * Loopback ports for test servers, taken below the kernel's ephemeral range.
 *
 * A test often learns a port before its server binds it (a partner's URL goes
 * into a config first, a gateway pair is started tests later), or frees one
 * for a while and binds it again (a receiver that is down, a process or a
 * redis-server restarted on the same URL). A port of the ephemeral range is
 * not safe in between: the kernel hands those out to every `listen(0)` and to
 * the local end of every outgoing connection on the machine, other test runs
 * included, and the test's own bind then fails with EADDRINUSE. Below that
 * range the kernel hands out nothing by itself: only another test choosing
 * the very same port at random could take it.
 */

/** Lowest port handed out: clear of the registered ports services commonly listen on. */
const LOWEST = 20_000;
/** The ephemeral range's start when the kernel does not say (IANA's dynamic ports). */
const IANA_EPHEMERAL_START = 49_152;
const MAX_TRIES = 1_000;

/** Where the kernel's ephemeral ports start (Linux: net.ipv4.ip_local_port_range). */
const ephemeralStart = (): number => {
  try {
    const start = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(start) && start > 0) return start;
  } catch {
    // not Linux: the IANA range
  }
  return IANA_EPHEMERAL_START;
};

/** A loopback listener on `port`, or undefined when the port is taken. */
const listenOn = (port: number): Promise<net.Server | undefined> =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });

const portOf = (server: net.Server): number => (server.address() as net.AddressInfo).port;

/** A port the kernel picks (`listen(0)`): where no range lies below the ephemeral one. */
const kernelPicked = (): Promise<net.Server> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });

/** `count` distinct free loopback ports: all listeners are open at once, so no port is handed out twice. */
export const freePorts = async (count: number): Promise<number[]> => {
  const end = ephemeralStart();
  const held: net.Server[] = [];
  try {
    for (let tries = 0; held.length < count; tries++) {
      if (end - LOWEST < 1_000) {
        held.push(await kernelPicked());
        continue;
      }
      if (tries === MAX_TRIES) throw new Error(`no free loopback port between ${LOWEST} and ${end - 1} after ${MAX_TRIES} tries`);
      const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
      if (held.some((s) => portOf(s) === port)) continue;
      const server = await listenOn(port);
      if (server) held.push(server);
    }
    return held.map(portOf);
  } finally {
    await Promise.all(held.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
};

/** One free loopback port (freePorts). */
export const freePort = async (): Promise<number> => (await freePorts(1))[0];
