/** One page of a list, as a Sender port answers it. */
export interface Page<T = unknown> {
  items: T[];
  /** all objects matching the filters, ignoring offset and limit */
  total: number;
}

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
