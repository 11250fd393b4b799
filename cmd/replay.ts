/**
 * Offline tools over the event log (the server or servers of the data dir / topic must be stopped
 * for embedded logs: LevelDB allows one process per data dir).
 *
 *   node --import tsx cmd/replay.ts rebuild --log SRC --out DIR [--to-offset N | --at RFC3339]
 *        [--copy-log] [--hash] [--output json]
 *   node --import tsx cmd/replay.ts history --log SRC <resource>[.<group>] [<namespace>/]<name>
 *        [--group G] [--output json]
 *   node --import tsx cmd/replay.ts verify [--log SRC] --data-dir D [--output json]
 *   node --import tsx cmd/replay.ts hash --data-dir D [--output json]
 *   node --import tsx cmd/replay.ts repair --data-dir D [--log kafka://…] [--output json]
 *
 * Every command takes --encryption-provider-config FILE (the servers' file) to read objects encrypted
 * at rest; without it they stay ciphertext (a rebuilt store holds them encrypted either way).
 * SRC is embedded:DATA_DIR or kafka://host:port[,host:port]/topic. Exit codes: 0 success, 1 verify
 * found differences, 2 bad usage or an error (message on stderr).
 */
import { parseArgs } from 'node:util';
import { mkdirSync, rmSync, renameSync, existsSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  parseReplaySource, formatReplaySource, openReadableLog, openDataDirDb, createLogDb, type ReadableLog, type ReplaySource,
} from '../internal/replay/open-log.ts';
import { rebuild } from '../internal/replay/rebuild.ts';
import { objectHistory, formatHistory, formatKey } from '../internal/replay/history.ts';
import { stateHash } from '../internal/replay/state-hash.ts';
import { verifyStore } from '../internal/replay/verify.ts';
import { createProgress, progressMode, rate } from '../internal/replay/progress.ts';
import { AtRest } from '../internal/storage/encryption/at-rest.ts';

const USAGE = `usage: replay <command> [flags]

  rebuild --log SRC --out DIR [--to-offset N | --at RFC3339] [--copy-log] [--hash] [--output json]
      Fold the log from offset 0 into a new store DIR/db, up to offset N (inclusive) or up to the
      last event stamped at or before the time (the log prefix before the first event stamped
      later). Embedded logs (and Kafka with --copy-log) also get their l/ entries copied into
      DIR/log, so DIR is a data dir cmd/apiserver.ts can serve; without them it is a Kafka
      replica's data dir.
  history --log SRC <resource>[.<group>] [<namespace>/]<name> [--group G] [--output json]
      Every event on one object: who, when, verdict (folding the whole log), JSON Patch diff.
  verify [--log SRC] --data-dir D [--output json]
      Rebuild the log (default: embedded:D) up to D's folded offset and compare state hashes.
      Exit 1 and list the differing keys when they differ.
  hash --data-dir D [--output json]
      The state hash (sha256 over the current objects in canonical JSON) and folded offset of D.
  repair --data-dir D [--log kafka://…] [--output json]
      Rebuild D's snapshot store (D/db) from its embedded log (D/log) — a Kafka replica's from
      the topic — with the server stopped: for a snapshot the server refused as damaged. The old
      store is kept as D/db.damaged-<time>.

  Every command: --encryption-provider-config FILE, the servers' EncryptionConfiguration, to read
      objects encrypted at rest (history diffs; hashes of what they decrypt to). Without it they
      stay ciphertext; a rebuilt store holds them encrypted either way, as the servers do.

  SRC: embedded:DATA_DIR | kafka://host:port[,host:port]/topic`;

class UsageError extends Error {}

const { values, positionals } = parseCommandLine();
const json = values.output === 'json';


function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      strict: true,
      options: {
        log: { type: 'string' },
        out: { type: 'string' },
        'to-offset': { type: 'string' },
        at: { type: 'string' },
        'copy-log': { type: 'boolean', default: false },
        hash: { type: 'boolean', default: false },
        group: { type: 'string' },
        'data-dir': { type: 'string' },
        output: { type: 'string' },
        'encryption-provider-config': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`replay: ${(err as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
}

async function run(command: string | undefined): Promise<number> {
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return command || values.help ? 0 : 2;
  }
  if (command !== 'history' && positionals.length > 1) throw new UsageError(`${command}: unexpected argument "${positionals[1]}"`);
  if (values.output !== undefined && values.output !== 'json') throw new UsageError(`--output: only "json" is supported, got "${values.output}"`);
  switch (command) {
    case 'rebuild':
      return cmdRebuild();
    case 'history':
      return cmdHistory();
    case 'verify':
      return cmdVerify();
    case 'hash':
      return cmdHash();
    case 'repair':
      return cmdRepair();
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Flags outside `allowed` are a usage error, so a typo'd combination is not silently ignored. */
function onlyFlags(command: string, allowed: string[]): void {
  const common = ['output', 'help', 'encryption-provider-config'];
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || v === false || common.includes(k) || allowed.includes(k)) continue;
    throw new UsageError(`${command}: --${k} does not apply`);
  }
}

function required(name: 'log' | 'out' | 'data-dir', command: string): string {
  const v = values[name];
  if (!v) throw new UsageError(`${command}: --${name} is required`);
  return v;
}

function print(obj: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(obj)}\n` : text);
}

