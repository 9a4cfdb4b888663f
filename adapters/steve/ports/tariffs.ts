import type { Tariff, TariffsSenderPort } from "../../kit";
import { pageOf } from "./transactions";

/** The YAML's tariffs (SteVe has none), the ones the tariff engine prices with: what partners pull is what they are billed by. */
export const tariffsSender = (tariffs: Tariff[]): TariffsSenderPort => ({
  list: async (page, ctx) => pageOf<Tariff>(tariffs, page, { ...ctx, scope: undefined }),
});
