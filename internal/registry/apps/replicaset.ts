/**
 * ReplicaSet (apps/v1, namespaced), after Kubernetes 1.24.17: SetDefaults_ReplicaSet and the
 * template's pod defaults, ValidateReplicaSet / ValidateReplicaSetUpdate (which runs the spec
 * checks a second time, so an update lists each spec error twice, as kube does) /
 * ValidateReplicaSetStatusUpdate, pkg/registry/apps/replicaset (status reset on create, generation
 * on spec change, selector immutable, `/status` keeps spec, `/scale`; apps/v1 registers no field label
 * conversion, so `status.replicas` is not a field selector there) and printReplicaSet.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { appsScaleSubresource } from './scale.ts';
import {
  containerCells,
  templateContainerColumns,
  defaultTemplate,
  dropDisabledSpecTemplateFields,
  formatLabelSelector,
  goSelector,
  immutableSelector,
  nonNegative,
  nonNegativeStatus,
  num,
  obj,
  replicaCounterErrors,
  specOf,
  statusKeepingSpec,
  statusOf,
  validateTemplateForReplicaSet,
  validateWorkloadSelector,
  specTemplateWarnings,
} from './workload.ts';
import { invalid } from '../../api/field-errors.ts';

/** SetObjectDefaults_ReplicaSet. */
export function defaultReplicaSet(o: KubeObject): void {
  const spec = specOf(o);
  if (typeof spec.replicas !== 'number') spec.replicas = 1;
  defaultTemplate(spec);
}

/** ValidateReplicaSetSpec. */
export function validateReplicaSetSpec(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  const p = new FieldPath('spec');
  const errs = [...nonNegative(spec.replicas, p.child('replicas')), ...nonNegative(spec.minReadySeconds, p.child('minReadySeconds'))];
  // kube's message names deployments here too.
  const sel = validateWorkloadSelector(spec.selector, p.child('selector'), 'deployment');
  errs.push(...sel.errs);
  if (!sel.selector) errs.push(invalid(p.child('selector'), goSelector(spec.selector), 'invalid label selector'));
  else errs.push(...validateTemplateForReplicaSet(spec.template, sel.selector, num(spec.replicas), p.child('template')));
  return errs;
}

/** ValidateReplicaSetStatus. */
function validateReplicaSetStatus(o: KubeObject): FieldError[] {
  const st = statusOf(o);
  const p = new FieldPath('status');
  const errs = nonNegativeStatus(o, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']);
  errs.push(...replicaCounterErrors(st, p, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'], true));
  return errs;
}

export const replicaSetStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultReplicaSet,
  prepareForCreate(o) {
    o.status = { replicas: 0 };
    dropDisabledSpecTemplateFields(specOf(o));
  },
  prepareForUpdate(o, old) {
    o.status = structuredClone(old.status);
    dropDisabledSpecTemplateFields(specOf(o), obj(old.spec));
  },
  validate: validateReplicaSetSpec,
  validateUpdate: (o, old) => [...validateReplicaSetSpec(o), ...validateReplicaSetSpec(o), ...immutableSelector(o, old)],
  warnings: specTemplateWarnings,
};

/** rsStatusStrategy: spec is the stored one. */
const replicaSetStatusStrategy = statusKeepingSpec(validateReplicaSetStatus);

/** printReplicaSet (descriptions: extensions/v1beta1's, as kube's printers take them). */
export const replicaSetTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    {
      name: 'Desired',
      type: 'integer',
      description:
        'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller',
      priority: 0,
    },
    { name: 'Current', type: 'integer', description: 'Replicas is the most recently oberved number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller', priority: 0 },
    { name: 'Ready', type: 'integer', description: 'The number of ready replicas for this replica set.', priority: 0 },
    AGE_COLUMN,
    ...templateContainerColumns(1),
    {
      name: 'Selector',
      type: 'string',
      description:
        'Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
      priority: 1,
    },
  ],
  cells(o) {
    const [names, images] = containerCells(o);
    return [o.metadata.name ?? '', num(specOf(o).replicas), num(statusOf(o).replicas), num(statusOf(o).readyReplicas), creationTimestampCell(o), names, images, formatLabelSelector(specOf(o).selector)];
  },
};

export const replicaSetKind: KindDescriptor = {
  group: 'apps',
  versions: ['v1'],
  resource: 'replicasets',
  singular: 'replicaset',
  kind: 'ReplicaSet',
  listKind: 'ReplicaSetList',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  strategy: replicaSetStrategy,
  subresources: [appsScaleSubresource, { name: 'status', verbs: ['get', 'patch', 'update'], strategy: replicaSetStatusStrategy }],
  table: replicaSetTable,
  deleteReturns: 'Status',
  hasGeneration: true,
};
