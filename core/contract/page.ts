/** One page of a list, as a Sender port answers it. */
export interface Page<T = unknown> {
  items: T[];
  /** all objects matching the filters, ignoring offset and limit */
  total: number;
}

/**
 * A page of canonical objects as the store keeps them: the JSON array text of their texts (each
 * `JSON.stringify` of the object), not parsed. The kernel splices it into the answer as it is when the
 * version's rendering leaves the objects unchanged (`ObjectType.wireJson`: 2.3.0, the canonical version),
 * so such a page is neither parsed nor serialised again; for any other version it parses it and
 * translates as usual.
 */
export interface JsonPage {
  /** `[` + the objects' JSON texts, comma-separated + `]` */
  json: string;
  /** how many objects `json` holds */
  count: number;
  /** all objects matching the filters, ignoring offset and limit */
  total: number;
}

export const isJsonPage = (page: Page | JsonPage): page is JsonPage => (page as JsonPage).json !== undefined;

/** How many objects a page holds. */
export const pageLength = (page: Page | JsonPage): number => (isJsonPage(page) ? page.count : page.items.length);

/** A page request as adapters receive it: never the whole collection. */
export interface PageRequest {
  offset: number;
  /** already capped at the server maximum */
  limit: number;
  /** inclusive, epoch ms */
  dateFrom?: number;
  /** exclusive, epoch ms */
  dateTo?: number;
  /**
   * Only objects every partner may see: Locations whose publish is not false. Set by the locations
   * plugin for partners' lists; an adapter applies it natively, so a page is a page of published objects.
   */
  published?: true;
}
