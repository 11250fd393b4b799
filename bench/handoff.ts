/**
 * Hand-off costs between threads (`npm run bench:handoff`, issue 28): what it costs to move work
 * between the leader (the main thread: one log writer, one fold) and serving threads (worker_threads
 * that answer HTTP), measured with nothing else in the process. Run on Node 24 (`process.threadCpuUsage`).
 *
 *   node --import tsx bench/handoff.ts [--repeats R] [--sections post,broadcast,atomics,level,forward] [--quick] [--json]
 *
 * Every figure is the median over --repeats (default 5) runs. "Leader CPU" is the main thread's own CPU
 * (`process.threadCpuUsage`), "worker CPU" the receiving thread's; both in µs per message (or per commit).
 *
 *  1. postMessage, one way and round trip, main ⇄ one worker: empty; a write intent (the parsed 1 KiB
 *     ConfigMap and its request attributes) answered by a verdict; batches of 1/10/100/512 changes
 *     ({key, rv, value: 1 KiB}) as (a) structured clone of Uint8Arrays, (b) their ArrayBuffers
 *     transferred, (c) one SharedArrayBuffer slab the leader copies the bytes into, the message
 *     carrying only keys and offsets (the worker copies its values out), (d) a ring: keys, rvs and
 *     values framed into the slab, the message only {off, end}. One way: the leader posts a
 *     run of messages back to back; per-message CPU of each side and messages/s. Round trip: one
 *     message at a time, wall µs (p50).
 *  2. Broadcast of one commit (1 or 64 changes of 1 KiB) to 1/2/4/8 workers: leader CPU per commit,
 *     clone vs slab vs ring.
 *  3. Atomics.waitAsync / notify: the leader bumps a committed offset in a SharedArrayBuffer and
 *     notifies; the worker's waitAsync promise resolves; one-way wake latency on CLOCK_MONOTONIC, p50
 *     and p99 (and the synchronous Atomics.wait in a worker, for comparison).
 *  4. classic-level with `multithreading: true`: get of a random 1 KiB value and iterator nextv(500)
 *     of 1 KiB values, from the main thread and from a worker opening the same database.
 *  5. Forwarding a whole request (method, URL, 10 headers, 1 KiB body) to another thread and its
 *     answer (status, 6 headers, 1.4 KiB body) back: round trip wall µs and CPU on both sides.
 *
 * Prints a table; writes bench/results/handoff-<timestamp>.json.
 */
import { Worker, isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';

// ---------------------------------------------------------------------------------------------
// shared shapes

interface Change {
  key: string;
  rv: number;
  value: Uint8Array;
}
interface SlabBatch {
  t: 'slab';
  keys: string[];
  rvs: number[];
  offs: number[];
  lens: number[];
  ack?: boolean;
}
type Msg =
  | { t: 'empty'; ack?: boolean }
  | { t: 'intent'; ack?: boolean; verb: string; resource: string; namespace: string; user: string; object: unknown }
  | { t: 'clone'; ack?: boolean; changes: Change[] }
  | SlabBatch
  | { t: 'ring'; off: number; end: number; ack?: boolean }
  | { t: 'req'; ack?: boolean; method: string; url: string; headers: Record<string, string>; body: Uint8Array }
  | { t: 'cpu' }
  | { t: 'level'; location: string; keys: number; gets: number; pages: number; pageSize: number }
  | { t: 'wait'; sab: SharedArrayBuffer; rounds: number; sync: boolean };

// Node ≥ 23.9 and ES2024 APIs (this repository's @types/node and lib are older)
const nodeProcess = process as typeof process & { threadCpuUsage(): { user: number; system: number } };
const atomics = Atomics as typeof Atomics & {
  waitAsync(a: Int32Array, index: number, value: number, timeoutMs?: number): { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
};
const threadCpuUs = () => {
  const u = nodeProcess.threadCpuUsage();
  return u.user + u.system;
};
const nowNs = () => process.hrtime.bigint();
const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};
const pct = (v: number[], p: number) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

const VALUE_BYTES = 1024;
const keyOf = (i: number) => `/registry/configmaps/bench/cm-${String(i).padStart(7, '0')}`;

function configMapObject(i: number) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'bench', labels: { app: 'bench', tier: 'load' }, annotations: { note: 'handoff' } },
    data: { v: 'x'.repeat(VALUE_BYTES - 100) },
  };
}

