/**
 * CronJob (batch/v1, and batch/v1beta1 over the same objects) as kube-apiserver 1.24 serves it:
 * defaults (concurrencyPolicy, suspend, history limits, the job template's pod defaults), timeZone
 * dropped (CronJobTimeZone is off in 1.24), the schedule checked as robfig/cron parses it with its
 * messages, the job template's rules, the 52-character name limit, the `TZ` Warning, `/status`,
 * the Table (printCronJob), Protobuf, field selectors of each version, and v1beta1: deprecation
 * Warning, both versions reading every object, DELETE orphaning by default there only.
 * No controller runs: no Jobs appear.
 *
 *   node --import tsx test/run.ts test/fidelity/batch-cronjobs.test.ts
 *   TEST_KUBECONFIG=/tmp/ref-batch/kubeconfig node --import tsx test/run.ts test/fidelity/batch-cronjobs.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { MERGE, defaultedContainer } from './apps-helpers.ts';
import { body, invalidStatus, namespacedSuite, protobufRoundTrip, same, table, watchEvents, type Cause } from './storage-helpers.ts';

const S = namespacedSuite(test, 'cj', 'cronjobs', 'batch/v1');
const beta = () => S.C.replace('/batch/v1/', '/batch/v1beta1/');
const WARNING = '299 - "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob"';
const TZ_WARNING = '299 - "CRON_TZ or TZ used in spec.spec.schedule is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"';

const podSpec = (fields: Record<string, unknown> = {}) => ({ containers: [{ name: 'c', image: 'busybox:1.36' }], restartPolicy: 'OnFailure', ...fields });
const cj = (name: string, spec: Record<string, unknown> = {}, version = 'v1') => ({
  apiVersion: `batch/${version}`,
  kind: 'CronJob',
  metadata: { name },
  spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: podSpec() } } }, ...spec },
});
const post = (b: unknown) => S.post(b);
const invalidCJ = (name: string, causes: Cause[]) => invalidStatus('CronJob', name, causes, 'batch');
const defaultedSpec = (extra: Record<string, unknown> = {}) => ({
  schedule: '*/5 * * * *',
  concurrencyPolicy: 'Allow',
  suspend: false,
  jobTemplate: {
    metadata: { creationTimestamp: null },
    spec: {
      template: {
        metadata: { creationTimestamp: null },
        spec: { containers: [defaultedContainer('c', 'busybox:1.36', 'IfNotPresent')], restartPolicy: 'OnFailure', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler' },
      },
    },
  },
  successfulJobsHistoryLimit: 3,
  failedJobsHistoryLimit: 1,
  ...extra,
});
const storedCJ = (name: string, version = 'v1', extra: Record<string, unknown> = {}) => ({
  kind: 'CronJob',
  apiVersion: `batch/${version}`,
  metadata: { name, namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>' },
  spec: defaultedSpec(extra),
  status: {},
});

test('create: defaults, status {}, generation 1, timeZone dropped (CronJobTimeZone off)', async () => {
  const r = await post({ ...cj('one', { timeZone: 'Europe/Paris' }), status: { lastScheduleTime: '2024-01-01T00:00:00Z' } });
  assert.is(r.status, 201, show(r));
  assert.is(r.headers.warning, undefined, show(r));
  same(body(r, S.names), storedCJ('one'), 'created', r);
});

test('create: validateCronJobSpec messages (schedule as robfig/cron parses it); nothing stored', async () => {
  const long = 'a'.repeat(53);
  const cases: [unknown, string, Cause[]][] = [
    [
      cj('bad', { schedule: '', concurrencyPolicy: 'Sometimes', startingDeadlineSeconds: -1, successfulJobsHistoryLimit: -1, failedJobsHistoryLimit: -2 }),
      'bad',
      [
        ['FieldValueRequired', 'spec.schedule', 'Required value'],
        ['FieldValueInvalid', 'spec.startingDeadlineSeconds', 'Invalid value: -1: must be greater than or equal to 0'],
        ['FieldValueNotSupported', 'spec.concurrencyPolicy', 'Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"'],
        ['FieldValueInvalid', 'spec.successfulJobsHistoryLimit', 'Invalid value: -1: must be greater than or equal to 0'],
        ['FieldValueInvalid', 'spec.failedJobsHistoryLimit', 'Invalid value: -2: must be greater than or equal to 0'],
      ],
    ],
    [
      cj('bad', { jobTemplate: { spec: { manualSelector: true, selector: { matchLabels: { a: 'b' } }, parallelism: -1, template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } } }),
      'bad',
      [
        ['FieldValueInvalid', 'spec.jobTemplate.spec.parallelism', 'Invalid value: -1: must be greater than or equal to 0'],
        ['FieldValueRequired', 'spec.jobTemplate.spec.template.spec.restartPolicy', 'Required value: valid values: "OnFailure", "Never"'],
        ['FieldValueInvalid', 'spec.jobTemplate.spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated'],
        ['FieldValueNotSupported', 'spec.jobTemplate.spec.manualSelector', 'Unsupported value: true: supported values: "nil", "false"'],
      ],
    ],
    [cj(long), long, [['FieldValueInvalid', 'metadata.name', `Invalid value: "${long}": must be no more than 52 characters`]]],
  ];
  const schedules: [string, string][] = [
    ['* * *', 'expected exactly 5 fields, found 3: [* * *]'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['0 0 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['1/2/3 * * * *', 'too many slashes: 1/2/3'],
    ['jan * * * *', 'failed to parse int from jan: strconv.Atoi: parsing "jan": invalid syntax'],
    ['-1 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    ['99999999999999999999 * * * *', 'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range'],
    ['@every', 'unrecognized descriptor: @every'],
    ['* * * * funday', 'failed to parse int from funday: strconv.Atoi: parsing "funday": invalid syntax'],
    ['@every 1x', 'failed to parse duration @every 1x: time: unknown unit "x" in duration "1x"'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['TZ=Nowhere/Land * * * * *', 'provided bad location Nowhere/Land: unknown time zone Nowhere/Land'],
  ];
  for (const [schedule, msg] of schedules) cases.push([cj('bad', { schedule }), 'bad', [['FieldValueInvalid', 'spec.schedule', `Invalid value: ${JSON.stringify(schedule)}: ${msg}`]]]);
  for (const [b, name, causes] of cases) {
    const r = await post(b);
    same(body(r, S.names), invalidCJ(name, causes), JSON.stringify((b as any).spec), r);
    assert.is((await S.t.client.request('GET', `${S.C}/${name}`)).status, 404);
  }
  // Valid ones: names, lists, steps, descriptors, a time zone in the schedule (with kube's Warning).
  for (const schedule of ['0 9-17/2 * JAN-mar MON,fri', '@hourly', '@every 1h30m', '? * * * *', '0 0 1,15 * *']) {
    const r = await post(cj('ok', { schedule }));
    assert.is(r.status, 201, `${schedule}: ${show(r)}`);
    assert.is(r.headers.warning, undefined, show(r));
    assert.is((await S.t.client.request('DELETE', `${S.C}/ok`)).status, 200);
  }
  const tz = await post(cj('tz', { schedule: 'CRON_TZ=America/New_York 0 6 * * *' }));
  assert.is(tz.status, 201, show(tz));
  assert.is(tz.headers.warning, TZ_WARNING, show(tz));
});

test('update: status kept, generation bumps on spec change; /status keeps spec; Table as printCronJob', async () => {
  const c = await post(cj('upd'));
  assert.is(c.status, 201, show(c));
  const u = await S.t.client.request('PATCH', `${S.C}/upd`, { body: { spec: { suspend: true, schedule: 'bad' }, status: { active: [{ name: 'x' }] } }, contentType: MERGE });
  same(body(u, S.names), invalidCJ('upd', [['FieldValueInvalid', 'spec.schedule', 'Invalid value: "bad": expected exactly 5 fields, found 1: [bad]']]), 'update', u);
  const ok = await S.t.client.request('PATCH', `${S.C}/upd`, { body: { spec: { suspend: true }, status: { active: [{ name: 'x' }] } }, contentType: MERGE });
  assert.is(ok.status, 200, show(ok));
  same(body(ok, S.names), { ...storedCJ('upd', 'v1', { suspend: true }), metadata: { ...storedCJ('upd').metadata, generation: 2 } }, 'updated', ok);
  const st = await S.t.client.request('PATCH', `${S.C}/upd/status`, {
    body: { spec: { schedule: '@daily' }, status: { active: [{ kind: 'Job', namespace: S.ns, name: 'upd-1', apiVersion: 'batch/v1' }], lastScheduleTime: new Date(Date.now() - 300_000).toISOString().replace(/\.\d+Z$/, 'Z') } },
    contentType: MERGE,
  });
  assert.is(st.status, 200, show(st));
  assert.is((st.json as any).spec.schedule, '*/5 * * * *', 'spec is the stored one');
  assert.is((st.json as any).metadata.generation, 2);
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dupd`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Schedule', 'string', '', 0],
    ['Suspend', 'boolean', '', 0],
    ['Active', 'integer', '', 0],
    ['Last Schedule', 'string', '', 0],
    ['Age', 'string', '', 0],
    ['Containers', 'string', '', 1],
    ['Images', 'string', '', 1],
    ['Selector', 'string', '', 1],
  ]);
  assert.equal(tb.descriptions.slice(1, 5), [
    'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.',
    'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.',
    'A list of pointers to currently running jobs.',
    'Information when was the last time the job was successfully scheduled.',
  ]);
  assert.is(tb.descriptions[8], 'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors');
  const row = tb.rows[0]!;
  assert.equal([row[0], row[1], row[2], row[3], row[5], row[6], row[7]], ['upd', '*/5 * * * *', 'True', 1, 'c', 'busybox:1.36', '<none>']);
  assert.match(String(row[4]), /^(4m59s|5m|5m[1-9]s|5m[1-5][0-9]s)$/, 'Last Schedule is a human duration (5 minutes ago)');
  const fresh = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Done`);
  assert.equal(fresh.rows[0]!.slice(0, 5), ['one', '*/5 * * * *', 'False', 0, '<none>']);
});

test('field selectors: v1 has none of its own; v1beta1 accepts status.successful (always empty) and names "CronJob"', async () => {
  const v1 = await S.t.client.request('GET', `${S.C}?fieldSelector=status.successful%3D1`);
  assert.is(v1.status, 400, show(v1));
  assert.is((v1.json as any).message, '"status.successful" is not a known field selector: only "metadata.name", "metadata.namespace"');
  const b = await S.t.client.request('GET', `${beta()}?fieldSelector=status.successful%3D1`);
  assert.is(b.status, 200, show(b));
  assert.equal((b.json as any).items, []);
  const all = await S.t.client.request('GET', `${beta()}?fieldSelector=status.successful!%3D1`);
  assert.ok((all.json as any).items.length >= 1, show(all));
  const bad = await S.t.client.request('GET', `${beta()}?fieldSelector=spec.schedule%3Dx`);
  assert.is(bad.status, 400, show(bad));
  assert.is((bad.json as any).message, 'field label "spec.schedule" not supported for "CronJob"');
});

test('v1beta1: the same objects both ways, with the deprecation Warning; Protobuf of both', async () => {
  const c = await S.t.client.request('POST', beta(), { body: cj('beta', {}, 'v1beta1') });
  assert.is(c.status, 201, show(c));
  assert.is(c.headers.warning, WARNING, show(c));
  same(body(c, S.names), storedCJ('beta', 'v1beta1'), 'v1beta1 create', c);
  const g = await S.t.client.request('GET', `${S.C}/beta`);
  assert.is(g.headers.warning, undefined, show(g));
  same(body(g, S.names), storedCJ('beta'), 'read as v1', g);
  const gb = await S.t.client.request('GET', `${beta()}/one`);
  assert.is(gb.status, 200, show(gb));
  same(body(gb, S.names), storedCJ('one', 'v1beta1'), 'v1 object read as v1beta1', gb);
  const l = await S.t.client.request('GET', beta());
  assert.is((l.json as any).kind, 'CronJobList');
  assert.is((l.json as any).apiVersion, 'batch/v1beta1');
  assert.ok(['beta', 'one'].every((n) => (l.json as any).items.some((i: any) => i.metadata.name === n)), show(l));
  const u = await S.t.client.request('PATCH', `${beta()}/one/status`, { body: { status: { lastScheduleTime: '2024-01-01T00:00:00Z' } }, contentType: MERGE });
  assert.is(u.status, 200, show(u));
  assert.is(u.headers.warning, WARNING);
  assert.is((await S.t.client.request('GET', `${S.C}/one`)).json.status.lastScheduleTime, '2024-01-01T00:00:00Z');
  await protobufRoundTrip(S.t, `${S.C}/beta`);
  await protobufRoundTrip(S.t, `${beta()}/beta`);
  await protobufRoundTrip(S.t, `${beta()}/one`);
});

test('DELETE: v1 removes (a Status); v1beta1 orphans by default (the orphan finalizer); watch', async () => {
  const c = await post(cj('del'));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const d = await S.t.client.request('DELETE', `${S.C}/del`);
  assert.is(d.status, 200, show(d));
  assert.is(d.headers.warning, undefined, show(d));
  assert.is((d.json as any).kind, 'Status', show(d));
  assert.equal(await watchEvents(S.t, S.C, rv, 'metadata.name=del'), [['DELETED', 'del']]);
  const c2 = await post(cj('del2'));
  assert.is(c2.status, 201, show(c2));
  const d2 = await S.t.client.request('DELETE', `${beta()}/del2`);
  assert.is(d2.status, 200, show(d2));
  assert.is(d2.headers.warning, WARNING, show(d2));
  assert.is((d2.json as any).apiVersion, 'batch/v1beta1', show(d2));
  assert.equal((d2.json as any).metadata.finalizers, ['orphan']);
  const coll = await S.t.client.request('DELETE', `${beta()}?labelSelector=none%3Dselected`);
  assert.is(coll.status, 200, show(coll));
  assert.is(coll.headers.warning, WARNING, 'deletecollection: the deprecation Warning once');
});

test('server-side apply: a v1beta1 apply keeps its version in managedFields read through v1; a Job\'s status applied through /status only', async () => {
  const APPLY = 'application/apply-patch+yaml';
  const tmpl = { spec: { template: { spec: { containers: [{ name: 'c', image: 'b' }], restartPolicy: 'Never' } } } };
  const a = await S.t.client.request('PATCH', `${beta()}/cssa?fieldManager=me`, { body: { apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'cssa' }, spec: { schedule: '@daily', jobTemplate: tmpl } }, contentType: APPLY });
  assert.is(a.status, 201, show(a));
  assert.is(a.headers.warning, WARNING);
  const g = await S.t.client.request('GET', `${S.C}/cssa`);
  const fields = { 'f:spec': { 'f:jobTemplate': { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'f:restartPolicy': {} } } } }, 'f:schedule': {} } };
  assert.equal((g.json as any).metadata.managedFields.map((m: any) => [m.manager, m.operation, m.apiVersion, m.fieldsV1, m.subresource]), [['me', 'Apply', 'batch/v1beta1', fields, undefined]], show(g));
  const jobs = S.C.replace('/cronjobs', '/jobs');
  const j = await S.t.client.request('PATCH', `${jobs}/ssa?fieldManager=me`, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'ssa' }, ...tmpl, status: { succeeded: 2 } }, contentType: APPLY });
  assert.is(j.status, 201, show(j));
  assert.equal((j.json as any).status, {}, 'status is not applied through the main resource');
  const st = await S.t.client.request('PATCH', `${jobs}/ssa/status?fieldManager=ctl`, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'ssa' }, spec: { parallelism: 9 }, status: { succeeded: 2 } }, contentType: APPLY });
  assert.is(st.status, 200, show(st));
  assert.is((st.json as any).spec.parallelism, 1, 'spec is not applied through /status');
  assert.is((st.json as any).status.succeeded, 2);
  assert.equal((st.json as any).metadata.managedFields.map((m: any) => [m.manager, m.operation, m.subresource, Object.keys(m.fieldsV1)]), [['ctl', 'Apply', 'status', ['f:status']], ['me', 'Apply', undefined, ['f:spec']]]);
});

test('RBAC bootstrap: the cronjob and job controllers, admin/edit/view (SubjectAccessReview)', async () => {
  const can = async (user: string, groups: string[], verb: string, resource: string, subresource = ''): Promise<boolean> => {
    const r = await S.t.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, resourceAttributes: { group: 'batch', resource, subresource, verb, namespace: S.ns } } },
    });
    assert.is(r.status, 201, show(r));
    return (r.json as any).status.allowed === true;
  };
  const sa = (name: string) => `system:serviceaccount:kube-system:${name}`;
  const cases: [string, string, string, string, boolean][] = [
    [sa('cronjob-controller'), 'create', 'jobs', '', true],
    [sa('cronjob-controller'), 'update', 'cronjobs', 'status', true],
    [sa('cronjob-controller'), 'delete', 'cronjobs', '', false],
    [sa('job-controller'), 'update', 'jobs', 'status', true],
    [sa('job-controller'), 'create', 'cronjobs', '', false],
    ['somebody', 'list', 'cronjobs', '', false],
  ];
  for (const [user, verb, resource, sub, want] of cases) assert.is(await can(user, ['system:serviceaccounts', 'system:authenticated'], verb, resource, sub), want, `${user} ${verb} ${resource}/${sub}`);
});

test.run();