/** --encryption-provider-config, loaded once (undefined without the flag). */
let atRestCache: AtRest | undefined | null = null;
function atRest(): AtRest | undefined {
  if (atRestCache === null) atRestCache = values['encryption-provider-config'] ? AtRest.fromFile(values['encryption-provider-config']) : undefined;
  return atRestCache;
}

const rfc3339 = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const RFC3339 = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/;

function parseCut(end: number): { to: number; atTime?: number } {
  const toText = values['to-offset'];
  const atText = values.at;
  if (toText !== undefined && atText !== undefined) throw new UsageError('rebuild: give --to-offset or --at, not both');
  if (toText !== undefined) {
    const n = Number(toText);
    if (!/^\d+$/.test(toText) || !Number.isSafeInteger(n)) throw new UsageError(`--to-offset: want an offset (a non-negative integer), got "${toText}"`);
    if (n >= end) throw new Error(`--to-offset ${n}: the log ends at offset ${end - 1}`);
    return { to: n + 1 };
  }
  if (atText !== undefined) {
    const t = Date.parse(atText);
    if (!RFC3339.test(atText) || Number.isNaN(t)) throw new UsageError(`--at: want an RFC 3339 time such as 2024-05-01T12:00:00Z, got "${atText}"`);
    return { to: end, atTime: t };
  }
  return { to: end };
}

async function withLog<T>(source: ReplaySource, f: (log: ReadableLog) => Promise<T>): Promise<T> {
  const log = await openReadableLog(source);
  try {
    return await f(log);
  } finally {
    await log.close();
  }
}

async function cmdRebuild(): Promise<number> {
  onlyFlags('rebuild', ['log', 'out', 'to-offset', 'at', 'copy-log', 'hash']);
  const source = parseReplaySource(required('log', 'rebuild'));
  const outDir = required('out', 'rebuild');
  const copyLog = source.kind === 'embedded' || values['copy-log'] === true;
  const keys = atRest(); // a bad file fails before anything is written
  return withLog(source, async (log) => {
    const first = await log.firstOffset();
    if (first > 0) throw new Error(`the log starts at offset ${first}: events before it are gone (retention), a rebuild from 0 is impossible`);
    const end = await log.endOffset();
    if (end === 0) throw new Error('the log is empty');
    const cut = parseCut(end);
    mkdirSync(outDir, { recursive: true });
    const db = await openDataDirDb(outDir, { create: true });
    const logDb = copyLog ? await createLogDb(outDir).catch(async (e) => {
      await db.close();
      rmSync(join(outDir, 'db'), { recursive: true, force: true });
      throw e;
    }) : undefined;
    const progress = createProgress(progressMode(json, process.stderr), cut.to, process.stderr, 'rebuild');
    let keep = false;
    try {
      const r = await rebuild(log.readFold(0, cut.to), db, { atTime: cut.atTime, logDb, onProgress: (p) => progress.update(p) });
      progress.stop();
      if (r.events === 0) throw new Error(`no event of the log is stamped at or before ${values.at} (the log starts later)`);
      const hash = values.hash ? await stateHash(db, keys) : null;
      keep = true;
      const eps = rate(r.events, r.elapsedMs);
      const rejected = Object.values(r.rejected).reduce((a, b) => a + (b ?? 0), 0);
      const summary = {
        log: formatReplaySource(source), out: resolve(outDir), db: resolve(outDir, 'db'), copiedLog: copyLog,
        events: r.events, firstOffset: r.firstOffset, lastOffset: r.lastOffset, lastTime: rfc3339(r.lastTime),
        stoppedBy: r.stoppedBy, accepted: r.accepted, rejected: r.rejected, objects: r.objects,
        seconds: r.elapsedMs / 1000, eventsPerSecond: eps, ...(hash ? { stateHash: hash.hash } : {}),
      };
      const reasons = Object.entries(r.rejected).map(([k, v]) => `${k} ${v}`).join(', ');
      print(summary,
        `rebuilt ${summary.db} from ${summary.log}\n` +
        `  offsets 0..${r.lastOffset} (${r.events} events; last stamped ${summary.lastTime})${r.stoppedBy === 'time' ? `, cut at ${values.at}` : ''}\n` +
        `  ${r.accepted} accepted, ${rejected} rejected${reasons ? ` (${reasons})` : ''}; ${r.objects} objects\n` +
        `  ${(r.elapsedMs / 1000).toFixed(2)} s, ${eps} events/s${copyLog ? '; log entries copied' : ''}\n` +
        (hash ? `  state ${hash.hash}\n` : ''));
      return 0;
    } finally {
      progress.stop();
      await db.close();
      await logDb?.close();
      // A failed rebuild leaves no half-built store behind to be mistaken for a good one.
      if (!keep) for (const d of ['db', 'log']) rmSync(join(outDir, d), { recursive: true, force: true });
    }
  });
}

