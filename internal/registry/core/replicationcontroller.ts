/**
 * ReplicationController (core/v1), after Kubernetes 1.24.17 pkg/registry/core/replicationcontroller
 * (status reset on create and kept on update, generation on spec change, `/status` keeping spec,
 * v1 deletes orphaning dependents by default, the `status.replicas` field selector),
 * SetDefaults_ReplicationController and the template's PodSpec defaults,
 * ValidateReplicationController / ...Update (the spec checks run twice on update, as kube does) /
 * ...StatusUpdate, and printReplicationController. Not yet: `/scale` (autoscaling/v1 Scale; the
 * apps/v1 kinds' scale view is the one to reuse).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, invalid, required } from '../../api/field-errors.ts';
import type { KindDescriptor, StatusStrategy, Strategy, TableConvertor } from '../rest/strategy.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { goStringMap } from '../storage/helpers.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import descriptions from '../../schema/generated/descriptions/core_v1.json' with { type: 'json' };
import { defaultPodTemplateSpec, dropDisabledTemplateFields, formatLabels, layoutContainerCells, readOnlyPersistentDisks, templateContainerColumns, templateRestartRules, validatePodTemplateSpec } from './podtemplate.ts';
import { type J, list, obj, s } from './pod-util.ts';
import { scaleSubresource, scaleView, setSelectorText } from './scale.ts';
import { templatePath, templateWarnings } from './pod-warnings.ts';
import { nonNegative, nonNegativeStatus, num, replicaCounterErrors, statusOf } from './replicas.ts';

const doc = (type: string, field: string): string => (descriptions as Record<string, Record<string, string>>)[`io.k8s.api.core.v1.${type}`]?.[field] ?? '';
const specOf = (o: KubeObject): J => obj(o.spec) ?? ((o as J).spec = {});

/** SetObjectDefaults_ReplicationController. */
function defaultReplicationController(o: KubeObject): void {
  const spec = specOf(o);
  const template = obj(spec.template);
  const labels = obj(obj(template?.metadata)?.labels);
  if (labels) {
    if (Object.keys(obj(spec.selector) ?? {}).length === 0) spec.selector = labels;
    if (Object.keys(obj(o.metadata.labels) ?? {}).length === 0) o.metadata.labels = structuredClone(labels) as Record<string, string>;
  }
  if (typeof spec.replicas !== 'number') spec.replicas = 1;
  if (template) defaultPodTemplateSpec(template);
}

const matches = (selector: J, labels: J): boolean => Object.entries(selector).every(([k, v]) => k in labels && s(labels[k]) === s(v));

/** ValidatePodTemplateSpecForRC. */
function validateTemplateForRC(template: J | undefined, selector: J, replicas: number, p: FieldPath): FieldError[] {
  if (!template) return [required(p, '')];
  const errs: FieldError[] = [];
  const labels = obj(obj(template.metadata)?.labels);
  if (Object.keys(selector).length && !matches(selector, labels ?? {})) {
    errs.push(invalid(p.child('metadata').child('labels'), new GoValue(goStringMap(labels)), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(template, p));
  const spec = obj(template.spec) ?? {};
  if (replicas > 1) errs.push(...readOnlyPersistentDisks(list(spec.volumes), p.child('spec').child('volumes')));
  errs.push(...templateRestartRules(spec, p.child('spec'), 'ReplicationController'));
  return errs;
}

/** ValidateReplicationControllerSpec. */
function validateSpec(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  const p = new FieldPath('spec');
  const selector = obj(spec.selector) ?? {};
  return [
    ...nonNegative(spec.minReadySeconds, p.child('minReadySeconds')),
    ...(Object.keys(selector).length === 0 ? [required(p.child('selector'), '')] : []),
    ...nonNegative(spec.replicas, p.child('replicas')),
    ...validateTemplateForRC(obj(spec.template), selector, num(spec.replicas), p.child('template')),
  ];
}

/** ValidateReplicationControllerStatus. */
function validateStatus(o: KubeObject): FieldError[] {
  return [
    ...nonNegativeStatus(o, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']),
    ...replicaCounterErrors(statusOf(o), new FieldPath('status'), ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'], true),
  ];
}

const dropTemplateFields = (o: KubeObject, old?: KubeObject): void => {
  const template = obj(specOf(o).template);
  if (template) dropDisabledTemplateFields(template, old ? obj(obj(old.spec)?.template) : undefined);
};

export const replicationControllerStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  // v1 deletes orphan the controller's Pods unless told otherwise.
  defaultGarbageCollectionPolicy: 'OrphanDependents',
  defaults: defaultReplicationController,
  prepareForCreate(o) {
    o.status = { replicas: 0 };
    o.metadata.generation = 1;
    dropTemplateFields(o);
  },
  prepareForUpdate(o, old) {
    o.status = structuredClone(old.status ?? { replicas: 0 });
    dropTemplateFields(o, old);
    const before = old.metadata.generation ?? 0;
    o.metadata.generation = semanticEqual(o.spec ?? null, old.spec ?? null) ? before : before + 1;
  },
  validate: validateSpec,
  validateUpdate: (o) => [...validateSpec(o), ...validateSpec(o)],
  // kube's rcStrategy names the created template `template` and, on an update that moved the
  // generation, checks the OLD template under spec.template (its arguments are swapped).
  warnings: (o, old) => {
    if (!old) return templateWarnings(templatePath('template'), obj(o.spec)?.template);
    return o.metadata.generation === old.metadata.generation ? [] : templateWarnings(templatePath('spec', 'template'), obj(old.spec)?.template);
  },
};

/** rcStatusStrategy: spec is the stored one. */
const statusStrategy: StatusStrategy = {
  prepareForUpdate(o, old) {
    o.spec = structuredClone(old.spec);
    // The generic store drops generation for kinds without hasGeneration (the spec compare is ours).
    if (old.metadata.generation !== undefined) o.metadata.generation = old.metadata.generation;
  },
  validateUpdate: validateStatus,
};

export const replicationControllerTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Desired', type: 'integer', description: doc('ReplicationControllerSpec', 'replicas'), priority: 0 },
    { name: 'Current', type: 'integer', description: doc('ReplicationControllerStatus', 'replicas'), priority: 0 },
    { name: 'Ready', type: 'integer', description: doc('ReplicationControllerStatus', 'readyReplicas'), priority: 0 },
    AGE_COLUMN,
    ...templateContainerColumns(1),
    { name: 'Selector', type: 'string', description: doc('ReplicationControllerSpec', 'selector'), priority: 1 },
  ],
  cells(o) {
    const [names, images] = layoutContainerCells(list(obj(obj(specOf(o).template)?.spec)?.containers));
    return [o.metadata.name ?? '', num(specOf(o).replicas), num(statusOf(o).replicas), num(statusOf(o).readyReplicas), creationTimestampCell(o), names, images, formatLabels(specOf(o).selector)];
  },
};

export const replicationControllerKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'replicationcontrollers',
  singular: 'replicationcontroller',
  kind: 'ReplicationController',
  listKind: 'ReplicationControllerList',
  namespaced: true,
  shortNames: ['rc'],
  categories: ['all'],
  strategy: replicationControllerStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: statusStrategy }, scaleSubresource(scaleView((o) => setSelectorText(specOf(o).selector), 'autoscaling'))],
  table: replicationControllerTable,
  fieldSelectors: { 'status.replicas': (o) => String(num(statusOf(o).replicas)) },
  deleteReturns: 'Status',
};
