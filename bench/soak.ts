/**
 * Soak (`npm run soak`, issue 24 item 6): many watchers, a steady write rate, watcher churn and a
 * server restart midway; every watcher's stream is checked event by event against the writes that
 * were acknowledged, and the server's RSS and CPU are sampled every second into a JSON file and an
 * SVG chart.
 *
 *   node --import tsx bench/soak.ts [--watchers 10000] [--writes 500] [--minutes 30] [--restart-at 0.5]
 *        [--kill9] [--namespaces 100] [--groups 10] [--objects-per-ns 20] [--streams-per-session 200]
 *        [--writer-connections 32] [--churn-per-min 10] [--quiet-seconds 10] [--inject-faults] [--keep]
 *        [-- server flags…]
 *
 * The API server runs as a child process over TLS (fsync on), on one data dir for the whole run.
 * - Watchers, all with allowWatchBookmarks and a timeoutSeconds drawn like client-go's reflector
 *   (5–10 min): per-namespace (50 %), all namespaces (1 %), label selector group=gK on all
 *   namespaces (14 %) or in one namespace (15 %), field selector metadata.namespace=ns-K on all
 *   namespaces (18 %), field selector metadata.name=s-<watcher number> on all namespaces (2 %: one
 *   object's life, or none; such a watcher's version moves only with bookmarks, once a minute). They are multiplexed over HTTP/2: ceil(watchers / --streams-per-session)
 *   TLS sessions (the server allows 250 streams per session), in this one process. All start
 *   from the resourceVersion of a list taken before the writes.
 * - Writes: --writes per second (open loop, paced every 20 ms) of ConfigMaps s-<id> labelled
 *   group=gK over --namespaces namespaces on --writer-connections HTTP/1.1 keep-alive connections:
 *   creates (POST), updates (merge PATCH of data and, 30 % of the time, the group label, so objects
 *   move in and out of label selectors: ADDED/DELETED as kube's cacher sends them) and deletes, at
 *   most one write in flight per object. Every acknowledged write is recorded with its
 *   resourceVersion and the object's group before and after. A write without a clear answer (a
 *   transport error other than a refused connection, or a 5xx) may or may not have landed: its
 *   object is retired and left out of every check (counted as `uncertainObjects`).
 * - Churn: --churn-per-min % of the watchers per minute stop (stream cancelled) and start again
 *   from the last resourceVersion they saw (event or bookmark), as client-go's reflector does.
 *   A watch that ends (timeout, server gone) reconnects the same way, with a jittered backoff.
 * - Restart at --restart-at of the run: SIGTERM (or SIGKILL with --kill9), then the server starts
 *   again on the same data dir and port. A watch answered 410 (status or ERROR event) relists with
 *   its selectors and resumes from the list's resourceVersion; the list is checked against the
 *   state the acknowledged writes give at that version, and the versions between are not expected.
 * - After --minutes the writes stop and the watchers get --quiet-seconds to receive the rest.
 * Checks per watcher: the events it received equal, in resourceVersion order, the events the
 * acknowledged writes give for its selectors over the versions it covered: lost, duplicated,
 * out of order, unexpected and wrong-type events are counted. Reported too: 410s, relists,
 * reconnects, 429s, GET latency (a list of 50 every 250 ms), the server's RSS min/max before and
 * after the restart.
 * --inject-faults checks the checker: watcher 0 drops one event and watcher 1 sees one twice on the
 * client side, so the run must report 1 lost and 1 duplicated. Server flags go after `--`, e.g.
 * `-- --history-window 30s` to have watchers resume from compacted versions (410 and relist).
 * Files: bench/results/soak-<timestamp>.json and .svg.
 */
import { parseArgs } from 'node:util';
import http2 from 'node:http2';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnApiServer, serverLog, reportBenchFailure, type ApiServer } from './server.ts';
import { makePool } from './load.ts';
import { benchSession, endBench, adminTls, apiJson, createNamespaces, fmt, installWatchdog, procCpuMs, readRss, round, sleep, summarize, writeResult, printReport } from './util.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    watchers: { type: 'string', default: '10000' },
    writes: { type: 'string', default: '500' },
    minutes: { type: 'string', default: '30' },
    'restart-at': { type: 'string', default: '0.5' },
    kill9: { type: 'boolean', default: false },
    namespaces: { type: 'string', default: '100' },
    groups: { type: 'string', default: '10' },
    'objects-per-ns': { type: 'string', default: '20' },
    'streams-per-session': { type: 'string', default: '200' },
    'writer-connections': { type: 'string', default: '32' },
    'churn-per-min': { type: 'string', default: '10' },
    'quiet-seconds': { type: 'string', default: '10' },
    'inject-faults': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const num = (k: keyof typeof args): number => Number(args[k]);
const cfg = {
  watchers: num('watchers'),
  writesPerSec: num('writes'),
  minutes: num('minutes'),
  restartAt: num('restart-at'),
  kill9: args.kill9!,
  namespaces: num('namespaces'),
  groups: num('groups'),
  objectsPerNs: num('objects-per-ns'),
  streamsPerSession: num('streams-per-session'),
  writerConnections: num('writer-connections'),
  churnPerMin: num('churn-per-min'),
  quietSeconds: num('quiet-seconds'),
  injectFaults: args['inject-faults']!,
  serverFlags: positionals,
};
const nsName = (i: number): string => `soak-${i}`;
const PREFIX = 's-';

// ---------------------------------------------------------------------------------------------
// the write log

const W_CREATE = 0;
const W_UPDATE = 1;
const W_DELETE = 2;
const EV = { ADDED: 0, MODIFIED: 1, DELETED: 2 } as Record<string, number>;

