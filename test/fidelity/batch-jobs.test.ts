/**
 * Job (batch/v1) as kube-apiserver 1.24 serves it: defaults (parallelism/completions, backoffLimit,
 * completionMode, suspend, the labels copied from the template), the generated selector and
 * `controller-uid`/`job-name` template labels unless manualSelector, the job-tracking annotation
 * dropped (JobTrackingWithFinalizers off in 1.24), ValidateJob's messages, the immutable fields and
 * the scheduling directives a suspended Job may change, `/status`, the `status.successful` field
 * selector, the Table (printJob), Protobuf, and DELETE orphaning by default with kube's Warning.
 * No controller runs: no Pods appear.
 *
 *   node --import tsx test/run.ts test/fidelity/batch-jobs.test.ts
 *   TEST_KUBECONFIG=/tmp/ref-batch/kubeconfig node --import tsx test/run.ts test/fidelity/batch-jobs.test.ts
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';
import { MERGE, defaultedContainer } from './apps-helpers.ts';
import { body, invalidStatus, namespacedSuite, protobufRoundTrip, same, table, watchEvents, type Cause } from './storage-helpers.ts';

const S = namespacedSuite(test, 'job', 'jobs', 'batch/v1');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const DELETE_WARNING = '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"';

const podSpec = (fields: Record<string, unknown> = {}) => ({ containers: [{ name: 'c', image: 'busybox:1.36' }], restartPolicy: 'Never', ...fields });
const job = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, ...meta },
  spec: { template: { spec: podSpec() }, ...spec },
});
const post = (b: unknown) => S.post(b);
/** `body` with every UID (also inside messages) as `<uid>`. */
const norm = (r: HttpResult) => JSON.parse(JSON.stringify(body(r, S.names)).replace(UUID, '<uid>'));
const invalidJob = (name: string, causes: Cause[]) => invalidStatus('Job', name, causes, 'batch');
/** The defaulted pod spec of a Job's template. */
const defaultedPod = (fields: Record<string, unknown> = {}) => ({
  containers: [defaultedContainer('c', 'busybox:1.36', 'IfNotPresent')],
  restartPolicy: 'Never',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  securityContext: {},
  schedulerName: 'default-scheduler',
  ...fields,
});

test('create: defaults, the generated selector and labels, status {}, generation 1, no tracking annotation', async () => {
  const r = await post({ ...job('one', {}, { annotations: { 'batch.kubernetes.io/job-tracking': '' } }), status: { succeeded: 3 } });
  assert.is(r.status, 201, show(r));
  const j = r.json as any;
  assert.is(j.spec.selector.matchLabels['controller-uid'], j.metadata.uid, 'the selector names the uid');
  same(
    norm(r),
    {
      kind: 'Job',
      apiVersion: 'batch/v1',
      metadata: { name: 'one', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>', labels: { 'controller-uid': '<uid>', 'job-name': 'one' } },
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        selector: { matchLabels: { 'controller-uid': '<uid>' } },
        template: { metadata: { creationTimestamp: null, labels: { 'controller-uid': '<uid>', 'job-name': 'one' } }, spec: defaultedPod() },
        completionMode: 'NonIndexed',
        suspend: false,
      },
      status: {},
    },
    'created',
    r,
  );
  // Labels come from the template; parallelism alone keeps completions unset.
  const l = await post(job('labels', { parallelism: 3, template: { metadata: { labels: { app: 'x' } }, spec: podSpec() } }));
  assert.is(l.status, 201, show(l));
  const lj = norm(l);
  // Go's SetDefaults_Job shares the template's label map: the generated labels show on the Job too.
  assert.equal(lj.metadata.labels, { app: 'x', 'controller-uid': '<uid>', 'job-name': 'labels' });
  assert.is(lj.spec.completions, undefined);
  assert.is(lj.spec.parallelism, 3);
  assert.equal(lj.spec.template.metadata.labels, { app: 'x', 'controller-uid': '<uid>', 'job-name': 'labels' });
});

