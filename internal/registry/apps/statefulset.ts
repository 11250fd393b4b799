/**
 * StatefulSet (apps/v1, namespaced), after Kubernetes 1.24.17: SetDefaults_StatefulSet with 1.24's
 * default gates (MaxUnavailableStatefulSet and StatefulSetAutoDeletePVC alpha/off: their fields
 * are dropped unless the stored object has them; StatefulSetMinReadySeconds beta/on), the
 * template's pod defaults and the claim templates' PVC defaults; ValidateStatefulSet (1.24 checks
 * the template's labels, annotations, restartPolicy and activeDeadlineSeconds only, not its pod
 * spec) / ValidateStatefulSetUpdate / ValidateStatefulSetStatusUpdate;
 * pkg/registry/apps/statefulset (status reset, generation on spec change, `/status`, `/scale`);
 * the v1 conversion's apiVersion/kind on claim templates; printStatefulSet.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { validateAnnotations, validateLabels } from '../../validation/objectmeta.ts';
import { defaultPersistentVolumeClaim } from '../core/persistentvolumeclaim.ts';
import { DEFAULT_POD_VALIDATION_OPTIONS, validatePodAnnotations } from '../core/pod-validation.ts';
import { GO_POINTER } from '../storage/helpers.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { appsScaleSubresource } from './scale.ts';
import {
  type J,
  collisionCountDecremented,
  containerCells,
  templateContainerColumns,
  defaultTemplate,
  dropDisabledSpecTemplateFields,
  goSelector,
  list,
  nonNegative,
  nonNegativeStatus,
  num,
  obj,
  replicaCounterErrors,
  s,
  selectorMatchErrors,
  specOf,
  statusKeepingSpec,
  statusOf,
  templateRestartRules,
  validateWorkloadSelector,
  specTemplateWarnings,
} from './workload.ts';

/** SetObjectDefaults_StatefulSet. */
export function defaultStatefulSet(o: KubeObject): void {
  const spec = specOf(o);
  if (!s(spec.podManagementPolicy)) spec.podManagementPolicy = 'OrderedReady';
  const us = obj(spec.updateStrategy) ?? (spec.updateStrategy = {});
  if (!s(us.type)) {
    us.type = 'RollingUpdate';
    if (!obj(us.rollingUpdate)) us.rollingUpdate = {};
  }
  const ru = obj(us.rollingUpdate);
  if (us.type === 'RollingUpdate' && ru && typeof ru.partition !== 'number') ru.partition = 0;
  if (typeof spec.replicas !== 'number') spec.replicas = 1;
  if (typeof spec.revisionHistoryLimit !== 'number') spec.revisionHistoryLimit = 10;
  defaultTemplate(spec);
  for (const claim of list(spec.volumeClaimTemplates)) defaultPersistentVolumeClaim(claim as unknown as KubeObject);
}

/** dropStatefulSetDisabledFields with 1.24's default gates. */
function dropDisabledFields(spec: J, old?: J): void {
  if (!obj(old?.persistentVolumeClaimRetentionPolicy)) delete spec.persistentVolumeClaimRetentionPolicy;
  const oldRu = obj(obj(old?.updateStrategy)?.rollingUpdate);
  const ru = obj(obj(spec.updateStrategy)?.rollingUpdate);
  if (ru && !(oldRu && oldRu.maxUnavailable !== undefined && oldRu.maxUnavailable !== null)) delete ru.maxUnavailable;
}

/** %#v of an apps.RollingUpdateStatefulSetStrategy. */
const goRollingUpdate = (ru: J): GoValue =>
  new GoValue(`apps.RollingUpdateStatefulSetStrategy{Partition:${num(ru.partition)}, MaxUnavailable:(*intstr.IntOrString)(${ru.maxUnavailable === undefined || ru.maxUnavailable === null ? 'nil' : GO_POINTER})}`);

/** ValidatePersistentVolumeClaimRetentionPolicy. */
function validateRetentionPolicy(policy: unknown, p: FieldPath): FieldError[] {
  const o = obj(policy);
  if (!o) return [];
  const errs: FieldError[] = [];
  for (const f of ['whenDeleted', 'whenScaled']) if (o[f] !== 'Retain' && o[f] !== 'Delete') errs.push(notSupported(p.child(f), s(o[f]), ['Retain', 'Delete']));
  return errs;
}

