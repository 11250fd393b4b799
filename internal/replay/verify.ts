/**
 * Verify a snapshot store against its log: rebuild the log up to the store's own m/folded offset
 * into a scratch store and compare the two state hashes. Equal hashes mean the store holds exactly
 * what the deterministic fold of the log gives; otherwise the differing keys are listed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../storage/mvcc/materializer.ts';
import { META_FOLDED, fromHex16 } from '../storage/keys.ts';
import { rebuild, type RebuildOptions, type RebuildResult } from './rebuild.ts';
import { compareStates, type StateComparison } from './state-hash.ts';
import { openDataDirDb, type ReadableLog } from './open-log.ts';
import type { AtRest } from '../storage/encryption/at-rest.ts';

export interface VerifyOptions {
  /** Parent of the scratch directory (default: the OS temp dir). Removed afterwards either way. */
  scratchParent?: string;
  /** Called once the range is known: the rebuild folds offsets 0..folded. */
  onStart?: (folded: number) => void;
  onProgress?: RebuildOptions['onProgress'];
  maxDifferences?: number;
  /** --encryption-provider-config: hash encrypted objects as what they decrypt to (state-hash.ts). */
  atRest?: AtRest;
}

export interface VerifyResult {
  /** The store's m/folded: the offset the rebuild went up to (inclusive). */
  folded: number;
  rebuild: RebuildResult;
  comparison: StateComparison;
}

/**
 * Rebuild `log` up to `actual`'s m/folded and compare. Reads `actual`, never writes it. Throws when
 * the store has folded nothing or more than the log holds (it was not built from this log).
 */
export async function verifyStore(log: ReadableLog, actual: Db, opts: VerifyOptions = {}): Promise<VerifyResult> {
  const f = await actual.get(META_FOLDED);
  if (f === undefined) throw new Error('the data dir has no m/folded: nothing was ever folded into it');
  const folded = fromHex16(f.toString());
  const end = await log.endOffset();
  if (folded >= end) throw new Error(`the data dir folded up to offset ${folded} but the log ends at ${end - 1}: it was not built from this log`);
  opts.onStart?.(folded);
  const scratch = await mkdtemp(join(opts.scratchParent ?? tmpdir(), 'replay-verify-'));
  try {
    const expected = await openDataDirDb(scratch, { create: true });
    try {
      const result = await rebuild(log.readFold(0, folded + 1), expected, { onProgress: opts.onProgress });
      const comparison = await compareStates(expected, actual, opts.maxDifferences, opts.atRest);
      return { folded, rebuild: result, comparison };
    } finally {
      await expected.close();
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