test('create: ValidateJob messages; nothing stored', async () => {
  const cases: [unknown, Cause[]][] = [
    [
      job('bad', { parallelism: -1, backoffLimit: -2, completionMode: 'Sometimes', template: { spec: { containers: [{ name: 'c', image: 'x' }] } } }),
      [
        ['FieldValueInvalid', 'spec.parallelism', 'Invalid value: -1: must be greater than or equal to 0'],
        ['FieldValueInvalid', 'spec.backoffLimit', 'Invalid value: -2: must be greater than or equal to 0'],
        ['FieldValueNotSupported', 'spec.completionMode', 'Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"'],
        ['FieldValueRequired', 'spec.template.spec.restartPolicy', 'Required value: valid values: "OnFailure", "Never"'],
      ],
    ],
    [
      job('bad', { parallelism: 2, completionMode: 'Indexed', template: { spec: podSpec({ restartPolicy: 'Sometimes' }) } }),
      [
        ['FieldValueRequired', 'spec.completions', 'Required value: when completion mode is Indexed'],
        ['FieldValueNotSupported', 'spec.template.spec.restartPolicy', 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
        ['FieldValueNotSupported', 'spec.template.spec.restartPolicy', 'Unsupported value: "Sometimes": supported values: "OnFailure", "Never"'],
      ],
    ],
    [
      job('bad', { manualSelector: true }),
      [
        ['FieldValueRequired', 'spec.selector', 'Required value'],
        ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string(nil): `selector` does not match template `labels`'],
      ],
    ],
    [
      job('bad', { manualSelector: true, selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'b' } }, spec: podSpec() } }),
      [['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`']],
    ],
    [
      job('bad', { template: { metadata: { labels: { 'job-name': 'other' } }, spec: podSpec() } }),
      [
        ['FieldValueInvalid', 'spec.template.metadata.labels[job-name]', `Invalid value: map[string]string{"controller-uid":"<uid>", "job-name":"other"}: must be 'bad'`],
      ],
    ],
    [
      job('bad', { selector: { matchLabels: { 'controller-uid': 'mine' } } }),
      [
        ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"controller-uid":"mine"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated'],
        ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"controller-uid":"<uid>", "job-name":"bad"}: `selector` does not match template `labels`'],
      ],
    ],
    [
      job('a-name-of-sixty-two-characters-which-is-long-but-still-valid-a', { completionMode: 'Indexed', completions: 10 }),
      [['FieldValueInvalid', 'metadata.name', 'Invalid value: "a-name-of-sixty-two-characters-which-is-long-but-still-valid-a": will not able to create pod with invalid DNS label: a-name-of-sixty-two-characters-which-is-long-but-still-valid-a-9']],
    ],
  ];
  for (const [b, causes] of cases) {
    const r = await post(b);
    const name = (b as any).metadata.name;
    same(norm(r), invalidJob(name, causes), JSON.stringify((b as any).spec), r);
    assert.is((await S.t.client.request('GET', `${S.C}/${name}`)).status, 404);
  }
});

test('manualSelector: the selector and labels as sent', async () => {
  const r = await post(job('manual', { manualSelector: true, selector: { matchLabels: { app: 'm' } }, template: { metadata: { labels: { app: 'm' } }, spec: podSpec() } }));
  assert.is(r.status, 201, show(r));
  const j = norm(r);
  assert.equal(j.spec.selector, { matchLabels: { app: 'm' } });
  assert.equal(j.spec.template.metadata.labels, { app: 'm' });
  assert.is(j.spec.manualSelector, true);
});

