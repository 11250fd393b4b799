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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, buildIsFresh } from '../cmd/build-stamp.ts';

export { BUILD_STAMP, BUILD_INPUTS, buildIsFresh } from '../cmd/build-stamp.ts';

/**
 * V8 flags of every server process: the ones package.json's `start` script gives node, read from
 * there so they are written in one place. Today `--max-semi-space-size=16`: Node ≥ 22 sizes the
 * young generation from the machine's memory (up to 64 MiB per semi-space here, 16 on Node 20);
 * after a LIST of 23k objects the server kept 510 MiB RSS against 240 on Node 20, and 16 MiB
 * semi-spaces bring it back to ~280–330 MiB at no measured cost in creates/s (issue 14).
 */
export const SERVER_NODE_FLAGS: readonly string[] = startScriptFlags(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/**
 * The `--` options before the script in package.json's `start` (`[exec] node --a --b dist/…`;
 * `exec`: the shell npm runs the script in becomes node, so the SIGTERM npm forwards reaches it).
 */
export function startScriptFlags(packageJson: string): string[] {
  const start = (JSON.parse(packageJson) as { scripts?: { start?: string } }).scripts?.start ?? '';
  const words = start.trim().replace(/^exec\s+/, '').split(/\s+/).slice(1); // after `node`
  const flags: string[] = [];
  for (const w of words) {
    if (!w.startsWith('--')) break;
    flags.push(w);
  }
  return flags;
}

const freshByRoot = new Map<string, boolean>();

/**
 * Node arguments that run `script` (a path like `cmd/apiserver.ts`, relative to the repository
 * root, which must be the child's cwd): `['dist/cmd/apiserver.js']` on a fresh build,
 * `['--import', 'tsx', 'cmd/apiserver.ts']` otherwise, each after SERVER_NODE_FLAGS. APISERVER_RUN=tsx|dist forces one.
 */
export function nodeArgsFor(script: string, nodeFlags: string[] = [], root = ROOT): string[] {
  const forced = process.env.APISERVER_RUN;
  let fresh = freshByRoot.get(root);
  if (fresh === undefined) freshByRoot.set(root, (fresh = forced === 'dist' ? true : forced === 'tsx' ? false : buildIsFresh(root)));
  if (fresh) return [...SERVER_NODE_FLAGS, ...nodeFlags, join('dist', script.replace(/\.ts$/, '.js'))];
  return ['--import', 'tsx', ...SERVER_NODE_FLAGS, ...nodeFlags, script];
}
