/**
 * Read-ahead of paged lists: when a page goes out with a continue token, the page that token asks
 * for is read at once, while the first one is still being sent, and kept until the client asks.
 *
 * Why: clients page through a collection one request after the other (client-go's pager,
 * kubectl, informers' initial list), so between two pages the store sat idle while the client
 * received, parsed and asked again; the next request then waited for its own LevelDB read. Read
 * ahead, that read overlaps the previous page's transfer and a continue page costs only its
 * sending.
 *
 * Why it is always the right answer: a continue page is read at the token's resourceVersion from
 * the h/ history, and the versions at or below it never change. Only compaction can take them
 * away, so a page read ahead is served only while its version is still retained; past that the
 * request takes the ordinary path (and its 410). A read that failed is dropped the same way.
 *
 * Bounded: a few pages per kind, each kept for a few seconds (a client that stops paging leaves
 * one page behind, briefly), and a page larger than PAGE_BYTES is not kept.
 */
import type { ListResult } from './reader.ts';

/** Pages kept per kind (several clients paging the same kind at once). */
export const MAX_PAGES = 8;
/** How long a page read ahead waits for its request (clients ask for the next page at once). */
export const KEEP_MS = 10_000;
/** A larger page (a big limit) is not kept: memory before speed. */
export const PAGE_BYTES = 8 * 1024 * 1024;

/** What identifies the next request: the collection, its token and how it pages. */
export function readAheadKey(prefix: string, token: string, q: { limit?: number; labelSelector?: string; fieldSelector?: string }): string {
  return `${prefix}\0${token}\0${q.limit ?? ''}\0${q.labelSelector ?? ''}\0${q.fieldSelector ?? ''}`;
}

interface Held {
  /** The page, or null when its read failed. */
  page: Promise<ListResult | null>;
  /** The version it was read at (valid while the store retains it). */
  rv: number;
  timer: ReturnType<typeof setTimeout>;
}

export class ReadAhead {
  private readonly pages = new Map<string, Held>();

  constructor(private readonly keepMs = KEEP_MS, private readonly maxPages = MAX_PAGES) {}

  /** Keep the page `read` will produce for the request identified by `key`. */
  put(key: string, rv: number, read: Promise<ListResult>): void {
    this.drop(key);
    while (this.pages.size >= this.maxPages) this.drop(this.pages.keys().next().value!);
    const page = read.then(
      (r) => {
        if (r.items.reduce((n, b) => n + b.length, 0) <= PAGE_BYTES) return r;
        if (this.pages.get(key)?.page === page) this.drop(key);
        return null;
      },
      () => null,
    );
    const timer = setTimeout(() => {
      if (this.pages.get(key)?.page === page) this.drop(key);
    }, this.keepMs);
    timer.unref();
    this.pages.set(key, { page, rv, timer });
  }

  /**
   * The page kept for `key` (awaited if still being read), once: null when there is none, it
   * failed, or its version has been compacted away since (below `retainedFrom`).
   */
  async take(key: string, retainedFrom: () => number): Promise<ListResult | null> {
    const held = this.pages.get(key);
    if (!held) return null;
    this.drop(key);
    const page = await held.page;
    // Checked after the wait: the compactor may have moved while the read was in flight.
    return page && held.rv >= retainedFrom() ? page : null;
  }

  /** Pages held now (tests). */
  get size(): number {
    return this.pages.size;
  }

  private drop(key: string): void {
    const held = this.pages.get(key);
    if (!held) return;
    clearTimeout(held.timer);
    this.pages.delete(key);
  }
}