test('update: completions, selector, completionMode and template immutable (spec errors twice); generation bumps', async () => {
  const c = await post(job('upd', { completions: 2 }));
  assert.is(c.status, 201, show(c));
  const u = await S.t.client.request('PATCH', `${S.C}/upd`, { body: { spec: { completions: 3, parallelism: -1, completionMode: 'Indexed', selector: { matchLabels: { x: 'y' } } } }, contentType: MERGE });
  const got = norm(u);
  const causes = got.details.causes.map((x: any) => [x.reason, x.field, x.field === 'spec.template' ? x.message.replace(/^(Invalid value: core\.PodTemplateSpec\{).*(\}: field is immutable)$/s, '$1…$2') : x.message]);
  assert.equal(causes, [
    ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"controller-uid":"<uid>", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated'],
    ['FieldValueInvalid', 'spec.parallelism', 'Invalid value: -1: must be greater than or equal to 0'],
    ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"controller-uid":"<uid>", "job-name":"upd"}: `selector` does not match template `labels`'],
    ['FieldValueInvalid', 'spec.parallelism', 'Invalid value: -1: must be greater than or equal to 0'],
    ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"controller-uid":"<uid>", "job-name":"upd"}: `selector` does not match template `labels`'],
    ['FieldValueInvalid', 'spec.completions', 'Invalid value: 3: field is immutable'],
    ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"controller-uid":"<uid>", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable'],
    ['FieldValueInvalid', 'spec.completionMode', 'Invalid value: "Indexed": field is immutable'],
  ], show(u));
  assert.is(u.status, 422);
  // The template is immutable; the 422 echoes the new core.PodTemplateSpec as Go's %#v (pointers
  // as addresses), recorded from the reference in golden/job-template-immutable.txt.
  const rich = {
    metadata: { annotations: { a: 'b' } },
    spec: {
      containers: [{ name: 'c', image: 'b', ports: [{ containerPort: 80 }], env: [{ name: 'X', value: '1' }], resources: { limits: { cpu: '100m', memory: '1Gi' }, requests: { cpu: '50m' } }, livenessProbe: { exec: { command: ['true'] } } }],
      restartPolicy: 'Never',
      tolerations: [{ key: 'k', operator: 'Exists' }],
      volumes: [{ name: 'v', emptyDir: {} }],
      overhead: { cpu: '1' },
    },
  };
  const tj = await post(job('tmpl', { completions: 2, template: rich }));
  assert.is(tj.status, 201, show(tj));
  const t = await S.t.client.request('PATCH', `${S.C}/tmpl`, { body: { spec: { template: { spec: { nodeSelector: { a: 'b' } } } } }, contentType: MERGE });
  assert.is(t.status, 422, show(t));
  const tc = norm(t).details.causes;
  assert.equal(tc.map((x: any) => [x.reason, x.field]), [['FieldValueInvalid', 'spec.template']]);
  assert.fixture(`${tc[0].message.replace(/\(0xPTR\)/g, '(0xPTR)')}\n`, readFileSync(join(import.meta.dirname, 'golden', 'job-template-immutable.txt'), 'utf8'));
  const ok = await S.t.client.request('PATCH', `${S.C}/upd`, { body: { spec: { parallelism: 2, backoffLimit: 1 } }, contentType: MERGE });
  assert.is(ok.status, 200, show(ok));
  assert.is((ok.json as any).metadata.generation, 2);
  const same2 = await S.t.client.request('PATCH', `${S.C}/upd`, { body: { metadata: { annotations: { a: 'b' } } }, contentType: MERGE });
  assert.is((same2.json as any).metadata.generation, 2, 'annotations do not bump a Job generation');
});

test('a suspended Job never started may change its node selector, tolerations, affinity and template labels', async () => {
  const c = await post(job('susp', { suspend: true }));
  assert.is(c.status, 201, show(c));
  const patch = { spec: { template: { metadata: { labels: { extra: 'x' } }, spec: { nodeSelector: { zone: 'a' }, tolerations: [{ key: 'k', operator: 'Exists' }] } } } };
  const u = await S.t.client.request('PATCH', `${S.C}/susp`, { body: patch, contentType: MERGE });
  assert.is(u.status, 200, show(u));
  const j = norm(u);
  assert.equal(j.spec.template.spec.nodeSelector, { zone: 'a' });
  assert.equal(j.spec.template.metadata.labels, { 'controller-uid': '<uid>', 'job-name': 'susp', extra: 'x' });
  // Not the image, though.
  const img = await S.t.client.request('PATCH', `${S.C}/susp`, { body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'other' }] } } } }, contentType: 'application/strategic-merge-patch+json' });
  assert.is(img.status, 422, show(img));
  // Once started (status.startTime), no longer.
  const st = await S.t.client.request('PATCH', `${S.C}/susp/status`, { body: { status: { startTime: '2024-01-01T00:00:00Z' } }, contentType: MERGE });
  assert.is(st.status, 200, show(st));
  const again = await S.t.client.request('PATCH', `${S.C}/susp`, { body: { spec: { template: { spec: { nodeSelector: { zone: 'b' } } } } }, contentType: MERGE });
  assert.is(again.status, 422, show(again));
});

