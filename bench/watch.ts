/**
 * Watch fan-out benchmark (`npm run bench:watch`, issue 3): the API server as a child process over
 * TLS (fresh data dir per scenario, fsync on), real watch streams, paced open-loop writes.
 *
 *   node --import tsx bench/watch.ts [--scenario both|node-agent|controller] [--duration S] [--warmup S]
 *        [--agent-watchers N] [--agent-rate W] [--controller-watchers N] [--controller-rate W]
 *        [--controller-namespaces N] [--sessions N] [--watcher-procs N] [--writer-connections N]
 *        [--names-per-ns N] [--value-bytes N] [--ceiling-seconds S] [--ceiling-runs N] [--no-ceiling] [--keep]
 *
 *  (i)  node-agent: --agent-watchers (1,000) watchers, each on its own namespace
 *       (GET /api/v1/namespaces/<ns>/configmaps?watch=1&resourceVersion=<rv>&allowWatchBookmarks=true),
 *       while --agent-rate (1,000) ConfigMap writes/s go round-robin over those namespaces;
 *  (ii) controller: --controller-watchers (100) watchers on all namespaces (/api/v1/configmaps?watch=1…)
 *       while --controller-rate (200) writes/s go over --controller-namespaces (100) namespaces
 *       (= 20,000 deliveries/s).
 * Each window is --duration s (30) after --warmup s (2). Writes: the first --names-per-ns (5) writes
 * of a namespace create cm-0…cm-4 (POST), later ones replace them (PUT, no resourceVersion), each
 * with a 1 KiB data.v and a changing data.seq.
 *
 * Watchers run in --watcher-procs (1) child processes (this file, --role watchers), over HTTP/2:
 * --sessions (default: one per watcher, like real node agents, capped at 1,000) TLS sessions with the
 * admin client certificate, the streams spread over them. A watcher parses only the event type and
 * metadata.resourceVersion of each line. The writer (this process) records, for each write of the
 * window, the resourceVersion of its answer and the time the answer was complete (acknowledged);
 * a watcher records the time each chunk arrived. Latency = receive − ack, by resourceVersion, both
 * on CLOCK_MONOTONIC (process.hrtime, shared by all processes on the machine). An event can arrive
 * before its writer has read the answer: such latencies are negative and kept as they are.
 *
 * Reported per scenario: deliveries/s, delivery latency p50/p99/max (and write sent → received),
 * watchers dropped (a stream that ended, errored or got an ERROR event before the end), events
 * missing (expected deliveries − received), write rate and latency, server max RSS and CPU (from
 * /proc/<pid>), the watcher process's CPU and event-loop delay (is the client the bottleneck?),
 * pass/fail against the goals ((i) p99 ≤ 50 ms, (ii) p99 ≤ 100 ms, no watcher dropped), and the
 * bare HTTPS ceiling of bench/run.ts measured in the same run. JSON: bench/results/watch-<ts>.json.
 */
import { parseArgs } from 'node:util';
import http2 from 'node:http2';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import { Pool } from 'undici';
import { spawnApiServer, serverLog, reportBenchFailure, type ApiServer } from './server.ts';
import {
  benchSession,
  endBench,
  adminTls, apiJson, createNamespaces, cpuSnapshot, fmt, installWatchdog, measureHttpsCeiling, monoMs,
  otherCpuPercent, readRss, round, sampleProc, spawnTracked, stopChild, summarize, writeResult, printReport, type HttpsCeiling, type LatencySummary, type ProcUsage,
} from './util.ts';

const ROOT = new URL('..', import.meta.url).pathname;

const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'main' },
    scenario: { type: 'string', default: 'both' },
    duration: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '2' },
    'agent-watchers': { type: 'string', default: '1000' },
    'agent-rate': { type: 'string', default: '1000' },
    'controller-watchers': { type: 'string', default: '100' },
    'controller-rate': { type: 'string', default: '200' },
    'controller-namespaces': { type: 'string', default: '100' },
    sessions: { type: 'string' },
    'watcher-procs': { type: 'string', default: '1' },
    'writer-connections': { type: 'string', default: '16' },
    'names-per-ns': { type: 'string', default: '5' },
    'value-bytes': { type: 'string', default: '1024' },
    'ceiling-seconds': { type: 'string', default: '10' },
    'ceiling-runs': { type: 'string', default: '2' },
    'no-ceiling': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});

// ---------------------------------------------------------------------------------------------
// IPC between the bench and its watcher processes ('advanced' serialization: typed arrays pass as is)

