/**
 * Job (batch/v1, namespaced), after Kubernetes 1.24.17: SetDefaults_Job and the template's pod
 * defaults (pkg/apis/batch/v1/defaults.go), ValidateJob / ValidateJobUpdate / ValidateJobUpdateStatus
 * (pkg/apis/batch/validation), pkg/registry/batch/job (strategy.go: status reset on create, the
 * selector and the `controller-uid`/`job-name` labels generated unless manualSelector, the
 * `batch.kubernetes.io/job-tracking` annotation dropped while JobTrackingWithFinalizers is off, the
 * template's scheduling directives mutable while suspended and never started; OrphanDependents by
 * default in batch/v1 and its Warning on DELETE; `status.successful` field selector) and printJob.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableColumn, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { humanDuration } from '../rest/human-duration.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { isDNS1123Label } from '../../validation/names.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { DEFAULT_GATES, type FeatureGates } from '../../features/gates.ts';
import { defaultPodTemplateSpec, dropDisabledTemplateFields, layoutContainerCells, templateContainerColumns, validatePodTemplateSpec } from '../core/podtemplate.ts';
import { type J, list, obj, s } from '../core/pod-util.ts';
import { nonNegative, num, statusOf } from '../core/replicas.ts';
import { goStringMap } from '../storage/helpers.ts';
import { formatLabelSelector, goSelector, selectorOf } from '../apps/workload.ts';
import { goSharpVPodTemplateSpec } from '../core/go-sharpv.ts';
import { templatePath, workloadTemplateWarnings } from '../core/pod-warnings.ts';

export const specOf = (o: KubeObject): J => obj(o.spec) ?? ((o as J).spec = {});
export const templateOf = (spec: J): J => obj(spec.template) ?? (spec.template = {});
const labelsOf = (template: J): Record<string, string> | undefined => obj(obj(template.metadata)?.labels) as Record<string, string> | undefined;
const has = (v: unknown): boolean => v !== undefined && v !== null;

/** batchv1.JobTrackingFinalizer, also the annotation marking Jobs tracked with finalizers. */
export const JOB_TRACKING_ANNOTATION = 'batch.kubernetes.io/job-tracking';
/** maxParallelismForIndexedJob. */
const MAX_PARALLELISM_FOR_INDEXED_JOB = 100000;

