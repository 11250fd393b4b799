/**
 * The official Kubernetes Python client's virtualenv for the Python suites (test/python-*.test.ts):
 * made by test/python/setup.sh (default .cache/pyvenv, or $PYVENV). Under CI=true a missing venv
 * FAILS the suite (CI must run setup.sh first); elsewhere the suite runs setup.sh itself
 * (idempotent: it returns at once when the venv matches requirements.txt).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';

const ROOT = new URL('..', import.meta.url).pathname;
export const VENV = process.env.PYVENV ?? join(ROOT, '.cache', 'pyvenv');
const PYTHON = join(VENV, 'bin', 'python');
const SETUP = join(ROOT, 'test', 'python', 'setup.sh');
/** pip installs can take minutes. */
const SETUP_TIMEOUT_MS = 600_000;

export interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], timeout: number): Promise<PythonRun> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, PYVENV: VENV } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as unknown as { code: number }).code : null) : 0;
      resolve({ code, stdout, stderr: stderr + (err && code === null ? `\n${err.message}` : '') });
    });
  });
}

/** Have the venv (see the file comment); throws (and says why on stderr) when there is none. */
export async function ensurePythonVenv(): Promise<void> {
  if (process.env.CI === 'true') {
    if (!existsSync(PYTHON)) {
      // uvu does not print a before-hook error: say it, then fail every test of the file.
      const why = `Python client venv missing at ${VENV}: CI must run "bash test/python/setup.sh" before the tests (no skipping under CI)`;
      console.error(`FAIL: ${why}`);
      throw new Error(why);
    }
    return;
  }
  const s = await run('bash', [SETUP], SETUP_TIMEOUT_MS);
  if (s.code !== 0) {
    console.error(`FAIL: test/python/setup.sh failed (${s.code}):\n${s.stdout}\n${s.stderr}`);
    throw new Error('test/python/setup.sh failed');
  }
}

/** Run test/python/<script> with the venv's python; never rejects on a non-zero exit. */
export const runPythonScript = (script: string, args: string[], timeoutMs: number): Promise<PythonRun> => run(PYTHON, [join(ROOT, 'test', 'python', script), ...args], timeoutMs);
