/**
 * Replay benchmark (`npm run bench:replay`, issue 14's "replay/rebuild ≥ 100k events/s"): how fast
 * `cmd/replay.ts rebuild` folds an embedded log into a fresh store, beside two ceilings measured on
 * the same log in the same run, so the figure reads against what bounds it:
 *
 *  - fold only: the log read and folded in memory (SnapshotFold, the rebuild's own fold), the
 *    store operations built and dropped: what a rebuild costs with free writes;
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
import { openReadableLog } from '../internal/replay/open-log.ts';
import { SnapshotFold } from '../internal/replay/snapshot-fold.ts';
import { CREATE_WRITE_BUFFER_BYTES } from '../internal/replay/open-log.ts';
import { DEFAULT_BATCH_EVENTS, DEFAULT_CACHE_BYTES, DEFAULT_HISTORY_WINDOW_MS, DEFAULT_WRITE_OUT_AFTER_EVENTS } from '../internal/replay/rebuild.ts';

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
/** The rebuild's chunk of final-state operations (rebuild.ts FINAL_CHUNK_OPS), for the write ceiling. */
const WRITE_CHUNK = 6000;
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

/** Read and fold the log in memory as rebuild does, dropping the operations: the fold's ceiling. */
async function foldOnly(dataDir: string): Promise<{ events: number; ms: number; eventsPerSecond: number; ops: number }> {
  const logReader = await openReadableLog({ kind: 'embedded', dataDir });
  try {
    const end = await logReader.endOffset();
    const fold = new SnapshotFold({ windowMs: DEFAULT_HISTORY_WINDOW_MS, cacheBytes: DEFAULT_CACHE_BYTES, writeOutAfterEvents: DEFAULT_WRITE_OUT_AFTER_EVENTS });
    const t0 = performance.now();
    let events = 0;
    let ops = 0;
    for await (const e of logReader.readFold(0, end)) {
      fold.apply(e.offset, e.event);
      // The l/ copy a rebuild of an embedded log makes: one operation per event.
      ops++;
      if (++events % DEFAULT_BATCH_EVENTS === 0) {
        fold.advance();
        ops += fold.takeOps().length;
      }
    }
    fold.advance();
    ops += fold.takeOps().length;
    for (const chunk of fold.finish(WRITE_CHUNK)) ops += chunk.length;
    const ms = performance.now() - t0;
    return { events, ms: round(ms, 1), eventsPerSecond: Math.round((events / ms) * 1000), ops };
  } finally {
    await logReader.close();
  }
}

/**
 * Every entry of a rebuilt store written into a fresh LevelDB (the rebuild's memtable size, chunks
 * of WRITE_CHUNK, one write in flight, unsynced, then the memtable flushed): the writes' ceiling.
 */
async function writesOnly(rebuiltDb: string, dir: string, events: number): Promise<{ entries: number; mib: number; ms: number; eventsPerSecond: number }> {
  const src = new ClassicLevel<Buffer, Buffer>(rebuiltDb, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await src.open();
  const all: [Buffer, Buffer][] = [];
  let bytes = 0;
  try {
    for await (const [k, v] of src.iterator()) {
      all.push([k, v]);
      bytes += k.length + v.length;
    }
  } finally {
    await src.close();
  }
  // Key order is not the rebuild's order (l/ and h/ interleave with o/ there); a shuffle of the
  // chunks would not change LevelDB's work, which sorts every memtable anyway.
  const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: CREATE_WRITE_BUFFER_BYTES });
  await db.open();
  try {
    const t0 = performance.now();
    let inflight: Promise<void> | null = null;
    for (let i = 0; i < all.length; i += WRITE_CHUNK) {
      const b = db.batch();
      for (let j = i; j < Math.min(i + WRITE_CHUNK, all.length); j++) b.put(all[j]![0], all[j]![1]);
      if (inflight) await inflight;
      inflight = b.write();
    }
    await inflight;
    await db.compactRange(Buffer.from('~'), Buffer.from('~~'));
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
    const w = await writesOnly(join(out, 'db'), join(tmpRoot, `writes-${i}`), t.events);
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
