/**
 * Deployment (apps/v1) as kube-apiserver 1.24 serves it: SetDefaults_Deployment and the pod
 * template's defaults, ValidateDeployment's messages, status reset on create, generation (spec and
 * annotation changes), the selector immutable, `/status` (spec and labels kept, status
 * validation), `/scale` (autoscaling/v1 Scale: get, update, merge patch, ValidateScale, a stale
 * resourceVersion), the Table (printDeployment) and Protobuf. No controller runs: nothing rolls out.
 *
 *   node --import tsx test/run.ts test/fidelity/apps-deployments.test.ts
 *   TEST_KUBECONFIG=/tmp/ref-apps/kubeconfig node --import tsx test/run.ts test/fidelity/apps-deployments.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MERGE, appsSuite, defaultedContainer, defaultedTemplate } from './apps-helpers.ts';
import { show } from '../assertions.ts';
import { body, invalidStatus, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

const GROUP = 'apps';

const S = appsSuite('deployments', 'deploy');

const template = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({ metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx' }], ...spec } });
const deployment = (name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({ apiVersion: `${GROUP}/v1`, kind: 'Deployment', metadata: { name, ...meta }, spec });
const basic = (name: string, extra: Record<string, unknown> = {}) => deployment(name, { selector: { matchLabels: { app: name } }, template: template({ app: name }), ...extra });
const post = (b: unknown) => S.post(b);
const invalidDeployment = (name: string, causes: Cause[]) => invalidStatus('Deployment', name, causes, GROUP);

const defaultedSpec = (app: string, replicas = 1) => ({
  replicas,
  selector: { matchLabels: { app } },
  template: defaultedTemplate({ app }, [defaultedContainer('nginx', 'nginx')]),
  strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
  revisionHistoryLimit: 10,
  progressDeadlineSeconds: 600,
});

const storedDeployment = (name: string, spec: unknown, generation = 1, status: unknown = {}, meta: Record<string, unknown> = {}) => ({
  kind: 'Deployment',
  apiVersion: `${GROUP}/v1`,
  metadata: { name, namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation, creationTimestamp: '<time>', ...meta },
  spec,
  status,
});

test('create: kube 1.24 defaults (strategy 25%/25%, history 10, deadline 600, template pod defaults), status reset, generation 1', async () => {
  const r = await post({ ...basic('web'), status: { replicas: 5, readyReplicas: 5 } });
  assert.is(r.status, 201, show(r));
  same(body(r, S.names), storedDeployment('web', defaultedSpec('web')), 'created', r);
  const g = await S.t.client.request('GET', `${S.C}/web`);
  same(body(g, S.names), storedDeployment('web', defaultedSpec('web')), 'get', g);
  const rc = await post(basic('rec', { replicas: 0, strategy: { type: 'Recreate' }, template: template({ app: 'rec' }, { containers: [{ name: 'c', image: 'nginx:1.25', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] }) }));
  assert.is(rc.status, 201, show(rc));
  const spec = (rc.json as any).spec;
  assert.equal(spec.strategy, { type: 'Recreate' }, show(rc));
  assert.is(spec.replicas, 0);
  assert.equal(spec.template.spec.containers[0], {
    name: 'c',
    image: 'nginx:1.25',
    ports: [{ containerPort: 80, protocol: 'TCP' }],
    resources: { limits: { cpu: '1' } },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  });
  assert.is(spec.template.spec.enableServiceLinks, undefined, 'no SetDefaults_Pod in a template');
});

test('create: ValidateDeployment messages; nothing stored', async () => {
  const bad = deployment('bad', {
    replicas: -1,
    selector: { matchLabels: { app: 'x' } },
    template: template({ app: 'y' }, { restartPolicy: 'Never', activeDeadlineSeconds: 5 }),
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } },
    minReadySeconds: 700,
    revisionHistoryLimit: -1,
  });
  const r = await post(bad);
  same(
    body(r, S.names),
    invalidDeployment('bad', [
      ['FieldValueInvalid', 'spec.replicas', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"app":"y"}: `selector` does not match template `labels`'],
      ['FieldValueNotSupported', 'spec.template.spec.restartPolicy', 'Unsupported value: "Never": supported values: "Always"'],
      ['FieldValueForbidden', 'spec.template.spec.activeDeadlineSeconds', 'Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported'],
      ['FieldValueInvalid', 'spec.strategy.rollingUpdate.maxUnavailable', 'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"0%"}: may not be 0 when `maxSurge` is 0'],
      ['FieldValueInvalid', 'spec.revisionHistoryLimit', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.progressDeadlineSeconds', 'Invalid value: 600: must be greater than minReadySeconds'],
    ]),
    'many errors',
    r,
  );
  const e = await post(deployment('empty', { selector: {}, template: template({}) }));
  same(
    body(e, S.names),
    invalidDeployment('empty', [['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment']]),
    'empty selector',
    e,
  );
  const op = await post(deployment('op', { selector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] }, strategy: { type: 'Recreate', rollingUpdate: {} }, template: template({}) }));
  same(
    body(op, S.names),
    invalidDeployment('op', [
      ['FieldValueInvalid', 'spec.selector.matchExpressions[0].operator', 'Invalid value: "Bad": not a valid selector operator'],
      ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"a", Operator:"Bad", Values:[]string(nil)}}}: invalid label selector'],
      ['FieldValueForbidden', 'spec.strategy.rollingUpdate', "Forbidden: may not be specified when strategy `type` is 'Recreate'"],
    ]),
    'bad operator, Recreate with rollingUpdate',
    op,
  );
  const pct = await post(basic('pct', { strategy: { rollingUpdate: { maxUnavailable: '150%', maxSurge: 'x' } }, template: template({ app: 'pct' }, { containers: [{ name: 'A', image: '' }] }) }));
  same(
    body(pct, S.names),
    invalidDeployment('pct', [
      ['FieldValueInvalid', 'spec.template.spec.containers[0].name', 'Invalid value: "A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')'],
      ['FieldValueRequired', 'spec.template.spec.containers[0].image', 'Required value'],
      ['FieldValueInvalid', 'spec.strategy.rollingUpdate.maxSurge', "Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"x\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"],
      ['FieldValueInvalid', 'spec.strategy.rollingUpdate.maxUnavailable', 'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%'],
    ]),
    'percentages, template containers',
    pct,
  );
  for (const name of ['bad', 'empty', 'op', 'pct']) assert.is((await S.t.client.request('GET', `${S.C}/${name}`)).status, 404, `${name}: nothing stored`);
});

test('update: status kept, generation bumped by spec and by annotations, selector immutable', async () => {
  const c = await post(basic('gen'));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  const u = await S.t.client.request('PUT', `${S.C}/gen`, { body: { ...cur, spec: { ...cur.spec, replicas: 2 }, status: { replicas: 9 } } });
  assert.is(u.status, 200, show(u));
  same(body(u, S.names), storedDeployment('gen', defaultedSpec('gen', 2), 2), 'spec change: generation 2, status kept', u);
  const a = await S.t.client.request('PATCH', `${S.C}/gen`, { body: { metadata: { annotations: { note: 'x' } } }, contentType: MERGE });
  assert.is(a.status, 200, show(a));
  assert.is((a.json as any).metadata.generation, 3, 'an annotation change bumps a Deployment generation');
  const l = await S.t.client.request('PATCH', `${S.C}/gen`, { body: { metadata: { labels: { x: 'y' } } }, contentType: MERGE });
  assert.is((l.json as any).metadata.generation, 3, 'a label change does not');
  const s = await S.t.client.request('PATCH', `${S.C}/gen`, { body: { spec: { selector: { matchLabels: { app: 'gen', more: 'x' } }, template: { metadata: { labels: { more: 'x' } } } } }, contentType: MERGE });
  same(
    body(s, S.names),
    invalidDeployment('gen', [
      ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"gen", "more":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable'],
    ]),
    'selector immutable',
    s,
  );
});

test('/status: spec and labels kept, ValidateDeploymentStatus; GET /status', async () => {
  const c = await post(basic('st', { replicas: 3 }));
  const cur = c.json as any;
  const st = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2, unavailableReplicas: 1, collisionCount: 2 };
  const u = await S.t.client.request('PUT', `${S.C}/st/status`, { body: { ...cur, metadata: { ...cur.metadata, labels: { changed: 'yes' } }, spec: { ...cur.spec, replicas: 7 }, status: st } });
  assert.is(u.status, 200, show(u));
  same(body(u, S.names), storedDeployment('st', defaultedSpec('st', 3), 1, st), 'status written, spec and labels kept', u);
  const g = await S.t.client.request('GET', `${S.C}/st/status`);
  same(body(g, S.names), storedDeployment('st', defaultedSpec('st', 3), 1, st), 'GET status', g);
  const bad = await S.t.client.request('PATCH', `${S.C}/st/status`, { body: { status: { replicas: 1, readyReplicas: 2, availableReplicas: 3, updatedReplicas: -1, collisionCount: 1 } }, contentType: MERGE });
  same(
    body(bad, S.names),
    invalidDeployment('st', [
      ['FieldValueInvalid', 'status.updatedReplicas', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'status.readyReplicas', 'Invalid value: 2: cannot be greater than status.replicas'],
      ['FieldValueInvalid', 'status.availableReplicas', 'Invalid value: 3: cannot be greater than status.replicas'],
      ['FieldValueInvalid', 'status.availableReplicas', 'Invalid value: 3: cannot be greater than readyReplicas'],
      ['FieldValueInvalid', 'status.collisionCount', 'Invalid value: 1: cannot be decremented'],
    ]),
    'status validation',
    bad,
  );
});

test('/scale: autoscaling/v1 Scale get, update, merge patch, ValidateScale, stale resourceVersion; the Deployment follows', async () => {
  const c = await post(basic('sc', { replicas: 2 }));
  assert.is(c.status, 201, show(c));
  const scale = (replicas: number | undefined, statusReplicas = 0) => ({
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: 'sc', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
    spec: replicas ? { replicas } : {},
    status: { replicas: statusReplicas, selector: 'app=sc' },
  });
  const g = await S.t.client.request('GET', `${S.C}/sc/scale`);
  same(body(g, S.names), scale(2), 'get scale', g);
  const cur = g.json as any;
  const u = await S.t.client.request('PUT', `${S.C}/sc/scale`, { body: { ...cur, spec: { replicas: 3 } } });
  same(body(u, S.names), scale(3), 'put scale', u);
  const d = await S.t.client.request('GET', `${S.C}/sc`);
  assert.is((d.json as any).spec.replicas, 3, show(d));
  assert.is((d.json as any).metadata.generation, 2, 'a scale bumps generation');
  const p = await S.t.client.request('PATCH', `${S.C}/sc/scale`, { body: { spec: { replicas: 0 } }, contentType: MERGE });
  same(body(p, S.names), scale(undefined), 'patch to 0', p);
  const neg = await S.t.client.request('PATCH', `${S.C}/sc/scale`, { body: { spec: { replicas: -1 } }, contentType: MERGE });
  same(body(neg, S.names), invalidStatus('Scale', 'sc', [['FieldValueInvalid', 'spec.replicas', 'Invalid value: -1: must be greater than or equal to 0']], 'autoscaling'), 'negative', neg);
  const stale = await S.t.client.request('PUT', `${S.C}/sc/scale`, { body: { ...cur, spec: { replicas: 4 } } });
  assert.is(stale.status, 409, show(stale));
  assert.is((stale.json as any).message, `Operation cannot be fulfilled on deployments.${GROUP} "sc": the object has been modified; please apply your changes to the latest version and try again`);
  const st = await table(S.t, `${S.C}/sc/scale`);
  assert.equal(st.columns, [
    ['Name', 'string', '', 0],
    ['Desired', 'integer', '', 0],
    ['Available', 'integer', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.equal(st.descriptions.slice(1, 3), ['desired number of instances for the scaled object.', 'actual number of observed instances of the scaled object.']);
  assert.equal(st.rows, [['sc', 0, 0]]);
  const missing = await S.t.client.request('GET', `${S.C}/nope/scale`);
  assert.is(missing.status, 404, show(missing));
  assert.is((missing.json as any).message, 'deployments/scale.apps "nope" not found');
});

test('/scale managedFields: the writer owns spec.replicas through `scale`, other managers lose it', async () => {
  const c = await S.t.client.request('POST', `${S.C}?fieldManager=creator`, { body: basic('mf') });
  assert.is(c.status, 201, show(c));
  const s = await S.t.client.request('PATCH', `${S.C}/mf/scale?fieldManager=scaler`, { body: { spec: { replicas: 4 } }, contentType: MERGE });
  assert.is(s.status, 200, show(s));
  const d = await S.t.client.request('GET', `${S.C}/mf`);
  const entries = ((d.json as any).metadata.managedFields as any[]).map((e) => [e.manager, e.operation, e.subresource, e.apiVersion, e.fieldsV1]);
  const creator = entries.find((e) => e[0] === 'creator');
  assert.equal(creator?.slice(0, 4), ['creator', 'Update', undefined, 'apps/v1']);
  assert.is(creator?.[4]['f:spec']['f:replicas'], undefined, 'the creator no longer owns spec.replicas');
  assert.equal(entries.find((e) => e[0] === 'scaler'), ['scaler', 'Update', 'scale', 'apps/v1', { 'f:spec': { 'f:replicas': {} } }]);
});

test('/scale server-side apply: conflicts named as the Scale sees them, force takes spec.replicas, wrong version and name refused', async () => {
  const c = await post(basic('ap'));
  assert.is(c.status, 201, show(c));
  const APPLY = 'application/apply-patch+yaml';
  const ap = (b: unknown, q = 'fieldManager=ap') => S.t.client.request('PATCH', `${S.C}/ap/scale?${q}`, { body: b, contentType: APPLY });
  const sc = (n: number, name = 'ap') => ({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: n } });
  const conflict = await ap(sc(5));
  same(
    body(conflict, S.names),
    {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "unknown" using autoscaling/v1: .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "unknown" using autoscaling/v1', field: '.spec.replicas' }] },
      code: 409,
    },
    'conflict',
    conflict,
  );
  const forced = await ap(sc(5), 'fieldManager=ap&force=true');
  same(body(forced, S.names), { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'ap', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' }, spec: { replicas: 5 }, status: { replicas: 0, selector: 'app=ap' } }, 'forced', forced);
  const again = await ap(sc(6));
  assert.is(again.status, 200, show(again));
  const d = await S.t.client.request('GET', `${S.C}/ap`);
  assert.is((d.json as any).spec.replicas, 6);
  const mf = ((d.json as any).metadata.managedFields as any[]).map((e) => [e.manager, e.operation, e.apiVersion, e.subresource, e.fieldsV1['f:spec']?.['f:replicas']]);
  assert.equal(mf, [
    ['ap', 'Apply', 'apps/v1', 'scale', {}],
    ['unknown', 'Update', 'apps/v1', undefined, undefined],
  ]);
  const wrong = await ap({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ap' }, spec: { replicas: 2 } });
  assert.is(wrong.status, 400, show(wrong));
  assert.is((wrong.json as any).message, 'Incorrect version specified in apply patch. Specified patch version: apps/v1, expected: autoscaling/v1');
  const other = await ap(sc(2, 'other'));
  assert.is((other.json as any).message, 'the name of the object (other) does not match the name on the URL (ap)');
  const missing = await S.t.client.request('PATCH', `${S.C}/nope/scale?fieldManager=x`, { body: sc(1, 'nope'), contentType: APPLY });
  assert.is(missing.status, 404, show(missing));
  assert.is((missing.json as any).message, 'deployments.apps "nope" not found');
});

test('Table (printDeployment, -o wide columns) and Protobuf', async () => {
  const c = await post(basic('tb', { replicas: 4, template: template({ app: 'tb' }, { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'busybox' }] }) }));
  assert.is(c.status, 201, show(c));
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dtb`);
  assert.equal(
    tb.columns,
    [
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Up-to-date', 'string', '', 0],
      ['Available', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ],
  );
  assert.is(tb.descriptions[2], 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.');
  assert.is(tb.descriptions[7], 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.');
  assert.equal(
    tb.rows,
    [['tb', '0/4', 0, 0, 'a,b', 'nginx,busybox', 'app=tb']],
  );
  await protobufRoundTrip(S.t, `${S.C}/tb`);
});

test.run();