interface OpenMsg {
  type: 'open';
  origin: string;
  pkiDir: string;
  paths: string[];
  /** Namespace index each watcher sees, -1 = all namespaces. */
  nsOf: number[];
  sessions: number;
}
interface ReadyMsg {
  type: 'ready';
  opened: number;
  failedOpen: number;
  openMs: number;
  samples: string[];
  /** SETTINGS_MAX_CONCURRENT_STREAMS the server announced. */
  serverMaxConcurrentStreams: number;
}
interface FinishMsg {
  type: 'finish';
  /** One entry per write acknowledged inside the window. */
  rv: Float64Array;
  ns: Int32Array;
  sentAt: Float64Array;
  ackAt: Float64Array;
}
interface WatchersResult {
  type: 'result';
  watchers: number;
  dropped: number;
  droppedSamples: string[];
  /** Lines that were not an event we could read (no resourceVersion). */
  unreadable: number;
  outOfOrder: number;
  bookmarks: number;
  /** Events received (any resourceVersion). */
  received: number;
  /** Deliveries of writes of the window. */
  matched: number;
  expected: number;
  watchersMissingEvents: number;
  /** Receive − ack and receive − sent, ms, one per matched delivery. */
  ackLatencies: Float64Array;
  sentLatencies: Float64Array;
  cpuPercent: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  drainMs: number;
}

if (args.role === 'watchers') await watchersMain();
else await main();

// ---------------------------------------------------------------------------------------------
// watcher process

