/**
 * A state hash of a snapshot store: sha256 over the `o/` entries (current objects) in key order
 * (byte order of object paths, storage/keys.ts),
 * each value in canonical JSON (object keys sorted, no whitespace). Two stores with the same
 * objects hash the same even if a serializer one day orders fields differently; a changed byte of
 * any value or a missing/extra object changes it. History (h/), index (i/), log (l/) and
 * time markers are not part of it: the state a client can read "now" is what it names.
 *
 * Framing, per object:  JSON.stringify(objectPath) TAB canonical-json NL. The path is quoted and
 * canonical JSON never holds a raw TAB or NL, so no two different states give the same byte stream.
 * The hash names object paths, not LevelDB keys, so a future key encoding keeps it; hashes printed
 * before key format 2 (storage/format.ts, which changed the order of names such as `app` and
 * `app-x` and framed `o/<path>/` keys) are not comparable with today's.
 *
 * Objects encrypted at rest: given the provider config (AtRest), a value is hashed as the object it
 * decrypts to — the state a client reads, so the hash equals an unencrypted store's with the same
 * objects; without it, as its stored bytes (a rebuild holds the very same ciphertext, because the
 * fold copies it from the log, so verify still compares exactly).
 *
 * compareStates walks two stores side by side (both iterate in key order, a merge join) and
 * returns both hashes plus the keys that differ, in one pass.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Db } from '../storage/mvcc/materializer.ts';
import { META_FOLDED, fromHex16, parseObjectPath, pathOfCurrentKey } from '../storage/keys.ts';
import type { AtRest } from '../storage/encryption/at-rest.ts';
import { isTransformed } from '../storage/encryption/stamp.ts';

/** LevelDB entries per iterator round trip. */
const SCAN_CHUNK = 1024;
/** Differences listed at most; the count goes on past it. */
export const DEFAULT_MAX_DIFFERENCES = 100;

/** JSON with object keys sorted at every level. Pure. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(o).sort()) {
    if (o[k] !== undefined) parts.push(`${JSON.stringify(k)}:${canonicalJson(o[k])}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * Canonical form of a stored value. A value that is not JSON (a corrupt store) still gets a
 * stable, distinct form, so it shows up as a difference instead of stopping the hash.
 */
export function canonicalValue(bytes: Buffer): string {
  try {
    return canonicalJson(JSON.parse(bytes.toString('utf8')));
  } catch {
    return `!not-json:${bytes.toString('hex')}`;
  }
}

const frame = (key: string, canonical: string): string => `${JSON.stringify(key)}\t${canonical}\n`;

export interface StateHash {
  /** `sha256:<hex>` */
  hash: string;
  objects: number;
  /** The store's m/folded (-1: never folded). */
  folded: number;
}

async function foldedOf(db: Db): Promise<number> {
  const f = await db.get(META_FOLDED);
  return f === undefined ? -1 : fromHex16(f.toString());
}

/** `o/` entries of `db` in key order, value in canonical form, read in chunks. */
async function* objects(db: Db, atRest?: AtRest): AsyncGenerator<[string, string]> {
  const it = db.iterator({ gte: 'o/', lt: 'o0' });
  try {
    for (;;) {
      const entries = await it.nextv(SCAN_CHUNK);
      if (!entries.length) return;
      for (const [k, v] of entries) yield [k, canonicalValue(atRest && isTransformed(v) ? readable(atRest, k, v) : v)];
    }
  } finally {
    await it.close();
  }
}

/** A decrypted value; one that does not decrypt keeps a stable, distinct form (a difference, not a stop). */
function readable(atRest: AtRest, key: string, v: Buffer): Buffer {
  try {
    return atRest.decode(parseObjectPath(key), v);
  } catch (e) {
    return Buffer.from(`!undecryptable:${(e as Error).message}:${v.toString('hex')}`);
  }
}

const digest = (h: Hash): string => `sha256:${h.digest('hex')}`;

/** The state hash of `db` (not modified; a stopped server's store, or a rebuild). */
export async function stateHash(db: Db, atRest?: AtRest): Promise<StateHash> {
  const h = createHash('sha256');
  let n = 0;
  for await (const [k, c] of objects(db, atRest)) {
    h.update(frame(pathOfCurrentKey(k), c));
    n++;
  }
  return { hash: digest(h), objects: n, folded: await foldedOf(db) };
}

export type DifferenceKind = 'onlyInExpected' | 'onlyInActual' | 'valueDiffers';

export interface Difference {
  key: string;
  kind: DifferenceKind;
}

export interface StateComparison {
  expected: StateHash;
  actual: StateHash;
  equal: boolean;
  /** Number of differing keys (may exceed differences.length). */
  differing: number;
  /** The first differing keys in key order, at most `maxDifferences`. */
  differences: Difference[];
}

/**
 * Hash both stores and list the `o/` keys where they differ. `expected` is the reference (e.g. a
 * rebuild from the log), `actual` the store under test. Reads only.
 */
export async function compareStates(expected: Db, actual: Db, maxDifferences = DEFAULT_MAX_DIFFERENCES, atRest?: AtRest): Promise<StateComparison> {
  const he = createHash('sha256');
  const ha = createHash('sha256');
  const ie = objects(expected, atRest);
  const ia = objects(actual, atRest);
  let ne = 0;
  let na = 0;
  const out: Difference[] = [];
  let differing = 0;
  const note = (key: string, kind: DifferenceKind): void => {
    differing++;
    if (out.length < maxDifferences) out.push({ key, kind });
  };
  const next = async (it: AsyncGenerator<[string, string]>): Promise<[string, string] | null> => {
    const r = await it.next();
    return r.done ? null : r.value;
  };
  try {
    let e = await next(ie);
    let a = await next(ia);
    while (e || a) {
      // LevelDB orders keys bytewise (UTF-8), so compare bytes, not UTF-16 code units.
      const cmp = !e ? 1 : !a ? -1 : Buffer.compare(Buffer.from(e[0]), Buffer.from(a[0]));
      if (e && cmp <= 0) {
        he.update(frame(pathOfCurrentKey(e[0]), e[1]));
        ne++;
      }
      if (a && cmp >= 0) {
        ha.update(frame(pathOfCurrentKey(a[0]), a[1]));
        na++;
      }
      if (e && cmp < 0) note(e[0], 'onlyInExpected');
      else if (a && cmp > 0) note(a[0], 'onlyInActual');
      else if (e && a && e[1] !== a[1]) note(e[0], 'valueDiffers');
      if (cmp <= 0) e = await next(ie);
      if (cmp >= 0) a = await next(ia);
    }
  } finally {
    await ie.return(undefined);
    await ia.return(undefined);
  }
  const exp: StateHash = { hash: digest(he), objects: ne, folded: await foldedOf(expected) };
  const act: StateHash = { hash: digest(ha), objects: na, folded: await foldedOf(actual) };
  return { expected: exp, actual: act, equal: exp.hash === act.hash, differing, differences: out };
}
