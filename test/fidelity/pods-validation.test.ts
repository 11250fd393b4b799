/**
 * Pod validation as kube-apiserver 1.24 answers it, case by case: every Pod of
 * test/fidelity/pods/invalid-cases.ts is created and its answer (the 422 causes as
 * `reason field: message`, sorted, or `status message`) must equal the one recorded from the
 * reference in test/fidelity/golden/pod-validation.json. The suite checks the reference against
 * the golden file too, so the file is kube's answer. Regenerate it from the reference:
 *
 *   UPDATE_GOLDEN=1 TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/pods-validation.test.ts
 *
 * Go prints pointer addresses in some values (`(*core.ExecAction)(0xc000…)`); they are compared
 * as `0xADDR`. Pods carry `serviceAccountName: default` (created on the reference, whose
 * ServiceAccount admission needs it) and `automountServiceAccountToken: false`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { CASES } from './pods/invalid-cases.ts';

const GOLDEN = new URL('./golden/pod-validation.json', import.meta.url);
let t: Target;
let ns: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('podval');
  if (t.reference) await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
});
/** Remove every Pod of the suite's namespace at once (the reference has no namespace controller). */
async function removePods(): Promise<void> {
  const l = await t.client.request('GET', `/api/v1/namespaces/${ns}/pods`);
  for (const p of ((l.json as any)?.items ?? []) as any[]) {
    await t.client.request('DELETE', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 } });
  }
}

test.after(async () => {
  await removePods();
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const addresses = (s: string): string => s.replace(/0x[0-9a-f]+/g, '0xADDR');

test('every invalid Pod gets the reference answer', async () => {
  const got: Record<string, unknown> = {};
  for (const [name, spec, meta] of CASES) {
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(meta ?? {}) }, spec: { serviceAccountName: 'default', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec } };
    const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/pods`, { body });
    const j = r.json as any;
    got[name] = r.status === 422 ? j.details.causes.map((c: any) => addresses(`${c.reason} ${c.field}: ${c.message}`)).sort() : `${r.status} ${j?.message ?? ''}`;
  }
  if (process.env.UPDATE_GOLDEN && t.reference) writeFileSync(GOLDEN, `${JSON.stringify(got, null, 1)}\n`);
  const want = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>;
  for (const [name] of CASES) assert.equal(got[name], want[name], name);
});

test.run();