// ---------------------------------------------------------------------------------------------
// the worker side

async function workerMain(port: MessagePort, slab: SharedArrayBuffer | undefined): Promise<void> {
  const slabBytes = slab ? new Uint8Array(slab) : undefined;
  let sink = 0;
  port.on('message', async (m: Msg) => {
    switch (m.t) {
      case 'empty':
        if (m.ack) port.postMessage({ t: 'ack' });
        return;
      case 'intent':
        sink += m.verb.length;
        if (m.ack) port.postMessage({ t: 'verdict', ok: true, rv: sink, code: 201 });
        return;
      case 'clone':
        for (const c of m.changes) sink += c.value[0]! + c.rv;
        if (m.ack) port.postMessage({ t: 'ack' });
        return;
      case 'slab': {
        // The slab is a ring the leader reuses: a watch cache must copy its values out.
        for (let i = 0; i < m.keys.length; i++) {
          const copy = Buffer.from(slabBytes!.subarray(m.offs[i]!, m.offs[i]! + m.lens[i]!));
          sink += copy[0]! + m.rvs[i]!;
        }
        if (m.ack) port.postMessage({ t: 'ack' });
        return;
      }
      case 'ring': {
        // records framed in the slab: u16 key length, key (latin1), f64 rv, u32 value length, value
        const dv = new DataView(slab!);
        for (let at = m.off; at < m.end; ) {
          const kl = dv.getUint16(at, true);
          const key = Buffer.from(slab!, at + 2, kl).toString('latin1');
          at += 2 + kl;
          const rv = dv.getFloat64(at, true);
          const vl = dv.getUint32(at + 8, true);
          const copy = Buffer.from(slabBytes!.subarray(at + 12, at + 12 + vl));
          at += 12 + vl;
          sink += copy[0]! + rv + key.length;
        }
        if (m.ack) port.postMessage({ t: 'ack' });
        return;
      }
      case 'req': {
        sink += m.body.length;
        const body = new Uint8Array(1400);
        port.postMessage({ t: 'res', status: 201, headers: { 'content-type': 'application/json', 'audit-id': 'a2b1c3d4-1111-2222-3333-444455556666', 'cache-control': 'no-cache, private', 'x-kubernetes-pf-flowschema-uid': 'f1', 'x-kubernetes-pf-prioritylevel-uid': 'p1', date: new Date(0).toUTCString() }, body });
        return;
      }
      case 'cpu':
        port.postMessage({ t: 'cpu', us: threadCpuUs(), sink });
        return;
      case 'level':
        port.postMessage({ t: 'level', ...(await levelReads(m.location, m.keys, m.gets, m.pages, m.pageSize)) });
        return;
      case 'wait':
        port.postMessage({ t: 'waiting' });
        port.postMessage({ t: 'waited', ...(await waiter(m.sab, m.rounds, m.sync)) });
        return;
    }
  });
}

/**
 * SAB layout (Int32 slots): [0] committed offset the leader bumps, [1] acks; BigInt64 slot 1: the
 * worker's CLOCK_MONOTONIC ns at wake. The leader waits on [1] with a blocking Atomics.wait.
 */
async function waiter(sab: SharedArrayBuffer, rounds: number, sync: boolean): Promise<{ rounds: number }> {
  const i32 = new Int32Array(sab, 0, 4);
  const t64 = new BigInt64Array(sab, 16, 2);
  let seen = Atomics.load(i32, 0);
  for (let r = 0; r < rounds; r++) {
    if (sync) {
      if (Atomics.wait(i32, 0, seen, 10_000) === 'timed-out') return { rounds: r };
    }
    else {
      const w = atomics.waitAsync(i32, 0, seen, 10_000);
      if (w.async && (await w.value) === 'timed-out') return { rounds: r };
    }
    t64[1] = nowNs();
    seen = Atomics.load(i32, 0);
    Atomics.add(i32, 1, 1);
    Atomics.notify(i32, 1);
  }
  return { rounds };
}

