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
import { join } from 'node:path';
import { ROOT, buildIsFresh } from '../cmd/build-stamp.ts';

export { BUILD_STAMP, BUILD_INPUTS, buildIsFresh } from '../cmd/build-stamp.ts';

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
