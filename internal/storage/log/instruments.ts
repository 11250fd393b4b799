/**
 * What a log backend reports about its durable writes, for metrics. Optional everywhere: the
 * offline tools open logs without it.
 */
export interface LogInstruments {
  /**
   * One durable write finished: `events` events in one group commit (embedded: LevelDB batch with
   * fsync) or one produce request (kafka: acks=all), taking `seconds`.
   */
  appended(backend: 'embedded' | 'kafka', events: number, seconds: number): void;
}
