/**
 * Serving threads (`--workers N`, issue 28): the leader (the main thread) keeps the one log writer
 * and the one fold; every other thread serves from a follower Storage (Storage.openFollower) that
 * reads the same LevelDB stores (opened with classic-level's `multithreading`) and follows the
 * leader's commits over a MessagePort, much as a Kafka replica follows its topic without folding:
 *
 *   leader                                   follower (worker thread)
 *   Materializer.commit ── 'c' {commit record, this thread's verdicts}   ──▶ Materializer.follow,
 *                                                      then the verdicts (so after the commit)
 *   a failed append     ── 'v' {id, error}     ──▶ the writer's error
 *   StoreHealth change  ── 'h' {problems}      ──▶ StoreHealth.mirror
 *   SnapshotReads.found ◀── 'd' {reason}       ── damage a thread's read found (the leader logs it,
 *                                                  names the tables, and every thread's health fails)
 *   Storage.appendFor   ◀── 'a' {id, event}     ── Storage.write (encrypted here, as the leader would)
 *   Storage.latest      ◀── 'l' / ──▶ 'l'      (Kafka mode only: the broker's end, via the leader)
 *   FollowerTail.read   ◀── 'lr' 'ln' 'lx' / ──▶ 'lr' {events}  (Kafka mode only: the topic, read by the
 *                       leader a chunk at a time, for a watch resuming below the thread's ring)
 *   StoreKeeper.recover ── 'r' ──▶ reads held, stores closed ── 'rc' ──▶ the leader closes and
 *                       reopens its stores ── 'o' ──▶ the thread opens its own again, reads go on
 *                       (classic-level's `multithreading` shares one native database per
 *                       location: it is really closed, its sticky write error forgotten, only
 *                       once every thread has closed it)
 *
 * The leader's folded offset is also kept in shared memory (`committed`): an embedded follower's
 * consistent read waits until it has applied the offset it reads there, with no round trip. So is
 * its table watch's state (table-watch.ts): a thread's read holds its result while a changed
 * table is verified, as the leader's reads do.
 * A commit travels as one record in a SharedArrayBuffer shared by every follower (commit-record.ts:
 * encoded once, whatever the number of threads; each message carries a reference to it).
 */
import type { MessagePort } from 'node:worker_threads';
import type { Db, Materializer, PendingFold } from './mvcc/materializer.ts';
import { decodeCommit, encodeCommit } from './commit-record.ts';
import { decodeEvent } from './log/event.ts';
import { fromHex16, logKey } from './keys.ts';
import type { Verdict } from './mvcc/fold.ts';
import type { LogEvent, PositionedEvent } from './log/event.ts';
import type { EventLog } from './log/log.ts';
import { DAMAGE, type StoreHealth, type StoreProblem } from './store-health.ts';
import type { TableVouch } from './table-watch.ts';
import { StorageError, type StorageErrorCode } from './errors.ts';

/** What a follower thread is given by its leader (structured-cloneable: the port is transferred). */
export interface FollowerLink {
  port: MessagePort;
  /**
   * BigInt64Array[SLOTS] over it: [FOLDED] the leader's folded offset, stored at every commit;
   * [COMPACTED] its compaction point, stored before the compactor deletes anything below it;
   * [TABLE_CHANGES] and [VERIFYING] its table watch's generation and verifications in progress
   * (notified when they end); [DAMAGED] 1 once its health has damage (before the 'h' message).
   */
  committed: SharedArrayBuffer;
  /** The leader reads "most recent" from a Kafka broker: a consistent read asks it. */
  kafka: boolean;
}

type WireError = { code: StorageErrorCode; message: string; retryAfter?: number };
/**
 * A verdict in its commit's message: an accepted one without its object, which is the object of
 * the commit's change number `change` (the same bytes; not sent twice).
 */
