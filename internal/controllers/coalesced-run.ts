/**
 * One run of a sync at a time: `schedule()` starts `run` unless it is running, in which case the
 * run in progress is followed by exactly one more (however many schedules came meanwhile), so the
 * last change is always seen. `idle()` resolves when no run is in progress; `active()` false stops
 * the follow-up runs (a stopped controller).
 */
export class CoalescedRun {
  private running: Promise<void> = Promise.resolve();
  private pending = false;
  private dirty = false;

  constructor(private readonly run: () => Promise<void>, private readonly onError: (err: unknown) => void, private readonly active: () => boolean) {}

  schedule(): void {
    if (this.pending) {
      this.dirty = true;
      return;
    }
    this.pending = true;
    this.running = (async () => {
      do {
        this.dirty = false;
        await this.run().catch(this.onError);
      } while (this.dirty && this.active());
      this.pending = false;
    })();
  }

  idle(): Promise<void> {
    return this.running;
  }
}