async function watchersMain(): Promise<void> {
  const send = (m: ReadyMsg | WatchersResult) => process.send!(m);
  process.on('disconnect', () => process.exit(0)); // the bench is gone
  const open = await new Promise<OpenMsg>((resolve) => process.once('message', (m) => resolve(m as OpenMsg)));
  const tls = adminTls(open.pkiDir);
  const n = open.paths.length;

  // Deliveries: watcher index, resourceVersion, receive time; growable.
  let cap = 1 << 16;
  let dW = new Int32Array(cap);
  let dRv = new Float64Array(cap);
  let dAt = new Float64Array(cap);
  let count = 0;
  const push = (w: number, rv: number, at: number) => {
    if (count === cap) {
      cap *= 2;
      const a = new Int32Array(cap);
      a.set(dW);
      dW = a;
      const b = new Float64Array(cap);
      b.set(dRv);
      dRv = b;
      const c = new Float64Array(cap);
      c.set(dAt);
      dAt = c;
    }
    dW[count] = w;
    dRv[count] = rv;
    dAt[count] = at;
    count++;
  };

  let stopping = false;
  let dropped = 0;
  const droppedSamples: string[] = [];
  const drop = (w: number, why: string) => {
    if (stopping || state[w]!.dropped) return;
    state[w]!.dropped = true;
    dropped++;
    if (droppedSamples.length < 10) droppedSamples.push(`watcher ${w} (${open.paths[w]}): ${why}`);
  };
  let unreadable = 0;
  let outOfOrder = 0;
  let bookmarks = 0;
  const RV_KEY = Buffer.from('"resourceVersion":"');
  const TYPE_AT = '{"type":"'.length;
  interface W {
    rest: Buffer | null;
    last: number;
    dropped: boolean;
  }
  const state: W[] = Array.from({ length: n }, () => ({ rest: null, last: 0, dropped: false }));

  const line = (w: number, b: Buffer, s: number, e: number, at: number) => {
    const t = b[s + TYPE_AT];
    if (t === 0x42 /* BOOKMARK */) {
      bookmarks++;
      return;
    }
    if (t === 0x45 /* ERROR */) {
      drop(w, `ERROR event ${b.toString('utf8', s, Math.min(e, s + 300))}`);
      return;
    }
    const k = b.indexOf(RV_KEY, s);
    if (k < 0 || k > e) {
      unreadable++;
      return;
    }
    let rv = 0;
    for (let i = k + RV_KEY.length; i < e && b[i] !== 0x22; i++) rv = rv * 10 + (b[i]! - 48);
    const st = state[w]!;
    if (rv <= st.last) {
      outOfOrder++;
      return;
    }
    st.last = rv;
    push(w, rv, at);
  };
  const onData = (w: number, chunk: Buffer) => {
    const at = monoMs();
    const st = state[w]!;
    const b = st.rest ? Buffer.concat([st.rest, chunk]) : chunk;
    let s = 0;
    for (let nl = b.indexOf(10, s); nl >= 0; nl = b.indexOf(10, s)) {
      line(w, b, s, nl, at);
      s = nl + 1;
    }
    st.rest = s < b.length ? Buffer.from(b.subarray(s)) : null;
  };

  const sessionCount = Math.max(1, Math.min(open.sessions, n));
  const sessions: http2.ClientHttp2Session[] = [];
  let serverMaxConcurrentStreams = NaN;
  for (let i = 0; i < sessionCount; i++) {
    const s = http2.connect(open.origin, { ca: tls.ca, cert: tls.cert, key: tls.key, settings: { initialWindowSize: 1 << 20 }, maxSessionMemory: 256 });
    s.on('error', () => undefined); // every stream of it reports its own close
    s.once('connect', () => s.setLocalWindowSize(64 << 20));
    s.once('remoteSettings', (st) => {
      serverMaxConcurrentStreams = st.maxConcurrentStreams ?? NaN;
    });
    sessions.push(s);
  }
  const t0 = performance.now();
  let opened = 0;
  let failedOpen = 0;
  const samples: string[] = [];
  await new Promise<void>((resolve) => {
    let settled = 0;
    const settle = () => {
      if (++settled === n) resolve();
    };
    const timer = setTimeout(resolve, 120_000);
    for (let w = 0; w < n; w++) {
      const req = sessions[w % sessionCount]!.request({ ':method': 'GET', ':path': open.paths[w]!, accept: 'application/json' }, { endStream: true });
      let responded = false;
      req.once('response', (h) => {
        responded = true;
        const status = Number(h[':status']);
        if (status === 200) opened++;
        else {
          failedOpen++;
          state[w]!.dropped = true;
          if (samples.length < 5) samples.push(`watcher ${w}: HTTP ${status}`);
        }
        settle();
      });
      req.on('data', (c: Buffer) => onData(w, c));
      req.on('error', (e) => drop(w, `stream error ${e.message}`));
      req.once('close', () => {
        if (!responded) {
          failedOpen++;
          state[w]!.dropped = true;
          if (samples.length < 5) samples.push(`watcher ${w}: closed before a response (rst ${req.rstCode})`);
          settle();
        } else drop(w, `stream closed (rst ${req.rstCode})`);
      });
    }
    timer.unref();
  });
  send({ type: 'ready', opened, failedOpen, openMs: round(performance.now() - t0, 1), samples, serverMaxConcurrentStreams });

  const eld = monitorEventLoopDelay({ resolution: 10 });
  let cpu0 = process.cpuUsage();
  let w0 = performance.now();
  const fin = await new Promise<FinishMsg>((resolve) => {
    process.on('message', (m: { type: string }) => {
      if (m.type === 'start') {
        eld.enable();
        cpu0 = process.cpuUsage();
        w0 = performance.now();
      } else if (m.type === 'finish') resolve(m as FinishMsg);
    });
  });
  const cpu = process.cpuUsage(cpu0);
  const cpuPercent = round(((cpu.user + cpu.system) / 1000 / (performance.now() - w0)) * 100, 0);
  eld.disable();

  // Drain: until nothing arrived for 1 s (or 20 s in all).
  const d0 = performance.now();
  for (let last = count, quietSince = performance.now(); performance.now() - d0 < 20_000; ) {
    await new Promise((r) => setTimeout(r, 100));
    if (count !== last) {
      last = count;
      quietSince = performance.now();
    } else if (performance.now() - quietSince >= 1000) break;
  }
  const drainMs = round(performance.now() - d0, 0);
  stopping = true;

  // Match deliveries to acknowledged writes by resourceVersion.
  const byRv = new Map<number, number>();
  for (let i = 0; i < fin.rv.length; i++) byRv.set(fin.rv[i]!, i);
  const ackLat = new Float64Array(count);
  const sentLat = new Float64Array(count);
  const got = new Int32Array(n);
  let matched = 0;
  for (let i = 0; i < count; i++) {
    const a = byRv.get(dRv[i]!);
    if (a === undefined) continue;
    ackLat[matched] = dAt[i]! - fin.ackAt[a]!;
    sentLat[matched] = dAt[i]! - fin.sentAt[a]!;
    matched++;
    got[dW[i]!]!++;
  }
  const perNs = new Map<number, number>();
  for (const ns of fin.ns) perNs.set(ns, (perNs.get(ns) ?? 0) + 1);
  let expected = 0;
  let watchersMissingEvents = 0;
  for (let w = 0; w < n; w++) {
    const e = open.nsOf[w] === -1 ? fin.rv.length : perNs.get(open.nsOf[w]!) ?? 0;
    expected += e;
    if (got[w]! < e) watchersMissingEvents++;
  }
  const result: WatchersResult = {
    type: 'result',
    watchers: n,
    dropped,
    droppedSamples,
    unreadable,
    outOfOrder,
    bookmarks,
    received: count,
    matched,
    expected,
    watchersMissingEvents,
    ackLatencies: ackLat.slice(0, matched),
    sentLatencies: sentLat.slice(0, matched),
    cpuPercent,
    // The histogram holds whole timer periods: less the 10 ms resolution, what is left is delay.
    eventLoopDelayP99Ms: round(Math.max(0, eld.percentile(99) / 1e6 - 10), 1),
    eventLoopDelayMaxMs: round(Math.max(0, eld.max / 1e6 - 10), 1),
    drainMs,
  };
  for (const s of sessions) s.destroy();
  process.send!(result, () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// the bench

interface WatcherProc {
  proc: ChildProcess;
  ready: Promise<ReadyMsg>;
  result: Promise<WatchersResult>;
}

function startWatchers(open: OpenMsg): WatcherProc {
  const proc = spawnTracked(process.execPath, ['--import', 'tsx', 'bench/watch.ts', '--role', 'watchers'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  proc.on('error', () => undefined);
  let onReady: (m: ReadyMsg) => void = () => undefined;
  let onResult: (m: WatchersResult) => void = () => undefined;
  const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`watcher process exited with ${code}`))));
  exited.catch(() => undefined);
  const ready = Promise.race([new Promise<ReadyMsg>((r) => (onReady = r)), exited]);
  const result = Promise.race([new Promise<WatchersResult>((r) => (onResult = r)), exited]);
  ready.catch(() => undefined);
  result.catch(() => undefined);
  proc.on('message', (m: ReadyMsg | WatchersResult) => (m.type === 'ready' ? onReady(m) : onResult(m)));
  proc.send(open);
  return { proc, ready, result };
}