type WireVerdict = [id: string, verdict: Verdict | Omit<Extract<Verdict, { accepted: true }>, 'object'>, change?: number];
type ToFollower =
  | { t: 'c'; last: number; record: SharedArrayBuffer | null; verdicts?: WireVerdict[] }
  | { t: 'v'; id: string; verdict?: Verdict; error?: WireError }
  | { t: 'h'; problems: StoreProblem[] }
  | { t: 'l'; req: number; offset?: number; error?: WireError }
  | { t: 'lr'; req: number; events?: PositionedEvent[]; done?: boolean; error?: WireError }
  | { t: 'r' }
  | { t: 'o' };
type ToLeader =
  | { t: 'a'; id: string; event: Omit<LogEvent, 'id'> }
  | { t: 'l'; req: number }
  | { t: 'd'; reason: string }
  | { t: 'rc' }
  // Kafka mode: a read of the topic (a watch resuming below the thread's ring), a chunk at a time.
  | { t: 'lr'; req: number; from: number; to: number }
  | { t: 'ln'; req: number }
  | { t: 'lx'; req: number };

/** Slots of the shared BigInt64Array (FollowerLink.committed). */
const FOLDED = 0;
const COMPACTED = 1;
const TABLE_CHANGES = 2;
const VERIFYING = 3;
const DAMAGED = 4;
const SLOTS = 5;
/** Atomics.waitAsync (Node ≥ 16; typed in TypeScript's es2024 lib, newer than this project's). */
const waitAsync = (Atomics as unknown as {
  waitAsync(a: BigInt64Array, index: number, value: bigint, timeoutMs: number): { async: boolean; value: Promise<string> | string };
}).waitAsync;
/** Log events per message of a topic read forwarded to the leader (Kafka mode). */
const LOG_READ_CHUNK = 256;
/** How long a thread's read waits for the leader's word on damage its shared memory announced. */
const DAMAGE_MESSAGE_WAIT_MS = 1000;

const wireError = (err: unknown): WireError =>
  err instanceof StorageError
    ? { code: err.code, message: err.message, ...(err.retryAfterSeconds !== undefined ? { retryAfter: err.retryAfterSeconds } : {}) }
    : { code: 'unreachable', message: (err as Error)?.message ?? String(err) };
const fromWire = (e: WireError): StorageError => new StorageError(e.code, e.message, e.retryAfter);
/** A Buffer cloned by postMessage arrives as a Uint8Array. */
const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** What the leader's side needs of its Storage. */
export interface LeaderSide {
  materializer: Materializer;
  health: StoreHealth;
  /** The compactor's point now, and a hook called synchronously whenever it advances. */
  compaction: { compacted: number; onAdvance: ((c: number) => void) | null };
  /** The table watch: its state is shared with the threads. */
  tables: { onState: ((generation: number, verifying: number) => void) | null };
  /** Damage a thread's read found (SnapshotReads.found). */
  damage(reason: string): void;
  /** Append an intent (already encrypted by the follower) under the follower's id; the verdict. */
  appendFor(id: string, event: Omit<LogEvent, 'id'>): Promise<Verdict>;
  latest(): Promise<number>;
  kafka: boolean;
  /** The log's events [from, to) (Kafka mode: the topic, which a thread does not read itself). */
  readLog(from: number, to: number): AsyncIterable<PositionedEvent>;
}

/** The leader's end: feeds every follower port its commits, verdicts and health. */
export class LeaderFeed {
  readonly committed = new SharedArrayBuffer(8 * SLOTS);
  private readonly offset = new BigInt64Array(this.committed);
  private readonly ports = new Set<MessagePort>();
  private readonly stop: (() => void)[] = [];
  /** Writes the followers sent (a measure of how the kernel spread connections over threads). */
  appends = 0;
  /** Intents of followers not decided yet, by id: their verdict goes in the commit that decides it. */
  private readonly asking = new Map<string, MessagePort>();
  /** Threads asked to close their stores (release), until they say they have. */
  private readonly releasing = new Map<MessagePort, () => void>();
  /** Topic reads in progress for threads (Kafka mode), by port and request. */
  private readonly logReads = new Map<MessagePort, Map<number, AsyncIterator<PositionedEvent>>>();

