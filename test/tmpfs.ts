/**
 * A small tmpfs of a test's own, for storage-fault tests (disk full): mounted directly as root;
 * otherwise the test file runs itself again under `unshare --user --map-root-user --mount` (a
 * private user + mount namespace, where it is root). If neither works the test fails: it never
 * skips silently.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync, execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync, statfsSync, fsyncSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './harness.ts';

const IN_NAMESPACE = 'STORAGE_FAULT_TEST_IN_NS';

/**
 * Run `suite` (which registers uvu tests and calls test.run()) where a tmpfs can be mounted: here
 * when root, else in a child process of `file` under unshare, reported as one test.
 */
export function withMountRights(file: string, suite: () => void): void {
  if (process.getuid?.() === 0 || process.env[IN_NAMESPACE] === '1') return suite();
  test('in a private mount namespace (unshare --user --map-root-user --mount)', () => {
    const r = spawnSync('unshare', ['--user', '--map-root-user', '--mount', process.execPath, '--import', 'tsx', file], {
      stdio: 'inherit',
      env: { ...process.env, [IN_NAMESPACE]: '1' },
      cwd: new URL('..', import.meta.url).pathname,
    });
    assert.is(r.error, undefined, `unshare could not run: ${r.error?.message}; this test needs root or unprivileged user namespaces to mount a tmpfs`);
    assert.is(r.status, 0, 'the test in a private mount namespace failed (see its output above)');
  });
  test.run();
}

export interface Tmpfs {
  dir: string;
  /** Write zeros to a filler file until only `leave` bytes are free (0: until ENOSPC), fsynced. */
  fill(leave: number): void;
  /** Delete the filler (the space comes back). */
  free(): void;
  freeBytes(): number;
  unmount(): void;
}

export function mountTmpfs(sizeMb: number): Tmpfs {
  const root = tempDir('apiserver-tmpfs-');
  const dir = join(root, 'mnt');
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`cannot mount a tmpfs (${(e as Error).message}): this test needs root or unprivileged user namespaces`);
  }
  const filler = join(dir, 'filler');
  const freeBytes = (): number => {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    freeBytes,
    fill(leave) {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(256 * 1024);
      try {
        for (;;) {
          const free = freeBytes();
          if (free <= leave) break;
          try {
            writeSync(fd, chunk, 0, Math.min(chunk.length, Math.max(4096, free - leave)));
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
            throw e;
          }
        }
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
    free: () => rmSync(filler, { force: true }),
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
