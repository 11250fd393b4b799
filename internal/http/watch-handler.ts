/**
 * GET …?watch=1: a stream of {type, object} events. Start semantics follow the seed's watch
 * table: unset/0 → synthetic ADDED for the current state, then changes after it; N → changes
 * after N (410 as an ERROR event when N is older than the retained history). Streaming lists
 * (sendInitialEvents=true) end their initial events with a BOOKMARK annotated
 * `k8s.io/initial-events-end: "true"`. With label/field selectors an object that starts matching
 * arrives as ADDED and one that stops matching as DELETED (see selectorEvent).
 */
import type { ServerResponse } from 'node:http';
import http2, { type Http2ServerResponse } from 'node:http2';
import type { KubeObject } from '../api/types.ts';
import { badRequest, invalid, expired, notAcceptable, toApiError, type ApiError } from '../api/errors.ts';
import type { ServedKind } from '../registry/registry.ts';
import { isStream, parseCachedRv, type ListResult, type ListStream } from '../registry/generic/reader.ts';
import { queryBool } from './request-info.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import { FanOutMemo, changeBytes, type WatchHub, type WatchHandle } from '../watch/hub.ts';
import { convertChange } from '../registry/generic/view.ts';
import type { BudgetEntry } from '../watch/budget.ts';
import type { Negotiated } from './negotiation.ts';
import { PROTOBUF, encodeWatchEvent, frameWatchEvent, protobufTypeFor } from './protobuf.ts';
import { objectTableMeta, partialObjectMetadata, tableOptions, toTable } from './table.ts';
import { kindAt } from '../registry/rest/strategy.ts';
import { drained, goJsonEscape, type Res } from './respond.ts';

/** What a watch can stream (the list kube's 406 names). */
const WATCH_MEDIA_TYPES = ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];

/**
 * Initial events are written in groups of about this many bytes, the next group once the socket
 * has taken the last (backpressure): a watch that starts with a big list holds about one group
 * and one storage batch, whatever the list's size, and its client's pace sets the reading.
 */
const INITIAL_WRITE_BYTES = 64 * 1024;
/** Objects per storage read of the initial state (a stalled watcher holds one batch and one read ahead). */
const INITIAL_READ_BATCH = 100;
/**
 * Changes a watcher may hold while its initial events go out (besides its byte budget): kube's
 * cacheWatcher buffers at most 1,000 events (its largest input channel) while it sends its
 * initEvents, and is ended as too slow when they do not fit.
 */
export const MAX_HELD_CHANGES = 1000;
/** Interval of BOOKMARK events when the client allows them (kube-apiserver: about a minute). */
export const BOOKMARK_INTERVAL_MS = 60_000;
/** How long before a watch's deadline its last bookmark goes out (kube cacher: 2 s). */
export const PRE_TIMEOUT_BOOKMARK_MS = 2000;
/** Without timeoutSeconds a watch ends after a random time in [MIN, 2·MIN) (--min-request-timeout). */
export const MIN_REQUEST_TIMEOUT_S = 1800;

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchRequest {
  served: ServedKind;
  namespace: string;
  /** Item path watches (`/configmaps/x?watch=1`) name the object. */
  name: string;
  /** The request's version (events of a kind with a VersionConversion are converted to it). */
  version?: string;
  query: URLSearchParams;
  /** Negotiated serialization and conversion (a Table's TableOptions are already validated). */
  out: Negotiated;
  hub: WatchHub;
  folded: () => number;
  /** --min-request-timeout (seconds; default MIN_REQUEST_TIMEOUT_S). */
  minRequestTimeoutS?: number;
  /**
   * Registers `end`, called when the kind stops being served (the watch then ends as at its
   * timeout, as kube ends a custom resource's watches when its CRD goes); returns the unregister.
   */
  untilRemoved?: (end: () => void) => () => void;
}

/** The longest watch timer (Node's timers take at most 2^31-1 ms). */
const NO_TIMEOUT_S = 2_000_000;

/**
 * How long a watch runs (kube's ListResource): its timeoutSeconds; without one (or 0) a random
 * time in [min, 2·min) of --min-request-timeout, so watches do not all end together. A negative
 * timeout, or none with min 0, ends the watch at once (kube: a context whose deadline is now;
 * checked on kube-apiserver 1.24.17 with --min-request-timeout=0).
 */