  constructor(private readonly s: LeaderSide) {
    Atomics.store(this.offset, FOLDED, BigInt(s.materializer.folded));
    Atomics.store(this.offset, COMPACTED, BigInt(s.compaction.compacted));
    s.compaction.onAdvance = (c) => Atomics.store(this.offset, COMPACTED, BigInt(c));
    s.tables.onState = (generation, verifying) => {
      Atomics.store(this.offset, TABLE_CHANGES, BigInt(generation));
      Atomics.store(this.offset, VERIFYING, BigInt(verifying));
      if (!verifying) Atomics.notify(this.offset, VERIFYING);
    };
    this.stop.push(s.materializer.onCommit((p) => this.commit(p)));
    this.stop.push(
      s.health.onChange(() => {
        Atomics.store(this.offset, DAMAGED, s.health.get(DAMAGE) ? 1n : 0n);
        this.broadcast({ t: 'h', problems: s.health.list() });
      }),
    );
  }

  /** A new follower: its port gets every commit from now on (queued until the thread reads it). */
  link(port: MessagePort): FollowerLink {
    this.ports.add(port);
    port.on('message', (m: ToLeader) => this.request(port, m));
    port.on('close', () => {
      this.ports.delete(port);
      for (const it of this.logReads.get(port)?.values() ?? []) void it.return?.();
      this.logReads.delete(port);
      this.releasing.get(port)?.();
    });
    port.postMessage({ t: 'h', problems: this.s.health.list() } satisfies ToFollower);
    return { port, committed: this.committed, kafka: this.s.kafka };
  }

  private request(port: MessagePort, m: ToLeader): void {
    if (m.t === 'a') {
      this.appends++;
      const event = { ...m.event, ...(m.event.object ? { object: asBuffer(m.event.object) } : {}) };
      this.asking.set(m.id, port);
      // A verdict travels in its commit's message (commit below); only a failure comes alone.
      new Promise<Verdict>((resolve) => resolve(this.s.appendFor(m.id, event))).then(
        (verdict) => {
          if (this.asking.delete(m.id)) port.postMessage({ t: 'v', id: m.id, verdict } satisfies ToFollower);
        },
        (err: unknown) => {
          this.asking.delete(m.id);
          port.postMessage({ t: 'v', id: m.id, error: wireError(err) } satisfies ToFollower);
        },
      );
    } else if (m.t === 'd') {
      this.s.damage(m.reason);
    } else if (m.t === 'rc') {
      this.releasing.get(port)?.();
      this.releasing.delete(port);
    } else if (m.t === 'lr' || m.t === 'ln' || m.t === 'lx') {
      this.logRead(port, m);
    } else {
      this.s.latest().then(
        (offset) => port.postMessage({ t: 'l', req: m.req, offset } satisfies ToFollower),
        (err: unknown) => port.postMessage({ t: 'l', req: m.req, error: wireError(err) } satisfies ToFollower),
      );
    }
  }

  /** A thread's topic read: opened by 'lr', the next chunk on 'ln', given up on 'lx'. */
  private logRead(port: MessagePort, m: Extract<ToLeader, { t: 'lr' | 'ln' | 'lx' }>): void {
    let reads = this.logReads.get(port);
    if (!reads) this.logReads.set(port, (reads = new Map()));
    if (m.t === 'lr') reads.set(m.req, this.s.readLog(m.from, m.to)[Symbol.asyncIterator]());
    const it = reads.get(m.req);
    if (m.t === 'lx' || !it) {
      reads.delete(m.req);
      void it?.return?.();
      return;
    }
    void (async () => {
      const events: PositionedEvent[] = [];
      try {
        for (;;) {
          const r = await it.next();
          if (r.done) {
            reads.delete(m.req);
            port.postMessage({ t: 'lr', req: m.req, events, done: true } satisfies ToFollower);
            return;
          }
          events.push(r.value);
          if (events.length >= LOG_READ_CHUNK) break;
        }
        port.postMessage({ t: 'lr', req: m.req, events } satisfies ToFollower);
      } catch (err) {
        reads.delete(m.req);
        port.postMessage({ t: 'lr', req: m.req, error: wireError(err) } satisfies ToFollower);
      }
    })();
  }

