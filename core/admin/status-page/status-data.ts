import type { GatewayConfig } from "../../../config/types";
import type { ServedModule } from "../../modules/served-modules";
import type { PartnerRegistry } from "../../partners/partner-registry";
import type { Outbox } from "../../outbox/outbox";
import type { PendingRequests } from "../../async/pending-requests";
import type { LossyTranslationLog } from "../../model/lossy";
import type { TolerantReader } from "../../model/tolerant-reader";
import type { Store } from "../../contract/store";
import type { HourlyFigures, MinuteFigures } from "../../metrics/hourly-figures";
import { SyncStates } from "../../sync/sync-state";
import type { PartnerFigure } from "../../contract/partner-figure";

/** What the status page shows, gathered from the store and this instance's figures. */
export interface StatusData {
  at: number;
  parties: { party: string; role: string; name: string }[];
  modules: { module: string; interface: string; adapter: string; versions: string }[];
  partners: PartnerStatus[];
  /** pending asynchronous requests of every kind, whoever they are for */
  pending: { kind: string; pending: number }[];
}

export interface PartnerStatus {
  id: string;
  status: string;
  version?: string;
  roles: string[];
  /** ok, failing (its queue is held back), a failure kind of our last call, or unknown */
  connection: string;
  lastCall?: { at: number; result: string };
  syncs: { module: string; lastPullAt?: number; lagSeconds?: number; lastResult?: string }[];
  outbox: { depth: number; deadLetters: number; head?: { label: string; attempts: number; failingSince?: number; lastError?: string } };
  lastHour: MinuteFigures[];
  requests: number;
  errors: number;
  meanMs: number;
  losses: string[];
  repairs: string[];
  pending: number;
  /** what modules show about the partner (ModulePlugin.partnerFigures) */
  figures: PartnerFigure[];
}

export interface StatusSources {
  config: GatewayConfig;
  served: readonly ServedModule[];
  store: Store;
  registry: PartnerRegistry;
  outbox: Outbox;
  pending: PendingRequests;
  lossy: LossyTranslationLog;
  reader: TolerantReader;
  hourly: HourlyFigures;
}

export const gatherStatus = async (s: StatusSources): Promise<StatusData> => {
  const now = Date.now();
  const records = new Map((await s.registry.list()).map((r) => [r.id, r]));
  const ids = [...new Set([...s.config.partners.map((p) => p.id), ...records.keys()])];
  const kinds = await Promise.all(s.pending.kindNames().map(async (kind) => ({ kind, counts: await s.pending.count(kind) })));
  const losses = s.lossy.seenLosses();
  const repairs = s.reader.repairs();
  const states = new SyncStates(s.store);
  const figured = [...new Set(s.served.map((m) => m.plugin))].filter((p) => p.partnerFigures);
  const figuresOf = async (id: string): Promise<PartnerFigure[]> =>
    (await Promise.all(figured.map((p) => p.partnerFigures!(id, now).catch(() => [])))).flat();
  const partners = await Promise.all(
    ids.map(async (id): Promise<PartnerStatus> => {
      const record = records.get(id);
      const config = s.config.partners.find((p) => p.id === id);
      const head = await s.outbox.head(id);
      const failingHead = head && head.attempts > 0 ? head : undefined;
      const last = s.hourly.lastOutbound(id);
      const syncModules = Object.keys(config?.sync ?? {});
      const syncs = await Promise.all(
        syncModules.map(async (module) => {
          const { watermark } = await states.get(id, module);
          return {
            module,
            lastPullAt: watermark,
            lagSeconds: watermark === undefined ? undefined : Math.max(0, Math.round((now - watermark) / 1000)),
            lastResult: s.hourly.lastSync(id, module)?.result,
          };
        }),
      );
      const lastHour = s.hourly.lastHour(id);
      const requests = lastHour.reduce((n, m) => n + m.requests, 0);
      const errors = lastHour.reduce((n, m) => n + m.errors, 0);
      const totalMs = lastHour.reduce((n, m) => n + m.meanMs * m.requests, 0);
      return {
        id,
        status: record?.status ?? "pending",
        version: record?.version,
        roles: (record?.roles ?? []).map((r) => `${r.role} ${r.country_code}${r.party_id}`),
        connection: record?.status !== "registered" ? "not registered" : failingHead ? "failing" : last ? (last.ok ? "ok" : last.result) : "no calls yet",
        lastCall: last && { at: last.at, result: last.result },
        syncs,
        outbox: {
          depth: (await s.outbox.pending(id, 1)).total,
          deadLetters: (await s.outbox.deadLetters(id, 0, 1)).total,
          head: failingHead && { label: failingHead.label, attempts: failingHead.attempts, failingSince: failingHead.firstFailureAt, lastError: failingHead.lastError },
        },
        lastHour,
        requests,
        errors,
        meanMs: requests ? totalMs / requests : 0,
        losses: losses.filter((l) => l.partner === id).map((l) => `${l.object}.${l.field} (to ${l.version})`),
        repairs: repairs.filter((r) => r.partner === id).map((r) => `${r.type} ${r.field}: ${r.repair} ×${r.count}`),
        pending: kinds.reduce((n, k) => n + (k.counts.byPartner[id] ?? 0), 0),
        figures: await figuresOf(id),
      };
    }),
  );
  return {
    at: now,
    parties: s.config.parties.map((p) => ({ party: `${p.country_code}${p.party_id}`, role: p.role, name: p.business_details.name })),
    modules: s.served.map((m) => ({
      module: m.plugin.module,
      interface: m.role,
      adapter: s.config.modules[m.plugin.module]?.adapter ?? "(gateway)",
      versions: m.versions.join(", "),
    })),
    partners,
    pending: kinds.map((k) => ({ kind: k.kind, pending: k.counts.pending })),
  };
};
