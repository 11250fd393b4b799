/**
 * The durable, ordered log. Appends are asynchronous and resolve with the event's offset once the
 * backend has made it durable (embedded: fsynced LevelDB batch; Kafka: acks=all). Offsets are
 * dense, start at 0 (a GENESIS event) and are the resourceVersions of the objects they write.
 */
import type { LogEvent, PositionedEvent } from './event.ts';

export interface EventLog {
  /** Append one intent; resolves with its offset when durable. Rejects with StorageError('unreachable'|'timeout'). */
  append(event: LogEvent): Promise<number>;
  /** The offset the next append will get (= last offset + 1). For consistent reads. */
  endOffset(): Promise<number>;
  /** Events from `from` (inclusive) to `to` (exclusive, default: end), in order. For replay and audit. */
  read(from: number, to?: number): AsyncIterable<PositionedEvent>;
  /** Stop accepting appends, finish in-flight ones, release resources. Idempotent. */
  close(): Promise<void>;
}