  private commit(p: PendingFold): void {
    Atomics.store(this.offset, FOLDED, BigInt(p.lastOffset));
    if (!this.ports.size) return;
    // Encoded once for every thread (commit-record.ts); each message only references the memory.
    const record = encodeCommit(p.changes, p.entries);
    const verdicts = new Map<MessagePort, WireVerdict[]>();
    if (this.asking.size) {
      let changeAt: Map<number, number> | undefined;
      for (const { id, verdict } of p.verdicts) {
        const port = this.asking.get(id);
        if (!port) continue;
        this.asking.delete(id);
        let wire: WireVerdict = [id, verdict];
        if (verdict.accepted) {
          changeAt ??= new Map(p.changes.map((c, i) => [c.offset, i]));
          const i = changeAt.get(verdict.rv);
          if (i !== undefined && p.changes[i]!.object === verdict.object) {
            const { object: _sent, ...rest } = verdict;
            wire = [id, rest, i];
          }
        }
        const list = verdicts.get(port);
        if (list) list.push(wire);
        else verdicts.set(port, [wire]);
      }
    }
    for (const port of this.ports) {
      const own = verdicts.get(port);
      port.postMessage({ t: 'c', last: p.lastOffset, record, ...(own ? { verdicts: own } : {}) } satisfies ToFollower);
    }
  }

  /**
   * Recovery is about to close and reopen the stores (StoreKeeper.recover): every thread holds
   * its reads and closes its own handles, so the leader's close really closes the native
   * database. Resolves once all have (or after `timeoutMs`: false, a thread did not answer).
   */
  async release(timeoutMs = 10_000): Promise<boolean> {
    const all = [...this.ports].map((port) => new Promise<void>((resolve) => {
      this.releasing.set(port, resolve);
      port.postMessage({ t: 'r' } satisfies ToFollower);
    }));
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([Promise.all(all).then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)))]);
    clearTimeout(timer);
    this.releasing.clear();
    return answered;
  }

  /** The stores are open again: every thread opens its own and lets its reads go on. */
  reattach(): void {
    this.broadcast({ t: 'o' });
  }

  private broadcast(m: ToFollower): void {
    for (const port of this.ports) port.postMessage(m);
  }

  close(): void {
    for (const s of this.stop) s();
    this.s.tables.onState = null;
    for (const r of this.releasing.values()) r();
    this.releasing.clear();
    for (const reads of this.logReads.values()) for (const it of reads.values()) void it.return?.();
    this.logReads.clear();
    for (const port of this.ports) port.close();
    this.ports.clear();
  }
}

/**
 * The follower's end: applies the leader's messages to its Materializer and StoreHealth, and is
 * its EventLog (appends go to the leader; the verdict comes back on the port).
 */
export class FollowerTail implements EventLog, TableVouch {
  private readonly offset: BigInt64Array;
  private loaded: Materializer | null = null;
  /** Commits that arrived while the key index loads (applied after it, those past its offset). */
  private early: ToFollower[] = [];
  private req = 0;
  private readonly latestWaiters = new Map<number, { resolve: (n: number) => void; reject: (e: Error) => void }>();
  /** Chunks of topic reads forwarded to the leader (Kafka mode), by request. */
  private readonly logWaiters = new Map<number, { resolve: (m: Extract<ToFollower, { t: 'lr' }>) => void; reject: (e: Error) => void }>();
  private closed = false;
  /** Set by the Storage: close this thread's stores with its reads held until `released` resolves, then open them again. */
  onRelease: (() => Promise<void>) | null = null;
  private reopened: (() => void) | null = null;

