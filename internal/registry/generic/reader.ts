/**
 * The read side of the generic store: get and list with the seed's resourceVersion semantics.
 *
 * Two ways to read a collection, both a storage read of one snapshot (Storage.collection,
 * storage/list.ts) and both streaming (at most a page of values held, nothing parsed unless a
 * selector needs it): the latest state, or the state at exactly rv X (MVCC history). Both walk
 * the same key order, so a paginated list may start on one and continue on the other; a continue
 * token carries the storage's continue position of the last item (continue.ts).
 *
 * Which one a request gets follows kube 1.24, where a list is served either by etcd (the
 * "storage" path: resourceVersion unset, a continue token, a limit with resourceVersion ≠ "0",
 * or Exact) or by the watch cache (everything else; cacher.go shouldDelegateList):
 *
 *   storage path
 *     resourceVersion unset           → latest (consistent)
 *     continue token (rv > 0)          → at the token's rv, after the token's start
 *     continue token (rv -1)           → latest, after the token's start (handed out with a 410)
 *     Exact N, or N + limit, no match  → at N; 410 when compacted away, 500 (etcd's "required
 *                                        revision is a future revision") when not reached
 *     NotOlderThan N + limit           → latest; 504 at once when it is older than N
 *     unparsable resourceVersion       → 400 "invalid resource version: …"
 *   watch-cache path (limit and continue never apply: the whole list, no continue token)
 *     "0"                              → latest, without the consistency wait ("any")
 *     N (NotOlderThan or no match)     → wait ≤ 3 s for the fold to reach N, then latest; else 504
 *     unparsable resourceVersion       → 500, the parse error as is
 */
import type { KubeObject } from '../../api/types.ts';
import { ApiError, badRequest, expired, invalid, notFound, tooLargeResourceVersion, unknownError } from '../../api/errors.ts';
import { FieldPath, forbidden, notSupported, type FieldError } from '../../api/field-errors.ts';
import type { ComputedKind, KindDescriptor } from '../rest/strategy.ts';
import type { Storage, Collection, CollectionRead, ListEntry, BatchSizes } from '../../storage/storage.ts';
import { StorageError } from '../../storage/storage.ts';
import { parseLabelSelector, type LabelSelector } from '../../selectors/label-selector.ts';
import { parseFieldSelector, validateFieldSelector, type FieldSelector } from '../../selectors/field-selector.ts';
import { storageFailure } from './errors.ts';
import { parseObject } from './serialize.ts';
import { convertStored, storageCodec, type StorageCodec } from './view.ts';
import { encodeContinue, decodeContinue, type ContinueToken } from './continue.ts';
import { ReadAhead, readAheadKey } from './read-ahead.ts';

/** How long "not older than X" waits for the fold to reach X before 504 (kube watch cache: 3 s). */
export const RESOURCE_VERSION_WAIT_MS = 3000;
/** Retry-After of that 504 (kube cacher: resourceVersionTooHighRetrySeconds = 1). */
export const TOO_LARGE_RETRY_SECONDS = 1;

/** kube-apiserver's 410 messages (etcd3 store.go: expired, inconsistentContinue). */
export const EXPIRED_LIST_MESSAGE = 'The resourceVersion for the provided list is too old.';
export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** The largest resourceVersion kube accepts (strconv.ParseUint(…, 10, 64)). */
const MAX_UINT64 = 2n ** 64n - 1n;

/** The list query parameters the reader interprets (strings as they came; limit parsed). */
export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

/** One page (or the whole list): items as stored bytes, never re-serialized. */
export interface ListResult {
  /** Version the list was served at (ListMeta.resourceVersion). */
  rv: number;
  items: Buffer[];
  continue?: string;
  remainingItemCount?: number;
  /** A computed kind's list: ListMeta without a resourceVersion (kube's ComponentStatusList). */
  unversioned?: boolean;
}

