/**
 * Changes rebuilt from the log and h/ history, for watches that resume below the hub's ring
 * (hub.ts): for each event, the Change the materializer published when it folded it.
 */
import { changeTypeOf, type Change } from '../storage/mvcc/materializer.ts';
import type { EventLog } from '../storage/log/log.ts';
import { eventKey, type LogEvent } from '../storage/log/event.ts';
import type { ObjectKey } from '../storage/keys.ts';

/** History reads kept in flight: a chunk of log events at a time (LevelDB reads run on libuv's threads). */
const HISTORY_READS_AT_ONCE = 64;

/** What a replay reads (Storage satisfies it). */
export interface ReplaySource {
  readonly log: Pick<EventLog, 'read'>;
  /** Resolves once the stores are open for reads (Storage.whenOpen: not while they are reopened). */
  whenOpen?(): Promise<void> | undefined;
  historyAt(key: ObjectKey, rv: number): Promise<{ written: Buffer | undefined; previous: Buffer | undefined }>;
  /** A deleted object as the fold stored it from the event at `offset`, readable (decrypted). */
  eventObject(key: ObjectKey, offset: number, object: Buffer): Buffer | null;
}

/**
 * The changes of log offsets (after, upTo] whose key `keep` accepts, in log order, a chunk at a
 * time. `onEvent` is called for every log event read. Callers check the compaction point after
 * a chunk: a compaction past an offset may have removed the history its change was built from.
 */
export async function* replayChanges(source: ReplaySource, after: number, upTo: number, keep: (key: ObjectKey) => boolean, onEvent?: () => void): AsyncGenerator<Change[]> {
  await source.whenOpen?.(); // not while the store is being reopened (Storage.recover)
  let chunk: { offset: number; event: LogEvent; key: ObjectKey }[] = [];
  const rebuild = async (): Promise<Change[]> => {
    const changes = await Promise.all(chunk.map(({ offset, event, key }) => replayedChange(source, offset, event, key)));
    chunk = [];
    return changes.filter((c): c is Change => c !== null);
  };
  for await (const { offset, event } of source.log.read(after + 1, upTo + 1)) {
    onEvent?.();
    if (event.op === 'GENESIS') continue;
    const key = eventKey(event);
    if (!keep(key)) continue;
    chunk.push({ offset, event, key });
    if (chunk.length >= HISTORY_READS_AT_ONCE) yield await rebuild();
  }
  if (chunk.length) yield await rebuild();
}

/**
 * The Change the materializer published for the event at `offset`, rebuilt from history: an
 * accepted event wrote h/<key>\0<offset> (the object, or '' for a delete); a rejected one wrote
 * nothing and yields null. A delete's object is the event's object stamped with the offset, as
 * the fold stamped it.
 */
async function replayedChange(source: ReplaySource, offset: number, event: LogEvent, key: ObjectKey): Promise<Change | null> {
  const { written, previous } = await source.historyAt(key, offset);
  if (written === undefined) return null;
  const type = changeTypeOf(event.op as 'CREATE' | 'UPDATE' | 'DELETE');
  const object = written.length ? written : event.object && source.eventObject(key, offset, event.object);
  if (!object) return null;
  const c: Change = { offset, type, key, object, time: event.time };
  if (type !== 'ADDED' && previous) c.prev = previous;
  return c;
}
