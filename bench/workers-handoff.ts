/**
 * The cost of each hand-off between the leader and a serving thread of `--workers N` (issue 28,
 * storage/follower.ts), measured on the real Storage (embedded, no fsync, a temporary directory):
 *
 *   - write round trip: a create written by the serving thread (intent → leader's Storage.write →
 *     commit → changes + verdict back) against the same create written by the leader itself;
 *   - commit hand-off: from the leader's commit to the serving thread's change listener (the
 *     postMessage of the commit's changes and its application: key index, cache, listeners),
 *     for a commit of one 1 KiB object and for group commits under a concurrent load;
 *   - the leader's feed: its CPU per commit between the commit and the end of its posts;
 *   - consistent read barrier: the serving thread's Storage.latest() (Atomics.load of the leader's
 *     committed offset, then its own fold's wait), idle.
 *
 *   node --import tsx bench/workers-handoff.ts [writes=2000]
 *
 * Medians and p99 in µs; the machine is shared, so run it twice and read the medians.
 */
import { Worker, isMainThread, workerData, parentPort, MessageChannel } from 'node:worker_threads';
import { performance as perfHooks } from 'node:perf_hooks';

const eventLoopUtilization = perfHooks.eventLoopUtilization.bind(perfHooks);
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage, type FollowerLink } from '../internal/storage/storage.ts';
import { systemIntent } from '../internal/storage/system-write.ts';

const N = Number(process.argv[2] ?? 2000);
const now = (): number => performance.timeOrigin + performance.now();
const object = (name: string): Buffer =>
  Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', resourceVersion: '' }, data: { v: 'x'.repeat(900) } }));
const create = (prefix: string, i: number) => systemIntent({ op: 'CREATE', key: { group: '', resource: 'configmaps', namespace: 'bench', name: `${prefix}-${i}` }, object: object(`${prefix}-${i}`), verb: 'create' });

function stats(label: string, us: number[]): string {
  const s = [...us].sort((a, b) => a - b);
  const q = (p: number): string => s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(1);
  return `${label.padEnd(58)} median ${q(0.5).padStart(7)} µs   p99 ${q(0.99).padStart(8)} µs   (n=${s.length})`;
}

type Msg = { t: 'writes'; us: number[] } | { t: 'lags'; at: [offset: number, ms: number][]; activeMs: number; commits: number } | { t: 'latest'; us: number[] } | { t: 'ready' };

