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
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTarget, type Target } from './target.ts';
import { ensurePythonVenv, runPythonScript } from './python-venv.ts';

const EXPECTED = join(new URL('..', import.meta.url).pathname, 'test', 'python', 'crd_expected.json');

let target: Target;
let ns = '';

test.before(async () => {
  await ensurePythonVenv();
  target = await startTarget();
  ns = await target.createNamespace('crd-py');
});

test.after(async () => {
  if (ns) await target?.client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  await target?.close();
});

test('CustomObjectsApi: namespaced and cluster custom resources, status and scale, as on kube-apiserver 1.24', async () => {
  const group = `${ns}.example.test`;
  const r = await runPythonScript('crd_client.py', [target.kubeconfig, ns, group], 120_000);
  assert.is(r.code, 0, `crd_client.py exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  const got = JSON.parse(r.stdout.trim().split(group).join('<group>').split(ns).join('<ns>'));
  if (process.env.UPDATE_GOLDEN && target.reference) {
    writeFileSync(EXPECTED, `${JSON.stringify(got, null, 2)}\n`);
    return;
  }
  assert.equal(got, JSON.parse(readFileSync(EXPECTED, 'utf8')));
});

test.run();
