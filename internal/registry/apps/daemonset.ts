/**
 * DaemonSet (apps/v1, namespaced), after Kubernetes 1.24.17: SetDefaults_DaemonSet (RollingUpdate,
 * maxUnavailable 1, maxSurge 0, history 10) and the template's pod defaults; the internal
 * spec.templateGeneration, which apps/v1 carries in the `deprecated.daemonset.template.generation`
 * annotation (set to 1 on create when lower, kept on update and incremented when the template
 * changes; a value that does not parse is the decoder's 400); ValidateDaemonSet /
 * ValidateDaemonSetUpdate (which repeats the spec checks, so an update lists spec errors twice) /
 * ValidateDaemonSetStatusUpdate with DaemonSetUpdateSurge on (beta in 1.24); `/status`; no scale;
 * printDaemonSet.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, invalid, notSupported, required } from '../../api/field-errors.ts';
import { badRequest } from '../../api/errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { GO_POINTER } from '../storage/helpers.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import {
  type J,
  collisionCountDecremented,
  containerCells,
  formatLabels,
  templateContainerColumns,
  defaultTemplate,
  dropDisabledSpecTemplateFields,
  formatLabelSelector,
  goIntOrString,
  goSelector,
  immutableSelector,
  intOrPercentValue,
  list,
  nonNegative,
  nonNegativeStatus,
  notMoreThan100Percent,
  num,
  obj,
  readOnlyPersistentDisks,
  s,
  selectorMatchErrors,
  selectorOf,
  specOf,
  statusKeepingSpec,
  statusOf,
  templateRestartRules,
  validatePodTemplateSpec,
  validatePositiveIntOrPercent,
} from './workload.ts';
import { templatePath, templateWarnings } from '../core/pod-warnings.ts';

/** appsv1.DeprecatedTemplateGeneration. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** SetObjectDefaults_DaemonSet; an unparsable template generation fails as the v1 conversion does. */
export function defaultDaemonSet(o: KubeObject): void {
  templateGeneration(o);
  const spec = specOf(o);
  const us = obj(spec.updateStrategy) ?? (spec.updateStrategy = {});
  if (!s(us.type)) us.type = 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = obj(us.rollingUpdate) ?? (us.rollingUpdate = {});
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = 1;
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = 0;
  }
  if (typeof spec.revisionHistoryLimit !== 'number') spec.revisionHistoryLimit = 10;
  defaultTemplate(spec);
}

/** The internal spec.templateGeneration: Convert_v1_DaemonSet_To_apps_DaemonSet's strconv.ParseInt of the annotation. */
function templateGeneration(o: KubeObject): number {
  const v = o.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (v === undefined) return 0;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`DaemonSet in version "v1" cannot be handled as a DaemonSet: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw badRequest(`DaemonSet in version "v1" cannot be handled as a DaemonSet: strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

const setTemplateGeneration = (o: KubeObject, n: number): void => {
  o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: String(n) };
};

