/**
 * The paged scan every controller runs over a collection: pages of SCAN_PAGE items, each asked for
 * with the last page's continue token, so the whole scan reads one version (the first page's) and
 * memory holds one page at a time. The reader's read-ahead already fetches the next page while
 * the caller works on this one.
 */
import type { GenericReader, ListQuery } from '../registry/generic/reader.ts';

/** Items per page: kube's informers list with 500 as well. */
export const SCAN_PAGE = 500;

/**
 * Every item of `namespace` ('' = all) matching `q`, as stored bytes. Breaking out of the loop
 * stops the scan after the current page; `stopped` is asked before each page is read (a stopped
 * controller ends its scan there).
 */
export async function* listAll(reader: Pick<GenericReader, 'list'>, namespace: string, q: Pick<ListQuery, 'fieldSelector' | 'labelSelector'> = {}, stopped: () => boolean = () => false): AsyncGenerator<Buffer> {
  let cont: string | undefined;
  do {
    if (stopped()) return;
    const page = await reader.list(namespace, { ...q, limit: SCAN_PAGE, continue: cont });
    yield* page.items;
    cont = page.continue;
  } while (cont);
}
