/**
 * The log on a Kafka partition. Appends are grouped: while one produce request is in flight the
 * next appends queue, and the following request carries all of them (one record batch, one
 * acks=all round trip). The idempotent producer allows one request in flight, which is also what
 * keeps offsets in append order. The offset of an event is the batch's base offset + its index.
 *
 * Failure model: a produce that does not complete within `appendTimeoutMs` fails its writers
 * (StorageError 'timeout' if it may still land, 'unreachable' if it never left the queue), so a
 * broker outage answers 503/504 instead of hanging requests. The producer is rebuilt after a
 * failed request because its idempotence sequence may no longer match the broker's.
 */
import type { Kafka, Producer, Admin } from 'kafkajs';
import type { EventLog } from './log.ts';
import type { LogInstruments } from './instruments.ts';
import { encodeEvent, genesisEvent, type FoldPositionedEvent, type LogEvent, type PositionedEvent } from './event.ts';
import { startPartitionReader, fullEvent, foldEvent } from './kafka-reader.ts';
import { ensureTopic, type TopicSettings, type TopicState } from './kafka-topic.ts';
import { StorageError } from '../errors.ts';

/** A record batch below the broker's default message.max.bytes even if the topic allows more. */
const MAX_BATCH_BYTES = 900 * 1024;
const MAX_BATCH_EVENTS = 1000;

export interface KafkaLogOptions extends TopicSettings {
  /** Longest an append may take, queueing included, before its writer gets an error. */
  appendTimeoutMs: number;
  clientId: string;
  /** Tools (replay, audit): never create the topic or write the genesis event. */
  readOnly?: boolean;
  /** Metrics: each produce request's size and round trip. */
  instruments?: LogInstruments;
}

interface Queued {
  bytes: Buffer;
  resolve: (offset: number) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  settled: boolean;
  sent: boolean;
}

export class KafkaLog implements EventLog {
  private producer: Producer | null = null;
  private queue: Queued[] = [];
  private sending = false;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  private endInFlight: Promise<number> | null = null;
  private endNext: Promise<number> | null = null;

  private constructor(private readonly kafka: Kafka, private readonly admin: Admin, private readonly opts: KafkaLogOptions, readonly topicState: TopicState) {}

