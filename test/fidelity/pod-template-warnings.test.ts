/**
 * The pod-spec `Warning` headers of kube-apiserver 1.24 (pkg/api/pod/warnings.go): a Pod's on
 * create only (none on update), and every workload's template under its own field path —
 * Deployment, ReplicaSet, StatefulSet, DaemonSet, Job (`spec.template`), CronJob
 * (`spec.jobTemplate.spec.template`, before its TZ warning), PodTemplate (`template`) and
 * ReplicationController (`template` on create; on an update that changed the spec, the OLD
 * template under `spec.template`, kube's swapped arguments). An update that leaves the generation
 * (a DaemonSet: its template generation) alone warns nothing.
 *
 *   node --import tsx test/run.ts test/fidelity/pod-template-warnings.test.ts
 *   TEST_KUBECONFIG=/tmp/ref-leftovers/kubeconfig node --import tsx test/run.ts test/fidelity/pod-template-warnings.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show, warnings } from '../assertions.ts';
import { namespacedSuite } from './storage-helpers.ts';

const S = namespacedSuite(test, 'ptw', 'pods');

/** A pod spec that trips every warning a valid spec can: deprecated labels, plugins, duplicates, fractional bytes. */
const noisySpec = () => ({
  nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' },
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'Exists' }, { key: 'failure-domain.beta.kubernetes.io/zone', operator: 'Exists' }] }] },
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'beta.kubernetes.io/instance-type', operator: 'Exists' }] } }],
    },
  },
  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'failure-domain.beta.kubernetes.io/region', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'w' } } }],
  volumes: [
    { name: 'g', gitRepo: { repository: 'https://example.com/r.git' } },
    { name: 'e', emptyDir: {} },
  ],
  hostAliases: [
    { ip: '10.0.0.1', hostnames: ['a'] },
    { ip: '10.0.0.1', hostnames: ['b'] },
  ],
  imagePullSecrets: [{ name: 's' }, { name: 's' }, { name: '' }],
  initContainers: [{ name: 'i', image: 'busybox:1.36', resources: { requests: { 'ephemeral-storage': '1.5' } } }],
  containers: [
    {
      name: 'c',
      image: 'busybox:1.36',
      env: [
        { name: 'A', value: '1' },
        { name: 'A', value: '2' },
      ],
      resources: { limits: { memory: '1000.5' }, requests: { memory: '0.5Ki' } }, // 0.5Ki = 512: whole bytes
    },
  ],
});
const SECCOMP = { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default', 'container.seccomp.security.alpha.kubernetes.io/c': 'runtime/default' };
const ANNOTATIONS = { 'scheduler.alpha.kubernetes.io/critical-pod': '', ...SECCOMP };

/** The warnings of noisySpec() under `base` ('' for a Pod), in kube's order; `seccomp`: its annotation warnings too. */
function expected(base: string, seccomp: boolean): string[] {
  const p = base ? `${base}.` : '';
  const sp = `${p}spec`;
  const seccompMsg = 'deprecated since v1.19, non-functional in v1.25+; use the "seccompProfile" field instead';
  return [
    `${sp}.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`,
    `${sp}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
    `${sp}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key: beta.kubernetes.io/instance-type is deprecated since v1.17; use "node.kubernetes.io/instance-type" instead`,
    `${sp}.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/region is deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
    `${p}metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead`,
    `${sp}.volumes[0].gitRepo: deprecated in v1.11`,
    `${sp}.hostAliases[1].ip: duplicate ip "10.0.0.1"`,
    `${sp}.imagePullSecrets[1].name: duplicate name "s"`,
    `${sp}.imagePullSecrets[2].name: invalid empty name ""`,
    ...(seccomp ? [`${p}metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: ${seccompMsg}`] : []),
    `${sp}.initContainers[0].resources.requests[ephemeral-storage]: fractional byte value "1500m" is invalid, must be an integer`,
    ...(seccomp ? [`${p}metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: ${seccompMsg}`] : []),
    `${sp}.containers[0].resources.limits[memory]: fractional byte value "1000500m" is invalid, must be an integer`,
    `${sp}.containers[0].env[1].name: duplicate name "A"`,
  ];
}

const template = (labels: Record<string, string>, restartPolicy?: string) => ({
  metadata: { labels, annotations: ANNOTATIONS },
  spec: { ...noisySpec(), ...(restartPolicy ? { restartPolicy } : {}) },
});
const coll = (gv: string, resource: string) => `${gv === 'v1' ? '/api/v1' : `/apis/${gv}`}/namespaces/${S.ns}/${resource}`;
const post = (gv: string, resource: string, b: unknown) => S.t.client.request('POST', coll(gv, resource), { body: b });
const patch = (gv: string, resource: string, name: string, b: unknown) =>
  S.t.client.request('PATCH', `${coll(gv, resource)}/${name}`, { body: b, contentType: 'application/merge-patch+json' });

test.before(async () => {
  const sa = await S.t.client.request('POST', `/api/v1/namespaces/${S.ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`service account: ${show(sa)}`);
});

test('Pod: every warning on create (seccomp annotations become fields first: none for them); none on update', async () => {
  const r = await S.post({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations: ANNOTATIONS }, spec: noisySpec() });
  assert.is(r.status, 201, show(r));
  assert.equal(warnings(r), expected('', false));
  const u = await patch('v1', 'pods', 'p', { metadata: { labels: { x: 'y' } }, spec: { activeDeadlineSeconds: 30 } });
  assert.is(u.status, 200, show(u));
  assert.equal(warnings(u), []);
});

test('apps/v1 workloads and Job: spec.template on create; again only when the generation moved', async () => {
  const sel = { matchLabels: { app: 'w' } };
  const cases: [string, string, string, unknown, unknown][] = [
    ['apps/v1', 'deployments', 'Deployment', { replicas: 0, selector: sel, template: template({ app: 'w' }) }, { replicas: 2 }],
    ['apps/v1', 'replicasets', 'ReplicaSet', { replicas: 0, selector: sel, template: template({ app: 'w' }) }, { replicas: 2 }],
    ['apps/v1', 'statefulsets', 'StatefulSet', { replicas: 0, serviceName: 's', selector: sel, template: template({ app: 'w' }) }, { replicas: 2 }],
    ['batch/v1', 'jobs', 'Job', { suspend: true, template: template({}, 'Never') }, { suspend: false }],
  ];
  for (const [gv, resource, kind, spec, specChange] of cases) {
    const c = await post(gv, resource, { apiVersion: gv, kind, metadata: { name: 'w' }, spec });
    assert.is(c.status, 201, `${kind}: ${show(c)}`);
    assert.equal(warnings(c), expected('spec.template', true), kind);
    const meta = await patch(gv, resource, 'w', { metadata: { labels: { x: 'y' } } });
    assert.is(meta.status, 200, `${kind}: ${show(meta)}`);
    assert.equal(warnings(meta), [], `${kind} labels only`);
    const u = await patch(gv, resource, 'w', { spec: specChange });
    assert.is(u.status, 200, `${kind}: ${show(u)}`);
    assert.equal(warnings(u), expected('spec.template', true), `${kind} spec change`);
  }
});

test('DaemonSet: warns again only when the template (its template generation) changed', async () => {
  const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'w' } }, template: template({ app: 'w' }) } };
  const c = await post('apps/v1', 'daemonsets', ds);
  assert.is(c.status, 201, show(c));
  assert.equal(warnings(c), expected('spec.template', true));
  const spec = await patch('apps/v1', 'daemonsets', 'd', { spec: { minReadySeconds: 5 } });
  assert.is(spec.status, 200, show(spec));
  assert.is(spec.json.metadata.generation, 2);
  assert.equal(warnings(spec), [], 'spec change outside the template');
  const tpl = await patch('apps/v1', 'daemonsets', 'd', { spec: { template: { metadata: { labels: { app: 'w', v: '2' } } } } });
  assert.is(tpl.status, 200, show(tpl));
  assert.equal(warnings(tpl), expected('spec.template', true), 'template change');
});

test('CronJob: spec.jobTemplate.spec.template, then the TZ warning', async () => {
  const tz = 'CRON_TZ or TZ used in spec.spec.schedule is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details';
  const cj = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj' }, spec: { schedule: 'TZ=UTC */5 * * * *', jobTemplate: { spec: { template: template({}, 'OnFailure') } } } };
  const c = await post('batch/v1', 'cronjobs', cj);
  assert.is(c.status, 201, show(c));
  assert.equal(warnings(c), [...expected('spec.jobTemplate.spec.template', true), tz]);
  const meta = await patch('batch/v1', 'cronjobs', 'cj', { metadata: { labels: { x: 'y' } } });
  assert.equal(warnings(meta), [tz], 'labels only: the TZ warning alone');
  const u = await patch('batch/v1', 'cronjobs', 'cj', { spec: { suspend: true } });
  assert.equal(warnings(u), [...expected('spec.jobTemplate.spec.template', true), tz], 'spec change');
});

test('PodTemplate: `template`; warns again when the template changed', async () => {
  const c = await post('v1', 'podtemplates', { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 't' }, template: template({ app: 'w' }) });
  assert.is(c.status, 201, show(c));
  assert.equal(warnings(c), expected('template', true));
  const meta = await patch('v1', 'podtemplates', 't', { metadata: { labels: { x: 'y' } } });
  assert.equal(warnings(meta), []);
  const u = await patch('v1', 'podtemplates', 't', { template: { metadata: { labels: { app: 'w', v: '2' } } } });
  assert.equal(warnings(u), expected('template', true));
});

test('ReplicationController: `template` on create; an update checks the OLD template under spec.template', async () => {
  const rc = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { replicas: 0, selector: { app: 'w' }, template: template({ app: 'w' }) } };
  const c = await post('v1', 'replicationcontrollers', rc);
  assert.is(c.status, 201, show(c));
  assert.equal(warnings(c), expected('template', true));
  // The new template is clean, the old one is not: kube warns about the old one.
  const clean = { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } };
  const u = await S.t.client.request('PUT', `${coll('v1', 'replicationcontrollers')}/rc`, { body: { ...rc, metadata: { name: 'rc', resourceVersion: c.json.metadata.resourceVersion }, spec: { ...rc.spec, template: clean } } });
  assert.is(u.status, 200, show(u));
  assert.equal(warnings(u), expected('spec.template', true));
  const again = await patch('v1', 'replicationcontrollers', 'rc', { spec: { replicas: 1 } });
  assert.equal(warnings(again), [], 'the old template is clean now');
});

test.run();