/** SetDefaults_Job, then the template's pod defaults (SetObjectDefaults_Job). */
export function defaultJob(o: KubeObject): void {
  const spec = specOf(o);
  if (!has(spec.completions) && !has(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (!has(spec.parallelism)) spec.parallelism = 1;
  if (!has(spec.backoffLimit)) spec.backoffLimit = 6;
  copyTemplateLabels(o);
  if (!has(spec.completionMode)) spec.completionMode = 'NonIndexed';
  if (!has(spec.suspend)) spec.suspend = false;
  defaultPodTemplateSpec(templateOf(spec));
}

/**
 * SetDefaults_Job's labels: the template's, when the Job has none. Go assigns the map itself, so
 * the labels generateSelector adds to the template later show on the Job too: kept shared here.
 */
function copyTemplateLabels(o: KubeObject): void {
  const labels = labelsOf(templateOf(specOf(o)));
  if (labels && Object.keys(o.metadata.labels ?? {}).length === 0) o.metadata.labels = labels;
}

/**
 * generateSelector: the template gets `job-name` and `controller-uid` labels and the selector
 * `controller-uid` in matchLabels, each unless already there (a conflicting value fails validation).
 */
function generateSelector(o: KubeObject): void {
  const template = templateOf(specOf(o));
  const meta = obj(template.metadata) ?? (template.metadata = {});
  const labels = obj(meta.labels) ?? (meta.labels = {});
  if (!('job-name' in labels)) labels['job-name'] = o.metadata.name ?? '';
  if (!('controller-uid' in labels)) labels['controller-uid'] = o.metadata.uid ?? '';
  const spec = specOf(o);
  const selector = obj(spec.selector) ?? (spec.selector = {});
  const matchLabels = obj(selector.matchLabels) ?? (selector.matchLabels = {});
  if (!('controller-uid' in matchLabels)) matchLabels['controller-uid'] = o.metadata.uid ?? '';
}

/** ValidateHasLabel on the template's metadata. */
function hasLabel(template: J, key: string, expected: string): FieldError[] {
  const labels = labelsOf(template);
  const p = new FieldPath('spec').child('template').child('metadata').child('labels').key(key);
  if (!labels || !(key in labels)) return [required(p, `must be '${expected}'`)];
  return labels[key] === expected ? [] : [invalid(p, new GoValue(goStringMap(labels)), `must be '${expected}'`)];
}

/** ValidateGeneratedSelector: the generated labels present and selected, unless manualSelector. */
function validateGeneratedSelector(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  if (spec.manualSelector === true || !has(spec.selector)) return [];
  const errs: FieldError[] = [];
  const uid = o.metadata.uid ?? '';
  const name = o.metadata.name ?? '';
  if (!uid) errs.push(required(new FieldPath('metadata').child('uid')));
  const template = templateOf(spec);
  errs.push(...hasLabel(template, 'controller-uid', uid), ...hasLabel(template, 'job-name', name));
  const selector = selectorOf(spec.selector);
  if (selector && !selector.matches({ 'controller-uid': uid, 'job-name': name })) errs.push(invalid(new FieldPath('spec').child('selector'), goSelector(spec.selector), '`selector` not auto-generated'));
  return errs;
}

/** validateJobSpec: the counters, completionMode, the pod template and its restart policy. */
export function validateJobSpecFields(spec: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished']) if (has(spec[f])) errs.push(...nonNegative(spec[f], p.child(f)));
  if (has(spec.completionMode)) {
    const mode = s(spec.completionMode);
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(notSupported(p.child('completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (!has(spec.completions)) errs.push(required(p.child('completions'), 'when completion mode is Indexed'));
      if (has(spec.parallelism) && num(spec.parallelism) > MAX_PARALLELISM_FOR_INDEXED_JOB) errs.push(invalid(p.child('parallelism'), num(spec.parallelism), `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed`));
    }
  }
  const template = templateOf(spec);
  errs.push(...validatePodTemplateSpec(template, p.child('template')));
  const restartPolicy = s(obj(template.spec)?.restartPolicy);
  const rp = p.child('template').child('spec').child('restartPolicy');
  if (restartPolicy === 'Always' || restartPolicy === '') errs.push(required(rp, 'valid values: "OnFailure", "Never"'));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(notSupported(rp, restartPolicy, ['OnFailure', 'Never']));
  return errs;
}

/** ValidateJobSpec: validateJobSpec, the selector required and valid, and matching the template. */
function validateJobSpec(spec: J): FieldError[] {
  const p = new FieldPath('spec');
  const errs = validateJobSpecFields(spec, p);
  if (!has(spec.selector)) errs.push(required(p.child('selector')));
  else errs.push(...validateLabelSelector(spec.selector, p.child('selector')));
  // LabelSelectorAsSelector: a nil selector is labels.Nothing(), which matches no labels.
  const selector = has(spec.selector) ? selectorOf(spec.selector) : { matches: () => false };
  const labels = labelsOf(templateOf(spec));
  if (selector && !selector.matches(labels)) errs.push(invalid(p.child('template').child('metadata').child('labels'), new GoValue(goStringMap(labels)), '`selector` does not match template `labels`'));
  return errs;
}

const hasTrackingAnnotation = (o: KubeObject): boolean => o.metadata.annotations !== undefined && o.metadata.annotations !== null && JOB_TRACKING_ANNOTATION in o.metadata.annotations;

/** ValidateJob minus ObjectMeta (the store's). */
function validateJob(o: KubeObject, allowTrackingAnnotation: boolean): FieldError[] {
  const spec = specOf(o);
  const errs = [...validateGeneratedSelector(o), ...validateJobSpec(spec)];
  if (!allowTrackingAnnotation && hasTrackingAnnotation(o)) errs.push(forbidden(new FieldPath('metadata').child('annotations').key(JOB_TRACKING_ANNOTATION), 'cannot add this annotation'));
  if (s(spec.completionMode) === 'Indexed' && num(spec.completions) > 0) {
    const hostname = `${o.metadata.name ?? ''}-${num(spec.completions) - 1}`;
    if (isDNS1123Label(hostname).length) errs.push(invalid(new FieldPath('metadata').child('name'), o.metadata.name ?? '', `will not able to create pod with invalid DNS label: ${hostname}`));
  }
  return errs;
}

/** ValidateImmutableField's message with Go's printing of a pointer field's value. */
function immutable(next: unknown, old: unknown, p: FieldPath, shown: unknown): FieldError[] {
  return semanticEqual(next ?? null, old ?? null) ? [] : [invalid(p, shown, 'field is immutable')];
}

/**
 * validatePodTemplateUpdate: the template immutable, except (a suspended Job never started, with
 * JobMutableNodeSchedulingDirectives) node affinity, node selector, tolerations, labels and annotations.
 */
function validatePodTemplateUpdate(spec: J, oldSpec: J, mutableScheduling: boolean): FieldError[] {
  const template = templateOf(spec);
  let old = obj(oldSpec.template) ?? {};
  if (mutableScheduling) {
    old = structuredClone(old);
    const oldPod: J = obj(old.spec) ?? (old.spec = {});
    const pod = obj(template.spec) ?? {};
    const affinity = obj(pod.affinity);
    const oldAffinity = obj(oldPod.affinity);
    if (!affinity && oldAffinity) {
      delete oldAffinity.nodeAffinity;
      if (Object.keys(oldAffinity).length === 0) delete oldPod.affinity;
    } else if (affinity && !oldAffinity) oldPod.affinity = has(affinity.nodeAffinity) ? { nodeAffinity: affinity.nodeAffinity } : {};
    else if (affinity && oldAffinity) {
      if (has(affinity.nodeAffinity)) oldAffinity.nodeAffinity = affinity.nodeAffinity;
      else delete oldAffinity.nodeAffinity;
    }
    for (const f of ['nodeSelector', 'tolerations']) {
      if (has(pod[f])) oldPod[f] = pod[f];
      else delete oldPod[f];
    }
    const meta = obj(template.metadata) ?? {};
    const oldMeta: J = obj(old.metadata) ?? (old.metadata = {});
    for (const f of ['annotations', 'labels']) {
      if (has(meta[f])) oldMeta[f] = meta[f];
      else delete oldMeta[f];
    }
  }
  if (semanticEqual(template, old)) return [];
  return [invalid(new FieldPath('spec').child('template'), new GoValue(goSharpVPodTemplateSpec(template)), 'field is immutable')];
}

/** ValidateJobSpecUpdate minus ValidateJobSpec (the caller's). */
function validateJobSpecUpdate(spec: J, oldSpec: J, mutableScheduling: boolean): FieldError[] {
  const p = new FieldPath('spec');
  return [
    ...validateJobSpec(spec),
    ...immutable(spec.completions, oldSpec.completions, p.child('completions'), has(spec.completions) ? num(spec.completions) : new GoValue('null')),
    ...immutable(spec.selector, oldSpec.selector, p.child('selector'), has(spec.selector) ? goSelector(spec.selector) : new GoValue('null')),
    ...validatePodTemplateUpdate(spec, oldSpec, mutableScheduling),
    ...immutable(spec.completionMode, oldSpec.completionMode, p.child('completionMode'), has(spec.completionMode) ? s(spec.completionMode) : new GoValue('null')),
  ];
}

/** validateJobStatus. */
function validateJobStatus(o: KubeObject): FieldError[] {
  const st = statusOf(o);
  const p = new FieldPath('status');
  const errs = ['active', 'succeeded', 'failed'].flatMap((f) => nonNegative(st[f], p.child(f)));
  if (has(st.ready)) errs.push(...nonNegative(st.ready, p.child('ready')));
  const uncounted = obj(st.uncountedTerminatedPods);
  if (uncounted) {
    const up = p.child('uncountedTerminatedPods');
    const seen = new Set<string>();
    for (const which of ['succeeded', 'failed']) {
      list(uncounted[which]).forEach((k, i) => {
        const uid = s(k);
        const ip = up.child(which).index(i);
        if (uid === '') errs.push(invalid(ip, uid, 'must not be empty'));
        else if (seen.has(uid)) errs.push(duplicate(ip, uid));
        else seen.add(uid);
      });
    }
  }
  return errs;
}

/** jobStrategy under the given feature gates. */
function jobStrategy(gates: FeatureGates): Strategy {
  const tracking = gates.enabled('JobTrackingWithFinalizers');
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    // batch/v1 Jobs orphan their Pods by default, for backward compatibility.
    defaultGarbageCollectionPolicy: 'OrphanDependents',
    defaults: defaultJob,
    prepareForCreate(o) {
      o.status = {};
      if (tracking) o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [JOB_TRACKING_ANNOTATION]: '' };
      else if (o.metadata.annotations) delete o.metadata.annotations[JOB_TRACKING_ANNOTATION];
      dropDisabledTemplateFields(templateOf(specOf(o)));
    },
    prepareForUpdate(o, old) {
      o.status = structuredClone(old.status);
      if (!tracking && !hasTrackingAnnotation(old) && o.metadata.annotations) delete o.metadata.annotations[JOB_TRACKING_ANNOTATION];
      dropDisabledTemplateFields(templateOf(specOf(o)), obj(obj(old.spec)?.template) ?? {});
    },
    validate(o) {
      if (specOf(o).manualSelector !== true) {
        generateSelector(o);
        // kube stores the Job as it was before generateSelector, whose every read defaults it
        // again (SetDefaults_Job): labels still empty are the template's, generated ones included.
        copyTemplateLabels(o);
      }
      return validateJob(o, tracking);
    },
    validateUpdate(o, old) {
      const oldSpec = obj(old.spec) ?? {};
      const mutableScheduling = gates.enabled('JobMutableNodeSchedulingDirectives') && oldSpec.suspend === true && !has(statusOf(old).startTime);
      return [...validateJob(o, hasTrackingAnnotation(old)), ...validateJobSpecUpdate(specOf(o), oldSpec, mutableScheduling)];
    },
    warnings: workloadTemplateWarnings(templatePath('spec', 'template'), (o) => obj(o.spec)?.template),
  };
}

/** The DELETE Warning of a batch/v1 Job deleted without a propagation policy (kube's job REST). */
export const JOB_DELETE_WARNING = 'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';

/** The wide columns printJob and printCronJob end with: the template's containers and the Job's selector (JobSpec's doc). */
export const JOB_WIDE_COLUMNS: TableColumn[] = [
  ...templateContainerColumns(1),
  { name: 'Selector', type: 'string', description: 'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', priority: 1 },
];

/** printJob. */
export const jobTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Completions', type: 'string', description: 'The number of pods which reached phase Succeeded.', priority: 0 },
    { name: 'Duration', type: 'string', description: 'Time required to complete the job.', priority: 0 },
    AGE_COLUMN,
    ...JOB_WIDE_COLUMNS,
  ],
  cells(o) {
    const spec = specOf(o);
    const st = statusOf(o);
    const succeeded = num(st.succeeded);
    let completions: string;
    if (has(spec.completions)) completions = `${succeeded}/${num(spec.completions)}`;
    else completions = num(spec.parallelism) > 1 ? `${succeeded}/1 of ${num(spec.parallelism)}` : `${succeeded}/1`;
    const start = s(st.startTime);
    const end = s(st.completionTime);
    const duration = !start ? '' : humanDuration((end ? Date.parse(end) : Date.now()) - Date.parse(start));
    const [names, images] = layoutContainerCells(list(obj(templateOf(spec).spec)?.containers));
    return [o.metadata.name ?? '', completions, duration, creationTimestampCell(o), names, images, formatLabelSelector(spec.selector)];
  },
};

