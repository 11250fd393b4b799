/**
 * `npm run build` (also `prepare`, so `npm ci` runs it): compile cmd/ and internal/ to JavaScript
 * under dist/ (tsconfig.build.json; `./x.ts` imports become `./x.js`), and copy beside them every
 * file the code reads at run time: each non-TypeScript file under cmd/ and internal/ (generated
 * schemas, the RBAC bootstrap policy, …) to the same path under dist/, and proto/ to dist/proto,
 * so paths resolved from `import.meta.url` find the same files from dist/ as from the source.
 * Nothing is listed by name: a new source or data file is built and copied as it is.
 *
 * The server's entry, dist/cmd/apiserver.js (what `npm start` and test/server-command.ts run), is
 * then replaced by a start-up-fast form (issue 14): cmd/apiserver.ts and everything it imports,
 * this repository's modules and the npm packages alike, bundled by esbuild into ONE file,
 * dist/cmd/bundle/apiserver.js (a dynamic import() becomes a chunk beside it), so a start reads, resolves and compiles one file instead of ~600
 * (the CommonJS resolution of the packages was a third of the start's CPU time), and a tiny entry
 * that turns on Node's compile cache (dist/.compile-cache, Node ≥ 22.1; V8's code for the bundle
 * is reused across starts) before it imports the bundle. Kept out of the bundle: classic-level's
 * native addon (found from the package's directory at run time), and the packages loaded only on
 * demand (kafkajs, undici, @peculiar/x509 through lazyRequire or createRequire stay lazy: resolved
 * from node_modules at their first use). Each bundled module's `import.meta.url`/`dirname` is
 * rewritten to the URL of its own compiled file under dist/, so the data files it reads beside
 * itself (generated schemas, the RBAC policy, proto/) are found as from the unbundled build. The
 * other commands (replay, …) stay unbundled tsc output.
 *
 *   node --import tsx cmd/build.ts [--if-stale]
 *
 * `--if-stale`: do nothing when dist/ is fresh (no input changed after the last build), as
 * `npm start`'s prestart step uses it. dist/.build-stamp is written last, with the mtime of the
 * build's start: cmd/build-stamp.ts compares it with the inputs' mtimes.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import { BUILD_STAMP, ROOT, buildIsFresh } from './build-stamp.ts';
import { asciiComments } from './ascii-comments.ts';

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

async function build(): Promise<void> {
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
    ...['cmd', 'internal'].flatMap((d) => filesUnder(join(ROOT, d), (p) => !p.endsWith('.ts') && !p.endsWith('.md') && !p.includes('/testdata/'))),
    ...filesUnder(join(ROOT, 'proto'), () => true),
  ];
  for (const src of assets) {
    const dst = join(DIST, relative(ROOT, src));
    mkdirSync(dirname(dst), { recursive: true });
    copyFileSync(src, dst);
  }
  await bundleServer();
  const stamp = join(ROOT, BUILD_STAMP);
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started); // an input edited during the build makes it stale
  process.stderr.write(`build: dist/ in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s (${assets.length} data files copied)\n`);
}

/** Packages the bundle leaves to Node's resolution at run time (see the header). */
const NOT_BUNDLED = ['kafkajs', 'undici', '@peculiar/x509'];

/**
 * classic-level is bundled (it and abstract-level were ~15 ms of CommonJS loading at start-up)
 * except its native addon: binding.js finds the prebuilt binary from its own directory
 * (`node-gyp-build(__dirname)`), which in a bundle is the bundle's; it gets the package's real
 * directory from Node's resolution at run time instead.
 */
const nativeAddonDir: esbuild.Plugin = {
  name: 'classic-level-binding',
  setup(b) {
    b.onLoad({ filter: /[\\/]classic-level[\\/]binding\.js$/ }, () => ({
      contents: "module.exports = require('node-gyp-build')(require('node:path').dirname(require.resolve('classic-level/package.json')));",
      loader: 'js',
    }));
  },
};

