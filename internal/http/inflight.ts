/**
 * The requests a server is answering, for graceful shutdown: once the listener is closed, the
 * server waits until every short request has been answered before it stops the storage, so no
 * accepted write is cut off. Long-running requests (watches) are not waited for; shutdown ends
 * them explicitly.
 */
export class InflightRequests {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** A short request starts; call the returned function exactly once when its response ended. */
  begin(): () => void {
    this.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.count--;
      if (this.count === 0) for (const w of this.waiters.splice(0)) w();
    };
  }

  /** Short requests being answered now. */
  get size(): number {
    return this.count;
  }

  /** Resolves when no short request is in flight, or after `timeoutMs` (false then). */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      const done = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(done);
    });
  }
}
