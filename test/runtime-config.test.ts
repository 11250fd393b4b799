/**
 * `--runtime-config` as kube-apiserver 1.24 takes it: a disabled version's paths answer 404, it is
 * gone from discovery and OpenAPI (so kubectl refuses manifests of it with its own message), the
 * stored objects stay and come back when the version is enabled again, and invalid values are
 * start-up errors with kube's messages. The resource-config merge rules are unit-tested below.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeConfig, parseConfigurationMap, defaultResourceConfig } from '../internal/app/runtime-config.ts';
import { startTestServer, tempDir } from './harness.ts';
import { eventsEventKind } from '../internal/registry/events/event.ts';
import { configMapKind } from '../internal/registry/core/configmap.ts';
import { nodeArgsFor } from './server-command.ts';

const BETA_EVENTS = '/apis/events.k8s.io/v1beta1/namespaces/default/events';

test('merge rules: defaults, api/<stability>, versions, resources, core keys', () => {
  const d = defaultResourceConfig();
  assert.ok(d.resourceEnabled('', 'v1', 'pods'));
  assert.ok(d.resourceEnabled('events.k8s.io', 'v1beta1', 'events'), 'legacy beta resource on by default');
  assert.ok(d.resourceEnabled('storage.k8s.io', 'v1beta1', 'csistoragecapacities'));
  assert.not.ok(d.resourceEnabled('storage.k8s.io', 'v1alpha1', 'volumeattachments'));
  const cases: [string, [string, string, string, boolean][]][] = [
    ['events.k8s.io/v1beta1=false', [['events.k8s.io', 'v1beta1', 'events', false], ['events.k8s.io', 'v1', 'events', true]]],
    ['api/beta=false', [['events.k8s.io', 'v1beta1', 'events', false], ['storage.k8s.io', 'v1beta1', 'csistoragecapacities', false], ['storage.k8s.io', 'v1', 'storageclasses', true]]],
    ['api/all=false,v1=true', [['', 'v1', 'configmaps', true], ['storage.k8s.io', 'v1', 'storageclasses', false], ['events.k8s.io', 'v1beta1', 'events', false]]],
    ['api/all=false,api/v1', [['', 'v1', 'configmaps', true], ['authorization.k8s.io', 'v1', 'subjectaccessreviews', false]]],
    ['storage.k8s.io/v1/csinodes=false', [['storage.k8s.io', 'v1', 'csinodes', false], ['storage.k8s.io', 'v1', 'csidrivers', true]]],
    ['storage.k8s.io/v1beta1=true', [['storage.k8s.io', 'v1beta1', 'volumeattachments', true]]],
    ['api/alpha=true', [['storage.k8s.io', 'v1alpha1', 'csistoragecapacities', true]]],
    // A version switch set after a resource preference wins over the default resource override.
    ['storage.k8s.io/v1beta1=false', [['storage.k8s.io', 'v1beta1', 'csistoragecapacities', false]]],
    ['autoscaling/v2beta1=false', [['autoscaling', 'v2beta1', 'horizontalpodautoscalers', false], ['autoscaling', 'v2beta2', 'horizontalpodautoscalers', true], ['autoscaling', 'v2', 'horizontalpodautoscalers', true]]],
    ['api/beta=false', [['autoscaling', 'v2beta2', 'horizontalpodautoscalers', false], ['autoscaling', 'v1', 'horizontalpodautoscalers', true]]],
  ];
  cases.forEach(([flag, checks], i) => {
    const c = runtimeConfig(flag);
    for (const [g, v, r, want] of checks) assert.is(c.resourceEnabled(g, v, r), want, `case ${i} ${flag}: ${g}/${v}/${r}`);
  });
  assert.equal([...parseConfigurationMap('a/v1=false, b/v2 ,c/v1/x=true')], [['a/v1', 'false'], ['b/v2', ''], ['c/v1/x', 'true']]);
});

test('invalid values: kube-apiserver start-up messages', () => {
  const bad: [string, string][] = [
    ['api/all=false', 'invalid key with only api/all=false'],
    ['foo.example.com/v1=false', 'unknown api groups foo.example.com'],
    ['apps/v9=true', 'group version apps/v9 that has not been registered'],
    ['apps', 'runtime-config invalid key apps'],
    ['api/beta=maybe', 'invalid value api/beta=maybe'],
    ['apps/v1=maybe', 'invalid value of apps/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ['storage.k8s.io/v1/CSINodes=false', 'invalid key storage.k8s.io/v1/CSINodes: group/version/resource and resource is always lowercase plural, not "CSINodes"'],
  ];
  for (const [flag, msg] of bad) assert.throws(() => runtimeConfig(flag), (e: Error) => e.message === msg, `${flag} → ${msg}`);
  // Groups kube knows but this server does not serve are accepted.
  runtimeConfig('apps/v1=false,batch/v1beta1=true');
});

test('a disabled version: 404, gone from discovery and OpenAPI, kubectl refuses it; objects survive re-enabling', async () => {
  const dir = tempDir();
  let s = await startTestServer({ dataDir: dir });
  const ev = { apiVersion: 'events.k8s.io/v1beta1', kind: 'Event', metadata: { name: 'e1' }, eventTime: '2026-11-25T00:00:00.000000Z', reportingController: 'x/y', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Normal', regarding: { kind: 'Pod', name: 'p', namespace: 'default' } };
  assert.is((await s.client.request('POST', BETA_EVENTS, { body: ev })).status, 201);
  await s.close();

  s = await startTestServer({ dataDir: dir, runtimeConfig: 'events.k8s.io/v1beta1=false' });
  try {
    const r = await s.client.request('GET', `${BETA_EVENTS}/e1`);
    assert.is(r.status, 404);
    assert.is(r.json.kind, 'Status');
    assert.is((await s.client.request('GET', '/apis/events.k8s.io/v1beta1')).status, 404);
    const group = (await s.client.request('GET', '/apis/events.k8s.io')).json;
    assert.equal(group.versions, [{ groupVersion: 'events.k8s.io/v1', version: 'v1' }]);
    const v3 = (await s.client.request('GET', '/openapi/v3')).json;
    assert.ok(v3.paths['apis/events.k8s.io/v1'], 'v1 kept');
    assert.not.ok(v3.paths['apis/events.k8s.io/v1beta1'], 'v1beta1 gone from OpenAPI v3');
    const v2 = (await s.client.request('GET', '/openapi/v2')).json;
    assert.not.ok(Object.keys(v2.paths).some((p) => p.startsWith('/apis/events.k8s.io/v1beta1/')), 'v1beta1 gone from OpenAPI v2');
    // The same stored Event through the version still served.
    assert.is((await s.client.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events/e1')).status, 200);

    // kubectl (real client, discovery-driven) refuses a manifest of the disabled version.
    const f = join(dir, 'ev.yaml');
    writeFileSync(f, `apiVersion: events.k8s.io/v1beta1\nkind: Event\nmetadata:\n  name: e2\n  namespace: default\neventTime: "2026-11-25T00:00:00.000000Z"\nreportingController: x/y\nreportingInstance: i\naction: A\nreason: R\ntype: Normal\nregarding:\n  kind: Pod\n  name: p\n  namespace: default\n`);
    const cache = join(dir, 'kcache');
    mkdirSync(cache, { recursive: true });
    const out = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile('kubectl', ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', cache, 'apply', '-f', f], { timeout: 30_000 }, (err, _o, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr: String(stderr) })),
    );
    assert.is(out.code, 1, out.stderr);
    assert.match(out.stderr, 'no matches for kind "Event" in version "events.k8s.io/v1beta1"');
  } finally {
    await s.close();
  }

  s = await startTestServer({ dataDir: dir });
  try {
    assert.is((await s.client.request('GET', `${BETA_EVENTS}/e1`)).status, 200, 'served again once enabled');
  } finally {
    await s.close();
  }
});

test('--runtime-config autoscaling/v2beta1=false: the other HPA versions still serve the same objects', async () => {
  const s = await startTestServer({ dataDir: tempDir(), runtimeConfig: 'autoscaling/v2beta1=false' });
  try {
    const group = (await s.client.request('GET', '/apis/autoscaling')).json;
    assert.equal(group.versions.map((v: { version: string }) => v.version), ['v2', 'v1', 'v2beta2']);
    assert.is((await s.client.request('GET', '/apis/autoscaling/v2beta1/namespaces/default/horizontalpodautoscalers')).status, 404);
    const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3 } };
    assert.is((await s.client.request('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', { body: hpa })).status, 201);
    const v1 = (await s.client.request('GET', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/h')).json;
    assert.is(v1.spec.targetCPUUtilizationPercentage, 80);
  } finally {
    await s.close();
  }
});

test('--runtime-config api/all=false,v1=true: only the core group is served', async () => {
  // One thread: the test adds kinds (code) to the leader's registry, which a serving thread does not share.
  const s = await startTestServer({ runtimeConfig: 'api/all=false,v1=true', workers: 1 });
  try {
    assert.equal((await s.client.request('GET', '/apis')).json.groups, []);
    assert.is((await s.client.request('GET', '/apis/authorization.k8s.io/v1')).status, 404);
    assert.is((await s.client.request('GET', '/api/v1/namespaces')).status, 200);
    // It applies to kinds added at run time too: a kind of a disabled group version stays
    // unserved; a kind of a group kube-apiserver does not know (as a CRD's) is outside it.
    const registry = s.server.registry;
    assert.is(registry.add(eventsEventKind), undefined);
    assert.is((await s.client.request('GET', '/apis/events.k8s.io/v1/events')).status, 404);
    assert.ok(registry.add({ ...configMapKind, group: 'widgets.example.test', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', shortNames: [] }));
    assert.equal((await s.client.request('GET', '/apis')).json.groups.map((g: { name: string }) => g.name), ['widgets.example.test']);
    assert.is((await s.client.request('GET', '/apis/widgets.example.test/v1/widgets')).status, 200);
  } finally {
    await s.close();
  }
});

test('a bad --runtime-config fails start-up with the message', async () => {
  const dir = tempDir();
  const proc = spawn(process.execPath, [...nodeArgsFor('cmd/apiserver.ts'), '--data-dir', dir, '--secure-port', '0', '--runtime-config', 'foo.example.com/v1=false'], { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c));
  assert.is(await new Promise<number | null>((r) => proc.on('exit', r)), 1);
  assert.match(err, 'Error: unknown api groups foo.example.com');
});

test.run();
