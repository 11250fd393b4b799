/**
 * Capacity model of issue 28 (`npm run bench:capacity-model`): from the measured CPU per request of
 * today's server (bench/request-costs.ts) and the measured hand-off costs between threads
 * (bench/handoff.ts), what one machine with 1, 2, 4, 8, 16 cores would serve with the leader +
 * serving-threads design (one log writer and one fold on the leader thread; HTTP, decoding,
 * admission, validation, managedFields, serialization, reads and watch fan-out on serving threads),
 * where the leader thread caps writes, what 3 replicas on Kafka would serve, and kube-apiserver +
 * etcd where known. docs/perf/capacity-model.md explains every input and its source.
 *
 *   node --import tsx bench/capacity-model.ts [--costs request-costs.json] [--cores 1,2,4,8,16]
 *        [--broadcast ring|clone] [--watchers 1000] [--leader-share 0.19] [--json]
 *   node --import tsx bench/capacity-model.ts --profile file.cpuprofile [--from S --to S]
 *
 * --costs: a JSON written by bench/request-costs.ts replaces the recorded per-request costs below.
 * --profile: splits the main thread's busy time of a V8 CPU profile (APISERVER_CPU_PROF) into what
 * runs on the leader (log append, fold, LevelDB batch: internal/storage, classic-level, avsc) and
 * what runs on a serving thread (everything else), garbage collection and V8's own time shared in
 * proportion; --from/--to select seconds of the profile (default: all samples).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

// ---------------------------------------------------------------------------------------------
// inputs: every figure with the file it was measured in (docs/perf/…)

/** CPU µs per answer of today's single-thread server: all threads, and its main thread alone. */
export interface OpCost {
  cpuUs: number;
  mainUs: number;
}
export type Op = 'create' | 'put' | 'merge-patch' | 'apply' | 'get' | 'list-500-json' | 'list-500-table' | 'list-500-protobuf';
const WRITES: Op[] = ['create', 'put', 'merge-patch', 'apply'];
const READS: Op[] = ['get', 'list-500-json', 'list-500-table', 'list-500-protobuf'];

/**
 * The model's per-request costs, "quiet machine" figures (docs/perf/capacity-model.md, "Inputs"):
 * the 2026-11-29 runs of bench/request-costs.ts (docs/perf/request-costs-2026-11-29.txt) ran while
 * the 2 cores carried a load average of 10–15, which inflated CPU per request by up to 2.5× against
 * the figures recorded on a quiet machine. So each absolute figure comes from a quiet recorded run,
 * and what only request-costs measured (the main thread's share; one kind against another) from the
 * pinned run (server alone on core 0: "pin0"):
 *  - create: 7,759/s on 2 cores with the main thread saturated (vs-kube-3-rounds-session22-a.txt)
 *    → main 129 µs; all threads 1.51× main (pin0: 304.2 / 201.4).
 *  - PUT, merge patch, apply: main = create's × pin0 ratio (236.3, 241.7, 284.4 over 201.4); all
 *    threads by their own pin0 ratio (313.1/236.3, 328.5/241.7, 360.5/284.4).
 *  - GET: 14,946/s on one core (issue 28) → 67 µs; main 0.946 of it (pin0: 122.1 / 129.1).
 *  - page of 500, JSON: 281/s on one core (issue 28) → 3,559 µs, all on the main thread: the same
 *    server on two cores served 282/s (1.00×), so nothing of a page ran beside the main thread.
 *    Table and Protobuf: JSON's × pin0 ratio (11,063 and 18,924 over 8,831).
 *  - watch, per event per watcher: ≤ 5 µs: 1,000 watchers × 200 creates/s = 200,000 deliveries/s on
 *    one thread with p99 12.9 ms and nothing dropped (vs-kube-3-rounds-session22-a.txt); main 0.89
 *    of it (pin0: 12.08 / 13.58). request-costs measured 7.6–13.6 µs on the loaded machine.
 */
