import { inScope, type FinancialAdviceConfirmation, type Page, type PageRequest, type PartyScope, type PaymentsSenderPort, type PortContext, type Terminal, type TerminalOutcome } from "../kit";
import type { Device, TmsPage } from "./contract";
import { TmsRefused, type TmsClient } from "./client";
import { activationOf, deviceUpdateOf, facOf, terminalOf } from "./mapping";
import type { TmsPublisher } from "./publisher";

/**
 * The payments SENDER port over the system (we are the PTP). Lists walk
 * the system's cursor pages from `changed_after` (date_from − 1 ms: it is
 * exclusive) and count what matches for X-Total-Count: a page costs one
 * pass over the changes since date_from, as the system offers no offsets.
 * Every write reports the device it answers at once (TmsPublisher).
 */
export const paymentsSender = (tms: TmsClient, publisher: TmsPublisher): PaymentsSenderPort => {
  /** The device as the system answered it, reported on the change feed, as the port's outcome. */
  const done = async (device: Device): Promise<TerminalOutcome> => {
    await publisher.device(device);
    return { kind: "done", terminal: terminalOf(device) };
  };

  return {
    listTerminals: (page, ctx) =>
      pageOf(page, (cursor, after) => tms.devices(after, cursor), (device) => (visible(device, ctx.scope) ? terminalOf(device) : undefined)),
    async getTerminal(id) {
      const device = await tms.device(id);
      return device && terminalOf(device);
    },
    updateTerminal: (terminal: Terminal) => outcomeOf(async () => done(await tms.updateDevice(terminal.terminal_id, deviceUpdateOf(terminal)))),
    assignTerminal: (id, assignment) =>
      outcomeOf(async () => done(await tms.assign(id, { sites: assignment.location_ids ?? [], points: assignment.evse_uids ?? [] }))),
    activateTerminal: (request, _ctx: PortContext) =>
      outcomeOf(async () => {
        let device = await tms.activate(activationOf(request));
        // What the activation call cannot carry: the assignment (a union) and who issues the invoice.
        if (request.location_ids?.length || request.evse_uids?.length)
          device = await tms.assign(device.serial, { sites: request.location_ids ?? [], points: request.evse_uids ?? [] });
        if (request.invoice_creator !== undefined || request.invoice_base_url !== undefined) {
          const merged = { ...terminalOf(device), ...defined({ invoice_creator: request.invoice_creator, invoice_base_url: request.invoice_base_url }) };
          device = await tms.updateDevice(device.serial, deviceUpdateOf(merged));
        }
        return done(device);
      }),
    deactivateTerminal: (id) => outcomeOf(async () => done(await tms.deactivate(id))),
    // which FACs the partner may see is the plugin's attribution (a settlement names no CPO)
    listFacs: (page, _ctx, visible) =>
      pageOf(page, (cursor, after) => tms.settlements(after, cursor), async (settlement) => {
        const fac = facOf(settlement);
        return (await visible(fac)) ? fac : undefined;
      }),
    async getFac(id): Promise<FinancialAdviceConfirmation | undefined> {
      const settlement = await tms.settlement(id);
      return settlement && facOf(settlement);
    },
  };
};

/** A terminal a partner may see: its operator is one of the partner's parties (plugins/payments/ports.ts). */
const visible = (device: Device, scope?: PartyScope): boolean =>
  !scope || (device.operator !== null && inScope(scope, { country_code: device.operator.country.toUpperCase(), party_id: device.operator.party.toUpperCase() }));

const defined = <T extends object>(object: T): Partial<T> => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as Partial<T>;

/** One OCPI page (offset, limit, date_from inclusive, date_to exclusive) from the system's cursor pages. */
const pageOf = async <Item extends { updated: number }, T>(
  page: PageRequest,
  fetch: (cursor: string | undefined, changedAfter: number | undefined) => Promise<TmsPage<Item>>,
  map: (item: Item) => T | undefined | Promise<T | undefined>,
): Promise<Page<T>> => {
  const items: T[] = [];
  let total = 0;
  const after = page.dateFrom === undefined ? undefined : page.dateFrom - 1;
  let cursor: string | undefined;
  do {
    const answer = await fetch(cursor, after);
    for (const item of answer.items) {
      if (page.dateTo !== undefined && item.updated >= page.dateTo) continue;
      const object = await map(item);
      if (object === undefined) continue;
      if (total >= page.offset && items.length < page.limit) items.push(object);
      total++;
    }
    cursor = answer.next_cursor ?? undefined;
  } while (cursor);
  return { items, total };
};

/**
 * The system's refusals as the port's outcomes: which answer is a refusal
 * is decided in one place, TmsClient's `failure` (docs/tms-v1.md, "Errors
 * and how they are answered"); everything else it threw as
 * BackendUnavailableError (HTTP 503 + 3000).
 */
const outcomeOf = async (call: () => Promise<TerminalOutcome>): Promise<TerminalOutcome> => {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof TmsRefused)) throw error;
    const refusal = error.refusal;
    return refusal.kind === "unknown" ? { kind: "unknown_terminal" } : refusal;
  }
};
