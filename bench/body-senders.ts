import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { request } from "undici";

/** What the two heavy clients sent: bodies in all, and how many each answer took ("200", "429", "413", "reset"). */
export interface SentBodies {
  sent: number;
  answers: Record<string, number>;
}

/**
 * The body-limits benchmark's heavy clients, a process of their own that
 * bench/body-limits-bench.ts starts at a lower priority (ten steps of niceness below its own) on the
 * load generator's core: the normal client, at normal priority, gets that
 * core whenever it wants it, so what the normal client measures is the
 * gateway, not the senders' own sending (a loopback send of a 6.8 MB body is
 * the sender's kernel time on the sender's core). Two connections PUT the
 * bodies in the given files in turn, back to back, until told to stop (any
 * IPC message, or at once when the bench is gone) — the next as soon as the last is answered, whatever the
 * answer (a 429's Retry-After is not waited for: an adversary would not).
 * Environment: SENDERS_URL, SENDERS_AUTHORIZATION, SENDERS_BODIES (a
 * directory: each file in it one body). Answers SentBodies over IPC.
 */
const url = process.env.SENDERS_URL!;
const authorization = process.env.SENDERS_AUTHORIZATION!;
const bodies = readdirSync(process.env.SENDERS_BODIES!).map((file) => readFileSync(path.join(process.env.SENDERS_BODIES!, file)));
let running = true;
process.once("message", () => (running = false));
// the bench gone (its IPC channel closed: it ended or was killed): stop at once, never sending on for nobody
process.once("disconnect", () => process.exit(0));
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

process.send!("ready");
void Promise.all([client(0), client(1)]).then(([a, b]) => process.send!({ sent: a + b, answers } satisfies SentBodies, () => process.exit(0)));
