const MINUTE_MS = 60_000;
const MINUTES = 60;

/** One minute of a partner's requests. */
export interface MinuteFigures {
  /** epoch ms of the minute's start */
  at: number;
  requests: number;
  errors: number;
  /** mean answer time in ms; 0 without requests */
  meanMs: number;
  maxMs: number;
}

interface Bucket {
  minute: number;
  requests: number;
  errors: number;
  totalMs: number;
  maxMs: number;
}

/** The last call of ours to a partner, or of a sync pull, as this instance saw it. */
export interface LastOutcome {
  at: number;
  ok: boolean;
  /** ok, or the failure's kind */
  result: string;
}

interface PartnerFigures {
  buckets: Bucket[];
  lastOutbound?: LastOutcome;
  lastSync: Map<string, LastOutcome>;
}

/**
 * The last hour of each partner's traffic on this instance, minute by
 * minute, for the status page's charts (Prometheus keeps the long history;
 * this needs no Prometheus). Memory is bounded: 60 buckets per partner.
 */
export class HourlyFigures {
  private readonly partners = new Map<string, PartnerFigures>();

  constructor(private readonly now: () => number = Date.now) {}

  request(partner: string, error: boolean, seconds: number): void {
    const bucket = this.bucketOf(partner);
    const ms = seconds * 1000;
    bucket.requests++;
    if (error) bucket.errors++;
    bucket.totalMs += ms;
    bucket.maxMs = Math.max(bucket.maxMs, ms);
  }

  outbound(partner: string, ok: boolean, result: string): void {
    this.of(partner).lastOutbound = { at: this.now(), ok, result };
  }

  sync(partner: string, module: string, ok: boolean): void {
    this.of(partner).lastSync.set(module, { at: this.now(), ok, result: ok ? "ok" : "failed" });
  }

  lastOutbound(partner: string): LastOutcome | undefined {
    return this.partners.get(partner)?.lastOutbound;
  }

  lastSync(partner: string, module: string): LastOutcome | undefined {
    return this.partners.get(partner)?.lastSync.get(module);
  }

  /** The partner's last 60 minutes, oldest first, the current minute last. */
  lastHour(partner: string): MinuteFigures[] {
    const current = Math.floor(this.now() / MINUTE_MS);
    const byMinute = new Map((this.partners.get(partner)?.buckets ?? []).map((b) => [b.minute, b]));
    return Array.from({ length: MINUTES }, (_, i) => {
      const minute = current - MINUTES + 1 + i;
      const b = byMinute.get(minute);
      return {
        at: minute * MINUTE_MS,
        requests: b?.requests ?? 0,
        errors: b?.errors ?? 0,
        meanMs: b && b.requests ? b.totalMs / b.requests : 0,
        maxMs: b?.maxMs ?? 0,
      };
    });
  }

  private of(partner: string): PartnerFigures {
    let figures = this.partners.get(partner);
    if (!figures) {
      figures = { buckets: [], lastSync: new Map() };
      this.partners.set(partner, figures);
    }
    return figures;
  }

  private bucketOf(partner: string): Bucket {
    const figures = this.of(partner);
    const minute = Math.floor(this.now() / MINUTE_MS);
    const last = figures.buckets[figures.buckets.length - 1];
    if (last?.minute === minute) return last;
    const bucket: Bucket = { minute, requests: 0, errors: 0, totalMs: 0, maxMs: 0 };
    figures.buckets.push(bucket);
    while (figures.buckets.length > 0 && figures.buckets[0].minute <= minute - MINUTES) figures.buckets.shift();
    return bucket;
  }
}
