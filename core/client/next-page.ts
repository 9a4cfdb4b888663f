/**
 * The next page of a partner's Sender list: the rule of our sync pull
 * (core/client/partner-client.ts `list`) and of the probe's Link walk
 * (app/probe), so the probe says what a pull does.
 *
 * OCPI 2.2.1 Transport and format, Pagination: a page that is not the last
 * carries a `Link` header with rel="next", and every page carries
 * `X-Total-Count` (the objects matching the query, whatever offset and
 * limit) and `X-Limit`. A partner that leaves out the Link although its
 * X-Total-Count says more objects remain would have a pull stop there and
 * lose the rest; `offset` and `limit` are parameters every paginated list
 * takes, so as a tolerant reader we ask on from the first page's URL with
 * `offset` = the objects read so far. A partner that ignores `offset` too
 * answers the page already read: the walk fails (ListWalk) rather than end
 * as if it had read the whole list.
 */

import { PartnerCallError } from "./ocpi-client";

/** What one page said about the pages after it. */
export interface PageHeaders {
  /** the Link header, as sent */
  link: string | null | undefined;
  /** X-Total-Count, as sent */
  total: string | null | undefined;
  /** X-Limit, as sent */
  xLimit: string | null | undefined;
  /** objects on the page (valid or not) */
  count: number;
}

/** The next page's URL, and whether the partner's Link gave it or we asked on by offset. */
export interface NextPage {
  url: string;
  by: "link" | "offset";
}

/** The URL of a `Link` header's rel="next", as sent. */
export const linkNext = (link: string | null | undefined): string | undefined => {
  const match = link ? /<([^>]+)>\s*;\s*rel="?next"?/i.exec(link) : null;
  return match?.[1];
};

/**
 * The page after `page`, having read `read` objects of the list so far (this
 * page's included) from `first`, the list's first URL; undefined when the
 * list ends there. `wanted`: the page size we asked for, lowered to the
 * partner's X-Limit when it caps it.
 */
export const nextPage = (first: string, page: PageHeaders, read: number, wanted?: number): NextPage | undefined => {
  const linked = linkNext(page.link);
  const total = page.total ? Number(page.total) : NaN;
  let url: URL;
  let by: NextPage["by"];
  if (linked) [url, by] = [new URL(linked), "link"];
  // an empty page ends the list whatever the count says (a count of what the list no longer holds)
  else if (page.count > 0 && Number.isFinite(total) && read < total) {
    [url, by] = [new URL(first), "offset"];
    url.searchParams.set("offset", String(read));
  } else return undefined;
  const cap = page.xLimit ? Number(page.xLimit) : NaN;
  if (wanted && Number.isFinite(cap) && cap > 0) url.searchParams.set("limit", String(Math.min(wanted, cap)));
  return { url: url.toString(), by };
};

/**
 * One walk through a list, page by page: `next()` gives the page to fetch,
 * `read()` records what it said. Ends when a page is the last (nextPage), and
 * on a Link back to a page already read, so a partner cannot make it loop.
 */
export class ListWalk {
  /** objects read so far, valid or not */
  objects = 0;
  /** pages read */
  pages = 0;
  /** pages asked by offset, as the page before them sent no Link though more objects remained */
  byOffset = 0;
  /** the walk ended on a Link back to a page already read */
  looped = false;
  private readonly seen = new Set<string>();
  private upcoming: NextPage | undefined;
  /** the first object of the page read last, as sent */
  private lastFirst: string | undefined;

  constructor(
    private readonly start: string,
    private readonly wanted: number | undefined,
    /** what is walked, for the error: "GET locations" */
    private readonly what: string,
  ) {
    this.upcoming = { url: start, by: "link" };
  }

  /** The page to fetch next; undefined when the list has ended. */
  next(): NextPage | undefined {
    const page = this.upcoming;
    if (!page) return undefined;
    if (this.seen.has(page.url)) {
      this.looped = true;
      return undefined;
    }
    this.seen.add(page.url);
    return page;
  }

  /**
   * Records `page` (the one `next()` gave) as read, with its headers and its
   * first object as sent. Asked by offset, a page that starts with the object
   * the page before started with is that page again: the partner ignores
   * `offset` as well, the rest of the list cannot be reached, and this throws.
   */
  read(page: NextPage, headers: PageHeaders, first: unknown): void {
    const firstObject = headers.count > 0 ? JSON.stringify(first) : undefined;
    if (page.by === "offset") {
      this.byOffset++;
      if (firstObject !== undefined && firstObject === this.lastFirst)
        throw new PartnerCallError(
          "malformed",
          `${this.what}: the list sends no Link rel="next" although X-Total-Count ${headers.total} says more objects remain, and answers offset=${this.objects} with the page already read (OCPI 2.2.1 Transport and format, Pagination)`,
        );
    }
    this.lastFirst = firstObject;
    this.objects += headers.count;
    this.pages++;
    this.upcoming = nextPage(this.start, headers, this.objects, this.wanted);
  }

  /** Whether the walk would go on (a page after the last one read). */
  get more(): boolean {
    return this.upcoming !== undefined && !this.seen.has(this.upcoming.url);
  }
}