interface WriterResult {
  target: number;
  /** Writes whose send time fell in the window. */
  sent: number;
  acked: number;
  achievedPerSec: number;
  statuses: Record<string, number>;
  errors: number;
  errorSamples: string[];
  badSamples: string[];
  /** Writes not sent because --writer-connections × 64 were already in flight. */
  skipped: number;
  /** Longest time inside the window with no write acknowledged: a stall detector. */
  maxAckGapMs: number;
  latencyMs: LatencySummary;
  createLatencyMs: LatencySummary;
  updateLatencyMs: LatencySummary;
  /** Write latency p99 (ms) of the writes sent in each second of the window: drift over time shows here. */
  p99BySecond: number[];
  /** What the watchers need: one entry per acknowledged write of the window. */
  acks: { rv: number[]; ns: number[]; sentAt: number[]; ackAt: number[] };
}

/** Paced open-loop writes: write i is due at t0 + i / rate, whatever the answers do. */
async function runWriter(o: { pool: Pool; rate: number; warmupMs: number; durationMs: number; namespaces: string[]; namesPerNs: number; filler: string; maxInFlight: number; onWindowStart: () => void }): Promise<WriterResult> {
  const interval = 1000 / o.rate;
  const t0 = performance.now();
  const winStart = t0 + o.warmupMs;
  const end = winStart + o.durationMs;
  const acks = { rv: [] as number[], ns: [] as number[], sentAt: [] as number[], ackAt: [] as number[] };
  const lat: number[] = [];
  const latByVerb: { POST: number[]; PUT: number[] } = { POST: [], PUT: [] };
  const latBySecond: number[][] = Array.from({ length: Math.ceil(o.durationMs / 1000) }, () => []);
  const statuses: Record<string, number> = {};
  const errorSamples: string[] = [];
  const badSamples: string[] = [];
  let sent = 0;
  let errors = 0;
  let skipped = 0;
  let inFlight = 0;
  let lastAck = winStart;
  let maxAckGap = 0;
  let allDone: () => void = () => undefined;
  const nsCount = o.namespaces.length;
  const issue = (i: number, inWindow: boolean) => {
    const nsIdx = i % nsCount;
    const ns = o.namespaces[nsIdx]!;
    const round_ = Math.floor(i / nsCount);
    const name = `cm-${round_ % o.namesPerNs}`;
    const create = round_ < o.namesPerNs;
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { v: o.filler, seq: String(i) } });
    const path = create ? `/api/v1/namespaces/${ns}/configmaps` : `/api/v1/namespaces/${ns}/configmaps/${name}`;
    const expect = create ? 201 : 200;
    if (inWindow) sent++;
    inFlight++;
    const sentAt = monoMs();
    o.pool
      .request({ path, method: create ? 'POST' : 'PUT', headers: { 'content-type': 'application/json', accept: 'application/json' }, body })
      .then(async (r) => {
        const text = await r.body.text();
        const ackAt = monoMs();
        const now = performance.now();
        if (now >= winStart && now <= end) {
          maxAckGap = Math.max(maxAckGap, now - lastAck);
          lastAck = now;
        }
        if (!inWindow) return;
        statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
        if (r.statusCode !== expect) {
          if (badSamples.length < 5) badSamples.push(`${r.statusCode} on ${create ? 'POST' : 'PUT'} ${path}: ${text.slice(0, 300)}`);
          return;
        }
        const m = /"resourceVersion":"(\d+)"/.exec(text);
        if (!m) return;
        lat.push(ackAt - sentAt);
        latByVerb[create ? 'POST' : 'PUT'].push(ackAt - sentAt);
        latBySecond[Math.min(latBySecond.length - 1, Math.floor((i - firstInWindow) / o.rate))]!.push(ackAt - sentAt);
        acks.rv.push(Number(m[1]));
        acks.ns.push(nsIdx);
        acks.sentAt.push(sentAt);
        acks.ackAt.push(ackAt);
      })
      .catch((e: Error) => {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(String(e?.message ?? e));
      })
      .finally(() => {
        if (--inFlight === 0) allDone();
      });
  };
  let i = 0;
  let windowOpened = false;
  const firstInWindow = Math.round((o.warmupMs * o.rate) / 1000);
  const total = firstInWindow + Math.round((o.durationMs * o.rate) / 1000);
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      if (!windowOpened && now >= winStart) {
        windowOpened = true;
        o.onWindowStart();
      }
      // Every write due before the end is sent, even when this tick comes late.
      const due = Math.min(Math.floor((now - t0) / interval) + 1, total);
      for (; i < due; i++) {
        const inWindow = i >= firstInWindow;
        if (inFlight >= o.maxInFlight) {
          if (inWindow) skipped++;
          continue;
        }
        issue(i, inWindow);
      }
      if (now >= end) return resolve();
      setTimeout(tick, 1);
    };
    tick();
  });
  if (inFlight > 0) await new Promise<void>((r) => (allDone = r));
  const acked = acks.rv.length;
  return {
    target: o.rate,
    sent,
    acked,
    achievedPerSec: round(acked / (o.durationMs / 1000), 1),
    statuses,
    errors,
    errorSamples,
    badSamples,
    skipped,
    maxAckGapMs: round(maxAckGap, 1),
    latencyMs: summarize(lat),
    createLatencyMs: summarize(latByVerb.POST),
    updateLatencyMs: summarize(latByVerb.PUT),
    p99BySecond: latBySecond.map((a) => summarize(a).p99),
    acks,
  };
}

