/**
 * The latest committed value of recently written objects, in memory (o/ as the last commits left
 * it), so that a GET or a read-modify-write of a hot object is answered without a LevelDB read.
 *
 * Why: a LevelDB get runs in libuv's thread pool, and its answer waits for the event loop; under a
 * create load, a GET then waits for the loop twice (the request, then the read's completion). Served
 * from here it waits once. Reads were also ~3 % of the CPU of a create load with a GET probe.
 *
 * Fed by commits (Materializer.commit, in offset order): an entry is always the newest committed
 * version of its object, never ahead of the snapshot (a batch that failed to write was never
 * committed) and never behind (every later commit of the object replaces or removes it). A value
 * read from LevelDB is added only when the object's committed version is the same before and after
 * the read (Materializer.remember): no commit of it can have landed in between, so what was read is
 * that version (after a restart, hot objects are held again from their first read).
 * Bounded by bytes; least recently written or read goes first. A value that is a slice of a shared
 * slab is copied into memory of its own first (own-buffer.ts; the fold's stamped objects already
 * are), so the budget counts exactly what the cache holds.
 */
import type { Change } from './materializer.ts';
import { objectPath, type ObjectKey } from '../keys.ts';
import { own } from '../own-buffer.ts';

export class CurrentCache {
  /** objectPath → stored bytes; Map order is recency (re-inserted on use). */
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Stored bytes of the object's latest committed version, if held. */
  get(key: ObjectKey): Buffer | undefined {
    const path = objectPath(key);
    const v = this.entries.get(path);
    if (v !== undefined) {
      this.entries.delete(path);
      this.entries.set(path, v);
    }
    return v;
  }

  /** Follow one committed batch (called in offset order). */
  apply(changes: readonly Change[]): void {
    for (const c of changes) this.put(objectPath(c.key), c.type === 'DELETED' ? undefined : c.object);
    this.trim();
  }

  /**
   * Follow one committed batch on a serving thread (Materializer.follow): only the objects held
   * already are replaced (or dropped); the others are not copied in. A thread holds what it has
   * read (Materializer.remember), so a create load does not copy every new object into every
   * thread's memory (7 µs a change on a serving thread, measured), while the objects it reads and
   * updates stay held, each always its latest committed version.
   */
  follow(changes: readonly Change[]): void {
    for (const c of changes) {
      const path = objectPath(c.key);
      if (this.entries.has(path)) this.put(path, c.type === 'DELETED' ? undefined : c.object);
    }
    this.trim();
  }

  /**
   * Hold `value`, read from o/, as the latest committed version of `path`. Only for the caller
   * that knows no commit of that object happened since the read began (Materializer.remember).
   */
  add(path: string, value: Buffer): void {
    this.put(path, value);
    this.trim();
  }

  private put(path: string, value: Buffer | undefined): void {
    const old = this.entries.get(path);
    if (old !== undefined) {
      this.entries.delete(path);
      this.bytes -= old.length;
    }
    if (value === undefined || value.length > this.maxBytes / 8) return;
    const v = own(value);
    this.entries.set(path, v);
    this.bytes += v.length;
  }

  private trim(): void {
    if (this.bytes <= this.maxBytes) return;
    for (const [path, v] of this.entries) {
      this.entries.delete(path);
      this.bytes -= v.length;
      if (this.bytes <= this.maxBytes) break;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** Forget everything (the store was reopened and may hold other versions). */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