  constructor(private readonly link: FollowerLink, private readonly health: StoreHealth, private readonly logDb: Db | null) {
    this.offset = new BigInt64Array(link.committed);
    link.port.on('message', (m: ToFollower) => this.receive(m));
  }

  /** The leader's folded offset now. */
  get committed(): number {
    return Number(Atomics.load(this.offset, FOLDED));
  }

  /** The leader's compaction point now (history below it may be gone). */
  get compacted(): number {
    return Number(Atomics.load(this.offset, COMPACTED));
  }

  /** The leader's table watch generation (TableVouch: SnapshotReads records it before a read). */
  get generation(): number {
    return Number(Atomics.load(this.offset, TABLE_CHANGES));
  }

  /**
   * What was read since `generation` may be used once the leader has verified every table
   * changed meanwhile and, if it found damage, once its health message has come (the read then
   * checks this thread's health, as the leader's reads do).
   */
  vouch(generation: number): Promise<void> | undefined {
    const damagedUnheard = (): boolean => Atomics.load(this.offset, DAMAGED) !== 0n && !this.health.get(DAMAGE);
    if (generation === this.generation && Atomics.load(this.offset, VERIFYING) === 0n && !damagedUnheard()) return undefined;
    return (async () => {
      for (let n = Atomics.load(this.offset, VERIFYING); n !== 0n; n = Atomics.load(this.offset, VERIFYING)) {
        const w = waitAsync(this.offset, VERIFYING, n, 5_000);
        if (w.async) await w.value;
      }
      if (damagedUnheard()) await this.health.nextChange(DAMAGE_MESSAGE_WAIT_MS);
    })();
  }

  /** This thread's stores are closed (onRelease): tell the leader; resolves once it has reopened its own. */
  released(): Promise<void> {
    const reopened = new Promise<void>((resolve) => (this.reopened = resolve));
    this.link.port.postMessage({ t: 'rc' } satisfies ToLeader);
    return reopened;
  }

  /** Damage one of this thread's reads found: the leader's to log and to spread (SnapshotReads.found). */
  reportDamage(reason: string): void {
    if (!this.closed) this.link.port.postMessage({ t: 'd', reason } satisfies ToLeader);
  }

  get kafka(): boolean {
    return this.link.kafka;
  }

  /** The key index is loaded: apply what came meanwhile, then every message as it comes. */
  start(m: Materializer): void {
    this.loaded = m;
    for (const msg of this.early.splice(0)) this.receive(msg);
  }

  private receive(m: ToFollower): void {
    const mat = this.loaded;
    if (m.t === 'h') {
      this.health.mirror(m.problems);
      return;
    }
    if (m.t === 'r') {
      if (this.onRelease) void this.onRelease().catch(() => undefined);
      else this.link.port.postMessage({ t: 'rc' } satisfies ToLeader);
      return;
    }
    if (m.t === 'o') {
      this.reopened?.();
      this.reopened = null;
      return;
    }
    if (m.t === 'lr') {
      const w = this.logWaiters.get(m.req);
      this.logWaiters.delete(m.req);
      if (m.error) w?.reject(fromWire(m.error));
      else w?.resolve(m);
      return;
    }
    if (m.t === 'l') {
      const w = this.latestWaiters.get(m.req);
      this.latestWaiters.delete(m.req);
      if (m.error) w?.reject(fromWire(m.error));
      else w?.resolve(m.offset!);
      return;
    }
    if (!mat) {
      this.early.push(m);
      return;
    }
    if (m.t === 'c') {
      const { changes, entries } = decodeCommit(m.record);
      mat.follow({ lastOffset: m.last, changes, entries });
      for (const [id, v, change] of m.verdicts ?? []) {
        if (change === undefined) this.resolve(mat, id, v as Verdict);
        else mat.resolveVerdict(id, { ...v, object: changes[change]!.object } as Verdict);
      }
    } else if (m.error) mat.cancelVerdict(m.id, fromWire(m.error));
    else this.resolve(mat, m.id, m.verdict!);
  }

