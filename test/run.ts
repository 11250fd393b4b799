/**
 * The test runner (`npm test`).
 *
 *   node --import tsx test/run.ts [options] [pattern | file | dir ...]
 *
 * Finds every `*.test.ts` under cmd/, internal/ and test/ (skipping node_modules and dot-directories)
 * and runs each file in its own `node --import tsx <file>` process, with the environment passed
 * through (plus NO_COLOR=1). Unit tests (everything outside test/) run two at a time; the
 * integration suites under test/ start servers and run one at a time, after the unit tests.
 *
 * Arguments:
 *   pattern        run only files whose path contains it (several patterns: any of them)
 *   file, dir      an existing path (absolute or relative) runs that file / the tests under it
 *   --serial       run every file one at a time
 *   --timeout=MS   per-file timeout (default env TEST_FILE_TIMEOUT_MS, else 10 minutes)
 *   --verbose      print the output of passing files too when files run in parallel
 *
 * Output: files running alone stream their output live, each line prefixed with the file's path;
 * files running in parallel print one line when they pass and their whole output, grouped, when
 * they fail. Counts come from uvu's closing summary (Total / Passed / Skipped; failed = Total -
 * Passed, as uvu's Total does not include skipped tests). A file that crashes, times out, exits
 * non-zero without reporting a failure, prints no summary or runs no tests counts one failure.
 * The last line is always `N passed, N failed` (`, N skipped` when N > 0); the exit code is 1 if
 * anything failed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SEARCH_DIRS = ['cmd', 'internal', 'test'];
const INTEGRATION_DIR = path.join(ROOT, 'test') + path.sep;
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
const KILL_GRACE_MS = 5000;
const STDOUT_TAIL = 64 * 1024;
const GROUPED_OUTPUT_CAP = 8 * 1024 * 1024;

interface Options {
  serial: boolean;
  verbose: boolean;
  timeoutMs: number;
  args: string[];
}

interface FileResult {
  file: string;
  rel: string;
  total: number;
  passed: number;
  skipped: number;
  /** Failures counted for this file (reported test failures, or 1 for a broken file). */
  failed: number;
  /** Why the file counts as failed beyond its reported test failures, if it does. */
  problem?: string;
  durationMs: number;
}

const USAGE = `usage: node --import tsx test/run.ts [options] [pattern | file | dir ...]

  pattern        run only test files whose path contains it (any of several)
  file, dir      an existing path (absolute or relative): that file, or the *.test.ts under it
  --serial       run every file one at a time (default: internal/ two at a time, then test/ one at a time)
  --timeout=MS   per-file timeout (default: env TEST_FILE_TIMEOUT_MS, else 600000)
  --verbose, -v  also print the output of passing files run in parallel
  -h, --help     this text`;

function parseArgs(argv: string[]): Options {
  const envTimeout = Number(process.env.TEST_FILE_TIMEOUT_MS);
  const opts: Options = {
    serial: false,
    verbose: false,
    timeoutMs: Number.isFinite(envTimeout) && envTimeout > 0 ? envTimeout : DEFAULT_TIMEOUT_MS,
    args: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      opts.args.push(...argv.slice(i + 1));
      break;
    } else if (a === '--serial') opts.serial = true;
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a === '--timeout' || a.startsWith('--timeout=')) {
      const v = Number(a === '--timeout' ? argv[++i] : a.slice('--timeout='.length));
      if (!Number.isFinite(v) || v <= 0) {
        console.error(`invalid --timeout: ${a}\n${USAGE}`);
        process.exit(2);
      }
      opts.timeoutMs = v;
    } else if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else if (a.startsWith('--')) {
      console.error(`unknown option ${a}\n${USAGE}`);
      process.exit(2);
    } else opts.args.push(a);
  }
  return opts;
}

// ---------------------------------------------------------------------------------------------
// Discovery
// ---------------------------------------------------------------------------------------------

function walk(dir: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && e.name.endsWith('.test.ts')) out.push(p);
  }
}

const relName = (file: string): string => {
  const r = path.relative(ROOT, file);
  return r.startsWith('..') || path.isAbsolute(r) ? file : r.split(path.sep).join('/');
};

