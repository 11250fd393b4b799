/**
 * A serving thread of `--workers N` (issue 28; internal/app/workers.ts starts it): the start-up
 * wiring of app.ts on a follower storage, listening on the leader's port (SO_REUSEPORT). Posts
 * 'ready' (or why it failed) to the leader; closes gracefully when the leader posts 'close'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startServer } from '../internal/app/app.ts';
import { FeatureGates } from '../internal/features/gates.ts';
import type { WorkerReport, WorkerStart } from '../internal/app/workers.ts';

const start = workerData as WorkerStart;
const report = (m: WorkerReport): void => parentPort!.postMessage(m);
try {
  const app = await startServer({ ...start.opts, featureGates: new FeatureGates(start.featureGates), follower: start.link, leaderServices: start.services });
  parentPort!.on('message', (m) => {
    if (m === 'close') void app.close().then(() => process.exit(0));
  });
  report({ t: 'ready', port: app.port });
} catch (err) {
  report({ t: 'failed', message: (err as Error).message });
  process.exit(1);
}