const CREATE_MAIN = 1e6 / 7759;
const PAGE = 1e6 / 281;
export const RECORDED_COSTS: Record<Op, OpCost> & { watchEventPerWatcher: OpCost } = {
  create: { mainUs: CREATE_MAIN, cpuUs: CREATE_MAIN * (304.2 / 201.4) },
  put: { mainUs: CREATE_MAIN * (236.3 / 201.4), cpuUs: CREATE_MAIN * (236.3 / 201.4) * (313.1 / 236.3) },
  'merge-patch': { mainUs: CREATE_MAIN * (241.7 / 201.4), cpuUs: CREATE_MAIN * (241.7 / 201.4) * (328.5 / 241.7) },
  apply: { mainUs: CREATE_MAIN * (284.4 / 201.4), cpuUs: CREATE_MAIN * (284.4 / 201.4) * (360.5 / 284.4) },
  get: { mainUs: (1e6 / 14946) * (122.1 / 129.1), cpuUs: 1e6 / 14946 },
  'list-500-json': { mainUs: PAGE, cpuUs: PAGE },
  'list-500-table': { mainUs: PAGE * (11063.4 / 8830.6), cpuUs: PAGE * (11063.4 / 8830.6) },
  'list-500-protobuf': { mainUs: PAGE * (18923.9 / 8830.6), cpuUs: PAGE * (18923.9 / 8830.6) },
  watchEventPerWatcher: { mainUs: 5 * (12.08 / 13.58), cpuUs: 5 },
};

/**
 * Share of a write's main-thread time that the leader keeps (log append, fold, LevelDB batch):
 * `--profile` of a create load (docs/perf/capacity-model.md, "Leader share"): 16.5 % of the busy
 * main thread in internal/storage + classic-level + avsc + abstract-level, 18.6 % with GC and V8's
 * own time shared in proportion; 19 % taken (--leader-share overrides). The same share is assumed for PUT, patch and apply (their extra
 * work — reading the old object, patching, managedFields — runs on the serving thread).
 */
export let LEADER_SHARE = 0.19;

/** docs/perf/handoff-2026-11-29.txt (CPU µs of the thread's own, medians). */
export const HANDOFF = {
  /** write intent posted by a serving thread (2.1) + verdict received (0.9, an empty message) */
  intentServingUs: 2.1 + 0.9,
  /** intent received by the leader (3.2) + verdict posted (0.5) */
  intentLeaderUs: 3.2 + 0.5,
  /** leader CPU per change of a 64-change commit, per serving thread: structured clone (64.8/64 at 1 worker … 309/64/8 at 8) */
  broadcastCloneLeaderUsPerChangePerThread: 0.8,
  /** ring: the commit framed once into a SharedArrayBuffer, each thread gets {off, end}: 33–38 µs per 64-change commit for 1–8 workers */
  broadcastRingLeaderUsPerChange: 0.6,
  /** what every serving thread spends per change it receives (copy out, feed its watch hub/cache): clone 92.8/64, ring 45.8/64 */
  receiveCloneUsPerChange: 1.45,
  receiveRingUsPerChange: 0.72,
  /** Atomics.waitAsync wake, p50 µs (a consistent read that has to wait for the leader's committed offset) */
  wakeUsP50: 3.1,
  /** whole-request forwarding round trip, CPU per side (not used by the design; the hop a thread would pay to forward) */
  forwardUsPerSide: 14,
};

/**
 * Kafka, 3 replicas (docs/perf/kafka-3-replicas-pinned.txt and -unpinned.txt): creates spread over
 * the replicas, every replica folds every event. Main-thread µs per create: 1 replica 0.74 core at
 * 3,620/s = 204 µs (pinned) and 0.76 at 3,090/s = 246 µs (unpinned); 3 replicas 0.25 core each at
 * 1,537/s = 163 µs per replica and 0.343 at 2,286/s = 150 µs. With fold F (every replica, every
 * event) and serving S (the replica that took the request): F + S = 1 replica's, F + S/3 = one of 3's:
 * pinned F = 143, S = 61; unpinned F = 102, S = 144. Process CPU (all threads): 262/330 µs for 1
 * replica, 651/630 µs for 3 replicas together. Taken: the mean of the two runs.
 */
export const KAFKA = {
  foldMainUs: (143 + 102) / 2,
  servingMainUs: (61 + 144) / 2,
  processUsOneReplica: (262 + 330) / 2,
  processUsThreeReplicas: (651 + 630) / 2,
  /**
   * One partition, 1,500-byte events, acks=all, idempotent producers (docs/perf/kafka-partition-rate-2026-11-29.txt):
   * 9,131–16,772 events/s measured with 1–8 kafkajs producers on the loaded machine (load 18–20), the broker at
   * 7–17 % of a core (7–14 µs per event): the producers and the machine bound it, not the partition. The best
   * measured figure is taken as a floor of the partition's rate.
   */
  partitionEventsPerSec: 16_772,
  brokerUsPerEvent: 8.2,
};