/** Random gets and nextv pages of one database; wall µs per get and ms per page, and this thread's CPU. */
async function levelReads(location: string, keys: number, gets: number, pages: number, pageSize: number, db?: ClassicLevel<string, Buffer>) {
  const own = !db;
  db ??= new ClassicLevel<string, Buffer>(location, { valueEncoding: 'buffer', multithreading: true });
  await db.open();
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % keys);
  for (let i = 0; i < 200; i++) await db.get(keyOf(rnd())); // warm
  const getUs: number[] = [];
  const c0 = threadCpuUs();
  for (let i = 0; i < gets; i++) {
    const t = performance.now();
    const v = await db.get(keyOf(rnd()));
    getUs.push((performance.now() - t) * 1000);
    if (!v || v.length !== VALUE_BYTES) throw new Error('bad value');
  }
  const c1 = threadCpuUs();
  const pageMs: number[] = [];
  for (let p = 0; p < pages; p++) {
    const t = performance.now();
    const it = db.iterator({ gte: keyOf(rnd() % Math.max(1, keys - pageSize)) });
    // nextv answers at most what one native read-ahead holds: ask again until the page is full (as a list does)
    let got = 0;
    while (got < pageSize) {
      const chunk = await it.nextv(pageSize - got);
      if (!chunk.length) break;
      got += chunk.length;
    }
    await it.close();
    pageMs.push(performance.now() - t);
    if (got !== pageSize) throw new Error(`page of ${got}`);
  }
  const c2 = threadCpuUs();
  if (own) await db.close();
  return { getUsP50: median(getUs), getUsP99: pct(getUs, 99), getCpuUs: (c1 - c0) / gets, pageMsP50: median(pageMs), pageCpuMs: (c2 - c1) / pages / 1000 };
}

if (!isMainThread) {
  const d = workerData as { slab?: SharedArrayBuffer };
  void workerMain(parentPort as unknown as MessagePort, d.slab);
}

// ---------------------------------------------------------------------------------------------
// the leader side

class Peer {
  readonly worker: Worker;
  private waiters: ((m: any) => void)[] = [];
  constructor(slab: SharedArrayBuffer) {
    this.worker = new Worker(new URL(import.meta.url), { workerData: { slab } });
    this.worker.on('message', (m) => this.waiters.shift()?.(m));
    this.worker.on('error', (e) => {
      process.stderr.write(`worker error: ${e.stack ?? e}\n`);
      process.exit(1);
    });
  }
  next<T = any>(): Promise<T> {
    return new Promise((r) => this.waiters.push(r));
  }
  async ask<T = any>(m: Msg, transfer?: Transferable[]): Promise<T> {
    const p = this.next<T>();
    this.worker.postMessage(m, transfer as any);
    return p;
  }
  async cpu(): Promise<number> {
    return (await this.ask<{ us: number }>({ t: 'cpu' })).us;
  }
  terminate() {
    return this.worker.terminate();
  }
}

const SLAB_BYTES = 64 * 1024 * 1024;

function changesOf(n: number, base: number): Change[] {
  const out: Change[] = new Array(n);
  for (let j = 0; j < n; j++) {
    const value = new Uint8Array(VALUE_BYTES); // own ArrayBuffer (a pooled Buffer would clone its whole 8 KiB pool)
    value[0] = j & 0xff;
    out[j] = { key: keyOf(base + j), rv: base + j, value };
  }
  return out;
}

function slabMsg(changes: Change[], slabBytes: Uint8Array, cursor: { at: number }): SlabBatch {
  const n = changes.length;
  const keys = new Array<string>(n);
  const rvs = new Array<number>(n);
  const offs = new Array<number>(n);
  const lens = new Array<number>(n);
  for (let j = 0; j < n; j++) {
    const c = changes[j]!;
    if (cursor.at + c.value.length > slabBytes.length) cursor.at = 0;
    slabBytes.set(c.value, cursor.at);
    keys[j] = c.key;
    rvs[j] = c.rv;
    offs[j] = cursor.at;
    lens[j] = c.value.length;
    cursor.at += c.value.length;
  }
  return { t: 'slab', keys, rvs, offs, lens };
}

