/**
 * The official Kubernetes Python client (CoreV1Api, StorageV1Api typed model objects) on the kinds
 * of issue 10: test/python/kinds_client.py creates, reads, lists, patches, replaces, reads and
 * patches `/status` of (PV, PVC, Pod, VolumeAttachment), evicts (Pod), deletes and re-reads one
 * object of each of ServiceAccount, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass,
 * VolumeAttachment, CSIDriver, CSINode and CSIStorageCapacity, printing one JSON line per step.
 * Each line must equal test/python/kinds_expected.jsonl, what the reference kube-apiserver 1.24.17
 * answered (after replacing this run's namespace and name suffix, the random
 * `kube-api-access-xxxxx` suffix and Go pointer addresses printed in one kube message).
 *
 * Runs against this server, or any cluster with TEST_KUBECONFIG (test/target.ts). The client lives
 * in the virtualenv of test/python/setup.sh (.cache/pyvenv, or $PYVENV): under CI=true a missing
 * venv FAILS the suite; elsewhere the suite runs setup.sh itself (as test/python-client.test.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTarget, type Target } from './target.ts';
import { CLIENT_PROGRAM_KINDS, kindDiffs } from './client-steps.ts';
import { ensurePythonVenv, runPythonScript } from './python-venv.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const EXPECTED = join(ROOT, 'test', 'python', 'kinds_expected.jsonl');
const KINDS = CLIENT_PROGRAM_KINDS;

/** One line the script prints. */
interface StepLine {
  kind: string;
  step: string;
  ok: boolean;
  [k: string]: unknown;
}

let target: Target;
let ns = '';
const suffix = randomBytes(3).toString('hex');
let lines: StepLine[] = [];
let runError = '';

function normalizeLine(line: string): string {
  return line
    .split(ns).join('<ns>')
    .split(suffix).join('<suffix>')
    .replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-xxxxx')
    .replace(/\(0x[0-9a-f]+\)/g, '(0xPTR)');
}

test.before(async () => {
  await ensurePythonVenv();
  target = await startTarget();
  ns = await target.createNamespace('kinds-py');
  // The reference has no controller-manager: give the namespace its default ServiceAccount (Pods need it).
  for (let i = 0; i < 10; i++) {
    const got = await target.client.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    if (got.status === 200) break;
    if (!target.reference && i < 9) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    await target.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  }
  const r = await runPythonScript('kinds_client.py', [target.kubeconfig, ns, suffix], 120_000);
  if (r.code !== 0) runError = `kinds_client.py exited ${r.code}:\n${r.stderr}\n${r.stdout}`;
  try {
    lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(normalizeLine(l)) as StepLine);
  } catch (e) {
    runError += `\nunparseable output (${(e as Error).message}):\n${r.stdout}`;
  }
});

test.after(async () => {
  if (ns) await target?.client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  await target?.close();
});

const expected: StepLine[] = readFileSync(EXPECTED, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as StepLine);

test('kinds_expected.jsonl covers every kind', () => {
  assert.equal([...new Set(expected.map((e) => e.kind))], KINDS);
});

for (const kind of KINDS) {
  test(`Python client: ${kind}`, () => {
    if (runError) assert.unreachable(runError);
    const want = expected.filter((e) => e.kind === kind);
    const got = lines.filter((e) => e.kind === kind);
    const bad = kindDiffs(want, got);
    assert.ok(bad.length === 0, `${kind}: ${bad.length} field(s) differ from kube-apiserver 1.24:\n  ${bad.join('\n  ')}`);
  });
}

test.run();
