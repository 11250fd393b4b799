/**
 * Reading the log partition from an offset. kafkajs only reads through consumer groups, so each
 * reader is a consumer in a group of its own (unique id, one member, one partition): no
 * rebalancing between replicas, and the group's committed offset is only a restart hint — the
 * reader always seeks to the position its caller asks for and skips anything before it.
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
  onError?(err: Error): void;
  /**
   * How long a fetch may wait at the broker for new events. The broker answers as soon as one
   * event arrives (minBytes 1), so this only bounds idle round trips.
   */
  maxWaitMs?: number;
}

export async function startPartitionReader(kafka: Kafka, o: ReaderOptions): Promise<PartitionReader> {
  const consumer: Consumer = kafka.consumer({
    groupId: `${o.groupPrefix}-${randomUUID()}`,
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
  await consumer.connect();
  await consumer.subscribe({ topics: [o.topic], fromBeginning: true });
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
  consumer.seek({ topic: o.topic, partition: 0, offset: String(o.from) });
  consumer.on(consumer.events.CRASH, (e) => o.onError?.(e.payload.error));
  return {
    async stop() {
      await consumer.disconnect().catch(() => undefined);
    },
  };
}
