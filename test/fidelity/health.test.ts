/**
 * /healthz, /livez, /readyz list kube-apiserver 1.24's checks, by name and in order (the upstream
 * e2e spec "health handlers should contain necessary checks" requires most of them), with the
 * same status codes and bodies for single checks, unknown checks and exclusions. Runs on this
 * server and, with TEST_KUBECONFIG, on the reference.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';

let t: Target;

test.before(async () => {
  t = await startTarget();
});

test.after(async () => {
  await t.close();
});

/** The checks kube-apiserver 1.24.17 reports with its default flags (its /livez?verbose). */
const LIVEZ = [
  'ping',
  'log',
  'etcd',
  'poststarthook/start-kube-apiserver-admission-initializer',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/priority-and-fairness-config-consumer',
  'poststarthook/priority-and-fairness-filter',
  'poststarthook/start-apiextensions-informers',
  'poststarthook/start-apiextensions-controllers',
  'poststarthook/crd-informer-synced',
  'poststarthook/bootstrap-controller',
  'poststarthook/rbac/bootstrap-roles',
  'poststarthook/scheduling/bootstrap-system-priority-classes',
  'poststarthook/priority-and-fairness-config-producer',
  'poststarthook/start-cluster-authentication-info-controller',
  'poststarthook/start-kube-aggregator-informers',
  'poststarthook/apiservice-registration-controller',
  'poststarthook/apiservice-status-available-controller',
  'poststarthook/kube-apiserver-autoregistration',
  'autoregister-completion',
  'poststarthook/apiservice-openapi-controller',
  'poststarthook/apiservice-openapiv3-controller',
];
const READYZ = [...LIVEZ.slice(0, 3), 'informer-sync', ...LIVEZ.slice(3), 'shutdown'];

const verbose = (checks: string[], endpoint: string): string => `${checks.map((c) => `[+]${c} ok`).join('\n')}\n${endpoint} check passed\n`;

test('?verbose lists every check in kube-apiserver order (healthz = livez checks)', async () => {
  for (const [endpoint, checks] of [['healthz', LIVEZ], ['livez', LIVEZ], ['readyz', READYZ]] as const) {
    const r = await t.client.request('GET', `/${endpoint}?verbose`, { headers: { accept: '*/*' } });
    assert.is(r.status, 200, `/${endpoint}?verbose: ${r.text}`);
    assert.is(r.text, verbose([...checks], endpoint), `/${endpoint}?verbose body`);
  }
});

test('single checks, including names with slashes; unknown and readyz-only checks', async () => {
  const cases: [string, number, string][] = [
    ['/livez/etcd', 200, 'ok'],
    ['/readyz/informer-sync', 200, 'ok'],
    ['/readyz/shutdown', 200, 'ok'],
    ['/livez/poststarthook/rbac/bootstrap-roles', 200, 'ok'],
    ['/healthz/log', 200, 'ok'],
    ['/livez/informer-sync', 404, '404 page not found\n'],
    ['/healthz/shutdown', 404, '404 page not found\n'],
    ['/readyz/no-such-check', 404, '404 page not found\n'],
  ];
  for (const [i, [path, code, body]] of cases.entries()) {
    const r = await t.client.request('GET', path, { headers: { accept: '*/*' } });
    assert.is(r.status, code, `case ${i} ${path}: ${r.text}`);
    assert.is(r.text, body, `case ${i} ${path} body`);
  }
});

test('?exclude marks the check excluded and keeps the order', async () => {
  const r = await t.client.request('GET', '/readyz?verbose&exclude=etcd&exclude=shutdown', { headers: { accept: '*/*' } });
  assert.is(r.status, 200, r.text);
  const lines = r.text.split('\n');
  assert.is(lines[2], '[+]etcd excluded: ok', r.text);
  assert.is(lines[READYZ.length - 1], '[+]shutdown excluded: ok', r.text);
});

test.run();
