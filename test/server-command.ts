/**
 * How tests and benchmarks launch a command of this repository (cmd/apiserver.ts, …) as a child
 * process: the JavaScript that `npm run build` wrote under dist/ when that build is fresh (no
 * source file changed after it), else the TypeScript source through tsx.
 *
 * Why not always one or the other: `npm ci` builds dist/ (package.json `prepare`), so CI and a
 * fresh clone run the servers as `npm start` does (built JavaScript, no compile on start — and
 * every spawned server starts ~1 s sooner); a developer who edits a source file and runs a test
 * without rebuilding gets the edited source through tsx, never a stale build.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;

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

const freshByRoot = new Map<string, boolean>();

/**
 * Node arguments that run `script` (a path like `cmd/apiserver.ts`, relative to the repository
 * root, which must be the child's cwd): `['dist/cmd/apiserver.js']` on a fresh build,
 * `['--import', 'tsx', 'cmd/apiserver.ts']` otherwise. APISERVER_RUN=tsx|dist forces one.
 */
export function nodeArgsFor(script: string, nodeFlags: string[] = [], root = ROOT): string[] {
  const forced = process.env.APISERVER_RUN;
  let fresh = freshByRoot.get(root);
  if (fresh === undefined) freshByRoot.set(root, (fresh = forced === 'dist' ? true : forced === 'tsx' ? false : buildIsFresh(root)));
  if (fresh) return [...nodeFlags, join('dist', script.replace(/\.ts$/, '.js'))];
  return ['--import', 'tsx', ...nodeFlags, script];
}