if (isMainThread) {
  const dir = mkdtempSync(join(tmpdir(), 'workers-handoff-'));
  const storage = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 300_000, sync: false, scrubIntervalMs: 0 });
  // Commit instants, recorded before the leader's feed posts the commit (registered first).
  const committedAt = new Map<number, number>();
  storage.materializer.onCommit((p) => committedAt.set(p.lastOffset, now()));
  const { port1, port2 } = new MessageChannel();
  const link = storage.lead(port1);
  // The leader's feed (encoding + posting each commit to the thread) runs between the two listeners.
  const feedUs: number[] = [];
  let feedChanges = 0;
  storage.materializer.onCommit((p) => {
    const at = committedAt.get(p.lastOffset);
    if (at !== undefined && measuringFeed) {
      feedUs.push((now() - at) * 1000);
      feedChanges += p.changes.length;
    }
  });
  let measuringFeed = false;
  // Commit times by offset (the leader's clock and the thread's share performance.timeOrigin).

  const w = new Worker(new URL(import.meta.url), { workerData: { dir, link: { ...link, port: port2 } }, transferList: [port2] });
  const next = (): Promise<Msg> => new Promise((resolve) => w.once('message', resolve));
  await next(); // ready

  // 1. Leader writes: the baseline.
  const direct: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await storage.write(create('leader', i));
    direct.push((performance.now() - t0) * 1000);
  }
  // 2. Writes from the serving thread.
  w.postMessage('writes');
  const viaThread = (await next()) as Extract<Msg, { t: 'writes' }>;
  // 3. Commit → thread's listener, one write at a time, then 8 writers at once (group commits).
  w.postMessage('lags');
  await new Promise((r) => setTimeout(r, 50));
  measuringFeed = true;
  const firstBurst = storage.folded + N;
  for (let i = 0; i < N; i++) await storage.write(create('lag', i));
  const burst = async (k: number): Promise<void> => {
    for (let i = 0; i < N / 8; i++) await storage.write(create(`burst${k}`, i));
  };
  await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(burst));
  measuringFeed = false;
  w.postMessage('stop-lags');
  const lags = (await next()) as Extract<Msg, { t: 'lags' }>;
  // 4. latest() on the thread, idle.
  w.postMessage('latest');
  const latest = (await next()) as Extract<Msg, { t: 'latest' }>;

  // A group commit's changes arrive together: each offset's lag is from its commit's instant.
  const commitOf = (offset: number): number => {
    for (let o = offset; o <= offset + 1024; o++) if (committedAt.has(o)) return committedAt.get(o)!;
    return NaN;
  };
  const lag = (from: number, to: number): number[] => lags.at.filter(([o]) => o > from && o <= to).map(([o, t]) => (t - commitOf(o)) * 1000);
  console.log(stats('create, written by the leader', direct));
  console.log(stats('create, written by a serving thread (round trip)', viaThread.us));
  console.log(stats('commit → serving thread listener (one write at a time)', lag(firstBurst - N, firstBurst)));
  console.log(stats('commit → serving thread listener (8 concurrent writers)', lag(firstBurst, Infinity)));
  console.log(stats('Storage.latest() on a serving thread, idle', latest.us));
  const feedMs = feedUs.reduce((a, b) => a + b, 0) / 1000;
  console.log(`leader's feed (encode + post to 1 thread): ${((feedMs * 1000) / feedUs.length).toFixed(1)} µs per commit, ${((feedMs * 1000) / feedChanges).toFixed(1)} µs per change (${feedUs.length} commits, ${feedChanges} changes)`);
  console.log(`serving thread busy applying commits: ${((lags.activeMs * 1000) / lags.commits).toFixed(1)} µs per commit, ${((lags.activeMs * 1000) / lags.at.length).toFixed(1)} µs per change (${lags.commits} commits, ${lags.at.length} changes)`);
  await w.terminate();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
} else {
  const { dir, link } = workerData as { dir: string; link: FollowerLink };
  const storage = await Storage.openFollower({ dataDir: dir, historyWindowMs: 300_000, link });
  const post = (m: Msg): void => parentPort!.postMessage(m);
  let lagging = false;
  let elu = eventLoopUtilization();
  let commits = 0;
  const arrivals: [number, number][] = [];
  storage.onChange((changes) => {
    if (!lagging) return;
    const t = now();
    commits++;
    for (const c of changes) arrivals.push([c.offset, t]);
  });
  parentPort!.on('message', async (m: string) => {
    if (m === 'writes') {
      const us: number[] = [];
      for (let i = 0; i < N; i++) {
        const t0 = performance.now();
        await storage.write(create('thread', i));
        us.push((performance.now() - t0) * 1000);
      }
      post({ t: 'writes', us });
    } else if (m === 'lags') {
      lagging = true;
      elu = eventLoopUtilization();
    } else if (m === 'stop-lags') {
      lagging = false;
      // This thread's own busy time (event-loop utilization) while it only followed commits.
      const { active } = eventLoopUtilization(elu);
      post({ t: 'lags', at: arrivals.splice(0), activeMs: active, commits });
    } else if (m === 'latest') {
      const us: number[] = [];
      for (let i = 0; i < N; i++) {
        const t0 = performance.now();
        await storage.latest();
        us.push((performance.now() - t0) * 1000);
      }
      post({ t: 'latest', us });
    }
  });
  post({ t: 'ready' });
}