/**
 * An unpaged list read while it is sent (GenericReader.openList): the items of one LevelDB
 * snapshot in batches, never all in memory at once. The snapshot is held until `batches` is
 * finished or `close` is called; a consumer must do one of the two.
 */
export interface ListStream {
  rv: number;
  /** Item bytes (readable, in this kind's shape) in key order, in batches of up to STREAM_BATCH. */
  batches: AsyncIterable<Buffer[]>;
  /**
   * The same items again, from the same snapshot, without closing it (a body whose length comes
   * first, Protobuf's, is measured on one pass and sent on `batches`). Read before `batches` ends.
   */
  reread(): AsyncIterable<Buffer[]>;
  close(): Promise<void>;
}

type Plan =
  | { kind: 'latest'; start?: string; remaining?: number }
  | { kind: 'notOlderThan'; rv: number }
  /** Storage path: the latest state, which must already be at least `rv` (no wait). */
  | { kind: 'atLeastNow'; rv: number }
  | { kind: 'exact'; rv: number; start?: string; remaining?: number };

/** etcd's answer to a read at a revision it has not reached (passed through by kube as a 500). */
export const FUTURE_REVISION_MESSAGE = 'etcdserver: mvcc: required revision is a future revision';

/** How one page is filled: its size and the selector test. */
interface Page {
  limit: number;
  /** A selector is set: matching needs parsed objects, and remainingItemCount is omitted. */
  filtered: boolean;
  match: (b: Buffer) => boolean;
}

/**
 * Parse a resourceVersion query value: a decimal unsigned 64-bit integer, as kube's
 * APIObjectVersioner does. Anything else is a 400 with kube's etcd3 message.
 */
export function parseRv(text: string, field = 'resourceVersion'): number {
  const n = tryParseRv(text);
  if (typeof n === 'number') return n;
  throw badRequest(`invalid resource version: ${rvParseMessage(text, n.why, field)}`);
}

/**
 * Parse a resourceVersion the way kube's watch cache does (get with a resourceVersion, list on
 * the watch-cache path, watch): its parse error is not a Status, so kube answers a 500 whose
 * message is the error text, with no reason.
 */
export function parseCachedRv(text: string): number {
  const n = tryParseRv(text);
  if (typeof n === 'number') return n;
  throw unknownError(rvParseMessage(text, n.why));
}

function tryParseRv(text: string): number | { why: string } {
  if (text === '') return 0;
  if (/^\d+$/.test(text)) {
    // Above 2^53 the number is imprecise, but it is "too large" either way.
    if (BigInt(text) <= MAX_UINT64) return Number(text);
    return { why: 'value out of range' };
  }
  return { why: 'invalid syntax' };
}

/** APIObjectVersioner's error: a field.Invalid on resourceVersion wrapping strconv's. */
function rvParseMessage(text: string, why: string, field = 'resourceVersion'): string {
  const q = JSON.stringify(text);
  return `${field}: Invalid value: ${q}: strconv.ParseUint: parsing ${q}: ${why}`;
}

/**
 * ListOptions validation that kube-apiserver runs before storage sees the request
 * (apimachinery internalversion/validation ValidateListOptions): 422 Invalid.
 */
