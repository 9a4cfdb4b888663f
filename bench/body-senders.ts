import { parentPort, workerData } from "node:worker_threads";
import { request } from "undici";

/**
 * The body-limits benchmark's heavy clients, on a thread of their own so
 * that their sending does not hold up the normal client's event loop: two
 * connections PUT the given bodies in turn, back to back, until told to stop.
 */
const { url, authorization, bodies } = workerData as { url: string; authorization: string; bodies: string[] };
let running = true;
parentPort!.once("message", () => (running = false));

const client = async (offset: number): Promise<number> => {
  let sent = 0;
  for (let i = offset; running; i++) {
    try {
      const { body } = await request(url, { method: "PUT", headers: { authorization, "content-type": "application/json" }, body: bodies[i % bodies.length] });
      await body.dump({ limit: Infinity });
    } catch {
      // a refused body: the gateway answered and closed while this client was still sending
    }
    sent++;
  }
  return sent;
};

void Promise.all([client(0), client(1)]).then(([a, b]) => parentPort!.postMessage(a + b));
