import type { Logger } from "pino";
import { COMMAND_TYPES, PROFILE_OPERATIONS, type Store } from "../kit";

/**
 * The simulated charge point of the `local` adapter: it accepts every
 * command and charging-profile request at once and reports the outcome
 * after a delay, as configured in `adapters.local.simulator`:
 *
 *   simulator:
 *     outcome: ACCEPTED        # ACCEPTED, REJECTED or NO_ANSWER (the gateway then posts the timeout)
 *     delay_ms: 1000
 *     overrides:               # per request: a command type, GET_ACTIVE_PROFILE, SET_PROFILE or CLEAR_PROFILE
 *       STOP_SESSION: { outcome: NO_ANSWER }
 */

export const SIMULATED_OUTCOMES = ["ACCEPTED", "REJECTED", "NO_ANSWER"] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];

export interface SimulatedBehaviour {
  outcome: SimulatedOutcome;
  delay_ms: number;
}

export const SIMULATED_REQUESTS: readonly string[] = [...COMMAND_TYPES, ...PROFILE_OPERATIONS];

const DEFAULT_BEHAVIOUR: SimulatedBehaviour = { outcome: "ACCEPTED", delay_ms: 1000 };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const behaviourOf = (raw: unknown, where: string, fallback: SimulatedBehaviour): SimulatedBehaviour => {
  if (raw === undefined || raw === null) return fallback;
  if (!isRecord(raw)) throw new Error(`${where} must be a mapping with outcome and delay_ms`);
  const { outcome = fallback.outcome, delay_ms = fallback.delay_ms } = raw;
  if (!SIMULATED_OUTCOMES.includes(outcome as SimulatedOutcome)) throw new Error(`${where}.outcome must be one of ${SIMULATED_OUTCOMES.join(", ")}`);
  if (typeof delay_ms !== "number" || !Number.isInteger(delay_ms) || delay_ms < 0) throw new Error(`${where}.delay_ms must be a whole number of milliseconds`);
  return { outcome: outcome as SimulatedOutcome, delay_ms };
};

/** The configured behaviour per request type (command type or profile operation), from the adapter's settings. */
export const simulatorBehaviour = (settings: Record<string, unknown>): ((request: string) => SimulatedBehaviour) => {
  const where = "adapters.local.simulator";
  const raw = settings.simulator;
  const base = behaviourOf(raw, where, DEFAULT_BEHAVIOUR);
  const overrides = isRecord(raw) ? raw.overrides : undefined;
  if (overrides !== undefined && !isRecord(overrides)) throw new Error(`${where}.overrides must be a mapping`);
  const perRequest = new Map<string, SimulatedBehaviour>();
  for (const [request, value] of Object.entries(overrides ?? {})) {
    if (!SIMULATED_REQUESTS.includes(request)) throw new Error(`${where}.overrides.${request}: must be one of ${SIMULATED_REQUESTS.join(", ")}`);
    perRequest.set(request, behaviourOf(value, `${where}.overrides.${request}`, base));
  }
  return (request) => perRequest.get(request) ?? base;
};

interface Plan<P> {
  id: string;
  dueAt: number;
  payload: P;
}

/**
 * Outcomes the simulated charge point has promised, kept in the store until
 * reported, so a gateway restarted in between still reports them (several
 * instances on one Redis may all report one: the gateway keeps the first).
 */
export class PlannedOutcomes<P> {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private report?: (id: string, payload: P) => Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly collection: string,
    private readonly log?: Logger,
  ) {}

  /** Starts reporting through `report`, with the plans made before a restart first. */
  connect(report: (id: string, payload: P) => Promise<unknown>): void {
    this.report = report;
    this.store
      .range<Plan<P>>(this.collection, { offset: 0, limit: 100_000 })
      .then(({ items }) => items.forEach((plan) => this.schedule(plan)))
      .catch((error) => this.log?.error({ err: error }, "simulated charge point: could not resume planned outcomes"));
  }

  async add(id: string, delayMs: number, payload: P): Promise<void> {
    const plan: Plan<P> = { id, dueAt: Date.now() + delayMs, payload };
    await this.store.put(this.collection, id, plan, plan.dueAt);
    this.schedule(plan);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(plan: Plan<P>): void {
    if (this.stopped || this.timers.has(plan.id)) return;
    const timer = setTimeout(() => void this.fire(plan), Math.max(0, plan.dueAt - Date.now()));
    timer.unref();
    this.timers.set(plan.id, timer);
  }

  private async fire(plan: Plan<P>): Promise<void> {
    this.timers.delete(plan.id);
    try {
      await this.report!(plan.id, plan.payload);
      await this.store.delete(this.collection, plan.id);
    } catch (error) {
      this.log?.error({ err: error, id: plan.id }, "simulated charge point: reporting an outcome failed");
    }
  }
}
