/**
 * Replay benchmark (`npm run bench:replay`, issue 14's "replay/rebuild ≥ 100k events/s"): how fast
 * `cmd/replay.ts rebuild` folds an embedded log into a fresh store, beside two ceilings measured on
 * the same log in the same run, so the figure reads against what bounds it:
 *
 *  - fold only: rebuild() itself into a store that drops every write (the log read and folded,
 *    the batches built): what a rebuild costs with free writes;
 *  - LevelDB writes only: the rebuilt store's entries (what the rebuild wrote) written again into
 *    a fresh LevelDB in the rebuild's chunk size, one write in flight, then flushed: what a rebuild
 *    costs with a free fold.
 *
 *   node --import tsx bench/replay.ts [--objects 100000] [--runs 3] [--data DIR] [--keep]
 *
 * The log: --objects 1 KiB ConfigMap creates sent over HTTP to a server started with --no-fsync
 * (a fill), or the data dir given with --data (left unchanged). Figures are medians over --runs;
 * the tool's own events/s (its elapsed time covers the fold, every write and the final flush).
 * JSON: bench/results/replay-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { rmSync } from 'node:fs';
import { ClassicLevel } from 'classic-level';
import { spawnTracked, median, round, fmt, benchSession, endBench, adminTls, installWatchdog, writeResult, spawnServerWithFlags } from './util.ts';
import { fillConfigMaps } from './load.ts';
import { nodeArgsFor } from '../test/server-command.ts';
import { openReadableLog, CREATE_WRITE_BUFFER_BYTES } from '../internal/replay/open-log.ts';
import { rebuild, FINAL_CHUNK_OPS } from '../internal/replay/rebuild.ts';
import { writeBatch } from '../internal/storage/write-batch.ts';
import type { BatchOp, Db } from '../internal/storage/mvcc/materializer.ts';

const { values: args } = parseArgs({
  options: {
    objects: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
    data: { type: 'string' },
    connections: { type: 'string', default: '32' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const cfg = { objects: Number(args.objects), runs: Number(args.runs), data: args.data ?? null, connections: Number(args.connections) };
const GOAL_EVENTS_PER_SEC = 100_000;
const ROOT = new URL('..', import.meta.url).pathname;

installWatchdog(60 * 60_000);
const { log, tmpRoot, machine } = benchSession('replay', args.keep!, cfg);

/** A data dir holding `objects` ConfigMap creates (plus the server's bootstrap events). */
async function fill(dir: string): Promise<{ ms: number; perSec: number }> {
  const server = await spawnServerWithFlags({ dataDir: dir, flags: ['--no-fsync'] });
  try {
    await server.ready;
    const r = await fillConfigMaps(server.origin, adminTls(join(dir, 'pki')), cfg.objects, cfg.connections);
    return { ms: r.ms, perSec: r.perSec };
  } finally {
    await server.stop('SIGINT');
  }
}

interface ToolRun {
  events: number;
  objects: number;
  seconds: number;
  eventsPerSecond: number;
  wallMs: number;
}

/** `cmd/replay.ts rebuild --output json` of `dataDir` into `out`. */
function rebuildOnce(dataDir: string, out: string): Promise<ToolRun> {
  const t0 = performance.now();
  const p = spawnTracked(process.execPath, [...nodeArgsFor('cmd/replay.ts'), 'rebuild', '--log', `embedded:${dataDir}`, '--out', out, '--output', 'json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  p.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  createInterface({ input: p.stderr! }).on('line', (l) => log(`  replay: ${l}`));
  return new Promise((resolve, reject) => {
    p.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`replay exited with ${code}: ${stdout}`));
      const s = JSON.parse(stdout) as { events: number; objects: number; seconds: number; eventsPerSecond: number };
      resolve({ events: s.events, objects: s.objects, seconds: s.seconds, eventsPerSecond: s.eventsPerSecond, wallMs: round(performance.now() - t0, 1) });
    });
  });
}

/**
 * A store that takes every write and keeps nothing: rebuild() into it runs the rebuild's whole
 * main-thread path (read, fold, batches built) without LevelDB's writes: the fold's ceiling.
 */
function discardingDb(): { db: Db; ops: () => number } {
  let ops = 0;
  const batch = () => ({
    put: () => void ops++,
    del: () => void ops++,
    write: async () => undefined,
    close: async () => undefined,
  });
  const db = { get: async () => undefined, batch, compactRange: async () => undefined };
  return { db: db as unknown as Db, ops: () => ops };
}

/** rebuild() of the log into a discarding store, copying the log as the tool does for an embedded one. */
async function foldOnly(dataDir: string): Promise<{ events: number; ms: number; eventsPerSecond: number; ops: number }> {
  const logReader = await openReadableLog({ kind: 'embedded', dataDir });
  try {
    const sink = discardingDb();
    const t0 = performance.now();
    const r = await rebuild(logReader.readFold(0, await logReader.endOffset()), sink.db, { logDb: sink.db });
    const ms = performance.now() - t0;
    return { events: r.events, ms: round(ms, 1), eventsPerSecond: Math.round((r.events / ms) * 1000), ops: sink.ops() };
  } finally {
    await logReader.close();
  }
}

/**
 * Every entry of a rebuilt store written into a fresh LevelDB as the rebuild writes (its memtable
 * size, writeBatch in chunks of FINAL_CHUNK_OPS, one write in flight, unsynced, then the memtable
 * flushed): the writes' ceiling.
 */
