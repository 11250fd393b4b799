/**
 * The module map of docs/architecture.md, checked with dependency-cruiser
 * (.dependency-cruiser.cjs): every import of internal/, cmd/, test/ and bench/ is allowed by the
 * map, the temporarily known violations still exist (the lead drops each as its fix is merged), and
 * the checker does catch what the map forbids (a fixture tree with one violation of each kind).
 *
 * By hand: `npx depcruise internal cmd test bench` (the config is found by name).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
// Run on the pinned runtime (package.json "node", what `npm test` runs on) when it is installed.
// dependency-cruiser stays on 17.x, which supports Node 20 as well: 18 needs Node ≥ 22, and `npm ci`
// (run by the machine's Node 20 npm) warns EBADENGINE for it.
const PINNED_NODE = join(ROOT, 'node_modules', '.bin', 'node');
const NODE = existsSync(PINNED_NODE) ? PINNED_NODE : process.execPath;

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}
interface Cruise {
  modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
  summary: { violations: Violation[]; totalCruised: number };
}

function cruise(cwd: string, dirs: string[]): Cruise {
  const r = spawnSync(NODE, [DEPCRUISE, '--config', CONFIG, '--output-type', 'json', ...dirs], { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (!r.stdout) throw new Error(`depcruise failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Cruise;
}

const show = (v: Violation): string => `${v.rule.name}: ${v.from} → ${v.to}`;

const tree = cruise(ROOT, ['internal', 'cmd', 'test', 'bench']);

test('every import follows the module map', () => {
  assert.ok(tree.summary.totalCruised > 300, `cruised only ${tree.summary.totalCruised} modules`);
  assert.equal(tree.summary.violations.map(show), []);
});

test('every temporarily known violation still exists (else drop it from .dependency-cruiser.cjs)', () => {
  const known = (createRequire(import.meta.url)(CONFIG) as { known: Array<{ owner: string; from: string; to: string }> }).known;
  const stale = known.filter((k) => !tree.modules.some((m) => new RegExp(k.from).test(m.source) && m.dependencies.some((d) => new RegExp(k.to).test(d.resolved))));
  assert.equal(stale.map((k) => `${k.owner}: ${k.from} → ${k.to}`), []);
});

test('the checker catches each kind of forbidden import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layering-'));
  try {
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true, noEmit: true } }),
      'package.json': '{"type":"module"}',
      // allowed: storage → api; http → registry
      'internal/api/types.ts': 'export type T = 1;\n',
      'internal/storage/ok.ts': "import type { T } from '../api/types.ts';\nexport const ok: T = 1;\n",
      'internal/http/ok.ts': "import { r } from '../registry/rest/strategy.ts';\nexport const h = r;\n",
      // upward: storage → http
      'internal/storage/up.ts': "import { h } from '../http/ok.ts';\nexport const up = h;\n",
      // internal → test, cmd → test, cmd → dist
      'internal/api/to-test.ts': "import { t } from '../../test/harness.ts';\nexport const x = t;\n",
      'test/harness.ts': 'export const t = 1;\n',
      'cmd/tool.ts': "import { t } from '../test/harness.ts';\nimport { d } from '../dist/out.js';\nexport const y = t + d;\n",
      'dist/out.js': 'export const d = 1;\n',
      // inside the registry: the contracts import a kind
      'internal/registry/rest/strategy.ts': "import { k } from '../core/kind.ts';\nexport const r = k;\n",
      'internal/registry/core/kind.ts': 'export const k = 1;\n',
      // a cycle across folders whose edges are each allowed (review-kind contract → auth → registry/rest)
      'internal/registry/rest/token-request.ts': "import { a } from '../../auth/authz.ts';\nexport const tr = a;\n",
      'internal/auth/authz.ts': "import { tr } from '../registry/rest/token-request.ts';\nexport const a = 1;\nexport const b = tr;\n",
      // a folder the map does not know
      'internal/newfolder/x.ts': "import { ok } from '../storage/ok.ts';\nexport const n = ok;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const found = cruise(dir, ['internal', 'cmd', 'test']).summary.violations.map(show).sort();
    assert.equal(found, [
      'cmd-not-test: cmd/tool.ts → dist/out.js',
      'cmd-not-test: cmd/tool.ts → test/harness.ts',
      'layer-api: internal/api/to-test.ts → test/harness.ts',
      'layer-storage: internal/storage/up.ts → internal/http/ok.ts',
      'no-cycle-across-folders: internal/auth/authz.ts → internal/registry/rest/token-request.ts',
      'not-dist: cmd/tool.ts → dist/out.js',
      'registry-rest: internal/registry/rest/strategy.ts → internal/registry/core/kind.ts',
      'unmapped: internal/newfolder/x.ts → internal/storage/ok.ts',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