/** ValidateDaemonSetUpdateStrategy (DaemonSetUpdateSurge on). */
function validateUpdateStrategy(us: J, p: FieldPath): FieldError[] {
  const ru = obj(us.rollingUpdate);
  switch (us.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate': {
      if (!ru) return [required(p.child('rollingUpdate'))];
      const rp = p.child('rollingUpdate');
      const errs = [
        ...validatePositiveIntOrPercent(ru.maxUnavailable ?? 0, rp.child('maxUnavailable')),
        ...validatePositiveIntOrPercent(ru.maxSurge ?? 0, rp.child('maxSurge')),
        ...notMoreThan100Percent(ru.maxUnavailable, rp.child('maxUnavailable')),
        ...notMoreThan100Percent(ru.maxSurge, rp.child('maxSurge')),
      ];
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(invalid(rp.child('maxSurge'), goIntOrString(ru.maxSurge ?? 0), 'may not be set when maxUnavailable is non-zero'));
      if (!hasUnavailable && !hasSurge) errs.push(required(rp.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
      return errs;
    }
    default:
      return [notSupported(p, new GoValue(`apps.DaemonSetUpdateStrategy{Type:${JSON.stringify(s(us.type))}, RollingUpdate:(*apps.RollingUpdateDaemonSet)(${ru ? GO_POINTER : 'nil'})}`), ['RollingUpdate', 'OnDelete'])];
  }
}

/** ValidateDaemonSetSpec. */
export function validateDaemonSetSpec(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  const p = new FieldPath('spec');
  const sel = obj(spec.selector);
  const template = obj(spec.template) ?? {};
  const tspec = obj(template.spec) ?? {};
  const errs = sel ? validateLabelSelector(sel, p.child('selector')) : [];
  const selector = selectorOf(sel);
  if (selector) errs.push(...selectorMatchErrors(selector, template, p.child('template'), true));
  if (sel && Object.keys(obj(sel.matchLabels) ?? {}).length + list(sel.matchExpressions).length === 0) errs.push(invalid(p.child('selector'), goSelector(sel), 'empty selector is invalid for daemonset'));
  errs.push(...validatePodTemplateSpec(template, p.child('template')));
  errs.push(...readOnlyPersistentDisks(list(tspec.volumes), p.child('template').child('spec').child('volumes')));
  errs.push(...templateRestartRules(tspec, p.child('template').child('spec'), 'DaemonSet'));
  errs.push(...nonNegative(spec.minReadySeconds, p.child('minReadySeconds')));
  errs.push(...nonNegative(templateGeneration(o), p.child('templateGeneration')));
  errs.push(...validateUpdateStrategy(obj(spec.updateStrategy) ?? {}, p.child('updateStrategy')));
  if (typeof spec.revisionHistoryLimit === 'number') errs.push(...nonNegative(spec.revisionHistoryLimit, p.child('revisionHistoryLimit')));
  return errs;
}

/** validateDaemonSetStatus (+ collisionCount not decremented). */
function validateDaemonSetStatus(o: KubeObject, old: KubeObject): FieldError[] {
  const st = statusOf(o);
  const p = new FieldPath('status');
  const errs = nonNegativeStatus(o, ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable']);
  if (typeof st.collisionCount === 'number') errs.push(...nonNegative(st.collisionCount, p.child('collisionCount')));
  return [...errs, ...collisionCountDecremented(o, old)];
}

export const daemonSetStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultDaemonSet,
  prepareForCreate(o) {
    o.status = {};
    setTemplateGeneration(o, Math.max(templateGeneration(o), 1));
    dropDisabledSpecTemplateFields(specOf(o));
  },
  prepareForUpdate(o, old) {
    dropDisabledSpecTemplateFields(specOf(o), obj(old.spec));
    o.status = structuredClone(old.status);
    const oldGeneration = templateGeneration(old);
    // The stored generation, one more when the template changed (the store bumps metadata.generation on any spec change).
    setTemplateGeneration(o, semanticEqual(specOf(o).template ?? null, obj(old.spec)?.template ?? null) ? oldGeneration : oldGeneration + 1);
  },
  validate: validateDaemonSetSpec,
  validateUpdate: (o, old) => [...validateDaemonSetSpec(o), ...validateDaemonSetSpec(o), ...immutableSelector(o, old)],
  // An update warns again only when the template changed (its templateGeneration moved).
  warnings: (o, old) => (old && templateGeneration(o) === templateGeneration(old) ? [] : templateWarnings(templatePath('spec', 'template'), obj(o.spec)?.template)),
};

/** daemonSetStatusStrategy: spec is the stored one (its templateGeneration, the annotation, included). */
const daemonSetStatusStrategy = statusKeepingSpec(validateDaemonSetStatus, (o, old) => setTemplateGeneration(o, templateGeneration(old)));

const more = 'More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/';

/** printDaemonSet (descriptions: extensions/v1beta1's, as kube's printers take them). */
export const daemonSetTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Desired', type: 'integer', description: `The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). ${more}`, priority: 0 },
    { name: 'Current', type: 'integer', description: `The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. ${more}`, priority: 0 },
    { name: 'Ready', type: 'integer', description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.', priority: 0 },
    { name: 'Up-to-date', type: 'integer', description: 'The total number of nodes that are running updated daemon pod', priority: 0 },
    { name: 'Available', type: 'integer', description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)', priority: 0 },
    {
      name: 'Node Selector',
      type: 'string',
      description: "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
      priority: 0,
    },
    AGE_COLUMN,
    ...templateContainerColumns(1),
    {
      name: 'Selector',
      type: 'string',
      description: 'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
      priority: 1,
    },
  ],
  cells(o) {
    const st = statusOf(o);
    const [names, images] = containerCells(o);
    const nodeSelector = obj(obj(specOf(o).template)?.spec)?.nodeSelector;
    return [o.metadata.name ?? '', num(st.desiredNumberScheduled), num(st.currentNumberScheduled), num(st.numberReady), num(st.updatedNumberScheduled), num(st.numberAvailable), formatLabels(nodeSelector), creationTimestampCell(o), names, images, formatLabelSelector(specOf(o).selector)];
  },
};

export const daemonSetKind: KindDescriptor = {
  group: 'apps',
  versions: ['v1'],
  resource: 'daemonsets',
  singular: 'daemonset',
  kind: 'DaemonSet',
  listKind: 'DaemonSetList',
  namespaced: true,
  shortNames: ['ds'],
  categories: ['all'],
  strategy: daemonSetStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], strategy: daemonSetStatusStrategy }],
  table: daemonSetTable,
  deleteReturns: 'Status',
  hasGeneration: true,
};