async function writesOnly(rebuiltStores: string[], dir: string, events: number): Promise<{ entries: number; mib: number; ms: number; eventsPerSecond: number }> {
  const all: BatchOp[] = [];
  let bytes = 0;
  // The rebuilt data dir's snapshot and its copy of the log, written here into one store.
  for (const store of rebuiltStores) {
    const src: Db = new ClassicLevel<string, Buffer>(store, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await src.open();
    try {
      for await (const [key, value] of src.iterator()) {
        all.push({ type: 'put', key, value });
        bytes += Buffer.byteLength(key) + value.length;
      }
    } finally {
      await src.close();
    }
  }
  // Key order is not the rebuild's order (l/ and h/ interleave with o/ there); a shuffle of the
  // chunks would not change LevelDB's work, which sorts every memtable anyway.
  const db: Db = new ClassicLevel<string, Buffer>(dir, { keyEncoding: 'utf8', valueEncoding: 'buffer', writeBufferSize: CREATE_WRITE_BUFFER_BYTES });
  await db.open();
  try {
    const t0 = performance.now();
    let inflight: Promise<void> | null = null;
    for (let i = 0; i < all.length; i += FINAL_CHUNK_OPS) {
      if (inflight) await inflight;
      inflight = writeBatch(db, all.slice(i, i + FINAL_CHUNK_OPS), false);
    }
    await inflight;
    await db.compactRange('~', '~~');
    const ms = performance.now() - t0;
    return { entries: all.length, mib: round(bytes / 2 ** 20, 1), ms: round(ms, 1), eventsPerSecond: Math.round((events / ms) * 1000) };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  let dataDir = cfg.data;
  let filled: { ms: number; perSec: number } | null = null;
  if (!dataDir) {
    dataDir = join(tmpRoot, 'data');
    log(`filling ${cfg.objects} ConfigMaps (1 KiB) through a --no-fsync server`);
    filled = await fill(dataDir);
    log(`filled in ${fmt(filled.ms / 1000, 1)} s (${fmt(filled.perSec, 0)}/s)`);
  }
  const tool: ToolRun[] = [];
  const folds: Awaited<ReturnType<typeof foldOnly>>[] = [];
  const writes: Awaited<ReturnType<typeof writesOnly>>[] = [];
  for (let i = 0; i < cfg.runs; i++) {
    const out = join(tmpRoot, `rebuild-${i}`);
    const t = await rebuildOnce(dataDir, out);
    tool.push(t);
    log(`run ${i + 1}/${cfg.runs}: rebuild ${t.events} events in ${t.seconds} s: ${t.eventsPerSecond} events/s (tool wall ${fmt(t.wallMs / 1000, 2)} s)`);
    const f = await foldOnly(dataDir);
    folds.push(f);
    log(`run ${i + 1}/${cfg.runs}: fold only ${fmt(f.ms, 0)} ms: ${f.eventsPerSecond} events/s (${f.ops} store operations built)`);
    const w = await writesOnly([join(out, 'db'), join(out, 'log')], join(tmpRoot, `writes-${i}`), t.events);
    writes.push(w);
    log(`run ${i + 1}/${cfg.runs}: LevelDB writes only, ${w.entries} entries, ${w.mib} MiB: ${fmt(w.ms, 0)} ms: ${w.eventsPerSecond} events/s`);
    rmSync(out, { recursive: true, force: true });
  }
  const eps = median(tool.map((t) => t.eventsPerSecond));
  const foldEps = median(folds.map((f) => f.eventsPerSecond));
  const writeEps = median(writes.map((w) => w.eventsPerSecond));
  const L = [
    `replay (rebuild of an embedded log, ${tool[0]!.events} events, ${tool[0]!.objects} objects; medians of ${cfg.runs})`,
    `  rebuild (cmd/replay.ts)          ${fmt(eps, 0)} events/s   runs: ${tool.map((t) => t.eventsPerSecond).join(', ')}`,
    `  ceiling: fold only (no writes)   ${fmt(foldEps, 0)} events/s   runs: ${folds.map((f) => f.eventsPerSecond).join(', ')}`,
    `  ceiling: LevelDB writes only     ${fmt(writeEps, 0)} events/s   runs: ${writes.map((w) => w.eventsPerSecond).join(', ')} (${writes[0]!.entries} entries, ${writes[0]!.mib} MiB)`,
    `  ${eps >= GOAL_EVENTS_PER_SEC ? 'MET ' : 'MISS'}  rebuild events/s ≥ ${fmt(GOAL_EVENTS_PER_SEC, 0)}`,
  ];
  process.stdout.write(L.join('\n') + '\n');
  const file = writeResult('replay', { timestamp: new Date().toISOString(), machine, config: cfg, filled, rebuild: tool, foldOnly: folds, writesOnly: writes, medians: { eventsPerSecond: eps, foldOnly: foldEps, writesOnly: writeEps }, goal: { eventsPerSecond: GOAL_EVENTS_PER_SEC, met: eps >= GOAL_EVENTS_PER_SEC } } as { timestamp: string });
  log(`JSON: ${file}`);
} catch (err) {
  process.stderr.write(`bench:replay failed: ${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
}
endBench(tmpRoot, args.keep!);
