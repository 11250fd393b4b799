/**
 * The fold loop of a replica in Kafka mode: one partition reader from the folded offset + 1,
 * each fetched batch folded and written to LevelDB in one batch together with `m/folded`, then
 * committed (verdicts to writers, changes to watches). Because the folded offset is in the same
 * atomic batch as the state, a crash at any point resumes exactly after the last durable fold.
 *
 * The snapshot batch is not fsynced: the log (acks=all on the brokers) is the durable copy, and
 * LevelDB's own log keeps batches atomic, so a lost tail is simply folded again after a restart.
 */
import type { Kafka } from 'kafkajs';
import type { Db, BatchOp, Materializer } from '../mvcc/materializer.ts';
import { writeBatch } from '../write-batch.ts';
import type { FoldPositionedEvent } from './event.ts';
import type { StoreHealth } from '../store-health.ts';
import { startPartitionReader, foldEvent, type PartitionReader } from './kafka-reader.ts';

export interface TailLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * How long one fetched batch waits for a store that refuses writes before kafkajs fetches it
 * again (and logs the failure): under the consumer's 30 s session timeout (kafka-reader.ts), so
 * the group does not evict a reader that is only waiting; a recovered store folds at once.
 */
const FOLD_WAIT_WRITABLE_MS = 20_000;

export class KafkaTail {
  private reader: PartitionReader | null = null;
  private stopped = false;
  /** Ends a fold's wait for the store (stop). */
  private readonly stopping = new AbortController();

  constructor(private readonly kafka: Kafka, private readonly topic: string, private readonly db: Db, private readonly m: Materializer, private readonly log: TailLogger, private readonly groupPrefix: string, private readonly health: StoreHealth) {}

  async start(): Promise<void> {
    this.reader = await startPartitionReader(this.kafka, {
      topic: this.topic,
      from: this.m.folded + 1,
      groupPrefix: this.groupPrefix,
      maxWaitMs: 200,
      // The fold reads op..time only: the audit fields are not decoded (decodeFoldEvent).
      decode: foldEvent,
      onBatch: (events) => this.fold(events),
      onError: (err, restarting) => {
        this.log.error({ err: err.message, restarting }, 'kafka tail crashed');
        if (!restarting) void this.restart();
      },
    });
  }

  /** kafkajs gave up on the consumer (a non-retriable error): start a new one from the fold. */
  private async restart(): Promise<void> {
    const old = this.reader;
    this.reader = null;
    await old?.stop();
    while (!this.stopped) {
      await new Promise((r) => setTimeout(r, 1000));
      if (this.stopped) return;
      try {
        await this.start();
        this.log.warn({ from: this.m.folded + 1 }, 'kafka tail restarted');
        return;
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'kafka tail restart failed; retrying');
      }
    }
  }

  private async fold(events: FoldPositionedEvent[]): Promise<void> {
    if (events[0].offset > this.m.folded + 1) {
      // Offsets of a non-transactional, uncompacted topic are dense; a hole means retention ran
      // ahead of this replica. Folding on would silently lose writes.
      this.log.error({ expected: this.m.folded + 1, got: events[0].offset }, 'log hole: events were deleted before this replica folded them');
    }
    // The store refuses writes (disk full, failed write): wait a little for its recovery
    // (StoreKeeper.recover (recovery.ts)), then let kafkajs fetch the batch again.
    if (!(await this.health.whenWritable(FOLD_WAIT_WRITABLE_MS, this.stopping.signal))) throw this.health.refusal();
    const ops: BatchOp[] = [];
    const pending = await this.m.foldInto(events, ops);
    try {
      await this.health.guard(() => writeBatch(this.db, ops, false));
    } catch (err) {
      this.m.rollback();
      throw err; // kafkajs re-fetches the batch; the reader skips what was folded
    }
    this.m.commit(pending);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.reader?.stop();
    this.reader = null;
  }
}