/**
 * kube-apiserver 1.24.17 + etcd 3.5, measured on this machine (issue 28's text and
 * docs/perf/vs-kube-3-rounds-session22-a.txt): pages of 500/s 110 on 1 core → 198 on 2 (1.79×);
 * single-object GETs 3,159/s on one core; creates 2,547/s on 2 cores (h1 × 64) with server CPU
 * 184 s in 147 s per round over the whole round. This server's CPU per create is 0.30× kube's
 * (issue 28): kube ≈ 1,000 µs per create (apiserver + etcd). etcd's own guide: a 3-member cluster on
 * n-4-class machines "can complete more than 30,000 requests per second under heavy load"
 * (https://etcd.io/docs/v3.6/op-guide/performance/).
 */
export const KUBE = {
  pagesPerSec1Core: 110,
  pagesScaling2Cores: 1.79,
  getsPerSec1Core: 3159,
  createsPerSec2Cores: 2547,
  etcdRequestsPerSec: 30_000,
};

const U = 1e6; // µs of CPU per second of one core

// ---------------------------------------------------------------------------------------------
// the model

export interface Design {
  cores: number;
  /** serving threads besides the leader (--workers N: N−1), at least 1 */
  workers: number;
  /** share of the connections the leader serves itself (0: dedicated leader) */
  leaderServes: number;
  broadcast: 'ring' | 'clone';
}

export interface Parts {
  /** leader thread µs per request */
  leader: number;
  /** µs per request on the serving thread that answers it */
  serving: number;
  /** µs per request on EVERY serving thread (writes: each receives the change) */
  perThread: number;
  /** µs per request on other threads (LevelDB, libuv, GC helpers), any core */
  background: number;
}

/** How one request of `op` splits over the threads of the design. */
export function partsOf(c: OpCost, write: boolean, d: Design): Parts {
  const background = Math.max(0, c.cpuUs - c.mainUs);
  if (!write) return { leader: 0, serving: c.mainUs, perThread: 0, background };
  const leader = LEADER_SHARE * c.mainUs + HANDOFF.intentLeaderUs + (d.broadcast === 'ring' ? HANDOFF.broadcastRingLeaderUsPerChange : HANDOFF.broadcastCloneLeaderUsPerChangePerThread * d.workers);
  const serving = (1 - LEADER_SHARE) * c.mainUs + HANDOFF.intentServingUs;
  const perThread = d.broadcast === 'ring' ? HANDOFF.receiveRingUsPerChange : HANDOFF.receiveCloneUsPerChange;
  return { leader, serving, perThread, background };
}

/** Requests/s of one kind the design sustains, and which constraint binds. */
export function capacity(p: Parts, d: Design): { perSec: number; bound: string } {
  const phi = d.leaderServes;
  const bounds: [string, number][] = [
    ['leader thread', U / (p.leader + phi * p.serving)],
    ['serving threads', U / (((1 - phi) * p.serving) / d.workers + p.perThread)],
    ['all cores', (d.cores * U) / (p.leader + p.serving + d.workers * p.perThread + p.background)],
  ];
  bounds.sort((a, b) => a[1] - b[1]);
  return { perSec: bounds[0]![1], bound: bounds[0]![0] };
}

/** Today's server: one thread does everything; its other threads (LevelDB, libuv, GC) use another core when there is one. */
export function singleThread(c: OpCost, cores: number): number {
  return Math.min(U / c.mainUs, (cores * U) / c.cpuUs);
}

/** The design for `cores`: workers = cores − 1 (at least 1), the leader serving nothing or its 1/cores share, whichever serves more. */
export function best(c: OpCost, write: boolean, cores: number, broadcast: 'ring' | 'clone') {
  const workers = Math.max(1, cores - 1);
  let top = { perSec: 0, bound: '', leaderServes: 0 };
  for (const leaderServes of [0, 1 / cores]) {
    const d: Design = { cores, workers, leaderServes, broadcast };
    const r = capacity(partsOf(c, write, d), d);
    if (r.perSec > top.perSec) top = { ...r, leaderServes };
  }
  return top;
}