export function validateListOptions(q: ListQuery): void {
  const match = q.resourceVersionMatch;
  if (!match) return;
  const path = new FieldPath('resourceVersionMatch');
  const errs: FieldError[] = [];
  if (!q.resourceVersion) errs.push(forbidden(path, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
  if (q.continue) errs.push(forbidden(path, 'resourceVersionMatch is forbidden when continue is provided'));
  if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(notSupported(path, match, ['Exact', 'NotOlderThan', '']));
  if (match === 'Exact' && q.resourceVersion === '0') errs.push(forbidden(path, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  if (errs.length) throw invalid('ListOptions', 'meta.k8s.io', '', errs);
}

export class GenericReader {
  /** Storage keys and the conversion of stored objects (identity unless the kind is a view). */
  readonly codec: StorageCodec;
  /** Continue pages read while the page before them is sent (read-ahead.ts). */
  private readonly ahead = new ReadAhead();

  constructor(
    readonly kind: KindDescriptor,
    private readonly storage: Storage,
    /** A computed kind's objects (KindDescriptor.computed): read from it, never from storage. */
    private readonly computed?: ComputedKind,
  ) {
    this.codec = storageCodec(kind);
  }

  private get gr() {
    return { group: this.kind.group, resource: this.kind.resource };
  }

  /** Field-selector fields of an object: metadata.name, metadata.namespace, plus the kind's own. */
  fieldsOf(obj: KubeObject): Record<string, string> {
    const f: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
    if (this.kind.namespaced) f['metadata.namespace'] = obj.metadata.namespace ?? '';
    for (const [k, fn] of Object.entries(this.kind.fieldSelectors ?? {})) f[k] = fn(obj);
    return f;
  }

  selectors(q: { labelSelector?: string; fieldSelector?: string }): { label: LabelSelector | null; field: FieldSelector | null } {
    const label = q.labelSelector ? parseLabelSelector(q.labelSelector) : null;
    const field = q.fieldSelector ? parseFieldSelector(q.fieldSelector) : null;
    if (field) {
      const allowed = ['metadata.name', ...(this.kind.namespaced ? ['metadata.namespace'] : []), ...Object.keys(this.kind.fieldSelectors ?? {})];
      validateFieldSelector(field, allowed, this.kind.kind, { customResource: this.kind.customResource, message: this.kind.fieldLabelError });
    }
    return { label: label && !label.empty() ? label : null, field: field && !field.empty() ? field : null };
  }

  /**
   * GET one object. `resourceVersion` unset: the latest (consistent); "0": the latest; N: not
   * older than N (wait for the fold to reach N, then the latest — kube has no exact get). With a
   * resourceVersion kube reads from its watch cache, so a non-numeric one is a 500 there.
   * `version`: the request's, for a kind with a VersionConversion (the object is served at it).
   */
  async get(namespace: string, name: string, resourceVersion?: string, version?: string): Promise<Buffer> {
    if (this.computed) return Buffer.from(JSON.stringify(await this.computed.get(name)));
    const rv = resourceVersion ? parseCachedRv(resourceVersion) : 0;
    if (rv > 0) await this.waitFor(rv);
    else if (!resourceVersion) await this.consistent();
    const key = { group: this.codec.group, resource: this.codec.resource, namespace: this.kind.namespaced ? namespace : '', name };
    const b = await this.storage.get(key).catch((e) => {
      throw storageFailure(this.storage.damaged(e));
    });
    if (!b) throw notFound(this.gr, name);
    const conversion = this.kind.conversion;
    if (conversion && version) return (await convertStored(conversion, [b], version))[0];
    return this.codec.decode(b);
  }

  /**
   * "Most recent" reads (resourceVersion unset) are consistent: wait until this replica has folded
   * everything the log holds (immediate on the embedded log; a broker round trip on Kafka).
   */
  private async consistent(): Promise<void> {
    await this.storage.latest().catch((e) => {
      throw storageFailure(this.storage.damaged(e));
    });
  }

  /** Wait until the fold has reached `rv`, or answer 504 "Too large resource version". */
  async waitFor(rv: number): Promise<void> {
    if (this.storage.folded >= rv) return;
    const ok = await this.storage.waitFolded(rv, RESOURCE_VERSION_WAIT_MS);
    if (!ok) throw tooLargeResourceVersion(rv, this.storage.folded, TOO_LARGE_RETRY_SECONDS);
  }

  /**
   * Whether kube would serve this list from etcd rather than from its watch cache
   * (cacher.go shouldDelegateList); the watch cache ignores limit and continue.
   */
  static fromStorage(q: ListQuery): boolean {
    const rv = q.resourceVersion ?? '';
    const limited = Boolean(q.limit && q.limit > 0);
    return rv === '' || Boolean(q.continue) || (limited && rv !== '0') || q.resourceVersionMatch === 'Exact';
  }

  /** Decide how to serve a list from its query (module comment; checks in kube's order). */
  private plan(q: ListQuery): Plan {
    validateListOptions(q);
    if (!GenericReader.fromStorage(q)) {
      const rv = parseCachedRv(q.resourceVersion ?? '');
      return rv === 0 ? { kind: 'latest' } : { kind: 'notOlderThan', rv };
    }
    const rv = q.resourceVersion ? parseRv(q.resourceVersion) : undefined;
    if (q.continue) {
      const t = decodeContinue(q.continue);
      if (rv) throw badRequest('specifying resource version is not allowed when using continue');
      return t.rv < 0 ? { kind: 'latest', start: t.start } : { kind: 'exact', rv: t.rv, start: t.start, remaining: t.remaining };
    }
    if (!rv) return { kind: 'latest' };
    if (q.resourceVersionMatch === 'NotOlderThan') return { kind: 'atLeastNow', rv };
    return { kind: 'exact', rv }; // Exact, or the legacy "N with a limit"
  }

  /** LIST a collection (namespace '' on a namespaced kind = all namespaces), all items in memory. */
  async list(namespace: string, q: ListQuery, version?: string): Promise<ListResult> {
    const r = await this.openList(namespace, q, false, STREAM_BATCH, version);
    if (!isStream(r)) return r;
    const items: Buffer[] = [];
    for await (const batch of r.batches) for (const b of batch) items.push(b);
    return { rv: r.rv, items };
  }

  /**
   * LIST a collection; with `stream`, an unpaged list comes back as a ListStream (read while it
   * is sent), except for resources encrypted at rest: a value that does not decrypt must fail
   * the list before anything is sent, as kube's does. Pages are always read whole (their
   * ListMeta, which precedes the items, depends on what follows the page). `streamBatch`: entries
   * per storage read of a stream (a watch's initial events read smaller batches: a watcher that
   * does not read holds one of them, and one read ahead). `version`: the request's, for a kind
   * with a VersionConversion (every item is served at it; a stream converts a batch at a time).
   */
  async openList(namespace: string, q: ListQuery, stream = true, streamBatch = STREAM_BATCH, version?: string): Promise<ListResult | ListStream> {
    const { label, field } = this.selectors(q);
    if (this.computed) {
      const items = (await this.computed.list()).filter((o) => (!label || label.matches(o.metadata.labels)) && (!field || field.matches(this.fieldsOf(o))));
      return { rv: 0, unversioned: true, items: items.map((o) => Buffer.from(JSON.stringify(o))) };
    }
    const plan = this.plan(q);
    const page: Page = {
      limit: q.limit && q.limit > 0 && GenericReader.fromStorage(q) ? q.limit : Infinity,
      filtered: Boolean(label || field),
      match: (b) => {
        if (!label && !field) return true;
        const obj = this.codec.view(parseObject(b));
        return (!label || label.matches(obj.metadata.labels)) && (!field || field.matches(this.fieldsOf(obj)));
      },
    };
    const c: Collection = { group: this.codec.group, resource: this.codec.resource, namespace: this.kind.namespaced && namespace ? namespace : undefined };
    if (plan.kind === 'notOlderThan') await this.waitFor(plan.rv);
    else if (plan.kind === 'latest' && !q.continue && !q.resourceVersion) await this.consistent();
    else if (plan.kind === 'atLeastNow') {
      // etcd3 validateMinimumResourceVersion: no wait, and no Retry-After.
      await this.consistent();
      if (this.storage.folded < plan.rv) throw tooLargeResourceVersion(plan.rv, this.storage.folded, 0);
    }
    const conversion = version ? this.kind.conversion : undefined;
    const streamed = stream && page.limit === Infinity && !this.storage.encrypts(this.codec.group, this.codec.resource);
    let result: ListResult | ListStream;
    try {
      this.storage.checkReadable();
      if (plan.kind === 'exact') {
        const held = q.continue ? await this.ahead.take(readAheadKey(collectionId(c), q.continue, q), () => this.storage.compactedBelow) : null;
        result = held ?? await this.listAt(plan.rv, c, plan.start, plan.remaining, page, streamed && streamBatch, version);
      } else result = await this.listLatest(c, plan.kind === 'latest' ? plan.start : undefined, page, streamed && streamBatch, version);
    } catch (e) {
      throw storageFailure(this.storage.damaged(e));
    }
    if (isStream(result)) return result;
    if (result.continue) this.readAhead(c, result.continue, q, page);
    if (this.codec.isView) result.items = result.items.map((b) => this.codec.decode(b));
    if (conversion) result.items = await convertStored(conversion, result.items, version!);
    return result;
  }

  /**
   * Start reading the page `token` asks for (read-ahead.ts). Only pages at a fixed version: a
   * token that resumes at the latest version (handed out with a 410) reads what is there then.
   */
  private readAhead(c: Collection, token: string, q: ListQuery, page: Page): void {
    const t = decodeContinue(token);
    if (t.rv < 0) return;
    this.ahead.put(readAheadKey(collectionId(c), token, q), t.rv, this.listAt(t.rv, c, t.start, t.remaining, page, false) as Promise<ListResult>);
  }

  /**
   * The stream of an unpaged list over `entries` (which own `read`): selector and view (or
   * version) conversion applied per batch; read and conversion errors surface from the iteration
   * as Status errors.
   */
  private stream(entriesOf: () => AsyncGenerator<ListEntry[]>, page: Page, read: CollectionRead, version: string | undefined): ListStream {
    const codec = this.codec;
    const conversion = version ? this.kind.conversion : undefined;
    const storage = this.storage;
    const entries = entriesOf();
    // Idempotent, and also right for a stream never iterated (whose generators never started,
    // so their own finally blocks would not run).
    const close = async (): Promise<void> => {
      await entries.return(undefined);
      await read.close();
    };
    async function* matching(from: AsyncGenerator<ListEntry[]>): AsyncGenerator<Buffer[]> {
      try {
        for await (const batch of from) {
          const out: Buffer[] = [];
          for (const [, v] of batch) if (page.match(v)) out.push(codec.isView ? codec.decode(v) : v);
          if (out.length) yield conversion ? await convertStored(conversion, out, version!) : out;
        }
      } catch (e) {
        if (e instanceof ApiError) throw e;
        throw storageFailure(storage.damaged(e));
      }
    }
    async function* batches(): AsyncGenerator<Buffer[]> {
      try {
        yield* matching(entries);
      } finally {
        await close();
      }
    }
    return { rv: read.rv, batches: batches(), reread: () => matching(entriesOf()), close };
  }

  /** A list of the latest state (one storage read of the collection). */
  private async listLatest(c: Collection, start: string | undefined, page: Page, streamed: number | false, version?: string): Promise<ListResult | ListStream> {
    // A first unfiltered page takes its remainingItemCount from the key index (no scan).
    const read = await this.storage.collection(c, undefined, start === undefined && !page.filtered && page.limit < Infinity);
    return this.page(read, start, read.liveCount, page, streamed, true, version);
  }

  /**
   * A list at exactly `rv` (one storage read of the collection's history); 410 when rv has been
   * compacted away (a continue page gets a token that resumes at the latest version, as kube does).
   */
  private async listAt(rv: number, c: Collection, start: string | undefined, known: number | undefined, page: Page, streamed: number | false, version?: string): Promise<ListResult | ListStream> {
    const expiredList = (): ApiError => (start === undefined ? expired(EXPIRED_LIST_MESSAGE) : expired(EXPIRED_CONTINUE_MESSAGE, encodeContinue({ rv: -1, start })));
    if (rv < this.storage.compactedBelow) throw expiredList();
    if (this.storage.folded < rv) {
      // etcd reads at a revision it has not reached fail at once; a replica behind the log
      // first catches up with what the log holds.
      await this.consistent();
      if (this.storage.folded < rv) throw unknownError(FUTURE_REVISION_MESSAGE);
    }
    const read = await this.storage.collection(c, rv).catch((e: unknown) => {
      throw e instanceof StorageError && e.code === 'expired' ? expiredList() : e;
    });
    return this.page(read, start, known, page, streamed, false, version);
  }

  /**
   * One page (or the whole list, or a stream of it) from `read`, which it closes — a stream's
   * consumer does. `known`: objects after `start`, when the token (or the index) says so.
   */
  private async page(read: CollectionRead, start: string | undefined, known: number | undefined, page: Page, streamed: number | false, ahead: boolean, version?: string): Promise<ListResult | ListStream> {
    let owned = false;
    try {
      if (streamed) {
        owned = true;
        return this.stream(() => read.objects(start, { first: streamed, then: streamed, ahead }), page, read, version);
      }
      return await finish(read, await fill(read.objects(start, pageSizes(page)), page), page, known);
    } finally {
      if (!owned) await read.close();
    }
  }
}

/** A list is either whole (ListResult) or read while it is sent (ListStream). */
export const isStream = (r: ListResult | ListStream): r is ListStream => 'batches' in r;


interface Taken {
  items: Buffer[];
  /** Object path of the last item taken ('' when none). */
  last: string;
  /** Another matching object exists after `last`. */
  more: boolean;
}

/**
 * Take up to `page.limit` matching objects from `objects`, then look one further for another
 * match (so the last page never carries a continue token). Stops the reads when done.
 */
async function fill(objects: AsyncGenerator<ListEntry[]>, page: Page): Promise<Taken> {
  const t: Taken = { items: [], last: '', more: false };
  try {
    for await (const batch of objects) {
      for (const [path, v] of batch) {
        if (!page.match(v)) continue;
        if (t.items.length >= page.limit) {
          t.more = true;
          return t;
        }
        t.items.push(v);
        t.last = path;
      }
    }
    return t;
  } finally {
    await objects.return(undefined);
  }
}

/**
 * Build the ListResult: a continue token when more remain, and on unfiltered pages the
 * remainingItemCount — from the previous token when it carried one, else counted after the page.
 */
async function finish(read: CollectionRead, t: Taken, page: Page, known: number | undefined): Promise<ListResult> {
  const r: ListResult = { rv: read.rv, items: t.items };
  if (!t.more) return r;
  const token: ContinueToken = { rv: read.rv, start: read.position(t.last) };
  if (!page.filtered) {
    const remaining = known !== undefined ? Math.max(known - t.items.length, 0) : await read.countAfter(t.last);
    r.remainingItemCount = remaining;
    token.remaining = remaining;
  }
  r.continue = encodeContinue(token);
  return r;
}

/** Entries per batch of an unpaged list, and of a page's later reads (a filtered page reads on). */
const STREAM_BATCH = 1000;
/**
 * A page needs limit + 1 objects (the one after the page says whether a continue token is due):
 * its first read takes limit + 2 entries, so that on h/ — where an object is only complete once
 * the next object's key is seen — one round trip also serves an unfiltered page. Later reads
 * only finish an unfiltered page (a few objects, or the rest of one object's versions), while a
 * filtered page, and a page larger than one batch (a whole list read into memory), reads on in
 * full batches.
 */
const pageSizes = (page: Page): BatchSizes => ({
  first: Math.min(page.limit + 2, STREAM_BATCH),
  then: page.filtered || page.limit + 2 > STREAM_BATCH ? STREAM_BATCH : PAGE_TAIL_BATCH,
  ahead: false,
});
const PAGE_TAIL_BATCH = 16;

/** The read-ahead cache's name of a collection. */
const collectionId = (c: Collection): string => `${c.group}/${c.resource}/${c.namespace ?? ''}`;

export { encodeContinue, decodeContinue, type ContinueToken } from './continue.ts';