/** The whole commit framed into the slab (keys too); each worker gets only {off, end}. */
function ringMsg(changes: Change[], slab: SharedArrayBuffer, cursor: { at: number }): Msg {
  let need = 0;
  for (const c of changes) need += 2 + c.key.length + 12 + c.value.length;
  if (cursor.at + need > slab.byteLength) cursor.at = 0;
  const bytes = new Uint8Array(slab);
  const dv = new DataView(slab);
  const off = cursor.at;
  let at = off;
  for (const c of changes) {
    dv.setUint16(at, c.key.length, true);
    at += 2 + Buffer.from(slab, at + 2, c.key.length).write(c.key, 'latin1');
    dv.setFloat64(at, c.rv, true);
    dv.setUint32(at + 8, c.value.length, true);
    bytes.set(c.value, at + 12);
    at += 12 + c.value.length;
  }
  cursor.at = at;
  return { t: 'ring', off, end: at };
}

/**
 * One way: `count` messages posted back to back, the last asks for an ack. The changes (fold's output)
 * exist before the timing starts: what is timed is the hand-off, not making the objects.
 */
async function oneWay(peers: Peer[], build: (i: number) => { msg: Msg; transfer?: Transferable[] }, count: number) {
  const msgs = Array.from({ length: count }, (_, i) => i);
  const w0 = await Promise.all(peers.map((p) => p.cpu()));
  const acks = peers.map((p) => p.next());
  const t0 = performance.now();
  const c0 = threadCpuUs();
  for (const i of msgs) {
    const { msg, transfer } = build(i);
    if (i === count - 1) (msg as { ack?: boolean }).ack = true;
    for (const p of peers) p.worker.postMessage(msg, transfer as any);
  }
  const c1 = threadCpuUs();
  await Promise.all(acks);
  const wallMs = performance.now() - t0;
  const w1 = await Promise.all(peers.map((p) => p.cpu()));
  // the cpu query itself is ~nothing next to `count` messages
  return { leaderUs: (c1 - c0) / count, workerUs: median(peers.map((_, k) => (w1[k]! - w0[k]!) / count)), perSec: count / (wallMs / 1000) };
}

async function roundTrip(peer: Peer, build: (i: number) => { msg: Msg; transfer?: Transferable[] }, count: number) {
  const us: number[] = [];
  const w0 = await peer.cpu();
  const c0 = threadCpuUs();
  for (let i = 0; i < count; i++) {
    const { msg, transfer } = build(i);
    (msg as { ack?: boolean }).ack = true;
    const t = performance.now();
    await peer.ask(msg, transfer);
    us.push((performance.now() - t) * 1000);
  }
  const c1 = threadCpuUs();
  const w1 = await peer.cpu();
  return { rttUsP50: median(us), rttUsP99: pct(us, 99), leaderUs: (c1 - c0) / count, workerUs: (w1 - w0) / count };
}

interface Row {
  section: string;
  name: string;
  [k: string]: string | number;
}