/** Acknowledged writes (parallel arrays; sorted by resourceVersion before the checks). */
const writes = { rv: [] as number[], type: [] as number[], ns: [] as number[], id: [] as number[], oldGroup: [] as number[], newGroup: [] as number[], prevRv: [] as number[] };
/** Objects with a write whose outcome is unknown: left out of every check. */
const uncertain = new Set<number>();
interface Obj { ns: number; group: number; busy: boolean; rv: number }
const objects = new Map<number, Obj>();
const liveByNs: number[][] = [];
let nextId = 0;
let maxAckedRv = 0;
const writeStats = { sent: 0, acked: 0, refused: 0, rejected: 0, uncertain: 0, statuses: {} as Record<string, number>, latencies: [] as number[] };

// ---------------------------------------------------------------------------------------------
// watchers

type Kind = 'ns' | 'all' | 'label' | 'labelNs' | 'field' | 'name';
interface Watcher {
  id: number;
  kind: Kind;
  ns: number; // -1: none
  group: number; // -1: none
  lastRv: number;
  /** Covered version intervals (from, to]; the last one is open until the end. */
  segments: { from: number; to: number }[];
  recvRv: number[];
  recvType: number[];
  recvId: number[];
  lastEventRv: number;
  duplicates: number;
  outOfOrder: number;
  foreign: number;
  bookmarks: number;
  reconnects: number;
  expired: number;
  tooMany: number;
  errors: number;
  relists: { rv: number; items: Map<number, number> }[];
  stream: http2.ClientHttp2Stream | null;
  /** A request in flight or a stream open. */
  running: boolean;
  stopped: boolean;
  faulted?: boolean;
  /** The version each watch request resumed from, and when (s since the start). */
  starts: [number, number][];
  /** The last bookmark's version on the current stream; events not newer than it came behind it. */
  streamBookmarkRv: number;
  behindBookmark: number;
}

function watcherPath(w: Watcher, watch: boolean): string {
  const q: string[] = [];
  if (w.kind === 'label' || w.kind === 'labelNs') q.push(`labelSelector=${encodeURIComponent(`group=g${w.group}`)}`);
  if (w.kind === 'field') q.push(`fieldSelector=${encodeURIComponent(`metadata.namespace=${nsName(w.ns)}`)}`);
  if (w.kind === 'name') q.push(`fieldSelector=${encodeURIComponent(`metadata.name=${PREFIX}${w.id}`)}`);
  if (watch) {
    q.push('watch=true', 'allowWatchBookmarks=true', `resourceVersion=${w.lastRv}`, `timeoutSeconds=${300 + Math.floor(Math.random() * 300)}`);
  }
  const base = w.kind === 'ns' || w.kind === 'labelNs' ? `/api/v1/namespaces/${nsName(w.ns)}/configmaps` : '/api/v1/configmaps';
  return `${base}?${q.join('&')}`;
}

function matches(w: Watcher, ns: number, group: number, id: number): boolean {
  if (group < 0) return false;
  switch (w.kind) {
    case 'name':
      return id === w.id;
    case 'ns':
    case 'field':
      return ns === w.ns;
    case 'all':
      return true;
    case 'label':
      return group === w.group;
    case 'labelNs':
      return ns === w.ns && group === w.group;
  }
}