function parseObjectArgs(): { group: string; resource: string; namespace: string; name: string } {
  if (positionals.length !== 3) throw new UsageError('history: want <resource>[.<group>] [<namespace>/]<name>');
  let resource = positionals[1];
  let group = values.group ?? '';
  const dot = resource.indexOf('.');
  if (dot >= 0) {
    if (values.group !== undefined) throw new UsageError('history: give the group as <resource>.<group> or --group, not both');
    group = resource.slice(dot + 1);
    resource = resource.slice(0, dot);
  }
  if (group === 'core') group = '';
  const ref = positionals[2];
  const slash = ref.indexOf('/');
  const namespace = slash >= 0 ? ref.slice(0, slash) : '';
  const name = slash >= 0 ? ref.slice(slash + 1) : ref;
  if (!resource || !name || name.includes('/')) throw new UsageError(`history: bad object reference "${ref}"`);
  return { group, resource, namespace, name };
}

async function cmdHistory(): Promise<number> {
  onlyFlags('history', ['log', 'group']);
  const source = parseReplaySource(required('log', 'history'));
  const key = parseObjectArgs();
  const keys = atRest();
  return withLog(source, async (log) => {
    const first = await log.firstOffset();
    if (first > 0) throw new Error(`the log starts at offset ${first}: verdicts need every event from 0`);
    const h = await objectHistory(log.read(0, await log.endOffset()), key, keys);
    const out = {
      log: formatReplaySource(source), key, eventsScanned: h.eventsScanned, lastOffset: h.lastOffset,
      entries: h.entries.map((e) => ({ ...e, time: rfc3339(e.time), timeMs: e.time })),
    };
    print(out, h.entries.length ? formatHistory(h) : `no event on ${formatKey(key)} in offsets 0..${h.lastOffset}\n`);
    return 0;
  });
}

async function cmdVerify(): Promise<number> {
  onlyFlags('verify', ['log', 'data-dir']);
  const dataDir = required('data-dir', 'verify');
  const source = values.log ? parseReplaySource(values.log) : ({ kind: 'embedded', dataDir } as const);
  const keys = atRest();
  // The data dir first: opening it upgrades an older one (format.ts), so the embedded log of the
  // same data dir opens without opening D/db a second time.
  const actual = await openDataDirDb(dataDir, { create: false });
  const log = await openReadableLog(source, source.kind === 'embedded' && resolve(source.dataDir) === resolve(dataDir)).catch(async (e) => {
    await actual.close();
    throw e;
  });
  let progress = createProgress('none', 0, process.stderr, 'verify');
  try {
    const r = await verifyStore(log, actual, {
      atRest: keys,
      onStart: (folded) => (progress = createProgress(progressMode(json, process.stderr), folded + 1, process.stderr, 'verify: rebuild')),
      onProgress: (p) => progress.update(p),
    });
    progress.stop();
    const c = r.comparison;
    const out = {
      log: formatReplaySource(source), dataDir: resolve(dataDir), folded: r.folded, equal: c.equal,
      expected: c.expected, actual: c.actual, differing: c.differing, differences: c.differences,
      events: r.rebuild.events, seconds: r.rebuild.elapsedMs / 1000, eventsPerSecond: rate(r.rebuild.events, r.rebuild.elapsedMs),
    };
    const lines = [
      `${c.equal ? 'OK' : 'MISMATCH'}: ${resolve(dataDir)} at offset ${r.folded} vs a rebuild of ${out.log}`,
      `  data dir  ${c.actual.hash}  ${c.actual.objects} objects`,
      `  rebuild   ${c.expected.hash}  ${c.expected.objects} objects (${r.rebuild.events} events, ${out.eventsPerSecond} events/s)`,
    ];
    if (!c.equal) {
      lines.push(`  ${c.differing} differing key(s)${c.differing > c.differences.length ? `, first ${c.differences.length}` : ''}:`);
      const words = { onlyInExpected: 'missing from the data dir', onlyInActual: 'not in the rebuild', valueDiffers: 'value differs' };
      for (const d of c.differences) lines.push(`    ${d.key}  (${words[d.kind]})`);
    }
    print(out, `${lines.join('\n')}\n`);
    return c.equal ? 0 : 1;
  } finally {
    progress.stop();
    await log.close();
    await actual.close();
  }
}

