/**
 * `npm run build` (also `prepare`, so `npm ci` runs it): compile cmd/ and internal/ to JavaScript
 * under dist/ (tsconfig.build.json; `./x.ts` imports become `./x.js`), and copy beside them every
 * file the code reads at run time: each non-TypeScript file under cmd/ and internal/ (generated
 * schemas, the RBAC bootstrap policy, …) to the same path under dist/, and proto/ to dist/proto,
 * so paths resolved from `import.meta.url` find the same files from dist/ as from the source.
 * Nothing is listed by name: a new source or data file is built and copied as it is.
 *
 *   node --import tsx cmd/build.ts [--if-stale]
 *
 * `--if-stale`: do nothing when dist/ is fresh (no input changed after the last build), as
 * `npm start`'s prestart step uses it. dist/.build-stamp is written last, with the mtime of the
 * build's start: cmd/build-stamp.ts compares it with the inputs' mtimes.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { BUILD_STAMP, ROOT, buildIsFresh } from './build-stamp.ts';

const DIST = join(ROOT, 'dist');

/** Every file under `dir` (recursively) that `keep` accepts. */
function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, keep));
    else if (keep(p)) out.push(p);
  }
  return out;
}

function build(): void {
  const started = new Date();
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  // tsc exits 2 when it found type errors but wrote every output (the JavaScript is what tsx would
  // run: the server still starts; `npm run typecheck` is where type errors fail), 1 when it wrote
  // nothing usable.
  if (r.status === 2) process.stderr.write('build: tsc reported type errors (above); dist/ was written anyway\n');
  else if (r.status !== 0) {
    process.stderr.write(`build: tsc failed (exit ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
  const assets = [
    ...['cmd', 'internal'].flatMap((d) => filesUnder(join(ROOT, d), (p) => !p.endsWith('.ts') && !p.endsWith('.md'))),
    ...filesUnder(join(ROOT, 'proto'), () => true),
  ];
  for (const src of assets) {
    const dst = join(DIST, relative(ROOT, src));
    mkdirSync(dirname(dst), { recursive: true });
    copyFileSync(src, dst);
  }
  const stamp = join(ROOT, BUILD_STAMP);
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started); // an input edited during the build makes it stale
  process.stderr.write(`build: dist/ in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s (${assets.length} data files copied)\n`);
}

if (process.argv.includes('--if-stale') && buildIsFresh(ROOT)) process.exit(0);
build();
