/**
 * Progress reporting for long replays, on stderr so stdout stays the tool's result:
 *   bar    a cli-progress bar (stderr is a terminal)
 *   lines  one line every LINE_INTERVAL_MS (stderr is a file or pipe: CI logs, nohup)
 *   none   --output json, or tests
 */
import cliProgress from 'cli-progress';
import type { RebuildProgress } from './rebuild.ts';

export type ProgressMode = 'bar' | 'lines' | 'none';

/** Often enough to show a run is alive, rare enough not to flood a log file. */
const LINE_INTERVAL_MS = 5_000;

export interface ProgressReporter {
  update(p: RebuildProgress): void;
  /** End the bar (leaves the last state visible). Idempotent. */
  stop(): void;
}

/** Events per second, 0 before any time has passed. */
export const rate = (events: number, ms: number): number => (ms > 0 ? Math.round((events * 1000) / ms) : 0);

/** The mode for a run: no progress for machine output, a bar only on a terminal. */
export function progressMode(json: boolean, stream: NodeJS.WriteStream): ProgressMode {
  if (json) return 'none';
  return stream.isTTY ? 'bar' : 'lines';
}

/** A reporter for `total` events (the end of the replayed range). */
export function createProgress(mode: ProgressMode, total: number, stream: NodeJS.WriteStream, label: string): ProgressReporter {
  if (mode === 'none') return { update() {}, stop() {} };
  if (mode === 'lines') {
    let lastLine = 0;
    return {
      update(p) {
        if (p.elapsedMs - lastLine < LINE_INTERVAL_MS) return;
        lastLine = p.elapsedMs;
        stream.write(`${label}: ${p.events}/${total} events, offset ${p.offset}, ${rate(p.events, p.elapsedMs)} events/s\n`);
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta_formatted}`,
      hideCursor: true,
      // The bar redraws at most this often; folding does not wait for it.
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { rate: 0 });
  let stopped = false;
  return {
    update(p) {
      bar.update(p.events, { rate: rate(p.events, p.elapsedMs) });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}
