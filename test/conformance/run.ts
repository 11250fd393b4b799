/**
 * `npm run conformance`: the node-free upstream e2e specs of Kubernetes 1.24.17 (listed with their
 * reasons in ./specs.ts) against this server or, with `--kubeconfig`, any cluster (the reference).
 * Not part of `npm test`: it needs the e2e binary (about 5 minutes to build, once) and takes
 * a few minutes.
 *
 *   npm run conformance                                   # this server: embedded, temp data dir, free port
 *   npm run conformance -- --kubeconfig /tmp/ref/kubeconfig   # the reference kube-apiserver
 *   npm run conformance -- --focus Watchers               # only specs whose name contains "Watchers"
 *   npm run conformance -- --list                         # print the specs in and out, run nothing
 *   npm run conformance -- --kubeconfig <k> --run-all     # also the specs skipped on --kubeconfig (another
 *                                                         # cluster that has a namespace controller)
 *
 * Builds `e2e.test` and kubectl 1.24.17 with ../shared/reference/build-e2e.sh when missing
 * (E2E_BUILD_SCRIPT overrides the script, REF_DIR the cache, default ~/.cache/kube-ref). Prints one
 * PASS/FAIL/SKIP line per spec with the first line of each failure, and writes JSON (per spec:
 * outcome, seconds, failure text) to test/conformance/results/<target>-<time>.json; the full ginkgo
 * log goes beside it (.log). Exit code 1 if any spec failed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer, type ChildServer } from '../harness.ts';
import { EXCLUDED, SPECS, focusRegex, type Spec } from './specs.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const REF = process.env.REF_DIR ?? join(homedir(), '.cache', 'kube-ref');
const E2E = join(REF, 'bin', 'e2e.test');
const KUBECTL = join(REF, 'bin', 'kubectl');
/**
 * Whole-run bound (ginkgo v1 has no suite timeout flag): 28 specs take about 5 minutes, the
 * slowest ("delete fast enough") allows itself 160 s; a hung spec must not hang the run.
 */
const SUITE_TIMEOUT_MS = 30 * 60 * 1000;

interface Args {
  kubeconfig?: string;
  focus?: string;
  list: boolean;
  /** Do not skip `skipOnReference` specs on a --kubeconfig target. */
  runAll: boolean;
  out: string;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { list: false, runAll: false, out: join(HERE, 'results') };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = (): string => inline ?? argv[++i] ?? die(`${flag} needs a value`);
    if (flag === '--kubeconfig') a.kubeconfig = value();
    else if (flag === '--focus') a.focus = value();
    else if (flag === '--out') a.out = value();
    else if (flag === '--list') a.list = true;
    else if (flag === '--run-all') a.runAll = true;
    else die(`unknown argument ${argv[i]} (see test/conformance/run.ts)`);
  }
  return a;
}

function die(msg: string): never {
  process.stderr.write(`conformance: ${msg}\n`);
  process.exit(2);
}

/** Build e2e.test and kubectl with the shared reference script unless both are there. */
async function ensureBinaries(): Promise<void> {
  if (existsSync(E2E) && existsSync(KUBECTL)) return;
  const candidates = [process.env.E2E_BUILD_SCRIPT, join(ROOT, '..', 'shared', 'reference', 'build-e2e.sh'), join(ROOT, '..', '..', 'shared', 'reference', 'build-e2e.sh')];
  const script = candidates.find((p): p is string => !!p && existsSync(p));
  if (!script) die(`${E2E} missing and no build-e2e.sh found (set E2E_BUILD_SCRIPT)`);
  process.stdout.write(`building e2e.test and kubectl with ${script} (about 5 minutes on 2 cores)…\n`);
  const code = await new Promise<number | null>((res) => spawn('bash', [script], { stdio: 'inherit', env: { ...process.env, REF_DIR: REF } }).on('exit', res));
  if (code !== 0 || !existsSync(E2E) || !existsSync(KUBECTL)) die(`build-e2e.sh failed (exit ${code})`);
}

interface Outcome {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped' | 'not run';
  seconds: number;
  /** Failure message and location (first lines of ginkgo's failure text). */
  failure?: string;
  /** Why the runner skipped it on this target. */
  skipReason?: string;
}

const decodeXml = (s: string): string =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16))).replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d))).replace(/&amp;/g, '&');