interface Scenario {
  name: 'node-agent' | 'controller';
  label: string;
  watchers: number;
  rate: number;
  namespaces: number;
  perNamespace: boolean;
  goalP99Ms: number;
}

interface ScenarioResult {
  scenario: Scenario;
  sessions: number;
  watcherProcs: number;
  watchersOpened: number;
  watchersFailedToOpen: number;
  openMs: number;
  serverMaxConcurrentStreams: number;
  writer: Omit<WriterResult, 'acks'>;
  expectedDeliveries: number;
  deliveries: number;
  deliveriesPerSec: number;
  eventsMissing: number;
  watchersMissingEvents: number;
  eventsReceivedTotal: number;
  outOfOrder: number;
  unreadable: number;
  watchersDropped: number;
  droppedSamples: string[];
  /** Write acknowledged → event received. */
  deliveryLatencyMs: LatencySummary;
  /** Deliveries that arrived before the writer had the answer (negative latency). */
  deliveredBeforeAck: number;
  /** Write sent → event received. */
  sentToReceivedMs: LatencySummary;
  server: ProcUsage;
  serverRssBeforeMiB: number;
  watcherClient: { cpuPercent: number[]; eventLoopDelayP99Ms: number[]; eventLoopDelayMaxMs: number[]; drainMs: number[] };
  writerProcessCpuPercent: number;
  otherCpuPercent: number;
  goals: { name: string; value: number; goal: string; met: boolean }[];
}

