import type { Tariff, TariffsSenderPort } from "../../kit";

/**
 * The YAML's tariffs (SteVe has none), the ones the tariff engine prices with: what partners pull is what they are billed by.
 * A list by the Sender rules (last_updated within [dateFrom, dateTo), oldest first, ties by id, then offset/limit), in memory: a handful.
 */
export const tariffsSender = (tariffs: Tariff[]): TariffsSenderPort => ({
  list: async (page) => {
    const time = (t: Tariff) => Date.parse(t.last_updated);
    const matching = tariffs
      .filter((t) => (page.dateFrom === undefined || time(t) >= page.dateFrom) && (page.dateTo === undefined || time(t) < page.dateTo))
      .sort((a, b) => time(a) - time(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length };
  },
});