/** Outcomes from ginkgo's JUnit report (testcase name = the spec text, maybe without the top container). */
function readJunit(dir: string, specs: Spec[]): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  for (const f of readdirSync(dir).filter((n) => /^junit.*\.xml$/.test(n))) {
    const xml = readFileSync(join(dir, f), 'utf8');
    for (const m of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
      const attrs = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], decodeXml(x[2]!)]));
      const name = String(attrs.name ?? '').trim();
      const spec = specs.find((s) => s.name.trim() === name || s.name.trim().endsWith(name) || name.endsWith(s.name.trim()));
      if (!spec) continue;
      const inner = m[3] ?? '';
      const failure = /<(failure|error)\b([^>]*)>([\s\S]*?)<\/\1>/.exec(inner);
      const skipped = /<skipped\b/.test(inner);
      out.set(spec.name, {
        name: spec.name,
        outcome: failure ? 'failed' : skipped ? 'skipped' : 'passed',
        seconds: Number(attrs.time ?? 0),
        failure: failure ? decodeXml(failure[3]!).trim().split('\n').slice(0, 12).join('\n') : undefined,
      });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const onReference = !!args.kubeconfig;
  let specs = SPECS.filter((s) => !args.focus || s.name.includes(args.focus));
  if (args.list) {
    process.stdout.write(`IN (${SPECS.length}):\n${SPECS.map((s) => `  ${s.name}\n      ${s.file}: ${s.why}${s.skipOnReference ? `\n      skipped on --kubeconfig: ${s.skipOnReference}` : ''}`).join('\n')}\n`);
    process.stdout.write(`OUT (${EXCLUDED.length}):\n${EXCLUDED.map((s) => `  ${s.name}\n      ${s.file}: ${s.why}`).join('\n')}\n`);
    return;
  }
  const skippedHere = onReference && !args.runAll ? specs.filter((s) => s.skipOnReference) : [];
  specs = specs.filter((s) => !skippedHere.includes(s));
  if (specs.length === 0) die('no spec matches');
  await ensureBinaries();

  let server: ChildServer | undefined;
  let kubeconfig = args.kubeconfig;
  const work = mkdtempSync(join(tmpdir(), 'conformance-'));
  if (!kubeconfig) {
    const dataDir = join(work, 'data');
    mkdirSync(dataDir);
    server = await spawnServer(dataDir, 0, ['--log-level', 'warn']);
    kubeconfig = join(dataDir, 'kubeconfig');
    process.stdout.write(`this server: ${server.url} (data ${dataDir})\n`);
  }
  const stop = async (): Promise<void> => {
    if (server && server.proc.exitCode === null) await server.kill('SIGTERM');
  };
  process.on('SIGINT', () => void stop().then(() => process.exit(130)));

  // Result files are named after the target: "this-server", or the kubeconfig's directory (/tmp/ref/kubeconfig → "ref").
  const target = onReference ? `kubeconfig-${basename(dirname(resolve(kubeconfig!)))}` : 'this-server';
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(args.out, { recursive: true });
  const logPath = join(args.out, `${target}-${stamp}.log`);
  const reportDir = join(work, 'report');
  mkdirSync(reportDir);
  const e2eArgs = [
    `--kubeconfig=${kubeconfig}`,
    '--provider=skeleton',
    '--allowed-not-ready-nodes=-1',
    '--num-nodes=1',
    '--e2e-verify-service-account=false',
    `--kubectl-path=${KUBECTL}`,
    `--report-dir=${reportDir}`,
    `--ginkgo.focus=${focusRegex(specs)}`,
    '--ginkgo.noColor',
    '--ginkgo.v',
  ];
  process.stdout.write(`running ${specs.length} specs against ${onReference ? kubeconfig : 'this server'} (log: ${logPath})\n`);
  const t0 = Date.now();
  const log = createWriteStream(logPath);
  // HOME in the work dir: kubectl's discovery cache must not leak between targets or runs.
  const code = await new Promise<number | null>((res) => {
    const p = spawn(E2E, e2eArgs, { cwd: work, env: { ...process.env, HOME: work, KUBECONFIG: kubeconfig } });
    p.stdout.pipe(log, { end: false });
    p.stderr.pipe(log, { end: false });
    const timer = setTimeout(() => {
      log.write(`\nconformance: killing e2e.test after ${SUITE_TIMEOUT_MS / 60000} minutes\n`);
      p.kill('SIGKILL');
    }, SUITE_TIMEOUT_MS);
    p.on('exit', (c) => {
      clearTimeout(timer);
      res(c);
    });
  });
  await new Promise<void>((res) => log.end(res));
  await stop();

  const found = readJunit(reportDir, specs);
  const results: Outcome[] = [
    ...specs.map((s) => found.get(s.name) ?? { name: s.name, outcome: 'not run' as const, seconds: 0, failure: 'no JUnit entry (suite setup failed? see the log)' }),
    ...skippedHere.map((s) => ({ name: s.name, outcome: 'skipped' as const, seconds: 0, skipReason: s.skipOnReference })),
  ];
  if (found.size === 0) {
    // Nothing ran: the suite's own set-up failed (e.g. BeforeSuite); its first FAIL line says why.
    const fail = readFileSync(logPath, 'utf8').split('\n').find((l) => /\bFAIL:|^flag provided but not defined/.test(l));
    process.stdout.write(`suite set-up failed: ${fail?.trim() ?? 'see the log'}\n`);
    for (const r of results) if (r.outcome === 'not run') r.failure = `suite set-up failed: ${fail?.trim() ?? 'see the log'}`;
  }
  const count = (o: Outcome['outcome']): number => results.filter((r) => r.outcome === o).length;
  for (const r of results) {
    const tag = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP', 'not run': 'NRUN' }[r.outcome];
    process.stdout.write(`${tag} ${r.name}${r.seconds ? ` (${r.seconds.toFixed(1)} s)` : ''}\n`);
    if (r.failure && !(r.outcome === 'not run' && found.size === 0)) process.stdout.write(`     ${r.failure.split('\n').filter((l) => l.trim()).slice(0, 3).join('\n     ')}\n`);
    if (r.skipReason) process.stdout.write(`     ${r.skipReason}\n`);
  }
  const summary = { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), notRun: count('not run') };
  process.stdout.write(`\n${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped, ${summary.notRun} not run  (e2e.test exit ${code}, ${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  const jsonPath = join(args.out, `${target}-${stamp}.json`);
  writeFileSync(jsonPath, JSON.stringify({ target, kubeconfig: args.kubeconfig ?? null, startedAt: new Date(t0).toISOString(), e2eExit: code, summary, results, log: logPath }, null, 2) + '\n');
  process.stdout.write(`results: ${jsonPath}\n`);
  rmSync(work, { recursive: true, force: true });
  process.exitCode = summary.failed + summary.notRun > 0 ? 1 : 0;
}

await main();
