/**
 * Reading the log partition from an offset. kafkajs only reads through consumer groups, so each
 * reader is a consumer in a group of its own (unique id, one member, one partition): no
 * rebalancing between replicas. The start position is committed for the new group BEFORE the
 * consumer joins (kafkajs' seek only works once the group is running, which may be never if the
 * first join fails), and kafkajs' automatic restarts resume from the committed offset; events
 * before the caller's position are skipped either way.
 */
import { randomUUID } from 'node:crypto';
import type { Kafka, Consumer } from 'kafkajs';
import { decodeEvent, type PositionedEvent } from './event.ts';
import { MAX_MESSAGE_BYTES } from './kafka-topic.ts';

export interface PartitionReader {
  /** Stop reading; resolves when the consumer has left. */
  stop(): Promise<void>;
}

export interface ReaderOptions {
  topic: string;
  /** First offset wanted. */
  from: number;
  groupPrefix: string;
  /** Called with consecutive events in offset order; the next batch waits for the returned promise. */
  onBatch(events: PositionedEvent[]): Promise<void>;
  /** A crash; `restarting` false means kafkajs gave up and the reader is dead. */
  onError?(err: Error, restarting: boolean): void;
  /**
   * How long a fetch may wait at the broker for new events. The broker answers as soon as one
   * event arrives (minBytes 1), so this only bounds idle round trips.
   */
  maxWaitMs?: number;
}

export async function startPartitionReader(kafka: Kafka, o: ReaderOptions): Promise<PartitionReader> {
  const groupId = `${o.groupPrefix}-${randomUUID()}`;
  const consumer: Consumer = kafka.consumer({
    groupId,
    minBytes: 1,
    maxWaitTimeInMs: o.maxWaitMs ?? 500,
    maxBytesPerPartition: MAX_MESSAGE_BYTES,
    maxBytes: 4 * MAX_MESSAGE_BYTES,
    sessionTimeout: 30_000,
    heartbeatInterval: 3_000,
    allowAutoTopicCreation: false,
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 2_000 },
  });
  let next = o.from;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.setOffsets({ groupId, topic: o.topic, partitions: [{ partition: 0, offset: String(o.from) }] });
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  await consumer.connect();
  await consumer.subscribe({ topics: [o.topic], fromBeginning: true });
  consumer.on(consumer.events.CRASH, (e) => o.onError?.(e.payload.error, e.payload.restart));
  await consumer.run({
    autoCommit: true,
    autoCommitInterval: 5_000,
    partitionsConsumedConcurrently: 1,
    eachBatch: async ({ batch, heartbeat }) => {
      const events: PositionedEvent[] = [];
      for (const m of batch.messages) {
        const offset = Number(m.offset);
        // Fetches after a (re)join may start before our seek point: skip what the caller has.
        if (offset < next || !m.value) continue;
        events.push({ offset, event: decodeEvent(m.value) });
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
