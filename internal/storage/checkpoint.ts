/**
 * Checkpoints: a copy of a folded snapshot (every key of the LevelDB: objects, index, history,
 * time markers, m/folded) published by the standalone materializer so a new replica starts from it
 * and tails the log from the checkpoint's offset instead of folding from offset 0.
 *
 * Layout of a checkpoint directory (shared storage, e.g. a volume all replicas mount):
 *   <dir>/<offset hex16>/db/     a closed LevelDB, complete before it is renamed into place
 *   <dir>/LATEST                 name of the newest complete checkpoint (replaced atomically)
 * Writers build `<dir>/.tmp-<offset>` and rename it, so a reader never sees a partial copy.
 */
import { cp, mkdir, readFile, readdir, rename, rm, writeFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import type { Db } from './mvcc/materializer.ts';
import { META_FOLDED, fromHex16, hex16 } from './keys.ts';

const COPY_BATCH = 2000;

export interface CheckpointInfo {
  offset: number;
  path: string;
  keys: number;
  ms: number;
}

/** Copy a consistent snapshot of `db` into a new checkpoint under `dir`; keeps the newest `keep`. */
export async function writeCheckpoint(db: Db, dir: string, keep = 2): Promise<CheckpointInfo> {
  const started = Date.now();
  await mkdir(dir, { recursive: true });
  const snapshot = db.snapshot();
  try {
    const f = await db.get(META_FOLDED, { snapshot });
    const offset = f === undefined ? -1 : fromHex16(f.toString());
    const name = hex16(Math.max(0, offset));
    const tmp = join(dir, `.tmp-${name}-${process.pid}`);
    await rm(tmp, { recursive: true, force: true });
    const out = new ClassicLevel<string, Buffer>(join(tmp, 'db'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await out.open();
    let keys = 0;
    let batch = out.batch();
    for await (const [k, v] of db.iterator({ snapshot })) {
      if (k.startsWith('l/')) continue; // the embedded log is not part of a snapshot
      batch.put(k, v);
      if (++keys % COPY_BATCH === 0) {
        await batch.write();
        batch = out.batch();
      }
    }
    await batch.write();
    await out.close();
    const final = join(dir, name);
    await rm(final, { recursive: true, force: true });
    await rename(tmp, final);
    const latestTmp = join(dir, `.LATEST-${process.pid}`);
    await writeFile(latestTmp, `${name}\n`);
    await rename(latestTmp, join(dir, 'LATEST'));
    await prune(dir, keep);
    return { offset, path: final, keys, ms: Date.now() - started };
  } finally {
    await snapshot.close();
  }
}

async function prune(dir: string, keep: number): Promise<void> {
  const names = (await readdir(dir)).filter((n) => /^[0-9a-f]{16}$/.test(n)).sort();
  for (const n of names.slice(0, Math.max(0, names.length - keep))) await rm(join(dir, n), { recursive: true, force: true });
}

/** The newest complete checkpoint, or null. */
export async function latestCheckpoint(dir: string): Promise<{ offset: number; path: string } | null> {
  const name = (await readFile(join(dir, 'LATEST'), 'utf8').catch(() => '')).trim();
  if (!/^[0-9a-f]{16}$/.test(name)) return null;
  const path = join(dir, name);
  if (!(await stat(join(path, 'db')).then(() => true, () => false))) return null;
  return { offset: fromHex16(name), path };
}

/**
 * If `dataDir` has no snapshot yet, copy the newest checkpoint into it. Returns what was restored,
 * or null (data already present, or no checkpoint published yet: the replica folds from 0).
 */
export async function restoreLatestCheckpoint(dir: string, dataDir: string): Promise<{ offset: number; from: string; ms: number } | null> {
  const target = join(dataDir, 'db');
  if (await stat(join(target, 'CURRENT')).then(() => true, () => false)) return null;
  const cpInfo = await latestCheckpoint(dir);
  if (!cpInfo) return null;
  const started = Date.now();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await rm(target, { recursive: true, force: true });
  const tmp = `${target}.restoring`;
  await rm(tmp, { recursive: true, force: true });
  await cp(join(cpInfo.path, 'db'), tmp, { recursive: true });
  await rename(tmp, target);
  return { offset: cpInfo.offset, from: cpInfo.path, ms: Date.now() - started };
}