/** The event a write gives a watcher (kube's cacher: moving into a selector is ADDED, out of it DELETED); -1: none. */
function expectedEvent(w: Watcher, i: number): number {
  const ns = writes.ns[i]!;
  const before = matches(w, ns, writes.oldGroup[i]!, writes.id[i]!);
  const after = matches(w, ns, writes.newGroup[i]!, writes.id[i]!);
  if (before && after) return EV.MODIFIED!;
  if (after) return EV.ADDED!;
  if (before) return EV.DELETED!;
  return -1;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { log, tmpRoot, machine } = benchSession('soak', args.keep!, cfg);
  const totalMs = cfg.minutes * 60_000;
  installWatchdog(totalMs + 15 * 60_000);
  const dataDir = join(tmpRoot, 'data');
  mkdirSync(dataDir, { recursive: true });
  const t0 = Date.now();
  let server: ApiServer = await spawnApiServer(dataDir, undefined, cfg.serverFlags);
  await server.readyLog;
  const port = server.port;
  const tls = adminTls(server.pkiDir);
  const pool = makePool(server.origin, tls, cfg.writerConnections);
  const getPool = makePool(server.origin, tls, 1);
  const namespaces = Array.from({ length: cfg.namespaces }, (_, i) => nsName(i));
  await createNamespaces(pool, namespaces);
  for (let i = 0; i < cfg.namespaces; i++) liveByNs.push([]);
  const startList = await apiJson(pool, 'GET', '/api/v1/configmaps?limit=1');
  const startRv = Number(startList.json?.metadata?.resourceVersion);
  if (!Number.isFinite(startRv)) throw new Error(`start list: ${startList.status} ${startList.text.slice(0, 200)}`);
  log(`server pid ${server.pid} ready; ${cfg.namespaces} namespaces; start resourceVersion ${startRv}`);

  // ---- sessions ------------------------------------------------------------------------------
  const sessionCount = Math.ceil(cfg.watchers / cfg.streamsPerSession);
  const sessions: (http2.ClientHttp2Session | null)[] = Array.from({ length: sessionCount }, () => null);
  let sessionsOpened = 0;
  const sessionFor = (w: Watcher): http2.ClientHttp2Session => {
    const k = w.id % sessionCount;
    let s = sessions[k];
    if (!s || s.closed || s.destroyed) {
      s = http2.connect(server.origin, { ca: tls.ca, cert: tls.cert, key: tls.key, settings: { initialWindowSize: 1 << 20 } });
      s.setMaxListeners(0);
      s.on('error', () => undefined);
      s.on('close', () => {
        if (sessions[k] === s) sessions[k] = null;
      });
      sessions[k] = s;
      sessionsOpened++;
    }
    return s;
  };

  // ---- watchers ------------------------------------------------------------------------------
  const watchers: Watcher[] = [];
  for (let i = 0; i < cfg.watchers; i++) {
    const r = (i * 7919) % 100; // a fixed spread of kinds
    const kind: Kind = r < 50 ? 'ns' : r < 51 ? 'all' : r < 65 ? 'label' : r < 80 ? 'labelNs' : r < 98 ? 'field' : 'name';
    watchers.push({
      id: i, kind, ns: kind === 'all' || kind === 'label' || kind === 'name' ? -1 : i % cfg.namespaces, group: kind === 'label' || kind === 'labelNs' ? i % cfg.groups : -1,
      lastRv: startRv, segments: [{ from: startRv, to: Infinity }], recvRv: [], recvType: [], recvId: [], lastEventRv: startRv,
      duplicates: 0, outOfOrder: 0, foreign: 0, bookmarks: 0, reconnects: 0, expired: 0, tooMany: 0, errors: 0, relists: [], stream: null, running: false, stopped: false,
      starts: [], streamBookmarkRv: 0, behindBookmark: 0,
    });
  }
  let eventsReceived = 0;
  let finishing = false;
  const restartLater = (w: Watcher, ms: number): void => {
    if (finishing || w.stopped) return;
    setTimeout(() => startWatch(w), ms + Math.random() * ms);
  };

  const onEvent = (w: Watcher, line: string): boolean => {
    let ev: { type: string; object: any };
    try {
      ev = JSON.parse(line);
    } catch {
      w.errors++;
      return false;
    }
    const md = ev.object?.metadata;
    if (ev.type === 'BOOKMARK') {
      w.bookmarks++;
      const rv = Number(md?.resourceVersion);
      w.streamBookmarkRv = Math.max(w.streamBookmarkRv, rv);
      if (rv > w.lastRv) w.lastRv = rv;
      return true;
    }
    if (ev.type === 'ERROR') {
      if (ev.object?.code === 410) {
        w.expired++;
        void relist(w);
      } else if (ev.object?.code === 429) {
        w.tooMany++;
        restartLater(w, 1000);
      } else {
        w.errors++;
        restartLater(w, 1000);
      }
      return false;
    }
    const rv = Number(md?.resourceVersion);
    const name = String(md?.name ?? '');
    if (!name.startsWith(PREFIX)) {
      w.foreign++;
      if (rv > w.lastRv) w.lastRv = rv;
      return true;
    }
    eventsReceived++;
    if (rv <= w.streamBookmarkRv) w.behindBookmark++;
    if (cfg.injectFaults && w.recvRv.length === 10) {
      // The checker's own check: watcher 0 drops its 11th event, watcher 1 gets its 11th twice.
      if (w.id === 0 && !w.faulted) return (w.faulted = true);
      if (w.id === 1 && !w.faulted) {
        w.faulted = true;
        onEvent(w, line);
      }
    }
    if (rv <= w.lastEventRv) {
      // Strictly increasing is expected: an equal or older version is a duplicate or out of order.
      let seen = false;
      for (let j = w.recvRv.length - 1; j >= 0 && w.recvRv[j]! >= rv; j--) if (w.recvRv[j] === rv) seen = true;
      if (seen) w.duplicates++;
      else w.outOfOrder++;
      if (seen) return true;
    }
    w.recvRv.push(rv);
    w.recvType.push(EV[ev.type] ?? 9);
    w.recvId.push(Number(name.slice(PREFIX.length)));
    if (rv > w.lastEventRv) w.lastEventRv = rv;
    if (rv > w.lastRv) w.lastRv = rv;
    return true;
  };

  function startWatch(w: Watcher): void {
    if (finishing || w.stopped || w.running) return;
    w.running = true;
    w.reconnects++;
    w.starts.push([w.lastRv, round((Date.now() - t0) / 1000, 1)]);
    w.streamBookmarkRv = 0;
    let s: http2.ClientHttp2Session;
    try {
      s = sessionFor(w);
    } catch {
      w.running = false;
      restartLater(w, 500);
      return;
    }
    let stream: http2.ClientHttp2Stream;
    try {
      stream = s.request({ ':method': 'GET', ':path': watcherPath(w, true), accept: 'application/json' });
    } catch {
      w.running = false;
      restartLater(w, 500);
      return;
    }
    w.stream = stream;
    let buf = '';
    let status = 0;
    let ended = false;
    let next: 'again' | 'relist' | 'none' = 'again';
    const done = (): void => {
      if (ended) return;
      ended = true;
      if (w.stream === stream) w.stream = null;
      w.running = false;
      if (next === 'again') restartLater(w, status === 429 ? 1000 : 250);
    };
    stream.setEncoding('utf8');
    // node:http2 emits 'response' on the next tick: DATA that came in the same read as the
    // HEADERS (a resume's replayed events) is emitted before it, and must wait, not be dropped.
    let early: string[] | null = [];
    stream.on('response', (h) => {
      status = Number(h[':status']);
      const before = early ?? [];
      early = null;
      if (status === 200) for (const c of before) onData(c);
      if (status === 410) {
        w.expired++;
        next = 'relist';
        stream.close(http2.constants.NGHTTP2_CANCEL);
        done();
        void relist(w);
      } else if (status !== 200) {
        if (status === 429) w.tooMany++;
        else w.errors++;
        stream.close(http2.constants.NGHTTP2_CANCEL);
      }
    });
    const onData = (c: string): void => {
      if (early) {
        early.push(c);
        return;
      }
      if (status !== 200 || ended) return;
      buf += c;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!line.trim()) continue;
        if (!onEvent(w, line)) {
          next = 'none'; // onEvent took care of what comes next
          stream.close(http2.constants.NGHTTP2_CANCEL);
          done();
          return;
        }
      }
    };
    stream.on('data', onData);
    stream.on('end', done);
    stream.on('close', done);
    stream.on('error', done);
  }

  async function relist(w: Watcher): Promise<void> {
    if (finishing) return;
    w.running = true;
    for (let attempt = 0; !finishing; attempt++) {
      try {
        const r = await apiJson(getPool, 'GET', watcherPath(w, false));
        if (r.status === 200) {
          const listRv = Number(r.json.metadata.resourceVersion);
          const items = new Map<number, number>();
          for (const it of r.json.items as any[]) {
            const name = String(it.metadata.name);
            if (name.startsWith(PREFIX)) items.set(Number(name.slice(PREFIX.length)), Number(it.metadata.resourceVersion));
          }
          w.relists.push({ rv: listRv, items });
          const seg = w.segments[w.segments.length - 1]!;
          seg.to = w.lastRv;
          w.segments.push({ from: listRv, to: Infinity });
          w.lastRv = listRv;
          w.lastEventRv = Math.max(w.lastEventRv, listRv);
          break;
        }
      } catch {
        /* server away: try again */
      }
      await sleep(500 + Math.random() * 1000);
    }
    w.running = false;
    startWatch(w);
  }

  log(`opening ${cfg.watchers} watches over ${sessionCount} HTTP/2 sessions`);
  for (let i = 0; i < watchers.length; i++) {
    startWatch(watchers[i]!);
    if (i % 200 === 199) await sleep(50);
  }

  // ---- writer --------------------------------------------------------------------------------
  let inflight = 0;
  let writing = true;
  let seq = 0;
  const maxInflight = cfg.writerConnections * 4;
  const isRefused = (e: unknown): boolean => {
    const err = e as { code?: string; cause?: { code?: string } };
    return err?.code === 'ECONNREFUSED' || err?.cause?.code === 'ECONNREFUSED';
  };
  const doWrite = async (): Promise<void> => {
    const ns = Math.floor(Math.random() * cfg.namespaces);
    const live = liveByNs[ns]!;
    let type = live.length < cfg.objectsPerNs ? (Math.random() < 0.7 ? W_CREATE : W_UPDATE) : Math.random() < 0.25 ? W_CREATE : Math.random() < 0.75 ? W_UPDATE : W_DELETE;
    if (live.length === 0) type = W_CREATE;
    let id: number;
    let obj: Obj;
    const oldGroup = type === W_CREATE ? -1 : 0;
    if (type === W_CREATE) {
      id = nextId++;
      obj = { ns, group: Math.floor(Math.random() * cfg.groups), busy: true, rv: NaN };
    } else {
      const k = Math.floor(Math.random() * live.length);
      id = live[k]!;
      live[k] = live[live.length - 1]!;
      live.pop();
      obj = objects.get(id)!;
      obj.busy = true;
    }
    const before = type === W_CREATE ? -1 : obj.group;
    void oldGroup;
    const after = type === W_DELETE ? -1 : type === W_UPDATE && Math.random() < 0.3 ? Math.floor(Math.random() * cfg.groups) : obj.group;
    const path = `/api/v1/namespaces/${nsName(ns)}/configmaps`;
    const body = (s: number) => ({ metadata: { labels: { soak: '1', group: `g${after}` } }, data: { v: String(s) } });
    inflight++;
    writeStats.sent++;
    const began = performance.now();
    let landed: 'yes' | 'no' | 'unknown' = 'unknown';
    let rv = NaN;
    try {
      const r = await pool.request({
        method: type === W_CREATE ? 'POST' : type === W_UPDATE ? 'PATCH' : 'DELETE',
        path: type === W_CREATE ? path : `${path}/${PREFIX}${id}`,
        headers: { accept: 'application/json', 'content-type': type === W_UPDATE ? 'application/merge-patch+json' : 'application/json' },
        body: type === W_CREATE ? JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${PREFIX}${id}`, namespace: nsName(ns), ...body(seq).metadata }, data: body(seq++).data }) : type === W_UPDATE ? JSON.stringify(body(seq++)) : undefined,
      });
      const text = await r.body.text();
      writeStats.statuses[r.statusCode] = (writeStats.statuses[r.statusCode] ?? 0) + 1;
      if (r.statusCode < 300) {
        landed = 'yes';
        // A ConfigMap's DELETE answers a Status (kube: no ReturnDeletedObject), without the
        // deletion's resourceVersion: the checks learn it from the DELETED events.
        rv = type === W_DELETE ? NaN : Number(JSON.parse(text)?.metadata?.resourceVersion);
        if (type !== W_DELETE && !Number.isFinite(rv)) landed = 'unknown';
      } else if (r.statusCode < 500) landed = 'no';
    } catch (e) {
      if (isRefused(e)) {
        landed = 'no';
        writeStats.refused++;
      }
    }
    inflight--;
    if (landed === 'yes') {
      writeStats.acked++;
      writeStats.latencies.push(performance.now() - began);
      writes.rv.push(rv);
      writes.type.push(type);
      writes.ns.push(ns);
      writes.id.push(id);
      writes.oldGroup.push(before);
      writes.newGroup.push(after);
      writes.prevRv.push(obj.rv);
      if (rv > maxAckedRv) maxAckedRv = rv;
      if (type !== W_DELETE) {
        obj.rv = rv;
        obj.group = after;
        obj.busy = false;
        objects.set(id, obj);
        liveByNs[ns]!.push(id);
      } else objects.delete(id);
    } else if (landed === 'no') {
      writeStats.rejected++;
      obj.busy = false;
      if (type !== W_CREATE) liveByNs[ns]!.push(id);
    } else {
      writeStats.uncertain++;
      uncertain.add(id);
      objects.delete(id);
    }
  };
  let tokens = 0;
  let lastTick = performance.now();
  const writerTimer = setInterval(() => {
    const now = performance.now();
    tokens = Math.min(tokens + ((now - lastTick) / 1000) * cfg.writesPerSec, cfg.writesPerSec);
    lastTick = now;
    if (!writing) return;
    while (tokens >= 1 && inflight < maxInflight) {
      tokens--;
      void doWrite();
    }
  }, 20);

  // ---- churn ---------------------------------------------------------------------------------
  let churned = 0;
  let churnDue = 0;
  const churnTimer = setInterval(() => {
    churnDue += (cfg.watchers * cfg.churnPerMin) / 100 / 60;
    for (; churnDue >= 1; churnDue--) {
      const w = watchers[Math.floor(Math.random() * watchers.length)]!;
      if (w.stream && w.running) {
        churned++;
        w.stream.close(http2.constants.NGHTTP2_CANCEL); // its 'close' restarts it from lastRv
      }
    }
  }, 1000);

  // ---- GET latency and RSS/CPU samples -------------------------------------------------------
  const getLat: { t: number; ms: number; status: number }[] = [];
  const getTimer = setInterval(() => {
    const began = performance.now();
    apiJson(getPool, 'GET', `/api/v1/namespaces/${nsName(0)}/configmaps?limit=50`).then(
      (r) => getLat.push({ t: (Date.now() - t0) / 1000, ms: performance.now() - began, status: r.status }),
      () => getLat.push({ t: (Date.now() - t0) / 1000, ms: performance.now() - began, status: 0 }),
    );
  }, 250);
  const samples: { t: number; rssMiB: number; anonMiB: number; cpuPercent: number; clientRssMiB: number; clientCpuPercent: number; eventsPerSec: number; writesPerSec: number; openWatches: number; server: number }[] = [];
  let lastCpu = procCpuMs(server.pid);
  let lastClient = process.cpuUsage();
  let lastEvents = 0;
  let lastAcked = 0;
  let lastSampleAt = performance.now();
  let serverGen = 1;
  const sampleTimer = setInterval(() => {
    const now = performance.now();
    const dt = (now - lastSampleAt) / 1000;
    lastSampleAt = now;
    const r = readRss(server.pid);
    const cpu = procCpuMs(server.pid);
    const cl = process.cpuUsage();
    samples.push({
      t: round((Date.now() - t0) / 1000, 1),
      rssMiB: r.rssMiB,
      anonMiB: r.anonMiB,
      cpuPercent: round(((cpu - lastCpu) / 1000 / dt) * 100, 0),
      clientRssMiB: round(process.memoryUsage.rss() / 2 ** 20, 1),
      clientCpuPercent: round(((cl.user - lastClient.user + cl.system - lastClient.system) / 1e6 / dt) * 100, 0),
      eventsPerSec: round((eventsReceived - lastEvents) / dt, 0),
      writesPerSec: round((writeStats.acked - lastAcked) / dt, 0),
      openWatches: watchers.reduce((n, w) => n + (w.stream ? 1 : 0), 0),
      server: serverGen,
    });
    lastCpu = cpu;
    lastClient = cl;
    lastEvents = eventsReceived;
    lastAcked = writeStats.acked;
  }, 1000);
  const progress = setInterval(() => {
    const s = samples[samples.length - 1];
    if (s) log(`t=${s.t}s server RSS ${s.rssMiB} MiB (anon ${s.anonMiB}) cpu ${s.cpuPercent}%, client RSS ${s.clientRssMiB} MiB cpu ${s.clientCpuPercent}%; writes ${s.writesPerSec}/s, events ${s.eventsPerSec}/s, open watches ${s.openWatches}`);
  }, 30_000);

  // ---- restart midway ------------------------------------------------------------------------
  const restart: { atS: number; signal: string; downMs: number; readyMs: number } = { atS: NaN, signal: cfg.kill9 ? 'SIGKILL' : 'SIGTERM', downMs: NaN, readyMs: NaN };
  if (cfg.restartAt > 0 && cfg.restartAt < 1) {
    await sleep(totalMs * cfg.restartAt);
    restart.atS = round((Date.now() - t0) / 1000, 1);
    log(`restart: ${restart.signal} to pid ${server.pid}`);
    const stopAt = performance.now();
    await server.stop(cfg.kill9 ? 'SIGKILL' : 'SIGTERM');
    restart.downMs = round(performance.now() - stopAt, 0);
    server = await spawnApiServer(dataDir, port, cfg.serverFlags);
    serverGen++;
    lastCpu = procCpuMs(server.pid);
    const ready = await server.readyLog;
    restart.readyMs = ready.ms;
    log(`restart: pid ${server.pid} ready in ${ready.ms} ms (stop took ${restart.downMs} ms)`);
    await sleep(totalMs * (1 - cfg.restartAt));
  } else await sleep(totalMs);

  // ---- quiesce and check ---------------------------------------------------------------------
  log(`writes stop; ${cfg.quietSeconds} s for the watchers to receive the rest`);
  writing = false;
  clearInterval(writerTimer);
  clearInterval(churnTimer);
  while (inflight > 0) await sleep(50);
  await sleep(cfg.quietSeconds * 1000);
  finishing = true;
  clearInterval(getTimer);
  clearInterval(sampleTimer);
  clearInterval(progress);
  const notRunning = watchers.filter((w) => !w.stream).length;
  for (const w of watchers) {
    w.stopped = true;
    w.stream?.close(http2.constants.NGHTTP2_CANCEL);
  }
  for (const s of sessions) s?.close();

  log(`checking ${watchers.length} watchers against ${writes.rv.length} acknowledged writes`);
  // The deletions' versions: the DELETED events for the object newer than its last other write.
  // One version agreed by every watcher that got one; none at all: placed just after the last
  // write (every watcher that covered it lost it); several: a disagreement, reported.
  const deleteIdx = new Map<number, number>();
  for (let i = 0; i < writes.rv.length; i++) if (writes.type[i] === W_DELETE) deleteIdx.set(writes.id[i]!, i);
  const deleteRvs = new Map<number, Set<number>>();
  for (const w of watchers) {
    for (let j = 0; j < w.recvRv.length; j++) {
      if (w.recvType[j] !== EV.DELETED) continue;
      const i = deleteIdx.get(w.recvId[j]!);
      if (i === undefined || w.recvRv[j]! <= writes.prevRv[i]!) continue;
      let set = deleteRvs.get(i);
      if (!set) deleteRvs.set(i, (set = new Set()));
      set.add(w.recvRv[j]!);
    }
  }
  const deletes = { acknowledged: deleteIdx.size, versionFromEvents: 0, seenByNone: 0, disagreements: 0 };
  for (const i of deleteIdx.values()) {
    const set = deleteRvs.get(i);
    if (!set) {
      deletes.seenByNone++;
      writes.rv[i] = writes.prevRv[i]! + 0.5;
    } else {
      if (set.size > 1) deletes.disagreements++;
      else deletes.versionFromEvents++;
      writes.rv[i] = Math.min(...set);
    }
  }
  for (const rv of writes.rv) if (rv > maxAckedRv) maxAckedRv = rv;
  const order = writes.rv.map((_, i) => i).sort((a, b) => writes.rv[a]! - writes.rv[b]!);
  const byNs: number[][] = Array.from({ length: cfg.namespaces }, () => []);
  for (const i of order) byNs[writes.ns[i]!]!.push(i);
  let rvProblems = 0;
  for (let k = 1; k < order.length; k++) if (writes.rv[order[k]!] === writes.rv[order[k - 1]!]) rvProblems++;
  const totals = { expected: 0, received: 0, lost: 0, duplicated: 0, outOfOrder: 0, unexpected: 0, wrongType: 0, expired410: 0, relists: 0, relistMismatches: 0, watchRequests: 0, tooMany429: 0, errors: 0, bookmarks: 0, eventsBehindBookmark: 0, foreign: 0, watchersWithProblems: 0 };
  const problemSamples: string[] = [];
  const byKind: Record<string, { watchers: number; expected: number; lost: number; duplicated: number }> = {};
  for (const w of watchers) {
    const last = w.segments[w.segments.length - 1]!;
    if (last.to === Infinity) last.to = maxAckedRv;
    const list = w.ns < 0 ? order : byNs[w.ns]!;
    const expected = new Map<number, number>();
    for (const i of list) {
      const rv = writes.rv[i]!;
      if (uncertain.has(writes.id[i]!)) continue;
      if (!w.segments.some((s) => rv > s.from && rv <= s.to)) continue;
      const e = expectedEvent(w, i);
      if (e >= 0) expected.set(rv, e);
    }
    let lost = 0;
    let unexpected = 0;
    let wrongType = 0;
    const got = new Map<number, number>();
    for (let j = 0; j < w.recvRv.length; j++) {
      if (uncertain.has(w.recvId[j]!)) continue;
      got.set(w.recvRv[j]!, w.recvType[j]!);
      const e = expected.get(w.recvRv[j]!);
      if (e === undefined) unexpected++;
      else if (e !== w.recvType[j]) wrongType++;
    }
    for (const rv of expected.keys()) if (!got.has(rv)) lost++;
    // Relists: the list equals the state the acknowledged writes give at its version.
    for (const rl of w.relists) {
      const state = new Map<number, number>();
      for (const i of list) {
        const rv = writes.rv[i]!;
        if (rv > rl.rv) break;
        const id = writes.id[i]!;
        if (uncertain.has(id)) continue;
        if (matches(w, writes.ns[i]!, writes.newGroup[i]!, id)) state.set(id, rv);
        else state.delete(id);
      }
      for (const id of uncertain) rl.items.delete(id);
      let bad = state.size !== rl.items.size;
      for (const [id, rv] of state) if (rl.items.get(id) !== rv) bad = true;
      if (bad) {
        totals.relistMismatches++;
        if (problemSamples.length < 10) problemSamples.push(`watcher ${w.id} (${w.kind}) relist at ${rl.rv}: ${rl.items.size} items, expected ${state.size}`);
      }
    }
    totals.expected += expected.size;
    totals.received += got.size + w.duplicates;
    totals.lost += lost;
    totals.duplicated += w.duplicates;
    totals.outOfOrder += w.outOfOrder;
    totals.unexpected += unexpected;
    totals.wrongType += wrongType;
    totals.expired410 += w.expired;
    totals.relists += w.relists.length;
    totals.watchRequests += w.reconnects;
    totals.tooMany429 += w.tooMany;
    totals.errors += w.errors;
    totals.bookmarks += w.bookmarks;
    totals.foreign += w.foreign;
    totals.eventsBehindBookmark += w.behindBookmark;
    const k = (byKind[w.kind] ??= { watchers: 0, expected: 0, lost: 0, duplicated: 0 });
    k.watchers++;
    k.expected += expected.size;
    k.lost += lost;
    k.duplicated += w.duplicates;
    if (lost || w.duplicates || w.outOfOrder || unexpected || wrongType) {
      totals.watchersWithProblems++;
      if (problemSamples.length < 10) {
        const lostRvs = [...expected.keys()].filter((rv) => !got.has(rv)).slice(0, 5);
        problemSamples.push(`watcher ${w.id} (${w.kind} ns=${w.ns} group=${w.group}): expected ${expected.size}, lost ${lost} (e.g. ${lostRvs.join(',')}), dup ${w.duplicates}, out of order ${w.outOfOrder}, unexpected ${unexpected}, wrong type ${wrongType}; segments ${JSON.stringify(w.segments)}; watch requests [from rv, at s] around the first loss ${JSON.stringify(around(w.starts, lostRvs[0]))}`);
      }
    }
  }

  // ---- report --------------------------------------------------------------------------------
  const before = samples.filter((s) => s.server === 1);
  const after = samples.filter((s) => s.server === 2);
  const mm = (xs: number[]) => ({ min: round(Math.min(...xs), 1), max: round(Math.max(...xs), 1) });
  const rss = {
    all: mm(samples.map((s) => s.rssMiB).filter(Number.isFinite)),
    beforeRestart: before.length ? mm(before.map((s) => s.rssMiB).filter(Number.isFinite)) : null,
    afterRestart: after.length ? mm(after.map((s) => s.rssMiB).filter(Number.isFinite)) : null,
    anon: mm(samples.map((s) => s.anonMiB).filter(Number.isFinite)),
    /** RSS of the last minute vs. the minute after warm-up (2nd minute of each server's life): growth over time. */
    lastMinuteMean: round(mean(samples.slice(-60).map((s) => s.rssMiB)), 1),
  };
  const get = summarize(getLat.filter((g) => g.status === 200).map((g) => g.ms));
  const getFailed = getLat.filter((g) => g.status !== 200).length;
  const write = summarize(writeStats.latencies);
  const timestamp = new Date().toISOString();
  const report = {
    timestamp,
    machine,
    config: { ...cfg, sessions: sessionCount, writerConnections: cfg.writerConnections, mix: 'ns 50%, all 1%, label(all ns) 14%, label(ns) 15%, field metadata.namespace 18%, field metadata.name 2%' },
    startRv,
    maxAckedRv,
    restart,
    totals,
    byKind,
    problemSamples,
    deletes,
    watchersNotOpenAtEnd: notRunning,
    churned,
    sessionsOpened,
    writes: { ...writeStats, latencies: undefined, latencyMs: write, uncertainObjects: uncertain.size, duplicateRvs: rvProblems },
    getLatencyMs: get,
    getFailed,
    rss,
    server: { warn: serverLog.warn, error: serverLog.error, samples: serverLog.samples, unexpectedExits: serverLog.unexpectedExits },
    samples,
    getSamples: getLat.map((g) => [round(g.t, 1), round(g.ms, 1), g.status]),
  };
  const file = writeResult('soak', report);
  const svgFile = file.replace(/\.json$/, '.svg');
  writeFileSync(svgFile, chart(samples, getLat, restart.atS, `soak ${timestamp}: ${cfg.watchers} watchers, ${cfg.writesPerSec} writes/s, ${cfg.minutes} min, ${restart.signal} at ${restart.atS} s`));
  await server.stop();
  await pool.close().catch(() => undefined);
  await getPool.close().catch(() => undefined);

  const L: string[] = [];
  L.push('', `Soak: ${cfg.watchers} watchers over ${sessionCount} HTTP/2 sessions, ${cfg.writesPerSec} writes/s, ${cfg.minutes} min, ${restart.signal} at ${restart.atS} s (server ready again after ${restart.readyMs} ms)`);
  L.push(`  writes: ${writeStats.acked} acknowledged of ${writeStats.sent} sent (refused ${writeStats.refused}, rejected ${writeStats.rejected}, uncertain ${writeStats.uncertain}); latency p50 ${write.p50} p99 ${write.p99} max ${write.max} ms`);
  L.push(`  deletes: ${deletes.acknowledged} acknowledged, version from the DELETED events ${deletes.versionFromEvents}, seen by no watcher ${deletes.seenByNone}, versions disagreeing ${deletes.disagreements}`);
  L.push(`  events: expected ${totals.expected}, received ${totals.received}, lost ${totals.lost}, duplicated ${totals.duplicated}, out of order ${totals.outOfOrder}, unexpected ${totals.unexpected}, wrong type ${totals.wrongType}`);
  L.push(`  watches: ${totals.watchRequests} watch requests (churned ${churned}, the rest: first, ends, restart), 410s ${totals.expired410}, relists ${totals.relists} (mismatched ${totals.relistMismatches}), 429s ${totals.tooMany429}, other errors ${totals.errors}, bookmarks ${totals.bookmarks} (events behind a bookmark ${totals.eventsBehindBookmark}), not open at the end ${notRunning}`);
  L.push(`  server RSS: ${rss.all.min}–${rss.all.max} MiB (before restart ${JSON.stringify(rss.beforeRestart)}, after ${JSON.stringify(rss.afterRestart)}), RssAnon ${rss.anon.min}–${rss.anon.max} MiB`);
  L.push(`  GET list of 50 every 250 ms: p50 ${get.p50} p99 ${get.p99} max ${get.max} ms, ${getFailed} failed (restart included)`);
  L.push(`  chart: ${svgFile}`);
  const goals = [
    { name: 'events lost', value: totals.lost, goal: '0', met: totals.lost === 0 },
    { name: 'events duplicated or out of order', value: totals.duplicated + totals.outOfOrder, goal: '0', met: totals.duplicated + totals.outOfOrder === 0 },
    { name: 'unexpected or wrong-type events', value: totals.unexpected + totals.wrongType, goal: '0', met: totals.unexpected + totals.wrongType === 0 },
    { name: 'deletions with one version', value: deletes.disagreements, goal: '0 disagreeing', met: deletes.disagreements === 0 },
    { name: 'relists equal to the acknowledged state', value: `${totals.relists - totals.relistMismatches}/${totals.relists}`, goal: 'all', met: totals.relistMismatches === 0 },
  ];
  const problems = [...problemSamples, ...serverLog.unexpectedExits];
  printReport(L, goals, problems, round((Date.now() - t0) / 1000, 0), file);
  if (goals.some((g) => !g.met)) process.exitCode = 1;
  endBench(tmpRoot, args.keep!);
}

/** The watch requests just before and after version `rv` (diagnosis of a loss). */
function around(starts: [number, number][], rv: number | undefined): [number, number][] {
  if (rv === undefined) return [];
  const k = starts.findIndex((st) => st[0] >= rv);
  return k < 0 ? starts.slice(-3) : starts.slice(Math.max(0, k - 2), k + 1);
}

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

/** Stacked line charts (hand-written SVG): server RSS and RssAnon, CPU, writes/s and events/s, GET latency. */
function chart(samples: { t: number; rssMiB: number; anonMiB: number; cpuPercent: number; clientCpuPercent: number; eventsPerSec: number; writesPerSec: number }[], gets: { t: number; ms: number }[], restartS: number, title: string): string {
  const W = 900;
  const PH = 160;
  const ML = 60;
  const MR = 20;
  const tMax = Math.max(1, ...samples.map((s) => s.t));
  const panels: { label: string; series: { name: string; color: string; pts: [number, number][] }[] }[] = [
    { label: 'server memory (MiB)', series: [{ name: 'RSS', color: '#1f77b4', pts: samples.map((s) => [s.t, s.rssMiB]) }, { name: 'RssAnon', color: '#ff7f0e', pts: samples.map((s) => [s.t, s.anonMiB]) }] },
    { label: 'CPU (% of a core)', series: [{ name: 'server', color: '#2ca02c', pts: samples.map((s) => [s.t, s.cpuPercent]) }, { name: 'soak client', color: '#9467bd', pts: samples.map((s) => [s.t, s.clientCpuPercent]) }] },
    { label: 'rate (per s)', series: [{ name: 'events received', color: '#d62728', pts: samples.map((s) => [s.t, s.eventsPerSec]) }, { name: 'writes acked ×10', color: '#8c564b', pts: samples.map((s) => [s.t, s.writesPerSec * 10]) }] },
    { label: 'GET list latency (ms)', series: [{ name: 'GET', color: '#17becf', pts: gets.map((g) => [g.t, g.ms]) }] },
  ];
  const H = 40 + panels.length * (PH + 40);
  const out: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`, `<rect width="100%" height="100%" fill="white"/>`, `<text x="${ML}" y="20" font-size="13">${esc(title)}</text>`];
  panels.forEach((p, k) => {
    const top = 40 + k * (PH + 40);
    const vals = p.series.flatMap((s) => s.pts.map((q) => q[1])).filter(Number.isFinite);
    const yMax = niceMax(Math.max(1, ...vals));
    const x = (t: number) => ML + (t / tMax) * (W - ML - MR);
    const y = (v: number) => top + PH - (Math.min(v, yMax) / yMax) * PH;
    out.push(`<rect x="${ML}" y="${top}" width="${W - ML - MR}" height="${PH}" fill="none" stroke="#ccc"/>`);
    out.push(`<text x="${ML}" y="${top - 6}">${esc(p.label)}</text>`);
    for (let g = 0; g <= 4; g++) {
      const v = (yMax * g) / 4;
      out.push(`<line x1="${ML}" x2="${W - MR}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/><text x="${ML - 4}" y="${y(v) + 4}" text-anchor="end">${fmtNum(v)}</text>`);
    }
    for (let g = 0; g <= 6; g++) {
      const t = (tMax * g) / 6;
      out.push(`<text x="${x(t)}" y="${top + PH + 14}" text-anchor="middle">${Math.round(t)} s</text>`);
    }
    if (Number.isFinite(restartS)) out.push(`<line x1="${x(restartS)}" x2="${x(restartS)}" y1="${top}" y2="${top + PH}" stroke="#000" stroke-dasharray="4 3"/><text x="${x(restartS) + 3}" y="${top + 12}">restart</text>`);
    p.series.forEach((s, j) => {
      const d = s.pts.filter((q) => Number.isFinite(q[1])).map((q, i) => `${i ? 'L' : 'M'}${x(q[0]).toFixed(1)},${y(q[1]).toFixed(1)}`).join('');
      out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.2"/>`);
      out.push(`<rect x="${W - MR - 150}" y="${top + 6 + j * 14}" width="10" height="3" fill="${s.color}"/><text x="${W - MR - 136}" y="${top + 10 + j * 14}">${esc(s.name)}</text>`);
    });
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function niceMax(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
const fmtNum = (v: number): string => (v >= 1000 ? `${fmt(v / 1000, 1)}k` : String(round(v, 1)));
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

main().catch((e) => {
  reportBenchFailure(e);
  process.exit(1);
});
