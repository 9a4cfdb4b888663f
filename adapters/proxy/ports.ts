import type {
  LocationsReceiverPort,
  LocationsSenderPort,
  OcpiBackend,
  Page,
  PageRequest,
  PartyRef,
  PortContext,
  SessionsReceiverPort,
  TariffsReceiverPort,
  TariffsSenderPort,
  TokensReceiverPort,
} from "../kit";

/**
 * The proxy adapter's ports: each one a call of the backend's endpoint of
 * the same module and interface role, which the backend serves for our
 * party `ctx.party` (the `to` routing headers of the call). The gateway's
 * plugins keep the protocol's rules (scopes, PATCH merges, published
 * Locations); the backend gets whole objects.
 */

/** `/{country_code}/{party_id}/{id}`: where a Receiver keeps an object of `owner`. */
const ownedPath = (owner: PartyRef, id: string): string =>
  `/${encodeURIComponent(owner.country_code)}/${encodeURIComponent(owner.party_id)}/${encodeURIComponent(id)}`;

/**
 * A page of the backend's Sender list. A backend caps `limit` at its own
 * X-Limit: it is asked on from where its page ended until the page is full
 * or its list ends, so a partner's page is as long as it asked.
 */
const fullPage = async <T>(backend: OcpiBackend, module: string, page: PageRequest, ctx: PortContext): Promise<Page<T>> => {
  const items: T[] = [];
  let total = Infinity;
  while (items.length < page.limit && page.offset + items.length < total) {
    const part = await backend.list<T>(module, { ...page, offset: page.offset + items.length, limit: page.limit - items.length }, ctx);
    total = part.total;
    if (part.items.length === 0) break;
    items.push(...part.items);
  }
  return { items, total: Number.isFinite(total) ? total : page.offset };
};

/** A Receiver of objects kept per owner under their `id`. */
const ownedReceiver = <T extends { id: string }>(backend: OcpiBackend, module: string) => ({
  get: (owner: PartyRef, id: string, ctx: PortContext) => backend.get<T>(module, "RECEIVER", ownedPath(owner, id), ctx, owner),
  put: (owner: PartyRef, object: T, ctx: PortContext) => backend.put(module, ownedPath(owner, object.id), object, ctx, owner),
});

export const proxyPorts = (backend: OcpiBackend) => {
  const locationsSender: LocationsSenderPort = {
    list: (page, ctx) => fullPage(backend, "locations", page, ctx),
    get: (id, ctx) => backend.get("locations", "SENDER", `/${encodeURIComponent(id)}`, ctx),
  };
  const locationsReceiver: LocationsReceiverPort = ownedReceiver(backend, "locations");
  const tariffsSender: TariffsSenderPort = { list: (page, ctx) => fullPage(backend, "tariffs", page, ctx) };
  const tariffsReceiver: TariffsReceiverPort = {
    ...ownedReceiver(backend, "tariffs"),
    delete: (owner, id, ctx) => backend.delete("tariffs", ownedPath(owner, id), ctx, owner),
  };
  const sessionsReceiver: SessionsReceiverPort = ownedReceiver(backend, "sessions");
  // Tokens are kept by uid and type: `?type=` (Part B), which 2.1.1 ignores
  const tokensReceiver: TokensReceiverPort = {
    get: (owner, ref, ctx) => backend.get("tokens", "RECEIVER", `${ownedPath(owner, ref.uid)}?type=${ref.type}`, ctx, owner),
    put: (owner, token, ctx) => backend.put("tokens", `${ownedPath(owner, token.uid)}?type=${token.type}`, token, ctx, owner),
  };
  return {
    "locations.SENDER": locationsSender,
    "locations.RECEIVER": locationsReceiver,
    "tariffs.SENDER": tariffsSender,
    "tariffs.RECEIVER": tariffsReceiver,
    "sessions.RECEIVER": sessionsReceiver,
    "tokens.RECEIVER": tokensReceiver,
  };
};
