/**
 * Reading the log partition from an offset. kafkajs only reads through consumer groups, so each
 * reader is a consumer in a group of its own (unique id, one member, one partition): no
 * rebalancing between replicas. The start position is committed for the new group BEFORE the
 * consumer joins (kafkajs' seek only works once the group is running, which may be never if the
 * first join fails), and kafkajs' automatic restarts resume from the committed offset; events
 * before the caller's position are skipped either way. (The commit is admin.setOffsets' recipe with
 * a short fetch wait, see commitStart.)
 */
import { randomUUID } from 'node:crypto';
import type { Kafka, Consumer } from 'kafkajs';
import { decodeEvent, decodeFoldEvent, type FoldPositionedEvent, type PositionedEvent } from './event.ts';
import { MAX_MESSAGE_BYTES } from './kafka-topic.ts';

export interface PartitionReader {
  /** Stop reading; resolves when the consumer has left. */
  stop(): Promise<void>;
}

export interface ReaderOptions<E extends FoldPositionedEvent = PositionedEvent> {
  topic: string;
  /** First offset wanted. */
  from: number;
  groupPrefix: string;
  /** How a record value becomes an event (default: every field, decodeEvent; see fullEvent / foldEvent). */
  decode?: (value: Buffer, offset: number) => E;
  /** Called with consecutive events in offset order; the next batch waits for the returned promise. */
  onBatch(events: E[]): Promise<void>;
  /** A crash; `restarting` false means kafkajs gave up and the reader is dead. */
  onError?(err: Error, restarting: boolean): void;
  /**
   * How long a fetch may wait at the broker for new events. The broker answers as soon as one
   * event arrives (minBytes 1), so this only bounds idle round trips.
   */
  maxWaitMs?: number;
}

/**
 * Fetch wait of the short-lived consumer that commits the start position. Tuning (bench/kafka.ts):
 * kafkajs' admin.setOffsets does the same steps with a consumer on kafkajs' default
 * maxWaitTimeInMs of 5,000 ms, and a paused consumer sleeps that long before the fetch that
 * applies the seek — so every reader start (each replica start-up, each replay) took 5 s. With
 * 20 ms it takes one group join and one round trip (~0.1 s on a local broker).
 */
const COMMIT_FETCH_WAIT_MS = 20;

/**
 * Bytes per fetch (tuning, bench/kafka.ts). Was MAX_MESSAGE_BYTES (8 MiB, ~5,000 1 KiB events):
 * a whole fetch is decoded before it is handed on, so thousands of decoded events outlived young
 * GCs; with 1 MiB a 100k-event replay took 10–20 % less time and GC CPU. A record batch larger
 * than this (one big event, ≤ MAX_MESSAGE_BYTES) still comes whole: the broker returns the first
 * batch of a partition even past the limit (KIP-74).
 */
const FETCH_BYTES = 1024 * 1024;

/**
 * Commit `offset` as the position of the new group `groupId`, before its real consumer joins:
 * admin.setOffsets' steps (join paused, seek — committed by the next fetch since autoCommit is on
 * — stop at that fetch) with a short fetch wait (above).
 */
async function commitStart(kafka: Kafka, groupId: string, topic: string, offset: number): Promise<void> {
  // A broker that just started answers group requests with retriable errors for a while (e.g.
  // COORDINATOR_LOAD_IN_PROGRESS while __consumer_offsets loads): try again, as kafkajs' own
  // consumer would, instead of failing the replica's start-up.
  const deadline = Date.now() + COMMIT_START_RETRY_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await commitStartOnce(kafka, groupId, topic, offset);
    } catch (err) {
      if (!isRetriable(err) || Date.now() + wait > deadline) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** How long a replica's start keeps retrying retriable broker errors while committing its start offset. */
const COMMIT_START_RETRY_MS = 60_000;

/** kafkajs marks errors a retry may cure (`retriable`), also when wrapped by its retrier (`originalError`). */
function isRetriable(err: unknown): boolean {
  for (let e = err as { retriable?: boolean; originalError?: unknown } | undefined; e; e = e.originalError as typeof e) {
    if (e.retriable === true) return true;
  }
  return false;
}

async function commitStartOnce(kafka: Kafka, groupId: string, topic: string, offset: number): Promise<void> {
  const c = kafka.consumer({ groupId, maxWaitTimeInMs: COMMIT_FETCH_WAIT_MS, allowAutoTopicCreation: false });
  await c.connect();
  try {
    await c.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      c.on(c.events.FETCH, () => void c.stop().then(resolve, reject));
      c.on(c.events.CRASH, (e) => reject(e.payload.error));
      c.run({ eachBatchAutoResolve: false, eachBatch: async () => undefined }).catch(reject);
      c.pause([{ topic }]);
      c.seek({ topic, partition: 0, offset: String(offset) });
    });
  } finally {
    await c.disconnect().catch(() => undefined);
  }
}

/** Every field of the event (audit tools, the watch hub's log reads). */
export const fullEvent = (value: Buffer, offset: number): PositionedEvent => ({ offset, event: decodeEvent(value) });
/** The fold's fields and the record's bytes (a replica's fold, rebuilds): see decodeFoldEvent. */
export const foldEvent = (value: Buffer, offset: number): FoldPositionedEvent => ({ offset, event: decodeFoldEvent(value), bytes: value });

export async function startPartitionReader<E extends FoldPositionedEvent = PositionedEvent>(kafka: Kafka, o: ReaderOptions<E>): Promise<PartitionReader> {
  const decode = o.decode ?? (fullEvent as unknown as (value: Buffer, offset: number) => E);
  const groupId = `${o.groupPrefix}-${randomUUID()}`;
  const consumer: Consumer = kafka.consumer({
    groupId,
    minBytes: 1,
    maxWaitTimeInMs: o.maxWaitMs ?? 500,
    maxBytesPerPartition: FETCH_BYTES,
    maxBytes: 4 * MAX_MESSAGE_BYTES,
    sessionTimeout: 30_000,
    heartbeatInterval: 3_000,
    allowAutoTopicCreation: false,
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 2_000 },
  });
  let next = o.from;
  await commitStart(kafka, groupId, o.topic, o.from);
  await consumer.connect();
  await consumer.subscribe({ topics: [o.topic], fromBeginning: true });
  consumer.on(consumer.events.CRASH, (e) => o.onError?.(e.payload.error, e.payload.restart));
  await consumer.run({
    autoCommit: true,
    autoCommitInterval: 5_000,
    partitionsConsumedConcurrently: 1,
    eachBatch: async ({ batch, heartbeat }) => {
      const events: E[] = [];
      for (const m of batch.messages) {
        const offset = Number(m.offset);
        // Fetches after a (re)join may start before our seek point: skip what the caller has.
        if (offset < next || !m.value) continue;
        events.push(decode(m.value, offset));
      }
      if (events.length) {
        await o.onBatch(events);
        next = events[events.length - 1].offset + 1;
      }
      await heartbeat();
    },
  });
  return {
    async stop() {
      await consumer.disconnect().catch(() => undefined);
    },
  };
}