async function main() {
  const { values: args } = parseArgs({ options: { repeats: { type: 'string' }, sections: { type: 'string' }, quick: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } }, strict: true });
  const repeats = Number(args.repeats ?? (args.quick ? 3 : 5));
  const scale = args.quick ? 0.25 : 1;
  const rows: Row[] = [];
  const log = (s: string) => process.stderr.write(`[handoff ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
  const rep = async <T extends Record<string, number>>(f: () => Promise<T>): Promise<T> => {
    const runs: T[] = [];
    for (let r = 0; r < repeats; r++) runs.push(await f());
    const out = {} as Record<string, number>;
    for (const k of Object.keys(runs[0]!)) out[k] = median(runs.map((x) => x[k]!));
    return out as T;
  };
  const slab = new SharedArrayBuffer(SLAB_BYTES);
  const slabBytes = new Uint8Array(slab);
  const peers = Array.from({ length: 8 }, () => new Peer(slab));
  await Promise.all(peers.map((p) => p.cpu())); // started
  const one = [peers[0]!];
  const started = performance.now();
  const want = (s: string) => !args.sections || args.sections.split(',').includes(s);

  // 1. postMessage
  log('postMessage: empty, intent');
  const intentObj = configMapObject(1);
  const basic: [string, (i: number) => { msg: Msg }][] = [
    ['empty', () => ({ msg: { t: 'empty' } })],
    ['write intent (parsed 1 KiB ConfigMap) → verdict', (i) => ({ msg: { t: 'intent', verb: 'create', resource: 'configmaps', namespace: 'bench', user: 'system:admin', object: { ...intentObj, metadata: { ...intentObj.metadata, name: `cm-${i}` } } } })],
  ];
  for (const [name, build] of want('post') ? basic : []) {
    const ow = await rep(() => oneWay(one, build, Math.round(20000 * scale)));
    const rt = await rep(() => roundTrip(peers[0]!, build, Math.round(3000 * scale)));
    rows.push({ section: 'postMessage', name, ...ow, ...rt, leaderRtUs: rt.leaderUs, workerRtUs: rt.workerUs, leaderUs: ow.leaderUs, workerUs: ow.workerUs });
  }
  for (const n of want('post') ? [1, 10, 100, 512] : []) {
    log(`postMessage: batch of ${n} changes`);
    const count = Math.max(10, Math.round((args.quick ? 4000 : 16000) / n));
    const pre = Array.from({ length: count }, (_, i) => changesOf(n, i * n));
    const cursor = { at: 0 };
    const variants: [string, (i: number) => { msg: Msg; transfer?: Transferable[] }][] = [
      ['clone', (i) => ({ msg: { t: 'clone', changes: pre[i % count]! } })],
      [
        'transfer',
        (i) => {
          // a transferred ArrayBuffer is gone from the sender: fresh copies per message (as the leader would need to keep its own)
          const changes = pre[i % count]!.map((c) => ({ key: c.key, rv: c.rv, value: c.value.slice() }));
          return { msg: { t: 'clone', changes }, transfer: changes.map((c) => c.value.buffer as ArrayBuffer) };
        },
      ],
      ['slab', (i) => ({ msg: slabMsg(pre[i % count]!, slabBytes, cursor) })],
      ['ring', (i) => ({ msg: ringMsg(pre[i % count]!, slab, cursor) })],
    ];
    for (const [vname, build] of variants) {
      const ow = await rep(() => oneWay(one, build, count));
      const rt = await rep(() => roundTrip(peers[0]!, build, Math.max(10, Math.round(count / 4))));
      rows.push({ section: 'postMessage', name: `batch of ${n} × 1 KiB, ${vname}`, leaderUs: ow.leaderUs, workerUs: ow.workerUs, perSec: ow.perSec, rttUsP50: rt.rttUsP50, rttUsP99: rt.rttUsP99, leaderRtUs: rt.leaderUs, workerRtUs: rt.workerUs });
    }
  }

  // 2. broadcast
  for (const n of want('broadcast') ? [1, 64] : []) {
    const count = Math.round((n === 1 ? 10000 : 400) * scale);
    const pre = Array.from({ length: count }, (_, i) => changesOf(n, i * n));
    const cursor = { at: 0 };
    for (const w of [1, 2, 4, 8]) {
      log(`broadcast: commit of ${n} to ${w} workers`);
      for (const [vname, build] of [
        ['clone', (i: number) => ({ msg: { t: 'clone', changes: pre[i]! } as Msg })],
        ['slab', (i: number) => ({ msg: slabMsg(pre[i]!, slabBytes, cursor) as Msg })],
        ['ring', (i: number) => ({ msg: ringMsg(pre[i]!, slab, cursor) })],
      ] as const) {
        const r = await rep(() => oneWay(peers.slice(0, w), build, count));
        rows.push({ section: 'broadcast', name: `commit of ${n} × 1 KiB to ${w} worker${w > 1 ? 's' : ''}, ${vname}`, leaderUs: r.leaderUs, workerUs: r.workerUs, perSec: r.perSec });
      }
    }
  }

  // 3. Atomics wake latency
  for (const sync of want('atomics') ? [false, true] : []) {
    log(`Atomics.${sync ? 'wait' : 'waitAsync'} wake`);
    const r = await rep(async () => {
      const sab = new SharedArrayBuffer(32);
      const i32 = new Int32Array(sab, 0, 4);
      const t64 = new BigInt64Array(sab, 16, 2);
      const rounds = Math.round(2000 * scale);
      const p = new Peer(slab); // a fresh thread: nothing queued from earlier sections
      await p.cpu();
      const waiting = p.next();
      const done = p.next();
      p.worker.postMessage({ t: 'wait', sab, rounds, sync } satisfies Msg);
      await Promise.race([waiting, new Promise((_, rej) => setTimeout(() => rej(new Error('waiter did not start')), 10_000))]);
      await new Promise((res) => setTimeout(res, 20));
      const wake: number[] = [];
      const rtt: number[] = [];
      const c0 = threadCpuUs();
      for (let k = 0; k < rounds; k++) {
        const acks = Atomics.load(i32, 1);
        const t0 = nowNs();
        Atomics.add(i32, 0, 1);
        Atomics.notify(i32, 0);
        if (Atomics.wait(i32, 1, acks, 5000) === 'timed-out') throw new Error('waiter did not answer');
        const t1 = nowNs();
        wake.push(Number(t64[1]! - t0) / 1000);
        rtt.push(Number(t1 - t0) / 1000);
      }
      const c1 = threadCpuUs();
      const d = (await done) as { t: string; rounds: number };
      await p.terminate();
      if (d.rounds !== rounds) throw new Error(`waiter stopped after ${d.rounds} of ${rounds} rounds`);
      return { wakeUsP50: median(wake), wakeUsP99: pct(wake, 99), rttUsP50: median(rtt), notifyCpuUs: (c1 - c0) / rounds };
    });
    rows.push({ section: 'atomics', name: sync ? 'Atomics.wait (blocking worker) ← notify' : 'Atomics.waitAsync (worker event loop) ← notify', ...r });
  }

  // 4. classic-level, multithreading
  log('classic-level: filling');
  const dir = mkdtempSync(join(tmpdir(), 'handoff-level-'));
  if (want('level')) try {
    const location = join(dir, 'db');
    const keys = Math.round(20000 * Math.max(scale, 0.5));
    const db = new ClassicLevel<string, Buffer>(location, { valueEncoding: 'buffer', multithreading: true });
    await db.open();
    for (let i = 0; i < keys; i += 1000) {
      const batch = db.batch();
      for (let j = i; j < Math.min(keys, i + 1000); j++) batch.put(keyOf(j), Buffer.alloc(VALUE_BYTES, j & 0xff));
      await batch.write();
    }
    const gets = Math.round(4000 * scale);
    const pages = Math.round(100 * scale);
    log('classic-level: main thread vs worker');
    const mainR = await rep(() => levelReads(location, keys, gets, pages, 500, db));
    const workerR = await rep(async () => {
      const lp = new Peer(slab);
      const r = await lp.ask<{ getUsP50: number; getUsP99: number; getCpuUs: number; pageMsP50: number; pageCpuMs: number }>({ t: 'level', location, keys, gets, pages, pageSize: 500 });
      await lp.terminate();
      const { t: _t, ...rest } = r as typeof r & { t: string };
      return rest;
    });
    rows.push({ section: 'classic-level', name: 'main thread (db opened with multithreading: true)', ...mainR });
    rows.push({ section: 'classic-level', name: 'worker thread (same db, its own handle)', ...workerR });
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // 5. forwarding a whole request
  log('forwarding a request');
  const headers: Record<string, string> = {
    host: '127.0.0.1:6443',
    'user-agent': 'kubectl/v1.24.17 (linux/amd64) kubernetes/0000000',
    accept: 'application/json',
    'content-type': 'application/json',
    'content-length': '1024',
    'accept-encoding': 'gzip',
    'x-request-id': 'abc',
    authorization: 'Bearer 0123456789abcdef0123456789abcdef',
    'kubectl-command': 'kubectl create',
    'kubectl-session': '0123-4567',
  };
  if (want('forward')) {
  const fwd = await rep(() => roundTrip(peers[3]!, () => ({ msg: { t: 'req', method: 'POST', url: '/api/v1/namespaces/bench/configmaps?fieldManager=kubectl-create', headers, body: new Uint8Array(VALUE_BYTES) } }), Math.round(3000 * scale)));
  rows.push({ section: 'forward', name: 'whole request (10 headers, 1 KiB body) → answer (1.4 KiB)', ...fwd, leaderRtUs: fwd.leaderUs, workerRtUs: fwd.workerUs });
  }

  await Promise.all(peers.map((p) => p.terminate()));
  print(rows, repeats, (performance.now() - started) / 1000);
  if (args.json) process.stdout.write(JSON.stringify(rows, null, 1) + '\n');
}

function print(rows: Row[], repeats: number, totalS: number) {
  const f = (v: unknown, d = 1) => (typeof v === 'number' && Number.isFinite(v) ? (v >= 1000 ? Math.round(v).toLocaleString('en-US') : v.toFixed(d)) : '');
  const out: string[] = [];
  out.push(`Hand-off costs (bench/handoff.ts), Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load ${loadavg()[0]!.toFixed(2)} at the end, medians of ${repeats} repeats, ${totalS.toFixed(0)} s`);
  out.push('');
  out.push('postMessage main ⇄ 1 worker. One way: messages posted back to back (CPU µs per message: leader = posting, worker = receiving).');
  out.push('Round trip: one at a time, wall µs, and CPU µs per round trip on each side (the answer is a small ack/verdict).');
  out.push(`  ${'message'.padEnd(52)} ${'leader µs'.padStart(10)} ${'worker µs'.padStart(10)} ${'msgs/s'.padStart(9)} | ${'RTT p50'.padStart(8)} ${'RTT p99'.padStart(8)} ${'leader µs'.padStart(10)} ${'worker µs'.padStart(10)}`);
  for (const r of rows.filter((x) => x.section === 'postMessage' || x.section === 'forward'))
    out.push(`  ${r.name.padEnd(52)} ${f(r.leaderUs ?? NaN).padStart(10)} ${f(r.workerUs ?? NaN).padStart(10)} ${f(r.perSec ?? NaN, 0).padStart(9)} | ${f(r.rttUsP50).padStart(8)} ${f(r.rttUsP99).padStart(8)} ${f(r.leaderRtUs).padStart(10)} ${f(r.workerRtUs).padStart(10)}`);
  out.push('  (forward: one way columns empty; its RTT is the whole request hop)');
  out.push('');
  out.push('Broadcast of one commit (leader CPU µs per commit; worker CPU µs per commit, median over the workers; commits/s to all).');
  for (const r of rows.filter((x) => x.section === 'broadcast')) out.push(`  ${r.name.padEnd(52)} ${f(r.leaderUs).padStart(10)} ${f(r.workerUs).padStart(10)} ${f(r.perSec, 0).padStart(9)}`);
  out.push('');
  out.push('Atomics wake: leader bumps the committed offset + notify; wake = worker awake − notify (CLOCK_MONOTONIC), µs.');
  for (const r of rows.filter((x) => x.section === 'atomics')) out.push(`  ${r.name.padEnd(52)} wake p50 ${f(r.wakeUsP50)}  p99 ${f(r.wakeUsP99)}  round trip p50 ${f(r.rttUsP50)}  leader CPU/notify+wait ${f(r.notifyCpuUs)}`);
  out.push('');
  out.push('classic-level (multithreading: true), 1 KiB values: random get (wall µs p50/p99, CPU µs of the calling thread) and iterator nextv(500) (wall ms p50, CPU ms).');
  for (const r of rows.filter((x) => x.section === 'classic-level')) out.push(`  ${r.name.padEnd(52)} get ${f(r.getUsP50)} / ${f(r.getUsP99)} µs, CPU ${f(r.getCpuUs)} µs;  nextv(500) ${f(r.pageMsP50, 2)} ms, CPU ${f(r.pageCpuMs, 2)} ms`);
  process.stdout.write(out.join('\n') + '\n');
}

if (isMainThread) {
  setTimeout(() => {
    process.stderr.write('handoff: still running after 15 minutes, giving up\n');
    process.exit(2);
  }, 15 * 60_000).unref();
  main().catch((e) => {
    process.stderr.write(`handoff failed: ${e?.stack ?? e}\n`);
    process.exit(1);
  });
}
