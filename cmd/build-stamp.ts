/**
 * Whether dist/ (cmd/build.ts's output) is current: the build stamp against the newest mtime of
 * the build's inputs. Shared by the build (`--if-stale`) and by test/server-command.ts, which picks
 * the built JavaScript or the TypeScript source for child processes.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (fileURLToPath: a path with spaces or other escaped characters stays right). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Written by cmd/build.ts after a successful build; its mtime is the build's start. */
export const BUILD_STAMP = 'dist/.build-stamp';
/** What a build compiles or copies: a newer file under these makes dist/ stale. */
export const BUILD_INPUTS = ['cmd', 'internal', 'proto', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** Newest mtime (ms) of the files under `path` (a file or a directory tree); 0 when absent. */
function newestMtime(path: string): number {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs; // a deleted file shows as a newer directory
  for (const e of readdirSync(path)) {
    if (e.endsWith('.test.ts')) continue; // not part of the build (tsconfig.build.json)
    newest = Math.max(newest, newestMtime(join(path, e)));
  }
  return newest;
}

/** dist/ exists and no build input changed after the build started. */
export function buildIsFresh(root = ROOT): boolean {
  const stamp = join(root, BUILD_STAMP);
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return BUILD_INPUTS.every((p) => newestMtime(join(root, p)) <= built);
}