/** ValidateStatefulSetSpec. */
export function validateStatefulSetSpec(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  const p = new FieldPath('spec');
  const errs: FieldError[] = [];
  const pmp = s(spec.podManagementPolicy);
  if (!pmp) errs.push(required(p.child('podManagementPolicy')));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') errs.push(invalid(p.child('podManagementPolicy'), pmp, "must be 'OrderedReady' or 'Parallel'"));
  const us = obj(spec.updateStrategy) ?? {};
  const ru = obj(us.rollingUpdate);
  switch (s(us.type)) {
    case '':
      errs.push(required(p.child('updateStrategy')));
      break;
    case 'OnDelete':
      if (ru) errs.push(invalid(p.child('updateStrategy').child('rollingUpdate'), goRollingUpdate(ru), "only allowed for updateStrategy 'RollingUpdate'"));
      break;
    case 'RollingUpdate':
      if (ru) errs.push(...nonNegative(ru.partition, p.child('updateStrategy').child('rollingUpdate').child('partition')));
      break;
    default:
      errs.push(
        invalid(
          p.child('updateStrategy'),
          new GoValue(`apps.StatefulSetUpdateStrategy{Type:${JSON.stringify(s(us.type))}, RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(${ru ? GO_POINTER : 'nil'})}`),
          "must be 'RollingUpdate' or 'OnDelete'",
        ),
      );
  }
  errs.push(...validateRetentionPolicy(spec.persistentVolumeClaimRetentionPolicy, p.child('persistentVolumeClaimRetentionPolicy')));
  errs.push(...nonNegative(spec.replicas, p.child('replicas')), ...nonNegative(spec.minReadySeconds, p.child('minReadySeconds')));
  const sel = validateWorkloadSelector(spec.selector, p.child('selector'), 'statefulset');
  errs.push(...sel.errs);
  const template = obj(spec.template) ?? {};
  const tp = p.child('template');
  if (!sel.selector) errs.push(invalid(p.child('selector'), goSelector(spec.selector), ''));
  else {
    // ValidatePodTemplateSpecForStatefulSet: no pod spec validation in 1.24.
    const meta = obj(template.metadata) ?? {};
    errs.push(...selectorMatchErrors(sel.selector, template, tp));
    errs.push(...validateLabels(meta.labels, tp.child('labels')), ...validateAnnotations(meta.annotations, tp.child('annotations')));
    errs.push(...validatePodAnnotations(obj(meta.annotations) ?? {}, obj(template.spec) ?? {}, tp.child('annotations'), DEFAULT_POD_VALIDATION_OPTIONS));
  }
  errs.push(...templateRestartRules(obj(template.spec) ?? {}, tp.child('spec'), 'StatefulSet'));
  return errs;
}

/** The spec fields a StatefulSet update may change. */
const MUTABLE = ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'persistentVolumeClaimRetentionPolicy'];
/** The rest of a spec in its internal form (claim templates without the apiVersion/kind v1 adds). */
function fixedPart(spec: J): J {
  const out = Object.fromEntries(Object.entries(spec).filter(([k]) => !MUTABLE.includes(k)));
  if (Array.isArray(out.volumeClaimTemplates)) out.volumeClaimTemplates = list(out.volumeClaimTemplates).map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
  return out;
}

/** ValidateStatefulSetUpdate (after ValidateStatefulSet). */
function validateStatefulSetUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const spec = specOf(o);
  const errs: FieldError[] = [];
  if (!semanticEqual(fixedPart(spec), fixedPart(obj(old.spec) ?? {}))) {
    errs.push(forbidden(new FieldPath('spec'), "updates to statefulset spec for fields other than 'replicas', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  }
  const p = new FieldPath('spec');
  errs.push(...nonNegative(spec.replicas, p.child('replicas')), ...nonNegative(spec.minReadySeconds, p.child('minReadySeconds')));
  errs.push(...validateRetentionPolicy(spec.persistentVolumeClaimRetentionPolicy, p.child('persistentVolumeClaimRetentionPolicy')));
  return errs;
}

/** ValidateStatefulSetStatus (+ collisionCount not decremented). */
function validateStatefulSetStatus(o: KubeObject, old: KubeObject): FieldError[] {
  const st = statusOf(o);
  const p = new FieldPath('status');
  const errs = nonNegativeStatus(o, ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']);
  for (const f of ['observedGeneration', 'collisionCount']) if (typeof st[f] === 'number') errs.push(...nonNegative(st[f], p.child(f)));
  errs.push(...replicaCounterErrors(st, p, ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'], true));
  return [...errs, ...collisionCountDecremented(o, old)];
}

export const statefulSetStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultStatefulSet,
  prepareForCreate(o) {
    o.status = {};
    dropDisabledFields(specOf(o));
    dropDisabledSpecTemplateFields(specOf(o));
  },
  prepareForUpdate(o, old) {
    o.status = structuredClone(old.status);
    dropDisabledFields(specOf(o), obj(old.spec));
    dropDisabledSpecTemplateFields(specOf(o), obj(old.spec));
  },
  validate: validateStatefulSetSpec,
  validateUpdate: (o, old) => [...validateStatefulSetSpec(o), ...validateStatefulSetUpdate(o, old)],
  warnings: specTemplateWarnings,
  canonicalize(o) {
    // Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec: claim templates carry apiVersion and kind.
    for (const claim of list(specOf(o).volumeClaimTemplates)) {
      const { apiVersion: _a, kind: _k, ...rest } = claim;
      for (const k of Object.keys(claim)) delete claim[k];
      Object.assign(claim, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...rest });
    }
  },
};

/** statefulSetStatusStrategy: spec is the stored one. */
const statefulSetStatusStrategy = statusKeepingSpec(validateStatefulSetStatus);

/** printStatefulSet. */
export const statefulSetTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', priority: 0 },
    AGE_COLUMN,
    ...templateContainerColumns(1),
  ],
  cells(o) {
    const [names, images] = containerCells(o);
    return [o.metadata.name ?? '', `${num(statusOf(o).readyReplicas)}/${num(specOf(o).replicas)}`, creationTimestampCell(o), names, images];
  },
};

export const statefulSetKind: KindDescriptor = {
  group: 'apps',
  versions: ['v1'],
  resource: 'statefulsets',
  singular: 'statefulset',
  kind: 'StatefulSet',
  listKind: 'StatefulSetList',
  namespaced: true,
  shortNames: ['sts'],
  categories: ['all'],
  strategy: statefulSetStrategy,
  subresources: [appsScaleSubresource, { name: 'status', verbs: ['get', 'patch', 'update'], strategy: statefulSetStatusStrategy }],
  table: statefulSetTable,
  deleteReturns: 'Status',
  hasGeneration: true,
};