async function cmdHash(): Promise<number> {
  onlyFlags('hash', ['data-dir']);
  const dataDir = required('data-dir', 'hash');
  const keys = atRest();
  const db = await openDataDirDb(dataDir, { create: false });
  try {
    const h = await stateHash(db, keys);
    print({ dataDir: resolve(dataDir), ...h }, `${h.hash}  offset ${h.folded}  ${h.objects} objects\n`);
    return 0;
  } finally {
    await db.close();
  }
}

/**
 * Rebuild D/db from D/log (a Kafka replica's: from the topic, --log) into D/.repair/db, then swap it in: D/db → D/db.damaged-<time>,
 * D/.repair/db → D/db. A crash before the swap leaves D as it was (run repair again); between
 * the two renames D has no snapshot store, and a server started then folds the whole log into a
 * new one — slower than this, but the same state.
 */
async function cmdRepair(): Promise<number> {
  onlyFlags('repair', ['data-dir', 'log']);
  const dataDir = required('data-dir', 'repair');
  const source: ReplaySource = values.log ? parseReplaySource(values.log) : { kind: 'embedded', dataDir };
  if (source.kind === 'embedded' && resolve(source.dataDir) !== resolve(dataDir)) throw new UsageError('repair: an embedded data dir is repaired from its own log (leave out --log)');
  const work = join(dataDir, '.repair');
  return withLog(source, async (log) => {
    const first = await log.firstOffset();
    if (first > 0) throw new Error(`the log starts at offset ${first} (retention): a rebuild from 0 is impossible; move ${join(dataDir, 'db')} away and start the replica with --checkpoint-dir`);
    const end = await log.endOffset();
    if (end === 0) throw new Error(`${formatReplaySource(source)} is empty: nothing to rebuild from`);
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const db = await openDataDirDb(work, { create: true });
    const progress = createProgress(progressMode(json, process.stderr), end, process.stderr, 'repair');
    let r;
    try {
      r = await rebuild(log.readFold(0, end), db, { onProgress: (p) => progress.update(p) });
    } finally {
      progress.stop();
      await db.close();
    }
    const damaged = existsSync(join(dataDir, 'db')) ? `${join(dataDir, 'db')}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}` : null;
    if (damaged) renameSync(join(dataDir, 'db'), damaged);
    renameSync(join(work, 'db'), join(dataDir, 'db'));
    syncDir(dataDir);
    rmSync(work, { recursive: true, force: true });
    const out = {
      dataDir: resolve(dataDir), db: resolve(dataDir, 'db'), kept: damaged && resolve(damaged), events: r.events, lastOffset: r.lastOffset,
      objects: r.objects, seconds: r.elapsedMs / 1000,
    };
    print(out,
      `repaired ${out.db} from ${source.kind === 'embedded' ? resolve(dataDir, 'log') : formatReplaySource(source)}\n` +
      `  offsets 0..${r.lastOffset} (${r.events} events), ${r.objects} objects, ${(r.elapsedMs / 1000).toFixed(2)} s\n` +
      (damaged ? `  the damaged store is kept as ${out.kept} (delete it once the server serves again)\n` : ''));
    return 0;
  });
}

/** fsync a directory, so renames in it are durable. */
function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

// Last, so every module-level constant above is initialized before a command runs.
try {
  process.exitCode = await run(positionals[0]);
} catch (err) {
  if (err instanceof UsageError) process.stderr.write(`replay: ${err.message}\n\n${USAGE}\n`);
  else process.stderr.write(`replay: error: ${(err as Error).message}\n`);
  process.exitCode = 2;
}