function selectFiles(args: string[]): { files: string[]; unmatched: string[] } {
  const discovered: string[] = [];
  for (const d of SEARCH_DIRS) walk(path.join(ROOT, d), discovered);
  discovered.sort();
  if (args.length === 0) return { files: discovered, unmatched: [] };

  const chosen = new Set<string>();
  const unmatched: string[] = [];
  for (const arg of args) {
    const abs = path.resolve(process.cwd(), arg);
    let hit = false;
    if (existsSync(abs)) {
      const st = statSync(abs);
      if (st.isFile()) {
        chosen.add(abs);
        hit = true;
      } else if (st.isDirectory()) {
        const under: string[] = [];
        walk(abs, under);
        for (const f of under) chosen.add(f);
        hit = under.length > 0;
      }
    }
    if (!hit) {
      for (const f of discovered) {
        if (relName(f).includes(arg) || f.includes(arg)) {
          chosen.add(f);
          hit = true;
        }
      }
    }
    if (!hit) unmatched.push(arg);
  }
  return { files: [...chosen].sort(), unmatched };
}

// ---------------------------------------------------------------------------------------------
// Running one file
// ---------------------------------------------------------------------------------------------

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
const stripAnsi = (s: string): string => s.replace(ANSI, '');

interface Summary {
  total: number;
  passed: number;
  skipped: number;
}

/** The last uvu summary in `text` (uvu prints one at the end of a process). */
function parseSummary(text: string): Summary | undefined {
  const last = (label: string): number | undefined => {
    const re = new RegExp(`^[ \\t]*${label}:[ \\t]+(\\d+)[ \\t]*$`, 'gm');
    let m: RegExpExecArray | null;
    let v: number | undefined;
    while ((m = re.exec(text))) v = Number(m[1]);
    return v;
  };
  const total = last('Total');
  const passed = last('Passed');
  if (total === undefined || passed === undefined) return undefined;
  return { total, passed, skipped: last('Skipped') ?? 0 };
}

const active = new Set<ChildProcess>();
let interrupted = false;

/** Signal the child's whole process group (it is started detached, as a group leader). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is already gone
  }
}

const fmtMs = (ms: number): string => (ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`);

/** Line-splitting writer that prefixes every line; `flush` ends a partial last line. */
function prefixedWriter(prefix: string): { write(s: string): void; flush(): void } {
  let pending = '';
  return {
    write(s: string) {
      pending += s;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      if (lines.length) process.stdout.write(lines.map((l) => `${prefix}${l.replace(/\r$/, '')}\n`).join(''));
    },
    flush() {
      if (pending) process.stdout.write(`${prefix}${pending}\n`);
      pending = '';
    },
  };
}

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  // Node warns when both are set, and FORCE_COLOR would win over NO_COLOR
  delete env.FORCE_COLOR;
  return env;
}

function runFile(file: string, opts: Options, live: boolean): Promise<FileResult> {
  const rel = relName(file);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    active.add(child);

    let stdoutTail = '';
    let grouped = '';
    let groupedTruncated = false;
    const out = live ? prefixedWriter(`${rel} | `) : undefined;
    const onData = (isStdout: boolean) => (buf: Buffer) => {
      const s = buf.toString('utf8');
      if (isStdout) stdoutTail = (stdoutTail + s).slice(-STDOUT_TAIL);
      if (out) out.write(stripAnsi(s));
      else if (grouped.length < GROUPED_OUTPUT_CAP) grouped += s;
      else groupedTruncated = true;
    };
    child.stdout!.on('data', onData(true));
    child.stderr!.on('data', onData(false));

    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
    }, opts.timeoutMs);

    let spawnError: Error | undefined;
    child.on('error', (err) => {
      spawnError = err;
    });

    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      active.delete(child);
      child.stdout?.destroy();
      child.stderr?.destroy();
      out?.flush();
      resolve(evaluate());
    };

    const evaluate = (): FileResult => {
      const durationMs = Date.now() - started;
      const summary = parseSummary(stripAnsi(stdoutTail));
      const r: FileResult = { file, rel, total: 0, passed: 0, skipped: 0, failed: 0, durationMs };
      let reported = 0;
      if (summary) {
        r.total = summary.total;
        r.passed = summary.passed;
        r.skipped = summary.skipped;
        reported = Math.max(0, summary.total - summary.passed);
        r.failed = reported;
      }
      const how = spawnError
        ? `could not start: ${spawnError.message}`
        : timedOut
          ? `timed out after ${fmtMs(opts.timeoutMs)}`
          : exitSignal
            ? `killed by ${exitSignal}`
            : exitCode !== 0
              ? `exit code ${exitCode}`
              : '';
      if (!summary) {
        r.failed = 1;
        r.problem = `${how || 'exit code 0'}, and no uvu summary (crash, uncaught error, or not a uvu test file?)`;
      } else if (summary.total === 0) {
        r.failed += 1;
        r.problem = `ran no tests${how ? ` (${how})` : ''}`;
      } else if (how && reported === 0) {
        r.failed += 1;
        r.problem = `${how} after reporting no failing tests`;
      } else if (how) {
        r.problem = how;
      }
      if (!live) printGrouped(r, grouped + (groupedTruncated ? '\n[output truncated]\n' : ''), opts.verbose);
      else printStatus(r);
      return r;
    };

    child.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      // leftovers of the file (servers it started and did not stop) go with it
      killGroup(child, 'SIGTERM');
      // give the pipes a moment to drain; a lingering grandchild may hold them open
      const drain = setTimeout(() => {
        killGroup(child, 'SIGKILL');
        finish();
      }, 3000);
      child.once('close', () => {
        clearTimeout(drain);
        finish();
      });
    });
    child.once('close', (code, signal) => {
      // 'close' without 'exit' happens only when spawning failed
      if (spawnError) {
        exitCode = code;
        exitSignal = signal;
        finish();
      }
    });
  });
}