  /** Connect, check (or create) the topic, and write the genesis event into an empty topic. */
  static async open(kafka: Kafka, opts: KafkaLogOptions): Promise<KafkaLog> {
    const admin = kafka.admin({ retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 } });
    await admin.connect();
    try {
      const state = await ensureTopic(admin, opts);
      const log = new KafkaLog(kafka, admin, opts, state);
      // Two replicas starting on an empty topic may both write one: GENESIS events fold to nothing.
      if (state.high === 0 && !opts.readOnly) await log.append(genesisEvent(Date.now()));
      return log;
    } catch (err) {
      await admin.disconnect().catch(() => undefined);
      throw err;
    }
  }

  get topic(): string {
    return this.opts.topic;
  }

  append(event: LogEvent): Promise<number> {
    if (this.opts.readOnly) return Promise.reject(new StorageError('unreachable', 'log opened read-only'));
    if (this.closed) return Promise.reject(new StorageError('unreachable', 'log is closed'));
    const bytes = encodeEvent(event);
    return new Promise((resolve, reject) => {
      const q: Queued = { bytes, resolve, reject, settled: false, sent: false, timer: undefined as unknown as NodeJS.Timeout };
      q.timer = setTimeout(() => this.expire(q), this.opts.appendTimeoutMs);
      this.queue.push(q);
      if (!this.sending) this.idle = this.pump();
    });
  }

  private expire(q: Queued): void {
    if (q.settled) return;
    q.settled = true;
    if (!q.sent) {
      const i = this.queue.indexOf(q);
      if (i >= 0) this.queue.splice(i, 1);
      q.reject(new StorageError('unreachable', `kafka did not accept the event within ${this.opts.appendTimeoutMs} ms`));
    } else {
      q.reject(new StorageError('timeout', `kafka did not acknowledge the event within ${this.opts.appendTimeoutMs} ms; it may still be applied`));
    }
  }

  private async pump(): Promise<void> {
    this.sending = true;
    try {
      while (this.queue.length) {
        const batch = this.take();
        try {
          const producer = await this.connectedProducer();
          const sentAt = process.hrtime.bigint();
          const md = await producer.send({ topic: this.opts.topic, acks: -1, messages: batch.map((q) => ({ value: q.bytes })) });
          const base = Number(md.find((m) => m.partition === 0)?.baseOffset ?? NaN);
          if (!Number.isFinite(base)) throw new Error('produce response carries no base offset');
          this.opts.instruments?.appended('kafka', batch.length, Number(process.hrtime.bigint() - sentAt) / 1e9);
          batch.forEach((q, i) => settle(q, () => q.resolve(base + i)));
        } catch (err) {
          await this.dropProducer();
          const e = new StorageError('unreachable', `kafka append failed: ${(err as Error).message}`);
          for (const q of batch) settle(q, () => q.reject(e));
        }
      }
    } finally {
      this.sending = false;
    }
  }

  private take(): Queued[] {
    let n = 0;
    let bytes = 0;
    while (n < this.queue.length && n < MAX_BATCH_EVENTS) {
      if (n > 0 && bytes + this.queue[n].bytes.length > MAX_BATCH_BYTES) break;
      bytes += this.queue[n].bytes.length;
      n++;
    }
    const batch = this.queue.splice(0, n);
    for (const q of batch) q.sent = true;
    return batch;
  }

  private async connectedProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    const p = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      // Retries inside kafkajs cover leader moves; the append deadline bounds the total.
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
    });
    await p.connect();
    this.producer = p;
    return p;
  }

  private async dropProducer(): Promise<void> {
    const p = this.producer;
    this.producer = null;
    await p?.disconnect().catch(() => undefined);
  }

  /**
   * The partition's high watermark: every acknowledged (acks=all) event is below it. Concurrent
   * callers share requests, but a caller never gets an answer from a request that started
   * before it asked (that could miss a write it already saw acknowledged).
   */
  endOffset(): Promise<number> {
    if (!this.endInFlight) {
      this.endInFlight = this.fetchEnd().finally(() => (this.endInFlight = null));
      return this.endInFlight;
    }
    this.endNext ??= this.endInFlight.catch(() => undefined).then(() => {
      this.endNext = null;
      return this.endOffset();
    });
    return this.endNext;
  }

  private async fetchEnd(): Promise<number> {
    try {
      const offsets = await this.admin.fetchTopicOffsets(this.opts.topic);
      return Number(offsets.find((o) => o.partition === 0)!.high);
    } catch (err) {
      throw new StorageError('unreachable', `kafka: cannot read the log end: ${(err as Error).message}`);
    }
  }

  read(from: number, to?: number): AsyncIterable<PositionedEvent> {
    return this.readWith(from, to, fullEvent);
  }

  /** read() for a fold: the fold's fields and each record's bytes (decodeFoldEvent; rebuilds). */
  readFold(from: number, to?: number): AsyncIterable<FoldPositionedEvent> {
    return this.readWith(from, to, foldEvent);
  }

  private async *readWith<E extends FoldPositionedEvent>(from: number, to: number | undefined, decode: (value: Buffer, offset: number) => E): AsyncIterable<E> {
    const end = to ?? (await this.endOffset());
    if (from >= end) return;
    // A bounded hand-off between the consumer callback and this generator (at most two batches).
    const chunks: E[][] = [];
    let wake: (() => void) | null = null;
    let failed: Error | null = null;
    let release: (() => void) | null = null;
    const reader = await startPartitionReader<E>(this.kafka, {
      topic: this.opts.topic,
      from,
      groupPrefix: `${this.opts.clientId}-read`,
      decode,
      onBatch: (events) => {
        chunks.push(events);
        wake?.();
        return new Promise<void>((r) => (release = r));
      },
      onError: (e) => {
        failed = e;
        wake?.();
      },
    });
    try {
      for (;;) {
        while (!chunks.length) {
          if (failed) throw new StorageError('unreachable', `kafka read failed: ${(failed as Error).message}`);
          await new Promise<void>((r) => (wake = r));
          wake = null;
        }
        const events = chunks.shift()!;
        // Read-ahead of one batch (tuning, bench/kafka.ts): let the reader fetch the next batch
        // while this one is consumed, instead of after. At most two batches are held: this one
        // and the next, whose callback waits for this release.
        const r = release as (() => void) | null;
        release = null;
        r?.();
        for (const e of events) {
          if (e.offset >= end) return;
          yield e;
          if (e.offset === end - 1) return;
        }
      }
    } finally {
      (release as (() => void) | null)?.();
      await reader.stop();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.idle;
    await this.dropProducer();
    await this.admin.disconnect().catch(() => undefined);
  }
}

function settle(q: Queued, f: () => void): void {
  if (q.settled) return;
  q.settled = true;
  clearTimeout(q.timer);
  f();
}