/** The descriptor under the given gates. */
function jobKindFor(gates: FeatureGates): KindDescriptor {
  const strategy = jobStrategy(gates);
  return {
    group: 'batch',
    versions: ['v1'],
    resource: 'jobs',
    singular: 'job',
    kind: 'Job',
    listKind: 'JobList',
    namespaced: true,
    shortNames: [],
    categories: ['all'],
    strategy,
    subresources: [
      {
        name: 'status',
        verbs: ['get', 'patch', 'update'],
        strategy: {
          prepareForUpdate(o, old) {
            o.spec = structuredClone(old.spec);
          },
          validateUpdate: validateJobStatus,
        },
      },
    ],
    table: jobTable,
    fieldSelectors: { 'status.successful': (o) => String(num(statusOf(o).succeeded)) },
    deleteReturns: 'Status',
    deleteWarning: (opts) => (opts.propagationPolicy === undefined && opts.orphanDependents === undefined ? JOB_DELETE_WARNING : undefined),
    hasGeneration: true,
    forOptions: (options) => jobKindFor(options.featureGates ?? DEFAULT_GATES),
  };
}

/** batch/v1 jobs under 1.24's default gates; `forOptions` rebuilds it for others. */
export const jobKind: KindDescriptor = jobKindFor(DEFAULT_GATES);