/** Watch: writes/s such that each is delivered to `watchers` watchers spread over the serving threads. */
export function watchCapacity(create: OpCost, event: OpCost, watchers: number, cores: number, broadcast: 'ring' | 'clone'): { writesPerSec: number; bound: string } {
  const workers = Math.max(1, cores - 1);
  let top = { writesPerSec: 0, bound: '' };
  for (const leaderServes of [0, 1 / cores]) {
    const d: Design = { cores, workers, leaderServes, broadcast };
    const p = partsOf(create, true, d);
    const fan: Parts = { ...p, serving: p.serving + watchers * event.mainUs, background: p.background + watchers * Math.max(0, event.cpuUs - event.mainUs) };
    const r = capacity(fan, d);
    if (r.perSec > top.writesPerSec) top = { writesPerSec: r.perSec, bound: r.bound };
  }
  return top;
}

export function watchSingleThread(create: OpCost, event: OpCost, watchers: number, cores: number): number {
  return singleThread({ cpuUs: create.cpuUs + watchers * event.cpuUs, mainUs: create.mainUs + watchers * event.mainUs }, cores);
}

// ---------------------------------------------------------------------------------------------
// --profile: the leader / serving split of a CPU profile

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

const LEADER_PATTERNS = [/\/internal\/storage\//, /node_modules\/(classic-level|abstract-level|level-transcoder|avsc)\//];
const SHARED = new Set(['(garbage collector)', '(program)']);

export function profileSplit(file: string, fromS?: number, toS?: number) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };
  const nodes = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  let t = p.startTime;
  let leader = 0;
  let serving = 0;
  let shared = 0;
  let idle = 0;
  const byArea = new Map<string, number>();
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i]!;
    const s = (t - p.startTime) / 1e6;
    if ((fromS !== undefined && s < fromS) || (toS !== undefined && s > toS)) continue;
    const f = nodes.get(p.samples[i]!)!;
    const dt = p.timeDeltas[i]!;
    if (f.functionName === '(idle)') idle += dt;
    else if (SHARED.has(f.functionName)) shared += dt;
    else if (LEADER_PATTERNS.some((r) => r.test(f.url))) {
      leader += dt;
      const area = f.url.includes('node_modules/') ? f.url.split('node_modules/')[1]!.split('/')[0]! : f.url.replace(/^.*\/internal\//, 'internal/');
      byArea.set(area, (byArea.get(area) ?? 0) + dt);
    } else serving += dt;
  }
  const busy = leader + serving + shared;
  return {
    busyShareOfWindow: busy / (busy + idle),
    leaderShareDirect: leader / busy,
    leaderShareWithGc: leader / (leader + serving),
    servingShareWithGc: serving / (leader + serving),
    leaderAreas: [...byArea.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${k} ${((100 * v) / busy).toFixed(2)}%`),
  };
}

// ---------------------------------------------------------------------------------------------
// report

function loadCosts(file: string | undefined) {
  if (!file) return RECORDED_COSTS;
  const j = JSON.parse(readFileSync(file, 'utf8')) as { windows: { name: Op; cpuUs: number; mainUs: number }[]; watch?: { cpuUsPerEventPerWatcher: number; mainUsPerEventPerWatcher: number } };
  const out = { ...RECORDED_COSTS };
  for (const w of j.windows) out[w.name] = { cpuUs: w.cpuUs, mainUs: w.mainUs };
  if (j.watch) out.watchEventPerWatcher = { cpuUs: j.watch.cpuUsPerEventPerWatcher, mainUs: j.watch.mainUsPerEventPerWatcher };
  return out;
}

const fmtN = (v: number) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1));

function main() {
  const { values: a } = parseArgs({
    options: { costs: { type: 'string' }, cores: { type: 'string', default: '1,2,4,8,16' }, broadcast: { type: 'string', default: 'ring' }, watchers: { type: 'string', default: '1000' }, profile: { type: 'string' }, 'leader-share': { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean', default: false } },
    strict: true,
  });
  if (a.profile) {
    const r = profileSplit(a.profile, a.from ? Number(a.from) : undefined, a.to ? Number(a.to) : undefined);
    process.stdout.write(JSON.stringify(r, null, 1) + '\n');
    return;
  }
  if (a['leader-share']) LEADER_SHARE = Number(a['leader-share']);
  const costs = loadCosts(a.costs);
  const cores = a.cores!.split(',').map(Number);
  const bc = a.broadcast === 'clone' ? 'clone' : 'ring';
  const watchers = Number(a.watchers);
  const out: string[] = [];
  const json: Record<string, unknown> = { costs, LEADER_SHARE, HANDOFF, KAFKA, KUBE, rows: [] as unknown[] };
  out.push(`Capacity model (bench/capacity-model.ts), broadcast: ${bc}; inputs: ${a.costs ?? 'quiet-machine costs (RECORDED_COSTS)'}, leader share ${LEADER_SHARE}, docs/perf/handoff-2026-11-29.txt`);
  out.push('Per second, one machine. "today" = the single-thread server on that machine; "design" = leader + (cores − 1) serving threads; bound = the constraint that caps the design.');
  out.push('');
  const head = `  ${'figure'.padEnd(30)}` + cores.map((c) => `${c} core${c > 1 ? 's' : ' '}`.padStart(22)).join('');
  out.push(head);
  const sub = `  ${''.padEnd(30)}` + cores.map(() => `${'today'.padStart(8)} ${'design'.padStart(8)} ${''.padStart(4)}`).join('');
  out.push(sub);
  const rows: [string, Op | 'watch'][] = [
    ['creates/s', 'create'],
    ['PUTs/s', 'put'],
    ['merge patches/s', 'merge-patch'],
    ['applies/s', 'apply'],
    ['GETs/s', 'get'],
    ['pages of 500/s (JSON)', 'list-500-json'],
    ['pages of 500/s (Table)', 'list-500-table'],
    ['pages of 500/s (Protobuf)', 'list-500-protobuf'],
    [`watch events/s, ${watchers} watchers`, 'watch'],
  ];
  const boundShort: Record<string, string> = { 'leader thread': 'L', 'serving threads': 'S', 'all cores': 'C' };
  for (const [label, op] of rows) {
    let line = `  ${label.padEnd(30)}`;
    const row: Record<string, unknown> = { figure: label };
    for (const c of cores) {
      let today: number;
      let design: { perSec: number; bound: string };
      if (op === 'watch') {
        today = watchSingleThread(costs.create, costs.watchEventPerWatcher, watchers, c);
        const w = watchCapacity(costs.create, costs.watchEventPerWatcher, watchers, c, bc);
        design = { perSec: w.writesPerSec, bound: w.bound };
        today *= watchers;
        design.perSec *= watchers;
      } else {
        const cost = costs[op];
        if (!cost.mainUs) {
          line += `${'–'.padStart(8)} ${'–'.padStart(8)} ${''.padStart(4)}`;
          continue;
        }
        today = singleThread(cost, c);
        design = c === 1 ? { perSec: today, bound: 'all cores' } : best(cost, WRITES.includes(op), c, bc);
      }
      row[`${c}`] = { today: Math.round(today), design: Math.round(design.perSec), bound: design.bound };
      line += `${fmtN(today).padStart(8)} ${fmtN(design.perSec).padStart(8)} ${`(${boundShort[design.bound] ?? '?'})`.padStart(4)}`;
    }
    (json.rows as unknown[]).push(row);
    out.push(line);
  }
  out.push('  bound: (L) the leader thread (its writes and its share of the connections), (S) the serving threads, (C) all cores busy. 1 core: the design is today\'s single thread (--workers 1).');
  out.push('');
  out.push('Split of one request in the design (16 cores, ring): µs on the leader thread / the serving thread that answers it / every serving thread / other threads (LevelDB, libuv, GC):');
  for (const op of [...WRITES, ...READS]) {
    const c = costs[op];
    if (!c.mainUs) continue;
    const p = partsOf(c, WRITES.includes(op), { cores: 16, workers: 15, leaderServes: 0, broadcast: bc });
    out.push(`  ${op.padEnd(18)} ${p.leader.toFixed(1).padStart(7)} / ${p.serving.toFixed(1).padStart(7)} / ${p.perThread.toFixed(2).padStart(5)} / ${p.background.toFixed(1).padStart(6)}   (today: main ${c.mainUs.toFixed(1)}, all ${c.cpuUs.toFixed(1)})`);
  }
  out.push('');
  // where the leader caps writes
  out.push('Where the single leader thread caps writes (µs of leader CPU per write → writes/s):');
  for (const op of WRITES) {
    const c = costs[op];
    if (!c.mainUs) continue;
    const p8 = partsOf(c, true, { cores: 16, workers: 15, leaderServes: 0, broadcast: bc });
    const pc = partsOf(c, true, { cores: 16, workers: 15, leaderServes: 0, broadcast: 'clone' });
    out.push(`  ${op.padEnd(12)} leader ${p8.leader.toFixed(1)} µs (ring) → ${fmtN(U / p8.leader)}/s; with clone broadcast to 15 threads ${pc.leader.toFixed(1)} µs → ${fmtN(U / pc.leader)}/s; every serving thread pays ${p8.perThread.toFixed(2)} µs per write`);
  }
  out.push('');
  // Kafka
  const perReplicaCores = cores;
  out.push(`3 replicas on Kafka (each folds every event: ${KAFKA.foldMainUs.toFixed(0)} µs of its leader thread; serving ${KAFKA.servingMainUs.toFixed(0)} µs on the replica that takes the request; one partition measured at ≥ ${fmtN(KAFKA.partitionEventsPerSec)} events/s):`);
  for (const c of perReplicaCores) {
    const workers = Math.max(1, c - 1);
    const foldCap = U / (KAFKA.foldMainUs + (c > 1 ? HANDOFF.broadcastRingLeaderUsPerChange : KAFKA.servingMainUs / 3));
    const servingCap = c > 1 ? (3 * workers * U) / (KAFKA.servingMainUs + 3 * workers * HANDOFF.receiveRingUsPerChange) : Infinity;
    const bgPerEvent = Math.max(0, KAFKA.processUsThreeReplicas / 3 - KAFKA.foldMainUs - KAFKA.servingMainUs / 3); // per replica, other threads
    const machineCap = (3 * c * U) / (3 * KAFKA.foldMainUs + KAFKA.servingMainUs + 3 * bgPerEvent + 3 * workers * HANDOFF.receiveRingUsPerChange);
    const w = Math.min(foldCap, servingCap, machineCap, KAFKA.partitionEventsPerSec);
    const bound = w === foldCap ? 'fold per replica' : w === servingCap ? 'serving threads' : w === machineCap ? 'all cores' : 'one partition';
    const reads = (op: Op) => 3 * best(costs[op], false, c, bc).perSec;
    out.push(`  ${String(c).padStart(2)} cores each: writes ${fmtN(w)}/s (${bound}); GETs ${costs.get.mainUs ? fmtN(reads('get')) : '–'}/s; pages of 500 ${costs['list-500-json'].mainUs ? fmtN(reads('list-500-json')) : '–'}/s (reads spread over 3 replicas)`);
  }
  {
    const embeddedLeader = partsOf(costs.create, true, { cores: 16, workers: 15, leaderServes: 0, broadcast: bc }).leader;
    const cheap = Math.min(U / embeddedLeader, KAFKA.partitionEventsPerSec);
    out.push(`  if a replica's fold cost what the embedded leader's does (${embeddedLeader.toFixed(1)} µs: Kafka decoding moved to serving threads): writes ${fmtN(cheap)}/s (${cheap === KAFKA.partitionEventsPerSec ? 'the partition, measured floor' : 'fold per replica'}); the broker's ${KAFKA.brokerUsPerEvent} µs per event is ${fmtN(U / KAFKA.brokerUsPerEvent)} events/s of one broker core`);
  }
  out.push('');
  out.push('kube-apiserver + etcd, where known (measured on this machine unless noted):');
  out.push(`  pages of 500/s: ${KUBE.pagesPerSec1Core} on 1 core, ${Math.round(KUBE.pagesPerSec1Core * KUBE.pagesScaling2Cores)} on 2 (${KUBE.pagesScaling2Cores}×); if that per-core step held: ${cores.map((c) => `${c}: ~${fmtN(KUBE.pagesPerSec1Core * (1 + (KUBE.pagesScaling2Cores - 1) * (c - 1)))}`).join(', ')}`);
  out.push(`  GETs/s: ${fmtN(KUBE.getsPerSec1Core)} on 1 core; creates/s: ${fmtN(KUBE.createsPerSec2Cores)} on 2 cores; etcd's guide: a 3-member cluster > ${fmtN(KUBE.etcdRequestsPerSec)} requests/s (caps kube's writes however many apiservers)`);
  out.push('');
  out.push('MEASURED 1 → 2 CORE TREND: see docs/perf/capacity-model.md ("Validation") — the pinned runs of today\'s server, and the place for `npm run bench:cores`.');
  process.stdout.write(out.join('\n') + '\n');
  if (a.json) process.stdout.write(JSON.stringify(json, null, 1) + '\n');
}

if (import.meta.url === `file://${process.argv[1]}`) main();
