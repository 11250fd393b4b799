/**
 * Deployment (apps/v1, namespaced), after Kubernetes 1.24.17: SetDefaults_Deployment
 * (pkg/apis/apps/v1/defaults.go) and the template's pod defaults, ValidateDeployment /
 * ValidateDeploymentUpdate / ValidateDeploymentStatusUpdate (pkg/apis/apps/validation),
 * pkg/registry/apps/deployment (strategy.go: status reset on create, generation bumped by a spec
 * or annotation change, selector immutable in apps/v1, `/status` keeps spec and labels; `/scale`)
 * and printDeployment (pkg/printers/internalversion).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { appsScaleSubresource } from './scale.ts';
import {
  type J,
  collisionCountDecremented,
  containerCells,
  templateContainerColumns,
  defaultTemplate,
  dropDisabledSpecTemplateFields,
  goIntOrString,
  goSelector,
  immutableSelector,
  intOrPercentValue,
  nonNegative,
  nonNegativeStatus,
  notMoreThan100Percent,
  num,
  obj,
  replicaCounterErrors,
  s,
  selectorOf,
  specOf,
  statusKeepingSpec,
  statusOf,
  validatePositiveIntOrPercent,
  validateTemplateForReplicaSet,
  validateWorkloadSelector,
  specTemplateWarnings,
} from './workload.ts';

/** SetDefaults_Deployment, then the template's pod defaults (SetObjectDefaults_Deployment). */
export function defaultDeployment(o: KubeObject): void {
  const spec = specOf(o);
  if (typeof spec.replicas !== 'number') spec.replicas = 1;
  const strategy = obj(spec.strategy) ?? (spec.strategy = {});
  if (!s(strategy.type)) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = obj(strategy.rollingUpdate) ?? (strategy.rollingUpdate = {});
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = '25%';
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = '25%';
  }
  if (typeof spec.revisionHistoryLimit !== 'number') spec.revisionHistoryLimit = 10;
  if (typeof spec.progressDeadlineSeconds !== 'number') spec.progressDeadlineSeconds = 600;
  defaultTemplate(spec);
}

/** ValidateDeploymentStrategy. */
function validateStrategy(strategy: J, p: FieldPath): FieldError[] {
  const ru = obj(strategy.rollingUpdate);
  switch (strategy.type) {
    case 'Recreate':
      return ru ? [forbidden(p.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")] : [];
    case 'RollingUpdate': {
      if (!ru) return [required(p.child('rollingUpdate'), 'this should be defaulted and never be nil')];
      const rp = p.child('rollingUpdate');
      const errs = [...validatePositiveIntOrPercent(ru.maxUnavailable, rp.child('maxUnavailable')), ...validatePositiveIntOrPercent(ru.maxSurge, rp.child('maxSurge'))];
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) errs.push(invalid(rp.child('maxUnavailable'), goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
      errs.push(...notMoreThan100Percent(ru.maxUnavailable, rp.child('maxUnavailable')));
      return errs;
    }
    default:
      return [notSupported(p, strategy.type ?? '', ['Recreate', 'RollingUpdate'])];
  }
}

/** ValidateDeploymentSpec. */
export function validateDeploymentSpec(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  const p = new FieldPath('spec');
  const errs = nonNegative(spec.replicas, p.child('replicas'));
  const sel = validateWorkloadSelector(spec.selector, p.child('selector'), 'deployment');
  errs.push(...sel.errs);
  if (!sel.selector) errs.push(invalid(p.child('selector'), goSelector(spec.selector), 'invalid label selector'));
  else errs.push(...validateTemplateForReplicaSet(spec.template, sel.selector, num(spec.replicas), p.child('template')));
  errs.push(...validateStrategy(obj(spec.strategy) ?? {}, p.child('strategy')));
  errs.push(...nonNegative(spec.minReadySeconds, p.child('minReadySeconds')));
  if (typeof spec.revisionHistoryLimit === 'number') errs.push(...nonNegative(spec.revisionHistoryLimit, p.child('revisionHistoryLimit')));
  const rollback = obj(spec.rollbackTo);
  if (rollback) errs.push(...nonNegative(rollback.revision, p.child('rollback').child('version')));
  if (typeof spec.progressDeadlineSeconds === 'number') {
    errs.push(...nonNegative(spec.progressDeadlineSeconds, p.child('progressDeadlineSeconds')));
    if (spec.progressDeadlineSeconds <= num(spec.minReadySeconds)) errs.push(invalid(p.child('progressDeadlineSeconds'), spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** ValidateDeploymentStatus. */
function validateDeploymentStatus(o: KubeObject): FieldError[] {
  const st = statusOf(o);
  const p = new FieldPath('status');
  const errs = nonNegativeStatus(o, ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']);
  if (typeof st.collisionCount === 'number') errs.push(...nonNegative(st.collisionCount, p.child('collisionCount')));
  errs.push(...replicaCounterErrors(st, p, ['updatedReplicas', 'readyReplicas', 'availableReplicas'], true));
  return errs;
}

export const deploymentStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultDeployment,
  prepareForCreate(o) {
    o.status = {};
    dropDisabledSpecTemplateFields(specOf(o));
  },
  prepareForUpdate(o, old) {
    o.status = structuredClone(old.status);
    dropDisabledSpecTemplateFields(specOf(o), obj(old.spec));
    // The store bumps generation on a spec change; a Deployment's annotations count too.
    if (!semanticEqual(o.metadata.annotations ?? null, old.metadata.annotations ?? null)) o.metadata.generation = (old.metadata.generation ?? 0) + 1;
  },
  validate: validateDeploymentSpec,
  validateUpdate: (o, old) => [...validateDeploymentSpec(o), ...immutableSelector(o, old)],
  warnings: specTemplateWarnings,
};

/** deploymentStatusStrategy: spec and labels are the stored ones. */
const deploymentStatusStrategy = statusKeepingSpec(
  (o, old) => [...validateDeploymentStatus(o), ...collisionCountDecremented(o, old)],
  (o, old) => {
    if (old.metadata.labels) o.metadata.labels = structuredClone(old.metadata.labels);
    else delete o.metadata.labels;
  },
);

/** printDeployment (its descriptions are extensions/v1beta1's, as kube's printers take them). */
export const deploymentTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', priority: 0 },
    { name: 'Up-to-date', type: 'string', description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.', priority: 0 },
    { name: 'Available', type: 'string', description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.', priority: 0 },
    AGE_COLUMN,
    ...templateContainerColumns(1),
    { name: 'Selector', type: 'string', description: 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', priority: 1 },
  ],
  cells(o) {
    const spec = specOf(o);
    const st = statusOf(o);
    const selector = selectorOf(obj(spec.selector));
    const [names, images] = containerCells(o);
    return [o.metadata.name ?? '', `${num(st.readyReplicas)}/${num(spec.replicas)}`, num(st.updatedReplicas), num(st.availableReplicas), creationTimestampCell(o), names, images, selector ? selector.toString() : '<invalid>'];
  },
};

export const deploymentKind: KindDescriptor = {
  group: 'apps',
  versions: ['v1'],
  resource: 'deployments',
  singular: 'deployment',
  kind: 'Deployment',
  listKind: 'DeploymentList',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  strategy: deploymentStrategy,
  subresources: [appsScaleSubresource, { name: 'status', verbs: ['get', 'patch', 'update'], strategy: deploymentStatusStrategy }],
  table: deploymentTable,
  deleteReturns: 'Status',
  hasGeneration: true,
};
