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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage, type FollowerLink } from '../internal/storage/storage.ts';
import { systemIntent } from '../internal/storage/system-write.ts';

const N = Number(process.argv[2] ?? 2000);
const now = (): number => performance.timeOrigin + performance.now();
/** This thread's CPU time (user + system), µs. */
const cpuUs = (): number => {
  const u = (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
  return u.user + u.system;
};
const object = (name: string): Buffer =>
  Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', resourceVersion: '' }, data: { v: 'x'.repeat(900) } }));
const create = (prefix: string, i: number) => systemIntent({ op: 'CREATE', key: { group: '', resource: 'configmaps', namespace: 'bench', name: `${prefix}-${i}` }, object: object(`${prefix}-${i}`), verb: 'create' });

function stats(label: string, us: number[]): string {
  const s = [...us].sort((a, b) => a - b);
  const q = (p: number): string => s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(1);
  return `${label.padEnd(58)} median ${q(0.5).padStart(7)} µs   p99 ${q(0.99).padStart(8)} µs   (n=${s.length})`;
}

type Msg = { t: 'writes'; us: number[] } | { t: 'lags'; at: [offset: number, ms: number][]; cpuUs: number; commits: number } | { t: 'latest'; us: number[] } | { t: 'ready' };

if (isMainThread) {
  const dir = mkdtempSync(join(tmpdir(), 'workers-handoff-'));
  const storage = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 300_000, sync: false, scrubIntervalMs: 0 });
  // Commit instants, recorded before the leader's feed posts the commit (registered first), and
  // the leader's thread CPU there and after the feed (registered after it): the feed's CPU.
  const committedAt = new Map<number, number>();
  let feedStart = 0;
  storage.materializer.onCommit((p) => {
    committedAt.set(p.lastOffset, now());
    feedStart = cpuUs();
  });
  const { port1, port2 } = new MessageChannel();
  const link = storage.lead(port1);
  const feed = { us: 0, commits: 0, changes: 0 };
  storage.materializer.onCommit((p) => {
    feed.us += cpuUs() - feedStart;
    feed.commits++;
    feed.changes += p.changes.length;
  });

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
  // 3. Commits followed by the thread: one write at a time, then 8 and 64 writers at once (group
  //    commits of more changes). CPU of the leader's feed and of the whole serving thread per phase.
  const phases: { label: string; feed: typeof feed; thread: Extract<Msg, { t: 'lags' }>; from: number; to: number }[] = [];
  const phase = async (label: string, writers: number): Promise<void> => {
    w.postMessage('lags');
    await new Promise((r) => setTimeout(r, 50));
    Object.assign(feed, { us: 0, commits: 0, changes: 0 });
    const from = storage.folded;
    const writer = async (k: number): Promise<void> => {
      for (let i = 0; i < N / writers; i++) await storage.write(create(`${label}-${k}`, i));
    };
    await Promise.all(Array.from({ length: writers }, (_, k) => writer(k)));
    const done = { ...feed };
    await new Promise((r) => setTimeout(r, 50));
    w.postMessage('stop-lags');
    phases.push({ label, feed: done, thread: (await next()) as Extract<Msg, { t: 'lags' }>, from, to: storage.folded });
  };
  await phase('1 writer', 1);
  await phase('8 writers', 8);
  await phase('64 writers', 64);
  // 4. latest() on the thread, idle.
  w.postMessage('latest');
  const latest = (await next()) as Extract<Msg, { t: 'latest' }>;

  // A group commit's changes arrive together: each offset's lag is from its commit's instant.
  const commitOf = (offset: number): number => {
    for (let o = offset; o <= offset + 1024; o++) if (committedAt.has(o)) return committedAt.get(o)!;
    return NaN;
  };
  const lag = (ph: (typeof phases)[number]): number[] => ph.thread.at.map(([o, t]) => (t - commitOf(o)) * 1000);
  console.log(stats('create, written by the leader', direct));
  console.log(stats('create, written by a serving thread (round trip)', viaThread.us));
  for (const ph of phases) console.log(stats(`commit → serving thread listener (${ph.label})`, lag(ph)));
  console.log(stats('Storage.latest() on a serving thread, idle', latest.us));
  console.log('CPU (thread CPU time) per commit followed, by phase: the leader\'s feed (encode + post to 1 thread), the serving thread (all of it)');
  for (const ph of phases) {
    const changes = ph.thread.at.length;
    console.log(`  ${ph.label.padEnd(11)} ${String(ph.feed.commits).padStart(5)} commits ${String(changes).padStart(5)} changes   leader feed ${(ph.feed.us / ph.feed.commits).toFixed(1).padStart(6)} µs/commit   serving thread ${(ph.thread.cpuUs / ph.thread.commits).toFixed(1).padStart(6)} µs/commit ${(ph.thread.cpuUs / changes).toFixed(1).padStart(6)} µs/change`);
  }
  // cost = a per commit + b per change, least squares over the phases.
  const fit = (ys: [commits: number, changes: number, us: number][]): string => {
    let s11 = 0, s12 = 0, s22 = 0, t1 = 0, t2 = 0;
    for (const [c, n, y] of ys) {
      s11 += c * c; s12 += c * n; s22 += n * n; t1 += c * y; t2 += n * y;
    }
    const det = s11 * s22 - s12 * s12;
    return `${((t1 * s22 - t2 * s12) / det).toFixed(1)} µs per commit + ${((s11 * t2 - s12 * t1) / det).toFixed(1)} µs per change`;
  };
  console.log(`  fit: leader feed ${fit(phases.map((ph) => [ph.feed.commits, ph.feed.changes, ph.feed.us]))}; serving thread ${fit(phases.map((ph) => [ph.thread.commits, ph.thread.at.length, ph.thread.cpuUs]))}`);
  await w.terminate();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
} else {
  const { dir, link } = workerData as { dir: string; link: FollowerLink };
  const storage = await Storage.openFollower({ dataDir: dir, historyWindowMs: 300_000, link });
  const post = (m: Msg): void => parentPort!.postMessage(m);
  let lagging = false;
  let cpuAt = cpuUs();
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
      commits = 0;
      cpuAt = cpuUs();
    } else if (m === 'stop-lags') {
      lagging = false;
      // This thread's own CPU while it only followed commits (wakes, decoding, applying, listeners).
      post({ t: 'lags', at: arrivals.splice(0), cpuUs: cpuUs() - cpuAt, commits });
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