test('/status: spec kept, counters checked, uncountedTerminatedPods unique; status.successful field selector', async () => {
  const c = await post(job('st'));
  assert.is(c.status, 201, show(c));
  const bad = await S.t.client.request('PATCH', `${S.C}/st/status`, {
    body: { status: { active: -1, ready: -2, uncountedTerminatedPods: { succeeded: ['a', ''], failed: ['a'] } } },
    contentType: MERGE,
  });
  same(
    norm(bad),
    invalidJob('st', [
      ['FieldValueInvalid', 'status.active', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'status.ready', 'Invalid value: -2: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'status.uncountedTerminatedPods.succeeded[1]', 'Invalid value: "": must not be empty'],
      ['FieldValueDuplicate', 'status.uncountedTerminatedPods.failed[0]', 'Duplicate value: "a"'],
    ]),
    'status',
    bad,
  );
  const ok = await S.t.client.request('PATCH', `${S.C}/st/status`, { body: { spec: { parallelism: 5 }, status: { succeeded: 1, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:01:05Z' } }, contentType: MERGE });
  assert.is(ok.status, 200, show(ok));
  assert.is((ok.json as any).spec.parallelism, 1, 'spec is the stored one');
  assert.is((ok.json as any).status.succeeded, 1);
  const l = await S.t.client.request('GET', `${S.C}?fieldSelector=status.successful%3D1`);
  assert.equal((l.json as any).items.map((i: any) => i.metadata.name), ['st'], show(l));
  const tb = await table(S.t, `${S.C}?fieldSelector=status.successful%3D1`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Completions', 'string', '', 0],
    ['Duration', 'string', '', 0],
    ['Age', 'string', '', 0],
    ['Containers', 'string', '', 1],
    ['Images', 'string', '', 1],
    ['Selector', 'string', '', 1],
  ]);
  assert.equal(tb.descriptions.slice(1, 3), ['The number of pods which reached phase Succeeded.', 'Time required to complete the job.']);
  assert.is(tb.descriptions[6], 'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors');
  const uid = (ok.json as any).metadata.uid;
  assert.equal(tb.rows, [['st', '1/1', '65s', 'c', 'busybox:1.36', `controller-uid=${uid}`]]);
  const bad2 = await S.t.client.request('GET', `${S.C}?fieldSelector=status.active%3D1`);
  assert.is(bad2.status, 400, show(bad2));
  assert.is((bad2.json as any).message, 'field label "status.active" not supported for Job');
});

test('Table of a parallel Job without completions; Protobuf round trip; watch', async () => {
  const c = await post(job('par', { parallelism: 4 }));
  assert.is(c.status, 201, show(c));
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dpar`);
  assert.equal(tb.rows.map((r) => r.slice(0, 3)), [['par', '0/1 of 4', '']]);
  await protobufRoundTrip(S.t, `${S.C}/par`);
  await protobufRoundTrip(S.t, `${S.C}/one`);
});

test('DELETE: orphans by default with a Warning (the orphan finalizer); Background deletes, no Warning', async () => {
  const c = await post(job('del'));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const d = await S.t.client.request('DELETE', `${S.C}/del`);
  assert.is(d.status, 200, show(d));
  assert.is(d.headers.warning, DELETE_WARNING, show(d));
  assert.is((d.json as any).kind, 'Job', show(d));
  assert.equal((d.json as any).metadata.finalizers, ['orphan']);
  assert.ok((d.json as any).metadata.deletionTimestamp);
  const c2 = await post(job('del2'));
  assert.is(c2.status, 201, show(c2));
  const d2 = await S.t.client.request('DELETE', `${S.C}/del2?propagationPolicy=Background`);
  assert.is(d2.status, 200, show(d2));
  assert.is(d2.headers.warning, undefined, show(d2));
  assert.is((d2.json as any).kind, 'Status', show(d2));
  const events = await watchEvents(S.t, S.C, rv, 'metadata.name=del2');
  assert.equal(events.map(([type]) => type), ['ADDED', 'DELETED']);
  // A missing Job's delete still carries the Warning (it is added before the store runs).
  const missing = await S.t.client.request('DELETE', `${S.C}/nope`);
  assert.is(missing.status, 404, show(missing));
  assert.is(missing.headers.warning, DELETE_WARNING, show(missing));
  // deletecollection too (none selected here), unless a policy is given.
  const coll = await S.t.client.request('DELETE', `${S.C}?labelSelector=none%3Dselected`);
  assert.is(coll.status, 200, show(coll));
  assert.is(coll.headers.warning, DELETE_WARNING, show(coll));
  const collBg = await S.t.client.request('DELETE', `${S.C}?labelSelector=none%3Dselected&propagationPolicy=Orphan`);
  assert.is(collBg.status, 200, show(collBg));
  assert.is(collBg.headers.warning, undefined, show(collBg));
});

test.run();
