/**
 * PodTemplate (core/v1), after Kubernetes 1.24.17 pkg/registry/core/podtemplate (strategy: the
 * generation set on create and bumped when the template changes, the gated template fields
 * dropped), ValidatePodTemplate / ValidatePodTemplateUpdate and ValidatePodTemplateSpec
 * (pkg/apis/core/validation), SetObjectDefaults_PodTemplate (the PodSpec tree, not the Pod-level
 * defaults) and printPodTemplate. ValidatePodTemplateSpec is here because every workload's
 * template (apps/v1, ReplicationController) runs it.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, forbidden, invalid, notSupported } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { validateAnnotations, validateLabels } from '../../validation/objectmeta.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { workloadTemplateWarnings } from './pod-warnings.ts';
import { defaultPodSpecTree } from './pod-defaults.ts';
import { defaultVolumes } from './volumes/index.ts';
import { dropDisabledPodFields } from './pod.ts';
import { DEFAULT_POD_VALIDATION_OPTIONS, podVolumes, validatePodAnnotations, validatePodSpec, validateSeccompAnnotationsAndFields } from './pod-validation.ts';
import { type J, list, obj, s } from './pod-util.ts';
import { NAME_COLUMN } from '../rest/table-columns.ts';

/** apivalidation.ValidatePodTemplateSpec: the template's labels, annotations and pod spec under `p`. */
export function validatePodTemplateSpec(template: J, p: FieldPath): FieldError[] {
  const meta = obj(template.metadata) ?? {};
  const spec = obj(template.spec) ?? {};
  const annotations = obj(meta.annotations) ?? {};
  const opts = DEFAULT_POD_VALIDATION_OPTIONS;
  const errs = [
    ...validateLabels(meta.labels, p.child('labels')),
    ...validateAnnotations(meta.annotations, p.child('annotations')),
    ...validatePodAnnotations(annotations, spec, p.child('annotations'), opts),
    ...validatePodSpec(spec, undefined, p.child('spec'), opts, podVolumes),
    ...validateSeccompAnnotationsAndFields(annotations, spec, p.child('spec')),
  ];
  if (list(spec.ephemeralContainers).length) errs.push(forbidden(p.child('spec').child('ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  return errs;
}

/** SetObjectDefaults of a kind holding a pod template at `template`: the PodSpec tree's defaults. */
export function defaultPodTemplateSpec(template: J): void {
  defaultPodSpecTree(obj(template.spec) ?? (template.spec = {}), defaultVolumes);
}

/** pod.DropDisabledTemplateFields: the Pod's gated-field drops, on a template. */
export function dropDisabledTemplateFields(template: J, oldTemplate?: J): void {
  const asPod = (t: J): KubeObject => ({ metadata: {}, spec: obj(t.spec) ?? {} }) as unknown as KubeObject;
  const pod = asPod(template);
  dropDisabledPodFields(pod, oldTemplate ? asPod(oldTemplate) : undefined);
  template.spec = pod.spec;
}

/** ValidateReadOnlyPersistentDisks (the template of a workload with more than one replica). */
export function readOnlyPersistentDisks(volumes: J[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  volumes.forEach((v, i) => {
    const gce = obj(v.gcePersistentDisk);
    if (gce && gce.readOnly !== true) errs.push(invalid(p.index(i).child('gcePersistentDisk').child('readOnly'), false, 'must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only'));
  });
  return errs;
}

/** restartPolicy Always and no activeDeadlineSeconds: the template rules of every replicated workload. */
export function templateRestartRules(spec: J, p: FieldPath, kindName: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s(spec.restartPolicy) !== 'Always') errs.push(notSupported(p.child('restartPolicy'), s(spec.restartPolicy), ['Always']));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) errs.push(forbidden(p.child('activeDeadlineSeconds'), `activeDeadlineSeconds in ${kindName} is not Supported`));
  return errs;
}

const templateOf = (o: KubeObject): J => obj((o as J).template) ?? ((o as J).template = {});
const templatePath = new FieldPath('template');

export const podTemplateStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: (o) => defaultPodTemplateSpec(templateOf(o)),
  prepareForCreate(o) {
    o.metadata.generation = 1;
    dropDisabledTemplateFields(templateOf(o));
  },
  prepareForUpdate(o, old) {
    dropDisabledTemplateFields(templateOf(o), obj((old as J).template) ?? {});
    const before = old.metadata.generation ?? 0;
    o.metadata.generation = semanticEqual((o as J).template ?? null, (old as J).template ?? null) ? before : before + 1;
  },
  validate: (o) => validatePodTemplateSpec(templateOf(o), templatePath),
  validateUpdate: (o) => validatePodTemplateSpec(templateOf(o), templatePath),
  warnings: workloadTemplateWarnings(templatePath, (o) => (o as J).template),
};

/** layoutContainerCells: container names and images, comma-separated. */
export function layoutContainerCells(containers: J[]): [string, string] {
  return [containers.map((c) => s(c.name)).join(','), containers.map((c) => s(c.image)).join(',')];
}

/** labels.FormatLabels: sorted k=v pairs, `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  const m = obj(labels) ?? {};
  const keys = Object.keys(m).sort();
  return keys.length ? keys.map((k) => `${k}=${s(m[k])}`).join(',') : '<none>';
}

/** The Containers and Images columns of every printer of a pod template (wide-only: priority 1). */
export function templateContainerColumns(priority: number): TableConvertor['columns'] {
  return [
    { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority },
    { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority },
  ];
}

export const podTemplateTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    ...templateContainerColumns(0),
    { name: 'Pod Labels', type: 'string', description: 'The labels for the pod template.', priority: 0 },
  ],
  cells: (o) => {
    const t = obj((o as J).template) ?? {};
    const [names, images] = layoutContainerCells(list(obj(t.spec)?.containers));
    return [o.metadata.name ?? '', names, images, formatLabels(obj(t.metadata)?.labels)];
  },
};

export const podTemplateKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'podtemplates',
  singular: 'podtemplate',
  kind: 'PodTemplate',
  listKind: 'PodTemplateList',
  namespaced: true,
  shortNames: [],
  strategy: podTemplateStrategy,
  table: podTemplateTable,
  deleteReturns: 'Object',
};
