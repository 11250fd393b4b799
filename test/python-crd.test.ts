/**
 * The official Kubernetes Python client's CustomObjectsApi on custom resources (issue 26):
 * test/python/crd_client.py creates a namespaced and a cluster-scoped CRD (status and scale
 * subresources) with ApiextensionsV1Api, waits for Established, then creates, gets, lists (with a
 * label selector), merge-patches, patches /status, gets, patches and replaces /scale, deletes and
 * re-reads (404) one custom resource of each scope, and prints what the client saw as one JSON
 * document. It must equal test/python/crd_expected.json, what the reference kube-apiserver
 * 1.24.17 answered (the run's namespace and group replaced by <ns> and <group>).
 *
 * Runs against this server, or any cluster with TEST_KUBECONFIG (test/target.ts). The client lives
 * in the virtualenv of test/python/setup.sh (.cache/pyvenv, or $PYVENV): under CI=true a missing
 * venv FAILS the suite; elsewhere the suite runs setup.sh itself (as test/python-kinds.test.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { startTarget, type Target } from './target.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const VENV = process.env.PYVENV ?? join(ROOT, '.cache', 'pyvenv');
const PYTHON = join(VENV, 'bin', 'python');
const SCRIPT = join(ROOT, 'test', 'python', 'crd_client.py');
const SETUP = join(ROOT, 'test', 'python', 'setup.sh');
const EXPECTED = join(ROOT, 'test', 'python', 'crd_expected.json');

function run(cmd: string, args: string[], timeout: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, PYVENV: VENV } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as unknown as { code: number }).code : null) : 0;
      resolve({ code, stdout, stderr: stderr + (err && code === null ? `\n${err.message}` : '') });
    });
  });
}

let target: Target;
let ns = '';

test.before(async () => {
  if (process.env.CI === 'true') {
    if (!existsSync(PYTHON)) {
      const why = `Python client venv missing at ${VENV}: CI must run "bash test/python/setup.sh" before the tests (no skipping under CI)`;
      console.error(`FAIL: ${why}`);
      throw new Error(why);
    }
  } else {
    const s = await run('bash', [SETUP], 600_000);
    if (s.code !== 0) throw new Error(`test/python/setup.sh failed (${s.code}):\n${s.stdout}\n${s.stderr}`);
  }
  target = await startTarget();
  ns = await target.createNamespace('crd-py');
});

test.after(async () => {
  if (ns) await target?.client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  await target?.close();
});

test('CustomObjectsApi: namespaced and cluster custom resources, status and scale, as on kube-apiserver 1.24', async () => {
  const group = `${ns}.example.test`;
  const r = await run(PYTHON, [SCRIPT, target.kubeconfig, ns, group], 120_000);
  assert.is(r.code, 0, `crd_client.py exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  const got = JSON.parse(r.stdout.trim().split(group).join('<group>').split(ns).join('<ns>'));
  if (process.env.UPDATE_GOLDEN && target.reference) {
    (await import('node:fs')).writeFileSync(EXPECTED, `${JSON.stringify(got, null, 2)}\n`);
    return;
  }
  assert.equal(got, JSON.parse(readFileSync(EXPECTED, 'utf8')));
});

test.run();
