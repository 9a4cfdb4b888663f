import type { Logger } from "pino";
import type { Store } from "../contract/store";
import type { Adapter } from "../contract/adapter";

/** One thing the gateway needs to serve; `check` rejects (or resolves false) when it cannot be used now. */
export interface ReadinessProbe {
  /** what `/ready` names when it fails: "store", "adapter <name>" */
  name: string;
  check(): Promise<boolean | void>;
}

/** What `/ready` answers: names only, never a reason (reasons go to the log, they may name hosts). */
export interface ReadinessReport {
  ready: boolean;
  failing: string[];
}

/** A probe that has not answered within this long has failed: `/ready` answers within about a second. */
const PROBE_TIMEOUT_MS = 1000;
const COLLECTION = "health";

/**
 * Whether this instance should get traffic: its store answers (a read, so a
 * Redis store is reached), every adapter was initialised (the gateway exists
 * only once all have started) and, when it says how, its backend answers
 * (`Adapter.ready`), and the instance is not shutting down. A failing probe
 * is logged once when it starts failing and once when it is back.
 */
export class Readiness {
  private stopping = false;
  private readonly failing = new Set<string>();

  constructor(
    private readonly probes: readonly ReadinessProbe[],
    private readonly log: Logger,
  ) {}

  /** The store and each adapter's own check. */
  static of(store: Store, adapters: ReadonlyMap<string, Adapter>, log: Logger): Readiness {
    const probes: ReadinessProbe[] = [{ name: "store", check: async () => void (await store.get(COLLECTION, "ready")) }];
    for (const [name, adapter] of adapters) if (adapter.ready) probes.push({ name: `adapter ${name}`, check: () => adapter.ready!() });
    return new Readiness(probes, log);
  }

  /** SIGTERM: from now on not ready, before the listener closes, so load balancers stop sending. */
  stop(): void {
    this.stopping = true;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  async report(): Promise<ReadinessReport> {
    const results = await Promise.all(this.probes.map(async (probe) => ({ probe, problem: await problemOf(probe) })));
    const failing: string[] = [];
    for (const { probe, problem } of results) {
      if (problem === undefined) {
        if (this.failing.delete(probe.name)) this.log.info({ check: probe.name }, "readiness check passes again");
        continue;
      }
      failing.push(probe.name);
      if (!this.failing.has(probe.name)) {
        this.failing.add(probe.name);
        this.log.warn({ check: probe.name, reason: problem }, "readiness check failing: /ready answers 503");
      }
    }
    if (this.stopping) failing.push("shutting down");
    return { ready: failing.length === 0, failing };
  }
}

const problemOf = async (probe: ReadinessProbe): Promise<string | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${PROBE_TIMEOUT_MS} ms`), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      probe.check().then(
        (ok) => (ok === false ? "not ready" : undefined),
        (error: unknown) => (error as Error)?.message ?? String(error),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
};