function statusLine(r: FileResult): string {
  const ok = r.failed === 0;
  const counts = `${r.passed}/${r.total} passed${r.skipped ? `, ${r.skipped} skipped` : ''}`;
  const why = r.problem ? ` — ${r.problem}` : '';
  return `${ok ? 'ok  ' : 'FAIL'} ${r.rel} (${counts}, ${fmtMs(r.durationMs)})${why}`;
}

function printStatus(r: FileResult): void {
  process.stdout.write(`${statusLine(r)}\n`);
}

function printGrouped(r: FileResult, output: string, verbose: boolean): void {
  if (r.failed === 0 && !verbose) {
    printStatus(r);
    return;
  }
  const bar = '─'.repeat(Math.max(10, 78 - r.rel.length));
  let text = stripAnsi(output);
  if (text && !text.endsWith('\n')) text += '\n';
  process.stdout.write(`┌── ${r.rel} ${bar}\n${text}└── ${statusLine(r)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

async function runPool(files: string[], concurrency: number, opts: Options): Promise<FileResult[]> {
  const results: FileResult[] = [];
  let next = 0;
  // a file running alone streams its output live; parallel files print grouped
  const live = Math.min(concurrency, files.length) === 1;
  const worker = async (): Promise<void> => {
    while (next < files.length && !interrupted) {
      const i = next++;
      results.push(await runFile(files[i]!, opts, live));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return results;
}

function finalLine(passed: number, failed: number, skipped: number): string {
  return `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

function onSignal(sig: NodeJS.Signals): void {
  interrupted = true;
  for (const c of active) killGroup(c, 'SIGTERM');
  const t = setTimeout(() => {
    for (const c of active) killGroup(c, 'SIGKILL');
    process.exit(130);
  }, 1000);
  t.unref();
  process.stdout.write(`\ninterrupted by ${sig}\n`);
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const { files, unmatched } = selectFiles(opts.args);
  for (const u of unmatched) console.log(`warning: ${JSON.stringify(u)} matched no test files`);
  if (files.length === 0) {
    console.log('no test files to run');
    console.log(finalLine(0, 1, 0));
    process.exitCode = 1;
    return;
  }

  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const unit = files.filter((f) => !f.startsWith(INTEGRATION_DIR));
  const integration = files.filter((f) => f.startsWith(INTEGRATION_DIR));
  const started = Date.now();
  const results: FileResult[] = [];
  if (unit.length) results.push(...(await runPool(unit, opts.serial ? 1 : 2, opts)));
  if (integration.length && !interrupted) results.push(...(await runPool(integration, 1, opts)));

  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const r of results) {
    passed += r.passed;
    failed += r.failed;
    skipped += r.skipped;
  }
  const bad = results.filter((r) => r.failed > 0);
  process.stdout.write(`\n${results.length} file(s) in ${fmtMs(Date.now() - started)}\n`);
  if (bad.length) {
    process.stdout.write('failed:\n');
    for (const r of bad) {
      const tests = r.total > r.passed ? `${r.total - r.passed} failing test(s)` : '';
      process.stdout.write(`  ${r.rel}: ${[tests, r.problem].filter(Boolean).join('; ')}\n`);
    }
  }
  if (interrupted) process.stdout.write('interrupted: remaining files were not run\n');
  process.stdout.write(`${finalLine(passed, failed, skipped)}\n`);
  process.exitCode = interrupted ? 130 : failed > 0 ? 1 : 0;
}

await main();