export function watchTimeoutS(given: number | undefined, minRequestTimeoutS: number): number {
  if (given !== undefined && given !== 0) return Math.min(Math.max(given, 0), NO_TIMEOUT_S);
  return minRequestTimeoutS > 0 ? Math.min(minRequestTimeoutS * (1 + Math.random()), NO_TIMEOUT_S) : 0;
}

const truthy = (v: string | null): boolean => v === 'true' || v === '1';
/** kube's int64 query parameters: strconv.ParseInt's error as a 400. */
function int64Param(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[-+]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  if (BigInt(v) > 2n ** 63n - 1n || BigInt(v) < -(2n ** 63n)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return Number(v);
}

export async function serveWatch(w: WatchRequest, anyRes: Res): Promise<void> {
  // Both response kinds (HTTP/1.1 and the HTTP/2 compat API) share this stream surface.
  const res = anyRes as ServerResponse;
  const { served, query: q } = w;
  const { reader, store } = served;
  const kind = kindAt(served.kind, w.version);
  // A watch streams JSON or Protobuf frames only (kube: NewNotAcceptableError with the stream types).
  if (w.out.rep === 'yaml') throw notAcceptable('application/yaml', WATCH_MEDIA_TYPES);
  // A PartialObjectMetadataList watch sends its objects unconverted (see `converted`): in protobuf
  // only for a kind that has a protobuf form (not a custom resource).
  if (w.out.rep === 'protobuf' && w.out.convert?.as === 'PartialObjectMetadataList' && !protobufTypeFor(store.apiVersion, kind.kind)) throw notAcceptable(PROTOBUF, WATCH_MEDIA_TYPES);
  const sel = reader.selectors({ labelSelector: q.get('labelSelector') ?? undefined, fieldSelector: q.get('fieldSelector') ?? undefined });
  // A named watch (`/watch/…/configmaps/x`) allows only a field selector naming the same object.
  if (w.name && sel.field && sel.field.requiresExactMatch('metadata.name') !== w.name) {
    throw badRequest("fieldSelector metadata.name doesn't match requested name");
  }
  const name = w.name || sel.field?.requiresExactMatch('metadata.name') || '';
  const rvText = q.get('resourceVersion') ?? '';
  const sendInitialText = q.get('sendInitialEvents');
  const bookmarks = queryBool(q.get('allowWatchBookmarks'));
  const timeoutS = watchTimeoutS(int64Param(q, 'timeoutSeconds'), w.minRequestTimeoutS ?? MIN_REQUEST_TIMEOUT_S);
  const sendInitial = sendInitialText === null ? rvText === '' || rvText === '0' : truthy(sendInitialText);
  if (sendInitialText !== null) {
    const errs = [];
    if (q.get('resourceVersionMatch') !== 'NotOlderThan') {
      errs.push({ type: 'FieldValueForbidden' as const, field: 'resourceVersionMatch', detail: "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" });
    }
    if (truthy(sendInitialText) && !bookmarks) {
      errs.push({ type: 'FieldValueForbidden' as const, field: 'allowWatchBookmarks', detail: 'sendInitialEvents requires setting allowWatchBookmarks to true' });
    }
    if (errs.length) throw invalid('ListOptions', 'meta.k8s.io', '', errs);
  } else if (q.get('resourceVersionMatch')) {
    // ValidateListOptions: a plain watch has no list to match versions against.
    throw invalid('ListOptions', 'meta.k8s.io', '', [{ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden for watch' }]);
  }
  // kube's watch cache parses the version: its error is a plain 500, not a 400.
  let from = rvText && rvText !== '0' ? parseCachedRv(rvText) : -1;
  /** The initial state, read from one storage snapshot while it is sent (see streamInitial). */
  let initial: ListStream | ListResult | undefined;
  if (sendInitial) {
    // A named watch starts with that one object only (kube turns the name into a field selector).
    const fieldSelector = q.get('fieldSelector') || (w.name ? `metadata.name=${w.name}` : undefined);
    initial = await reader.openList(w.namespace, { labelSelector: q.get('labelSelector') ?? undefined, fieldSelector, resourceVersion: from > 0 ? String(from) : undefined }, true, INITIAL_READ_BATCH, w.version);
    from = initial.rv;
  }
  const closeInitial = async (): Promise<void> => {
    if (initial && isStream(initial)) await initial.close();
  };
  // A future start version is simply watched from (kube 1.24's watch cache neither waits nor
  // fails): events after it arrive once the log gets there.

  const protobuf = w.out.rep === 'protobuf';
  const convert = w.out.convert;
  const table = convert?.as === 'Table' ? tableOptions(q) : undefined;
  const head = { 'Content-Type': protobuf ? `${PROTOBUF};stream=watch` : 'application/json', 'Cache-Control': 'no-cache, private' };
  res.writeHead(200, head);
  res.flushHeaders(); // the client's watch call returns on headers; events may take a while
  // Each event's object goes through the conversion (kube's watch Fixup; bookmarks too, errors
  // never); a Table carries its column definitions on the first event only.
  const converted = (o: KubeObject, headers: boolean): unknown => {
    if (convert?.as === 'Table' && table) return toTable(kind, [o], objectTableMeta(o), { ...table, noHeaders: !headers }, convert.version);
    // PartialObjectMetadataList of a single event object fails kube's transform, which then
    // sends the object unconverted.
    if (convert?.as === 'PartialObjectMetadata') return partialObjectMetadata(o, convert.version, kind);
    return o;
  };
  const format = protobuf ? 'protobuf' : convert?.as === 'Table' ? 'table' : convert?.as === 'PartialObjectMetadata' ? 'metadata' : convert ? 'metadata-list' : 'json';
  /** The version events are served at: the request's for a kind converted between versions. */
  const conversion = w.version ? kind.conversion : undefined;
  const apiVersion = conversion ? (kind.group ? `${kind.group}/${w.version}` : w.version!) : store.apiVersion;
  /** The served kind: what a stored change decodes to (a view kind decodes it differently). */
  const kindId = `${apiVersion}|${kind.kind}|${kind.resource}`;
  /**
   * Everything an event frame of a change depends on besides the event type: watchers with the
   * same variant get the same bytes, encoded once per change (FanOutMemo).
   */
  const variant = `${kindId}|${format}|${convert?.as ?? ''}|${convert?.version ?? ''}|${table?.includeObject ?? ''}`;
  const joinedKey = `${variant}|joined`;
  const encode = (type: EventType, obj: Buffer | KubeObject, headers: boolean): Buffer => {
    w.hub.countEncoded(format);
    if (protobuf) {
      const o = Buffer.isBuffer(obj) ? parseObject(obj) : obj;
      return frameWatchEvent(encodeWatchEvent(type, convert && type !== 'ERROR' ? converted(o, headers) : o));
    }
    let body: Buffer;
    if (convert && type !== 'ERROR') body = Buffer.from(JSON.stringify(converted(Buffer.isBuffer(obj) ? parseObject(obj) : obj, headers)));
    else body = Buffer.isBuffer(obj) ? obj : Buffer.from(JSON.stringify(obj));
    return Buffer.concat([EVENT_PREFIX[type], goJsonEscape(body), NEWLINE_CLOSE]);
  };
  /** A Table watch's next converted event still has to carry the column definitions. */
  let headers = convert?.as === 'Table';
  /** The frame of one event for this watcher (a Table's first converted event has the columns). */
  const frame = (type: EventType, obj: Buffer | KubeObject): Buffer => {
    const withHeaders = headers;
    if (type !== 'ERROR') headers = false;
    return encode(type, obj, withHeaders);
  };
  const bookmark = (rv: number, initialEnd = false): Buffer => {
    // kube's bookmark is an empty object of the kind: its zero ObjectMeta carries
    // `creationTimestamp: null` after the resourceVersion.
    const metadata: Record<string, unknown> = { resourceVersion: String(rv), creationTimestamp: null };
    if (initialEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    return frame('BOOKMARK', { kind: kind.kind, apiVersion, metadata });
  };

  const expiredFrame = (): Buffer => {
    const e: ApiError = expired(`too old resource version: ${from} (${w.hub.oldestResumable})`);
    return frame('ERROR', e.status as unknown as KubeObject);
  };
  if (from >= 0 && from < w.hub.oldestResumable && !sendInitial) {
    res.end(expiredFrame());
    return;
  }
  const budget = w.hub.budget;
  /**
   * Changes after `from` that arrive while the initial events are still going out wait here (as
   * kube's cacheWatcher holds them in its input channel while it sends its initEvents); a watcher
   * whose held changes pass its budget is ended as too slow, as kube ends one whose channel stays
   * full. The Change objects are the hub's own (shared with the ring), not copies.
   */
  let held: Change[] | null = sendInitial ? [] : null;
  let heldBytes = 0;
  let entry: BudgetEntry | undefined;
  const label = sel.label;
  const field = sel.field;
  // Objects are parsed once per change for every selector watch (read only: the memo shares them).
  const selected = label || field
    ? (b: Buffer, memo: FanOutMemo): boolean => {
        const o = memo.get(b, 'parsed', () => parseObject(b));
        return (!label || label.matches(o.metadata.labels)) && (!field || field.matches(reader.fieldsOf(o)));
      }
    : null;
  /** Write a frame (or a group of `events` frames); false: the socket wants a drain first. */
  const send = (b: Buffer, events = 1): boolean => {
    w.hub.countSent(format, events);
    const ok = res.write(b);
    entry?.note();
    return ok;
  };

  // Frames delivered by the hub wait here until its flush: a batch goes out in one write.
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Every pending frame is the variant's plain frame of its change (no selector transition, no columns). */
  let pendingPlain = true;
  /** The joined pending frames; `shared` when they are exactly the plain frames of the hub's batch. */
  const writePending = (shared?: { memo: FanOutMemo; batch: readonly Change[] }): void => {
    if (!pending.length) return;
    let out: Buffer;
    if (pending.length === 1) out = pending[0];
    else if (shared && pendingPlain && pending.length === shared.batch.length) {
      // Same batch, same variant, every change as is: the same bytes as every such watcher's.
      out = shared.memo.get(shared.batch, joinedKey, () => Buffer.concat(pending, pendingBytes));
    } else out = Buffer.concat(pending, pendingBytes);
    w.hub.countSent(format, pending.length);
    pending.length = 0; // reused: nothing holds on to it (a join above copied it)
    pendingBytes = 0;
    pendingPlain = true;
    if (!res.writableEnded) res.write(out);
    entry?.note();
  };
  /** Bytes this watcher holds: queued in its response, framed for the next write, held during the initial events. */
  const queued = (): number => res.writableLength + pendingBytes + heldBytes + convertingBytes;
  const withinBudget = (): boolean => queued() <= budget.perWatcher;
  /** While the initial events go out: the changes held meanwhile fit (count and bytes). */
  const holdsWithinBudget = (changes: Change[]): boolean => changes.length <= MAX_HELD_CHANGES && withinBudget();
  /** Memo keys of this watcher's frames, by event type, selection left, columns (see frameKey). */
  const frameKeys: string[] = [];
  const frameKey = (type: EventType, left: boolean, columns: boolean): string => {
    const i = TYPE_INDEX[type] * 4 + (left ? 2 : 0) + (columns ? 1 : 0);
    return (frameKeys[i] ??= `${variant}|${type}|${left ? 'left' : 'object'}${columns ? '|columns' : ''}`);
  };

  /**
   * Changes whose conversion calls out (a conversion webhook) are framed in order once converted:
   * while any is on its way, the later ones queue behind it. `converting` counts them, and their
   * bytes count against the watcher's budget.
   */
  let converting = 0;
  let convertingBytes = 0;
  let conversions: Promise<void> = Promise.resolve();
  let done = false;
  const timers: NodeJS.Timeout[] = [];
  // Assigned once hub.watch returns; the hub may end a watcher inside that call (slow replay).
  let handle: WatchHandle | undefined;
  /**
   * End the stream. A watcher ended as too slow loses what still waits for it: its connection is
   * cut, which releases the queue at once (kube's slow watcher has nothing queued: its writes
   * block); client-go takes the cut stream as a closed watch and watches again from the last
   * version it got.
   */
  const finish = (slow = false): void => {
    if (done) return;
    done = true;
    handle?.stop();
    timers.forEach(clearTimeout);
    entry?.remove();
    held = null;
    heldBytes = 0;
    void closeInitial();
    if (slow) {
      pending.length = 0;
      pendingBytes = 0;
      // HTTP/2: RST_STREAM CANCEL for this stream only (the connection carries others).
      const stream = (anyRes as Http2ServerResponse).stream;
      if (stream) stream.close(http2.constants.NGHTTP2_CANCEL);
      else res.destroy();
      return;
    }
    writePending();
    if (!res.writableEnded) res.end();
  };
  handle = w.hub.watch({ group: reader.codec.group, resource: reader.codec.resource, namespace: kind.namespaced ? w.namespace : '', name }, Math.max(from, 0), {
    deliver(stored: Change, memo: FanOutMemo): boolean {
      if (done) return true;
      if (stored.offset <= from) return true;
      if (held) {
        held.push(stored);
        heldBytes += changeBytes(stored);
        return holdsWithinBudget(held);
      }
      return deliverNow(stored, memo);
    },
    flush(memo: FanOutMemo, batch: readonly Change[]): boolean {
      if (held) {
        entry?.note();
        return holdsWithinBudget(held);
      }
      writePending({ memo, batch });
      return withinBudget();
    },
    end(reason) {
      const slow = reason === 'slow' || reason === 'budget';
      if (!slow) writePending();
      // Compaction overtook a resume from the log: say so, as for a start version that is too old.
      if (reason === 'expired' && !done && !res.writableEnded) res.write(expiredFrame());
      finish(slow);
    },
    drained: () => drained(res, () => done || !needsDrain(res)),
  });
  /** Frame a change for this watcher (selectors, conversion) into `pending`; false: over budget. */
  function deliverNow(stored: Change, memo: FanOutMemo): boolean {
    if (reader.codec.isView) return frameChange(stored, memo.get(stored, `decoded|${kindId}`, () => reader.codec.decodeChange(stored)), memo);
    if (!conversion) return frameChange(stored, stored, memo);
    // Converted once per change and version, for every watcher of it.
    const c = memo.get(stored, `converted|${kindId}`, () => convertChange(conversion, stored, w.version!));
    if (!(c instanceof Promise) && !converting) return frameChange(stored, c, memo);
    converting++;
    const bytes = changeBytes(stored);
    convertingBytes += bytes;
    conversions = conversions.then(async () => {
      try {
        const converted = await c;
        if (done) return;
        frameChange(stored, converted, memo);
        writePending();
      } catch (e) {
        // kube's watch of a version whose objects do not convert ends with the error.
        if (!done && !res.writableEnded) res.write(frame('ERROR', toApiError(e).status as unknown as KubeObject));
        finish();
      } finally {
        converting--;
        convertingBytes -= bytes;
      }
    });
    return withinBudget();
  }
  function frameChange(stored: Change, c: Change, memo: FanOutMemo): boolean {
    const ev = selected ? selectorEvent(c, (b) => selected(b, memo)) : AS_IS[c.type];
    if (ev) {
      // Shared by every watcher of this variant: the first one to need a frame encodes it.
      const withHeaders = headers;
      headers = false;
      const bytes = memo.get(stored, frameKey(ev.type, ev.left, withHeaders), () => encode(ev.type, ev.left ? leftSelection(c) : c.object, withHeaders));
      if (withHeaders || ev.left || ev.type !== c.type) pendingPlain = false;
      pending.push(bytes);
      pendingBytes += bytes.length;
    }
    return withinBudget();
  }
  if (!handle.ok) {
    await closeInitial();
    res.end(expiredFrame());
    return;
  }
  res.on('close', () => finish());
  if (done) return; // ended while replaying the ring
  const unregister = w.untilRemoved?.(() => finish());
  if (unregister) res.once('close', unregister);
  entry = budget.add({ queued, endSlow: () => handle?.endSlow('budget') });
  res.on('drain', () => entry?.note());
  const deadline = Date.now() + timeoutS * 1000;
  timers.push(setTimeout(() => finish(), timeoutS * 1000));
  if (initial) {
    const streamed = await streamInitial(initial);
    initial = undefined; // a list read whole (encrypted at rest) is not kept for the watch's life
    if (!streamed) return;
    if (bookmarks) send(bookmark(from, true));
    // Then the changes held meanwhile, in order, and from now on each batch as it comes.
    const changes = held ?? [];
    held = null;
    heldBytes = 0;
    const memo = new FanOutMemo();
    for (const c of changes) {
      if (done) return;
      if (!deliverNow(c, memo)) return handle.endSlow();
    }
    writePending();
    if (!withinBudget()) return handle.endSlow();
  }
  if (bookmarks) {
    // kube's cacheWatcher.nextBookmarkTime: every minute, but also 2 s before the watch's
    // deadline (so a client resumes from a recent version), and none once that moment passed.
    const last = deadline - PRE_TIMEOUT_BOOKMARK_MS;
    /** The pre-deadline bookmark's timer is the last one (a timer may fire a millisecond early by the wall clock). */
    let final = false;
    const schedule = (): void => {
      const now = Date.now();
      const at = Math.min(now + BOOKMARK_INTERVAL_MS, last);
      if (at <= now) return;
      final = at === last;
      timers.push(setTimeout(tick, at - now));
    };
    const tick = (): void => {
      if (done) return;
      // While a resume still replays from the log, folded is ahead of what was sent. Like kube's
      // cacheWatcher, which drops a bookmark not newer than the watch's start version, nothing
      // goes out until the store has moved past where the watch began.
      const latest = w.folded();
      if (handle?.caughtUp() && latest > Math.max(from, 0)) send(bookmark(latest));
      if (!final) schedule();
    };
    schedule();
  }

  /**
   * Send the initial state as ADDED events, a group at a time under backpressure (see
   * INITIAL_WRITE_BYTES). False when the stream ended meanwhile (closed, timed out, ended as too
   * slow). A read failure cuts the stream off: the headers are out, an incomplete stream is all
   * the client can still be told, and it lists again.
   */
  async function streamInitial(list: ListStream | ListResult): Promise<boolean> {
    const batches: AsyncIterable<Buffer[]> | Buffer[][] = isStream(list) ? list.batches : [list.items];
    try {
      for await (const batch of batches) {
        let group: Buffer[] = [];
        let size = 0;
        const write = async (): Promise<void> => {
          const ok = send(group.length === 1 ? group[0] : Buffer.concat(group, size), group.length);
          group = [];
          size = 0;
          if (!ok && !done) await drained(res, () => done);
        };
        for (const b of batch) {
          if (done) return false;
          const f = frame('ADDED', b);
          group.push(f);
          size += f.length;
          if (size >= INITIAL_WRITE_BYTES) await write();
        }
        if (done) return false;
        if (group.length) await write();
      }
    } catch (e) {
      if (!done) {
        done = true;
        handle?.stop();
        timers.forEach(clearTimeout);
        entry?.remove();
        res.destroy(e as Error);
      }
      return false;
    } finally {
      await closeInitial();
    }
    return !done;
  }
}

/** The response has more queued than it wants (HTTP/2's compat response has no writableNeedDrain). */
const needsDrain = (res: ServerResponse): boolean => res.writableNeedDrain ?? res.writableLength >= res.writableHighWaterMark;


const NEWLINE_CLOSE = Buffer.from('}\n');
/** The event of a change for a watcher without selectors: the change's own type and object. */
const AS_IS: Record<Change['type'], { type: EventType; left: false }> = { ADDED: { type: 'ADDED', left: false }, MODIFIED: { type: 'MODIFIED', left: false }, DELETED: { type: 'DELETED', left: false } };
const TYPE_INDEX: Record<EventType, number> = { ADDED: 0, MODIFIED: 1, DELETED: 2, BOOKMARK: 3, ERROR: 4 };
/** `{"type":"<TYPE>","object":` of each event type. */
const EVENT_PREFIX: Record<EventType, Buffer> = Object.fromEntries(
  (['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const).map((t) => [t, Buffer.from(`{"type":"${t}","object":`)]),
) as Record<EventType, Buffer>;

/**
 * The event a selector watch sends for a change, or null when the watcher is not interested
 * (kube-apiserver's cacheWatcher.convertToWatchEvent): judged on the object before the change
 * (`prev`) and after it —
 *
 *   before ✓  after ✓  → the change's own type (MODIFIED)
 *   before ✗  after ✓  → ADDED with the new object (it entered the selection)
 *   before ✓  after ✗  → DELETED with the previous object carrying the change's resourceVersion
 *                        (it left the selection, `left`: see leftSelection); a real delete
 *                        carries its own object
 *   before ✗  after ✗  → nothing
 *
 * A deleted object is judged only by its state before the delete (its last state if `prev` is
 * missing); an ADDED one was not selected before. Without `left` the event carries `c.object`.
 */
export function selectorEvent(c: Change, selected: (b: Buffer) => boolean): { type: EventType; left: boolean } | null {
  const now = c.type !== 'DELETED' && selected(c.object);
  let before: boolean;
  if (c.prev) before = selected(c.prev);
  else if (c.type === 'ADDED') before = false;
  else if (c.type === 'DELETED') before = selected(c.object);
  else before = now; // MODIFIED without a previous version: no transition can be told
  if (now && before) return { type: c.type, left: false };
  if (now) return { type: 'ADDED', left: false };
  if (!before) return null;
  if (c.type === 'DELETED') return { type: 'DELETED', left: false };
  return { type: 'DELETED', left: true };
}

/** What a watcher gets for an object that left its selection: the previous object at the change's version. */
function leftSelection(c: Change): KubeObject {
  const last = parseObject(c.prev!);
  last.metadata.resourceVersion = String(c.offset);
  return last;
}
