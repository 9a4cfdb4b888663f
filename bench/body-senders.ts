import { parentPort, workerData } from "node:worker_threads";
import { request } from "undici";

/** What the two heavy clients sent: bodies in all, and how many each answer took ("200", "429", "413", "reset"). */
export interface SentBodies {
  sent: number;
  answers: Record<string, number>;
}

/**
 * The body-limits benchmark's heavy clients, on a thread of their own so
 * that their sending does not hold up the normal client's event loop: two
 * connections PUT the given bodies in turn, back to back, until told to
 * stop — the next as soon as the last is answered, whatever the answer
 * (a 429's Retry-After is not waited for: an adversary would not).
 */
const { url, authorization, bodies } = workerData as { url: string; authorization: string; bodies: string[] };
let running = true;
parentPort!.once("message", () => (running = false));
const answers: Record<string, number> = {};

const client = async (offset: number): Promise<number> => {
  let sent = 0;
  for (let i = offset; running; i++) {
    let answer = "reset";
    try {
      const { statusCode, body } = await request(url, { method: "PUT", headers: { authorization, "content-type": "application/json" }, body: bodies[i % bodies.length] });
      await body.dump({ limit: Infinity });
      answer = String(statusCode);
    } catch {
      // a refused body: the gateway answered and closed while this client was still sending
    }
    answers[answer] = (answers[answer] ?? 0) + 1;
    sent++;
  }
  return sent;
};

void Promise.all([client(0), client(1)]).then(([a, b]) => parentPort!.postMessage({ sent: a + b, answers } satisfies SentBodies));
