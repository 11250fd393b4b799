/**
 * client-go v0.24.17's typed clients, speaking Protobuf, against the kinds of issue 10: one object of
 * each of PersistentVolume, PersistentVolumeClaim, Pod, ServiceAccount, StorageClass,
 * VolumeAttachment, CSIDriver, CSINode and CSIStorageCapacity is listed, watched (ADDED … DELETED),
 * created, read, listed, updated, written through UpdateStatus (PV, PVC, Pod, VolumeAttachment),
 * rejected on an immutable change, deleted; a Pod also gets an ephemeral container and is evicted
 * with EvictV1. The Go program (test/go/kinds-client/main.go, built through the Go module proxy into
 * .cache/go, as test/client-go-openapi.test.ts does) prints one JSON line per step; each line must
 * equal test/go/kinds-client/expected.jsonl, what the reference kube-apiserver 1.24.17 answered
 * (after replacing this run's namespace and name suffix, the ServiceAccount admission's random
 * `kube-api-access-xxxxx` suffix and Go pointer addresses that kube prints in one message).
 *
 * Runs against this server, or against any cluster with TEST_KUBECONFIG (test/target.ts):
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/client-go-kinds.test.ts
 * A missing Go toolchain or module proxy fails the suite (never a silent skip).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { goEnv, goProgram } from './go-env.ts';
import { startTarget, type Target } from './target.ts';
import { CLIENT_PROGRAM_KINDS, kindDiffs } from './client-steps.ts';

const PROGRAM = goProgram('kinds-client');
const KINDS = CLIENT_PROGRAM_KINDS;

/** One line the Go program prints. */
interface StepResult {
  [field: string]: unknown;
  kind: string;
  step: string;
  ok: boolean;
  code?: number;
  reason?: string;
  message?: string;
  data?: Record<string, unknown>;
}

let target: Target;
let ns: string;
const suffix = randomBytes(3).toString('hex');
let lines: StepResult[] = [];
let runError = '';

/** Replace what differs between runs and servers by fixed placeholders (string-wise, so keys and values alike). */
function normalizeLine(line: string): string {
  return line
    .split(ns).join('<ns>')
    .split(suffix).join('<suffix>')
    .replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-xxxxx')
    .replace(/\(0x[0-9a-f]+\)/g, '(0xPTR)');
}

/** Make sure the namespace's `default` ServiceAccount exists (the reference has no controller-manager to create it). */
async function ensureDefaultServiceAccount(): Promise<void> {
  const path = `/api/v1/namespaces/${ns}/serviceaccounts`;
  for (let i = 0; i < 20; i++) {
    const got = await target.client.request('GET', `${path}/default`);
    if (got.status === 200) return;
    // This server creates it right after the namespace: give it a moment before creating it here.
    if (!target.reference && i < 10) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    const r = await target.client.request('POST', path, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
    if (r.status === 201 || r.status === 409) return;
    // Without the ServiceAccount kind the Pod steps fail on their own; say why here too.
    console.error(`creating ServiceAccount ${ns}/default: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    return;
  }
}

test.before(async () => {
  target = await startTarget();
  ns = await target.createNamespace('kinds-go');
  await ensureDefaultServiceAccount();
  // Asynchronously: when the target is this server, it runs in this process and must keep answering.
  const opts = {
    cwd: PROGRAM,
    env: goEnv(),
    timeout: 9 * 60 * 1000,
    maxBuffer: 16 * 1024 * 1024,
  };
  let out = '';
  try {
    out = (await promisify(execFile)('go', ['run', '.', target.kubeconfig, ns, suffix], opts)).stdout;
  } catch (e) {
    // Whatever it printed before failing is still compared, step by step.
    out = String((e as { stdout?: string }).stdout ?? '');
    runError = `go run failed (Go and the module proxy are required): ${String((e as { stderr?: string }).stderr || (e as Error).message)}`;
  }
  lines = out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(normalizeLine(l)) as StepResult);
});

test.after(async () => {
  if (ns) await target?.client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  await target?.close();
});

const expected: StepResult[] = readFileSync(path.join(PROGRAM, 'expected.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as StepResult);

test('expected.jsonl covers every kind', () => {
  assert.equal([...new Set(expected.map((e) => e.kind))], KINDS);
});

for (const kind of KINDS) {
  test(`client-go protobuf: ${kind}`, () => {
    const want = expected.filter((e) => e.kind === kind);
    const got = lines.filter((e) => e.kind === kind);
    if (runError && got.length === 0) assert.unreachable(runError);
    const bad = kindDiffs(want, got);
    assert.ok(bad.length === 0, `${kind}: ${bad.length} field(s) differ from kube-apiserver 1.24:\n  ${bad.join('\n  ')}${runError ? `\n${runError}` : ''}`);
  });
}

test.run();
