/**
 * A window of the most recent items: appended at the back, dropped from the front.
 *
 * Why not a plain array with splice(0, n): the watch hub drops a few changes from a window of tens
 * of thousands at every group commit once the window is full, and each splice moved the whole
 * window (~45k references of 1 KiB ConfigMaps under the 64 MiB bound, ~300 times a second under a
 * create load: 2 % of the server's CPU). Here a drop moves the start index and clears the dropped
 * slots (so their objects can be collected at once); the dead prefix is cut off in one copy when
 * it is as long as the live part, which makes a drop O(1) amortized.
 */
export class SlidingWindow<T> {
  private items: (T | undefined)[] = [];
  private start = 0;

  get length(): number {
    return this.items.length - this.start;
  }

  /** The i-th oldest item held (0 ≤ i < length). */
  at(i: number): T {
    return this.items[this.start + i] as T;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Put `older` (oldest first, all older than what is held) in front of the items held. */
  prepend(older: readonly T[]): void {
    if (!older.length) return;
    this.items = [...older, ...this.items.slice(this.start)];
    this.start = 0;
  }

  /** Drop the `n` oldest items (all of them when n ≥ length). */
  dropOldest(n: number): void {
    const end = Math.min(this.start + n, this.items.length);
    for (let i = this.start; i < end; i++) this.items[i] = undefined;
    this.start = end;
    if (this.start >= this.items.length - this.start) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
  }
}
