/**
 * CronJob (batch/v1, and the deprecated batch/v1beta1 over the same objects), after Kubernetes
 * 1.24.17: SetDefaults_CronJob and the job template's pod defaults (pkg/apis/batch/v1 and v1beta1
 * defaults.go: the same in both), ValidateCronJobCreate / ValidateCronJobUpdate
 * (pkg/apis/batch/validation: the schedule as robfig/cron parses it, timeZone, concurrencyPolicy,
 * the job template with its selector left to the Job, names of at most 52 characters on create),
 * pkg/registry/batch/cronjob (status reset on create, timeZone dropped while CronJobTimeZone is off,
 * the `TZ` Warning, OrphanDependents by default in v1beta1 only) and printCronJob.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, invalid, notSupported, required } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { humanDuration } from '../rest/human-duration.ts';
import { DEFAULT_GATES, type FeatureGates } from '../../features/gates.ts';
import { defaultPodTemplateSpec, dropDisabledTemplateFields, layoutContainerCells } from '../core/podtemplate.ts';
import { type J, list, obj, s } from '../core/pod-util.ts';
import { nonNegative, statusOf } from '../core/replicas.ts';
import { formatLabelSelector, goSelector } from '../apps/workload.ts';
import { JOB_WIDE_COLUMNS, specOf, templateOf, validateJobSpecFields } from './job.ts';
import { cronScheduleError, loadLocationError } from './cron-schedule.ts';
import { goQuote } from '../../gocompat/quote.ts';
import { templatePath, workloadTemplateWarnings } from '../core/pod-warnings.ts';

const has = (v: unknown): boolean => v !== undefined && v !== null;
const jobTemplateOf = (o: KubeObject): J => {
  const spec = specOf(o);
  return obj(spec.jobTemplate) ?? (spec.jobTemplate = {});
};
const jobSpecOf = (o: KubeObject): J => {
  const t = jobTemplateOf(o);
  return obj(t.spec) ?? (t.spec = {});
};

/** SetDefaults_CronJob, then the job template's pod defaults (SetObjectDefaults_CronJob). */
export function defaultCronJob(o: KubeObject): void {
  const spec = specOf(o);
  if (!s(spec.concurrencyPolicy)) spec.concurrencyPolicy = 'Allow';
  if (!has(spec.suspend)) spec.suspend = false;
  if (!has(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
  if (!has(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
  defaultPodTemplateSpec(templateOf(jobSpecOf(o)));
}

/** validateTimeZone (a nil time zone is fine). */
function validateTimeZone(tz: unknown, p: FieldPath): FieldError[] {
  if (!has(tz)) return [];
  const zone = s(tz);
  if (zone === '') return [invalid(p, zone, 'timeZone must be nil or non-empty string')];
  const errs: FieldError[] = [];
  if (zone.toLowerCase() === 'local') errs.push(invalid(p, zone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  const err = loadLocationError(zone);
  if (err) errs.push(invalid(p, zone, err));
  return errs;
}

/** ValidateJobTemplateSpec: the Job spec, without a selector (generated) or manualSelector. */
function validateJobTemplateSpec(jobSpec: J, p: FieldPath): FieldError[] {
  const sp = p.child('spec');
  const errs = validateJobSpecFields(jobSpec, sp);
  if (has(jobSpec.selector)) errs.push(invalid(sp.child('selector'), goSelector(jobSpec.selector), '`selector` will be auto-generated'));
  if (jobSpec.manualSelector === true) errs.push(notSupported(sp.child('manualSelector'), true, ['nil', 'false']));
  return errs;
}

/** validateCronJobSpec (`old`: the stored object on update, whose unchanged timeZone is not checked). */
function validateCronJobSpec(o: KubeObject, old?: KubeObject): FieldError[] {
  const spec = specOf(o);
  const p = new FieldPath('spec');
  const errs: FieldError[] = [];
  const schedule = s(spec.schedule);
  if (!schedule) errs.push(required(p.child('schedule')));
  else {
    const err = cronScheduleError(schedule);
    if (err) errs.push(invalid(p.child('schedule'), schedule, err));
    if (schedule.includes('TZ') && has(spec.timeZone)) errs.push(invalid(p.child('schedule'), schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  }
  if (has(spec.startingDeadlineSeconds)) errs.push(...nonNegative(spec.startingDeadlineSeconds, p.child('startingDeadlineSeconds')));
  const oldTz = old ? obj(old.spec)?.timeZone : undefined;
  if (!old || (has(oldTz) ? oldTz !== spec.timeZone : has(spec.timeZone))) errs.push(...validateTimeZone(spec.timeZone, p.child('timeZone')));
  const policy = s(spec.concurrencyPolicy);
  if (policy === '') errs.push(required(p.child('concurrencyPolicy')));
  else if (!['Allow', 'Forbid', 'Replace'].includes(policy)) errs.push(notSupported(p.child('concurrencyPolicy'), policy, ['Allow', 'Forbid', 'Replace']));
  errs.push(...validateJobTemplateSpec(jobSpecOf(o), p.child('jobTemplate')));
  for (const f of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) if (has(spec[f])) errs.push(...nonNegative(spec[f], p.child(f)));
  return errs;
}

/** The job name the controller makes is the CronJob's plus 11 characters, within 63. */
const MAX_CRONJOB_NAME = 52;

/** WarningsOnCreate/Update's pod warnings of spec.jobTemplate.spec.template. */
const templateWarnings = workloadTemplateWarnings(templatePath('spec', 'jobTemplate', 'spec', 'template'), (o) => obj(obj(obj(o.spec)?.jobTemplate)?.spec)?.template);

const TZ_WARNING = 'CRON_TZ or TZ used in spec.spec.schedule is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details';

/** cronJobStrategy under the given gates; `orphan`: batch/v1beta1's OrphanDependents default. */
function cronJobStrategy(gates: FeatureGates, orphan: boolean): Strategy {
  const timeZones = gates.enabled('CronJobTimeZone');
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    ...(orphan ? { defaultGarbageCollectionPolicy: 'OrphanDependents' as const } : {}),
    defaults: defaultCronJob,
    prepareForCreate(o) {
      o.status = {};
      if (!timeZones) delete specOf(o).timeZone;
      dropDisabledTemplateFields(templateOf(jobSpecOf(o)));
    },
    prepareForUpdate(o, old) {
      o.status = structuredClone(old.status);
      if (!timeZones && !has(obj(old.spec)?.timeZone)) delete specOf(o).timeZone;
      dropDisabledTemplateFields(templateOf(jobSpecOf(o)), obj(obj(obj(obj(old.spec)?.jobTemplate)?.spec)?.template) ?? {});
    },
    validate(o) {
      const errs = validateCronJobSpec(o);
      const name = o.metadata.name ?? '';
      if (name.length > MAX_CRONJOB_NAME) errs.push(invalid(new FieldPath('metadata').child('name'), name, `must be no more than ${MAX_CRONJOB_NAME} characters`));
      return errs;
    },
    validateUpdate: (o, old) => validateCronJobSpec(o, old),
    warnings: (o, old) => [...templateWarnings(o, old), ...(s(specOf(o).schedule).includes('TZ') ? [TZ_WARNING] : [])],
  };
}

/** printCronJob (its descriptions are batch/v1beta1's, as kube's printers take them). */
export const cronJobTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Schedule', type: 'string', description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.', priority: 0 },
    { name: 'Suspend', type: 'boolean', description: 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.', priority: 0 },
    { name: 'Active', type: 'integer', description: 'A list of pointers to currently running jobs.', priority: 0 },
    { name: 'Last Schedule', type: 'string', description: 'Information when was the last time the job was successfully scheduled.', priority: 0 },
    AGE_COLUMN,
    ...JOB_WIDE_COLUMNS,
  ],
  cells(o) {
    const spec = specOf(o);
    const st = statusOf(o);
    const last = s(st.lastScheduleTime);
    const suspend = typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>';
    const jobSpec = obj(obj(spec.jobTemplate)?.spec) ?? {};
    const [names, images] = layoutContainerCells(list(obj(obj(jobSpec.template)?.spec)?.containers));
    return [o.metadata.name ?? '', s(spec.schedule), suspend, list(st.active).length, last ? humanDuration(Date.now() - Date.parse(last)) : '<none>', creationTimestampCell(o), names, images, formatLabelSelector(jobSpec.selector)];
  },
};

const statusStrategy = {
  prepareForUpdate(o: KubeObject, old: KubeObject) {
    o.spec = structuredClone(old.spec);
  },
  validateUpdate: (): FieldError[] => [],
};

/** The v1 object as another version: the two versions have the same fields, only apiVersion differs. */
const withApiVersion = (apiVersion: string) => (o: KubeObject): KubeObject => ({ ...o, apiVersion });

/** batch/v1 or (`beta`) batch/v1beta1 cronjobs under the given gates. */
function cronJobKindFor(gates: FeatureGates, beta: boolean): KindDescriptor {
  const v1: KindDescriptor = {
    group: 'batch',
    versions: ['v1'],
    resource: 'cronjobs',
    singular: 'cronjob',
    kind: 'CronJob',
    listKind: 'CronJobList',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    strategy: cronJobStrategy(gates, beta),
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], strategy: statusStrategy }],
    table: cronJobTable,
    deleteReturns: 'Status',
    hasGeneration: true,
    forOptions: (options) => cronJobKindFor(options.featureGates ?? DEFAULT_GATES, beta),
  };
  if (!beta) return v1;
  return {
    ...v1,
    versions: ['v1beta1'],
    // batch/v1beta1's field-label conversion lets status.successful through (a CronJob has no
    // such field: it is empty) and names the kind quoted for any other field.
    fieldSelectors: { 'status.successful': () => '' },
    fieldLabelError: (field) => `field label ${goQuote(field)} not supported for "CronJob"`,
    deprecationWarning: 'batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob',
    removedRelease: '1.25',
    storedAs: { group: 'batch', version: 'v1', kind: 'CronJob', resource: 'cronjobs', fromStorage: withApiVersion('batch/v1beta1'), toStorage: withApiVersion('batch/v1') },
  };
}

/** batch/v1 cronjobs under 1.24's default gates; `forOptions` rebuilds it for others. */
export const cronJobKind: KindDescriptor = cronJobKindFor(DEFAULT_GATES, false);

/**
 * batch/v1beta1 CronJob as 1.24 serves it: deprecated (removed in 1.25), the same stored objects
 * as batch/v1 (the preferred and storage version), converted without loss both ways.
 */
export const cronJobV1beta1Kind: KindDescriptor = cronJobKindFor(DEFAULT_GATES, true);