async function main(): Promise<void> {
  const num = (k: keyof typeof args) => {
    const v = Number(args[k]);
    if (!(v > 0)) throw new Error(`bad --${k}: ${args[k]}`);
    return v;
  };
  const cfg = {
    scenario: args.scenario!,
    durationS: num('duration'),
    warmupS: Number(args.warmup),
    agentWatchers: num('agent-watchers'),
    agentRate: num('agent-rate'),
    controllerWatchers: num('controller-watchers'),
    controllerRate: num('controller-rate'),
    controllerNamespaces: num('controller-namespaces'),
    sessions: args.sessions ? num('sessions') : null,
    watcherProcs: num('watcher-procs'),
    writerConnections: num('writer-connections'),
    namesPerNs: num('names-per-ns'),
    valueBytes: num('value-bytes'),
    ceilingSeconds: num('ceiling-seconds'),
    ceilingRuns: num('ceiling-runs'),
    ceiling: !args['no-ceiling'],
  };
  if (!['both', 'node-agent', 'controller'].includes(cfg.scenario)) throw new Error(`bad --scenario ${cfg.scenario}`);
  const scenarios: Scenario[] = [];
  if (cfg.scenario !== 'controller') scenarios.push({ name: 'node-agent', label: `(i) node-agent: ${cfg.agentWatchers} watchers, one namespace each, ${cfg.agentRate} writes/s`, watchers: cfg.agentWatchers, rate: cfg.agentRate, namespaces: cfg.agentWatchers, perNamespace: true, goalP99Ms: 50 });
  if (cfg.scenario !== 'node-agent') scenarios.push({ name: 'controller', label: `(ii) controller: ${cfg.controllerWatchers} all-namespace watchers, ${cfg.controllerRate} writes/s over ${cfg.controllerNamespaces} namespaces`, watchers: cfg.controllerWatchers, rate: cfg.controllerRate, namespaces: cfg.controllerNamespaces, perNamespace: false, goalP99Ms: 100 });

  installWatchdog((scenarios.length * (cfg.durationS + cfg.warmupS + 180) + (cfg.ceiling ? cfg.ceilingRuns * (cfg.ceilingSeconds + 30) : 0)) * 1000);
  const { log, tmpRoot, machine } = benchSession('watch', args.keep!, cfg);
  const started = performance.now();
  const problems: string[] = [];
  let server: ApiServer | null = null;
  try {
    const ceiling: HttpsCeiling | null = cfg.ceiling ? await measureHttpsCeiling({ tmpDir: tmpRoot, connections: 64, warmupS: 2, durationS: cfg.ceilingSeconds, runs: cfg.ceilingRuns, log }) : null;
    const filler = 'x'.repeat(cfg.valueBytes);
    const results: ScenarioResult[] = [];
    for (const sc of scenarios) {
      const dataDir = join(tmpRoot, sc.name);
      mkdirSync(dataDir);
      log(`${sc.name}: starting API server on ${dataDir} (fsync on)`);
      server = await spawnApiServer(dataDir);
      await server.readyLog;
      const tls = adminTls(server.pkiDir);
      const pool = new Pool(server.origin, { connections: cfg.writerConnections, pipelining: 1, connect: tls, headersTimeout: 60_000, bodyTimeout: 60_000 });
      const nsNames = Array.from({ length: sc.namespaces }, (_, i) => `${sc.name}-${String(i).padStart(4, '0')}`);
      await createNamespaces(pool, nsNames, 32);
      const list = await apiJson(pool, 'GET', '/api/v1/configmaps?limit=1');
      const rv = list.json?.metadata?.resourceVersion as string | undefined;
      if (list.status !== 200 || !rv) throw new Error(`list for a start resourceVersion: ${list.status} ${list.text.slice(0, 300)}`);
      const q = `watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`;
      const paths = Array.from({ length: sc.watchers }, (_, w) => (sc.perNamespace ? `/api/v1/namespaces/${nsNames[w % sc.namespaces]}/configmaps?${q}` : `/api/v1/configmaps?${q}`));
      const nsOf = Array.from({ length: sc.watchers }, (_, w) => (sc.perNamespace ? w % sc.namespaces : -1));
      const sessions = cfg.sessions ?? Math.min(sc.watchers, 1000);
      const procs = Math.min(cfg.watcherProcs, sc.watchers);
      log(`${sc.name}: opening ${sc.watchers} watches over ${sessions} HTTP/2 session(s) in ${procs} process(es) from rv ${rv}`);
      const wps: WatcherProc[] = [];
      for (let p = 0; p < procs; p++) {
        const mine = paths.map((_, w) => w).filter((w) => w % procs === p);
        wps.push(startWatchers({ type: 'open', origin: server.origin, pkiDir: server.pkiDir, paths: mine.map((w) => paths[w]!), nsOf: mine.map((w) => nsOf[w]!), sessions: Math.max(1, Math.round(sessions / procs)) }));
      }
      const readies = await Promise.all(wps.map((w) => w.ready));
      const opened = readies.reduce((a, r) => a + r.opened, 0);
      const failedOpen = readies.reduce((a, r) => a + r.failedOpen, 0);
      log(`${sc.name}: ${opened} watches open in ${Math.max(...readies.map((r) => r.openMs))} ms${failedOpen ? `, ${failedOpen} FAILED: ${readies.flatMap((r) => r.samples).join('; ')}` : ''}; writing ${sc.rate}/s for ${cfg.warmupS}+${cfg.durationS} s`);
      const rssBefore = readRss(server.pid).rssMiB;

      const win = { sampler: null as ReturnType<typeof sampleProc> | null, snap: cpuSnapshot(), cpu0: process.cpuUsage() };
      const srv = server;
      const writer = await runWriter({
        pool,
        rate: sc.rate,
        warmupMs: cfg.warmupS * 1000,
        durationMs: cfg.durationS * 1000,
        namespaces: nsNames,
        namesPerNs: cfg.namesPerNs,
        filler,
        maxInFlight: cfg.writerConnections * 64,
        onWindowStart: () => {
          for (const w of wps) if (w.proc.connected) w.proc.send({ type: 'start' });
          win.sampler = sampleProc(srv.pid, 200);
          win.snap = cpuSnapshot();
          win.cpu0 = process.cpuUsage();
        },
      });
      const cpuW = process.cpuUsage(win.cpu0);
      const serverUse = win.sampler?.stop() ?? null;
      const other = otherCpuPercent(win.snap, cpuSnapshot());
      if (!serverUse) throw new Error('window never opened');
      log(`${sc.name}: ${writer.acked} writes acknowledged in the window; draining watchers`);
      const acks = writer.acks;
      // Each process gets the acks; the namespace index is global, its watchers' nsOf too.
      const fin: FinishMsg = { type: 'finish', rv: Float64Array.from(acks.rv), ns: Int32Array.from(acks.ns), sentAt: Float64Array.from(acks.sentAt), ackAt: Float64Array.from(acks.ackAt) };
      for (const w of wps) w.proc.send(fin);
      const rs = await Promise.all(wps.map((w) => w.result));
      await Promise.all(wps.map((w) => stopChild(w.proc, 'SIGTERM', 5000)));
      await pool.close().catch(() => undefined);
      if (server.proc.exitCode !== null || server.proc.signalCode !== null) problems.push(`${sc.name}: the server died during the run`);
      await server.stop('SIGTERM');
      server = null;

      const cat = (k: 'ackLatencies' | 'sentLatencies') => {
        const out: number[] = [];
        for (const r of rs) for (const v of r[k]) out.push(v);
        return out;
      };
      const ackLat = cat('ackLatencies');
      const sum = <K extends keyof WatchersResult>(k: K) => rs.reduce((a, r) => a + (r[k] as number), 0);
      const expected = sum('expected');
      const matched = sum('matched');
      const dropped = sum('dropped');
      const lat = summarize(ackLat);
      const { acks: _acks, ...writerOut } = writer;
      void _acks;
      const r: ScenarioResult = {
        scenario: sc,
        sessions,
        watcherProcs: procs,
        watchersOpened: opened,
        watchersFailedToOpen: failedOpen,
        openMs: Math.max(...readies.map((x) => x.openMs)),
        serverMaxConcurrentStreams: readies[0]!.serverMaxConcurrentStreams,
        writer: writerOut,
        expectedDeliveries: expected,
        deliveries: matched,
        deliveriesPerSec: round(matched / cfg.durationS, 1),
        eventsMissing: expected - matched,
        watchersMissingEvents: sum('watchersMissingEvents'),
        eventsReceivedTotal: sum('received'),
        outOfOrder: sum('outOfOrder'),
        unreadable: sum('unreadable'),
        watchersDropped: dropped + failedOpen,
        droppedSamples: [...readies.flatMap((x) => x.samples), ...rs.flatMap((x) => x.droppedSamples)].slice(0, 10),
        deliveryLatencyMs: lat,
        deliveredBeforeAck: ackLat.filter((v) => v < 0).length,
        sentToReceivedMs: summarize(cat('sentLatencies')),
        server: serverUse,
        serverRssBeforeMiB: rssBefore,
        watcherClient: { cpuPercent: rs.map((x) => x.cpuPercent), eventLoopDelayP99Ms: rs.map((x) => x.eventLoopDelayP99Ms), eventLoopDelayMaxMs: rs.map((x) => x.eventLoopDelayMaxMs), drainMs: rs.map((x) => x.drainMs) },
        writerProcessCpuPercent: round(((cpuW.user + cpuW.system) / 1000 / (cfg.durationS * 1000)) * 100, 0),
        otherCpuPercent: other,
        goals: [
          { name: `delivery p99 (ms)`, value: lat.p99, goal: `≤ ${sc.goalP99Ms}`, met: lat.p99 <= sc.goalP99Ms },
          { name: 'watchers dropped', value: dropped + failedOpen, goal: '= 0', met: dropped + failedOpen === 0 },
          { name: 'events missing', value: expected - matched, goal: '= 0 (implied)', met: expected === matched },
        ],
      };
      results.push(r);
      const p = (s: string) => problems.push(`${sc.name}: ${s}`);
      if (writer.achievedPerSec < sc.rate * 0.95) p(`writer reached ${writer.achievedPerSec} of ${sc.rate} writes/s (skipped ${writer.skipped}, errors ${writer.errors})`);
      if (writer.errors) p(`${writer.errors} write transport errors; e.g. ${writer.errorSamples.join(' | ')}`);
      if (writer.badSamples.length) p(`unexpected write answers ${JSON.stringify(writer.statuses)}; e.g. ${writer.badSamples.join(' | ')}`);
      if (r.outOfOrder) p(`${r.outOfOrder} events repeated or out of resourceVersion order`);
      if (r.unreadable) p(`${r.unreadable} lines without a resourceVersion`);
      if (r.watchersDropped) p(`${r.watchersDropped} watchers dropped; e.g. ${r.droppedSamples.join(' | ')}`);
      if (r.eventsMissing) p(`${r.eventsMissing} of ${expected} deliveries missing (${r.watchersMissingEvents} watchers affected)`);
      const busy = rs.filter((x) => x.cpuPercent >= 85 || x.eventLoopDelayP99Ms >= 20);
      if (busy.length) p(`watcher client near saturation (CPU ${rs.map((x) => x.cpuPercent).join('/')}%, event-loop delay p99 ${rs.map((x) => x.eventLoopDelayP99Ms).join('/')} ms): latency includes client time; try --watcher-procs 2`);
      if (other >= 15) p(`not a quiet machine: other processes used ${other}% of a core during the window`);
    }
    if (serverLog.error || serverLog.warn) problems.push(`server log: ${serverLog.error} error and ${serverLog.warn} warn lines; e.g.\n      ${serverLog.samples.join('\n      ')}`);
    for (const e of serverLog.unexpectedExits) problems.push(`server exited unexpectedly: ${e}`);

    const totalS = round((performance.now() - started) / 1000, 1);
    const report = { kind: 'watch-bench', timestamp: new Date().toISOString(), machine, config: cfg, httpsCeiling: ceiling, scenarios: results, problems, totalSeconds: totalS };
    const file = writeResult('watch', report);

    const ms = (v: number) => `${fmt(v, 1)} ms`;
    const L: string[] = ['', '=== Watch fan-out benchmark (issue 3) ==='];
    L.push(`machine   ${machine.cpuCount} CPU × ${machine.cpuModel}, ${machine.memGiB} GiB, node ${machine.node}; load avg at start ${machine.loadAvg1AtStart}`);
    L.push(`config    window ${cfg.durationS} s after ${cfg.warmupS} s warm-up, ${cfg.valueBytes} B ConfigMap values, ${cfg.writerConnections} writer connections, names per namespace ${cfg.namesPerNs}`);
    if (ceiling) L.push(`ceiling   bare node:https JSON echo ${fmt(ceiling.best.okPerSec, 0)} req/s (best of ${ceiling.attemptsReqPerSec.map((v) => fmt(v, 0)).join(' / ')}; p50 ${ms(ceiling.best.latencyMs.p50)}, 64 connections; other CPU ${ceiling.otherCpuPercent}%)`);
    for (const r of results) {
      const w = r.writer;
      L.push('');
      L.push(r.scenario.label);
      L.push(`  watchers      ${r.watchersOpened} open (${r.sessions} h2 sessions, ${r.watcherProcs} process(es), opened in ${ms(r.openMs)}; server SETTINGS_MAX_CONCURRENT_STREAMS ${r.serverMaxConcurrentStreams})`);
      L.push(`  writes        ${fmt(w.achievedPerSec)}/s acknowledged of ${w.target}/s target (${w.acked} of ${w.sent} sent in the window; skipped ${w.skipped}, errors ${w.errors})`);
      L.push(`                latency p50 ${ms(w.latencyMs.p50)} p99 ${ms(w.latencyMs.p99)} max ${ms(w.latencyMs.max)}; longest time without an ack ${ms(w.maxAckGapMs)}`);
      L.push(`                creates p50 ${ms(w.createLatencyMs.p50)} p99 ${ms(w.createLatencyMs.p99)} (n=${w.createLatencyMs.n}); updates p50 ${ms(w.updateLatencyMs.p50)} p99 ${ms(w.updateLatencyMs.p99)} (n=${w.updateLatencyMs.n})`);
      L.push(`                p99 by second of the window: ${w.p99BySecond.map((v) => fmt(v, 0)).join(' ')} ms`);
      L.push(`  deliveries    ${fmt(r.deliveriesPerSec)}/s  (${r.deliveries} of ${r.expectedDeliveries} expected; missing ${r.eventsMissing}${r.watchersMissingEvents ? ` on ${r.watchersMissingEvents} watchers` : ''})`);
      L.push(`  latency       ack → received   p50 ${ms(r.deliveryLatencyMs.p50)}  p99 ${ms(r.deliveryLatencyMs.p99)}  max ${ms(r.deliveryLatencyMs.max)}  (${r.deliveredBeforeAck} arrived before the ack)`);
      L.push(`                sent → received  p50 ${ms(r.sentToReceivedMs.p50)}  p99 ${ms(r.sentToReceivedMs.p99)}  max ${ms(r.sentToReceivedMs.max)}`);
      L.push(`  dropped       ${r.watchersDropped} watchers${r.droppedSamples.length ? `: ${r.droppedSamples.slice(0, 3).join(' | ')}` : ''}`);
      L.push(`  server        CPU ${r.server.cpuPercent}% of a core (main thread ${r.server.mainThreadCpuPercent}%; ${fmt(r.server.cpuSeconds, 1)} s CPU / ${fmt(r.server.wallSeconds, 1)} s), RSS max ${fmt(r.server.rssMaxMiB)} MiB (before ${fmt(r.serverRssBeforeMiB)}, end ${fmt(r.server.rssEndMiB)}, VmHWM ${fmt(r.server.hwmMiB)})`);
      L.push(`  clients       watcher process CPU ${r.watcherClient.cpuPercent.join('/')}%, event-loop delay p99 ${r.watcherClient.eventLoopDelayP99Ms.join('/')} ms (max ${r.watcherClient.eventLoopDelayMaxMs.join('/')}); writer process CPU ${r.writerProcessCpuPercent}%; other processes ${r.otherCpuPercent}%`);
      for (const g of r.goals) L.push(`  ${g.met ? 'MET ' : 'MISS'}          ${g.name.padEnd(20)} ${String(g.value).padStart(9)}   goal ${g.goal}`);
    }
    L.push('');
    printReport(L, [], problems, totalS, file);
  } catch (e) {
    reportBenchFailure(e);
  } finally {
    if (server) await server.stop('SIGTERM').catch(() => undefined);
    endBench(tmpRoot, args.keep);
  }
}
