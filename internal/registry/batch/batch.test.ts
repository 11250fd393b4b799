import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { FeatureGates } from '../../features/gates.ts';
import { jobKind, jobTable } from './job.ts';
import { cronJobKind, cronJobTable, cronJobV1beta1Kind } from './cronjob.ts';

const UID = '11111111-2222-3333-4444-555555555555';
const pod = { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' };
const job = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', uid: UID, creationTimestamp: '2024-01-01T00:00:00Z', ...meta }, spec: { template: { spec: { ...pod } }, ...spec } }) as KubeObject;
const cj = (spec: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c', uid: UID, creationTimestamp: '2024-01-01T00:00:00Z' }, spec: { schedule: '@hourly', jobTemplate: { spec: { template: { spec: { ...pod } } } }, ...spec } }) as KubeObject;

/** A create through the strategy: defaults, prepareForCreate, validate. */
function create(kind: typeof jobKind, o: KubeObject): ReturnType<typeof jobKind.strategy.validate> {
  kind.strategy.defaults?.(o);
  kind.strategy.prepareForCreate?.(o);
  return kind.strategy.validate(o);
}

test('Job: defaults, the generated selector and labels (shared with the Job when it had none), tracking annotation dropped', () => {
  const o = job({}, { annotations: { 'batch.kubernetes.io/job-tracking': '' } });
  check('valid', create(jobKind, o), []);
  const spec = o.spec as any;
  assert.equal([spec.parallelism, spec.completions, spec.backoffLimit, spec.completionMode, spec.suspend], [1, 1, 6, 'NonIndexed', false]);
  assert.equal(spec.selector, { matchLabels: { 'controller-uid': UID } });
  assert.equal(spec.template.metadata.labels, { 'controller-uid': UID, 'job-name': 'j' });
  assert.equal(o.metadata.labels, { 'controller-uid': UID, 'job-name': 'j' });
  assert.equal(o.metadata.annotations, {});
  const manual = job({ manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: pod } });
  check('manual', create(jobKind, manual), []);
  assert.equal((manual.spec as any).template.metadata.labels, { a: 'b' });
  assert.is(jobKind.strategy.defaultGarbageCollectionPolicy, 'OrphanDependents');
  assert.is(jobKind.deleteWarning?.({}), 'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning');
  assert.is(jobKind.deleteWarning?.({ propagationPolicy: 'Background' }), undefined);
});

test('Job: with JobTrackingWithFinalizers on, the annotation is added on create', () => {
  const k = jobKind.forOptions!({ featureGates: new FeatureGates('JobTrackingWithFinalizers=true') });
  const o = job();
  check('valid', create(k, o), []);
  assert.equal(o.metadata.annotations, { 'batch.kubernetes.io/job-tracking': '' });
});

test('Job: validation and update rules', () => {
  check('restartPolicy', create(jobKind, job({ template: { spec: { containers: pod.containers } } })), [{ type: 'FieldValueRequired', field: 'spec.template.spec.restartPolicy', msg: 'valid values: "OnFailure", "Never"' }]);
  check('indexed', create(jobKind, job({ completionMode: 'Indexed', parallelism: 100001 })), [
    { type: 'FieldValueRequired', field: 'spec.completions' },
    { type: 'FieldValueInvalid', field: 'spec.parallelism', msg: 'must be less than or equal to 100000 when completion mode is Indexed' },
  ]);
  const old = job({ suspend: true });
  create(jobKind, old);
  const next = structuredClone(old);
  (next.spec as any).template.spec.nodeSelector = { zone: 'a' };
  jobKind.strategy.prepareForUpdate?.(next, old);
  check('suspended, never started: node selector mutable', jobKind.strategy.validateUpdate(next, old), []);
  (old as any).status = { startTime: '2024-01-01T00:00:00Z' };
  check('started: immutable', jobKind.strategy.validateUpdate(next, old), [{ type: 'FieldValueInvalid', field: 'spec.template', msg: 'field is immutable' }]);
});

test('Job table: completions forms, duration, selector', () => {
  const o = job({ completions: 3 });
  create(jobKind, o);
  (o as any).status = { succeeded: 2, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:02:00Z' };
  assert.equal(jobTable.cells(o), ['j', '2/3', '2m', '2024-01-01T00:00:00Z', 'c', 'busybox', `controller-uid=${UID}`]);
  const p = job({ parallelism: 3 });
  create(jobKind, p);
  assert.equal(jobTable.cells(p).slice(1, 3), ['0/1 of 3', '']);
});

test('CronJob: defaults, timeZone dropped unless CronJobTimeZone, validation, v1beta1 a view with its own GC default', () => {
  const o = cj({ timeZone: 'UTC' });
  check('valid', create(cronJobKind, o), []);
  const spec = o.spec as any;
  assert.equal([spec.concurrencyPolicy, spec.suspend, spec.successfulJobsHistoryLimit, spec.failedJobsHistoryLimit, spec.timeZone], ['Allow', false, 3, 1, undefined]);
  const gated = cronJobKind.forOptions!({ featureGates: new FeatureGates('CronJobTimeZone=true') });
  check('time zone kept and checked', create(gated, cj({ timeZone: 'Local' })), [{ type: 'FieldValueInvalid', field: 'spec.timeZone', msg: 'timeZone must be an explicit time zone' }]);
  check('tz in schedule and field', create(gated, cj({ timeZone: 'UTC', schedule: 'TZ=UTC * * * * *' })), [{ type: 'FieldValueInvalid', field: 'spec.schedule', msg: 'cannot use both timeZone field and TZ or CRON_TZ in schedule' }]);
  check('bad', create(cronJobKind, cj({ schedule: 'x', concurrencyPolicy: 'Never' })), [
    { type: 'FieldValueInvalid', field: 'spec.schedule', msg: 'expected exactly 5 fields, found 1: [x]' },
    { type: 'FieldValueNotSupported', field: 'spec.concurrencyPolicy' },
  ]);
  assert.equal(cronJobKind.strategy.warnings?.(cj({ schedule: 'TZ=UTC * * * * *' })), ['CRON_TZ or TZ used in spec.spec.schedule is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details']);
  assert.is(cronJobKind.strategy.defaultGarbageCollectionPolicy, undefined);
  assert.is(cronJobV1beta1Kind.strategy.defaultGarbageCollectionPolicy, 'OrphanDependents');
  assert.is(cronJobV1beta1Kind.storedAs?.fromStorage(o).apiVersion, 'batch/v1beta1');
  assert.is(cronJobV1beta1Kind.storedAs?.toStorage(cronJobV1beta1Kind.storedAs.fromStorage(o)).apiVersion, 'batch/v1');
  assert.equal(cronJobTable.cells(o), ['c', '@hourly', 'False', 0, '<none>', '2024-01-01T00:00:00Z', 'c', 'busybox', '<none>']);
});

test.run();