  private resolve(mat: Materializer, id: string, v: Verdict): void {
    mat.resolveVerdict(id, v.accepted ? { ...v, object: asBuffer(v.object) } : v);
  }

  append(event: LogEvent): Promise<number> {
    if (this.closed) return Promise.reject(new StorageError('unreachable', 'storage is shutting down'));
    const { id, ...rest } = event;
    // The object's bytes go in an ArrayBuffer of their own, transferred: a Buffer is usually a
    // view of a larger one (Node's 8 KiB pool, a request body), which postMessage would copy whole
    // and the leader would then keep alive with the object.
    const o = rest.object;
    if (o) {
      const own = new Uint8Array(o.byteLength);
      own.set(o);
      this.link.port.postMessage({ t: 'a', id, event: { ...rest, object: own as Buffer } } satisfies ToLeader, [own.buffer]);
    } else this.link.port.postMessage({ t: 'a', id, event: rest } satisfies ToLeader);
    // The offset is the verdict's (Storage.append awaits that, not this).
    return Promise.resolve(-1);
  }

  /** The leader's log end as of now (Kafka mode: the broker's, asked through the leader). */
  async endOffset(): Promise<number> {
    if (!this.link.kafka) return this.committed + 1;
    const req = ++this.req;
    const offset = await new Promise<number>((resolve, reject) => {
      this.latestWaiters.set(req, { resolve, reject });
      this.link.port.postMessage({ t: 'l', req } satisfies ToLeader);
    });
    return offset + 1;
  }

  /**
   * The embedded log's entries, read from its store (shared with the leader, as the snapshot);
   * in Kafka mode the topic's, read by the leader a chunk at a time (a watch resuming below this
   * thread's ring is served as the replica's single thread would serve it, not answered 410).
   */
  async *read(from: number, to?: number): AsyncIterable<PositionedEvent> {
    const end = to ?? this.committed + 1;
    if (!this.logDb) {
      yield* this.readThroughLeader(from, end);
      return;
    }
    for await (const [k, v] of this.logDb.iterator({ gte: logKey(from), lt: logKey(end) })) {
      yield { offset: fromHex16(k.slice(2)), event: decodeEvent(v) };
    }
  }

  private async *readThroughLeader(from: number, to: number): AsyncIterable<PositionedEvent> {
    const req = ++this.req;
    const ask = (m: ToLeader): Promise<Extract<ToFollower, { t: 'lr' }>> => {
      if (this.closed) return Promise.reject(new StorageError('unreachable', 'storage is shutting down'));
      return new Promise((resolve, reject) => {
        this.logWaiters.set(req, { resolve, reject });
        this.link.port.postMessage(m);
      });
    };
    let done = false;
    try {
      let chunk = await ask({ t: 'lr', req, from, to });
      for (;;) {
        done = chunk.done === true;
        for (const { offset, event } of chunk.events ?? []) yield { offset, event: event.object ? { ...event, object: asBuffer(event.object) } : event };
        if (done) return;
        chunk = await ask({ t: 'ln', req });
      }
    } finally {
      // Given up early (the watch ended): the leader closes its read.
      if (!done && !this.closed) this.link.port.postMessage({ t: 'lx', req } satisfies ToLeader);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const err = new StorageError('unreachable', 'storage is shutting down');
    for (const w of this.latestWaiters.values()) w.reject(err);
    this.latestWaiters.clear();
    for (const w of this.logWaiters.values()) w.reject(err);
    this.logWaiters.clear();
    this.reopened?.();
    this.link.port.close();
  }
}
