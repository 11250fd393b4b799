/**
 * Per-object write serialization inside one process. Writers of the same object queue here
 * instead of racing through the log: in the embedded default every same-key conflict is then
 * avoided (one fsync per write, no wasted log entries); across replicas (Kafka) the fold's
 * precondition check still decides and the store retries.
 */
export class KeyLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Run `fn` after every earlier holder of `key` finished. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