/**
 * dist/cmd/bundle/ (cmd/apiserver.ts and cmd/apiserver-worker.ts with all they import) and the entries
 * dist/cmd/apiserver.js that enables the compile cache and imports it; written over tsc's
 * dist/cmd/apiserver.js (tsc's incremental build does not rewrite an unchanged output, and this
 * runs after every tsc).
 */
async function bundleServer(): Promise<void> {
  const outDir = join(DIST, 'cmd', 'bundle');
  rmSync(outDir, { recursive: true, force: true }); // no chunk of an earlier build left
  rmSync(join(DIST, '.compile-cache'), { recursive: true, force: true }); // nor its compiled code (the next start refills it)
  // `import.meta.url` of a bundled module → the URL of its compiled file under dist/, relative to
  // the bundle (so a moved or copied checkout still works).
  const metaUrl: esbuild.Plugin = {
    name: 'import-meta-of-each-module',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (a) => {
        let text = readFileSync(a.path, 'utf8');
        if (text.includes('import.meta')) {
          let rel = relative(outDir, join(DIST, relative(ROOT, a.path))).replace(/\.ts$/, '.js');
          if (!rel.startsWith('.')) rel = `./${rel}`;
          const url = `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
          text = text.replaceAll('import.meta.url', url).replaceAll('import.meta.dirname', `__bundleDirname(__bundleFileURLToPath(${url}))`);
        }
        return { contents: text, loader: 'ts' };
      });
    },
  };
  await esbuild.build({
    // The serving threads' entry too (`--workers`, internal/app/workers.ts): its code is the
    // server's, so the two share chunks and a thread compiles nothing the cache lacks.
    entryPoints: SERVER_ENTRIES.map((e) => join(ROOT, 'cmd', `${e}.ts`)),
    outdir: outDir,
    bundle: true,
    // A dynamic import() (OIDC, the OpenAPI builders, jose) becomes a chunk loaded at its first
    // use, as from the unbundled build: nothing of it is read, compiled or run at start-up.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20', // package.json engines: a build runs on any supported Node
    external: NOT_BUNDLED,
    plugins: [metaUrl, nativeAddonDir],
    sourcemap: true,
    logLevel: 'warning',
    // The CommonJS packages inside an ES module bundle call require() (node: built-ins, lazyRequire).
    banner: {
      js: [
        "import { createRequire as __bundleCreateRequire } from 'node:module';",
        "import { fileURLToPath as __bundleFileURLToPath } from 'node:url';",
        "import { dirname as __bundleDirname } from 'node:path';",
        'const require = __bundleCreateRequire(import.meta.url);',
      ].join(' '),
    },
  });
  // One byte per character in V8's copy of the source (ascii-comments.ts).
  for (const f of readdirSync(outDir)) {
    if (!f.endsWith('.js')) continue;
    const file = join(outDir, f);
    const text = readFileSync(file, 'utf8');
    const ascii = asciiComments(text, relative(ROOT, file));
    if (ascii !== text) writeFileSync(file, ascii);
  }
  for (const e of SERVER_ENTRIES) {
    rmSync(join(DIST, 'cmd', `${e}.js.map`), { force: true }); // tsc's, for the file replaced here
    writeFileSync(
      join(DIST, 'cmd', `${e}.js`),
      [
        `// Written by cmd/build.ts: this is bundle/${e}.js (and chunks shared with the other entry or loaded on demand); Node >= 22.1 keeps its compiled code`,
        '// in dist/.compile-cache between starts (a no-op on older Node, or where the directory is not writable).',
        "import module from 'node:module';",
        "import { fileURLToPath } from 'node:url';",
        "module.enableCompileCache?.(fileURLToPath(new URL('../.compile-cache', import.meta.url)));",
        `await import('./bundle/${e}.js');`,
        '',
      ].join('\n'),
    );
  }
}

/** The bundled entries: the server and its serving threads' entry. */
const SERVER_ENTRIES = ['apiserver', 'apiserver-worker'] as const;

if (process.argv.includes('--if-stale') && buildIsFresh(ROOT)) process.exit(0);
await build();
