/**
 * PriorityClass (scheduling.k8s.io/v1, cluster-scoped), after Kubernetes 1.24.17:
 * SetDefaults_PriorityClass (pkg/apis/scheduling/v1/defaults.go), ValidatePriorityClass / Update
 * (pkg/apis/scheduling/validation), the system classes of pkg/apis/scheduling/v1/helpers.go
 * (created at start as kube's scheduling post-start hook does, and never deleted: its REST.Delete),
 * pkg/registry/scheduling/priorityclass (generation 1, never bumped) and printPriorityClass.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';

const SYSTEM_PREFIX = 'system-';
const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

/** The system classes kube-apiserver creates at start (their order is kube's). */
export const SYSTEM_PRIORITY_CLASSES: KubeObject[] = [
  { name: 'system-node-critical', value: SYSTEM_CRITICAL_PRIORITY + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: SYSTEM_CRITICAL_PRIORITY, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
].map(({ name, value, description }) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description }));

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** SetDefaults_PriorityClass: preemptionPolicy PreemptLowerPriority. */
export function defaultPriorityClass(o: KubeObject): void {
  if (o.preemptionPolicy === undefined || o.preemptionPolicy === null) o.preemptionPolicy = 'PreemptLowerPriority';
}

/** IsKnownSystemPriorityClass's error, or undefined for a known system class. */
function systemClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const spc = SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === name);
  if (!spc) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${name} PriorityClass must be ${String(spc.value)}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

/** ValidatePriorityClass minus ObjectMeta. */
export function validatePriorityClass(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = o.metadata.name ?? '';
  const value = num(o.value);
  if (name.startsWith(SYSTEM_PREFIX)) {
    const err = systemClassError(name, value, o.globalDefault === true);
    if (err) errs.push(forbidden(new FieldPath('metadata').child('name'), `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${err}`));
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(forbidden(new FieldPath('value'), `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (typeof o.preemptionPolicy === 'string') {
    const p = new FieldPath('preemptionPolicy');
    if (o.preemptionPolicy === '') errs.push(required(p, ''));
    else if (!PREEMPTION_POLICIES.includes(o.preemptionPolicy)) errs.push(notSupported(p, o.preemptionPolicy, PREEMPTION_POLICIES));
  }
  return errs;
}

/** ValidatePriorityClassUpdate: value and preemptionPolicy immutable (kube's path is `Value`). */
export function validatePriorityClassUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (num(n.value) !== num(o.value)) errs.push(forbidden(new FieldPath('Value'), 'may not be changed in an update.'));
  if ((n.preemptionPolicy ?? null) !== (o.preemptionPolicy ?? null)) errs.push(invalid(new FieldPath('preemptionPolicy'), n.preemptionPolicy ?? 'null', FIELD_IMMUTABLE));
  return errs;
}

export const priorityClassStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultPriorityClass,
  validate: validatePriorityClass,
  validateUpdate: validatePriorityClassUpdate,
};

/** printPriorityClass. */
export const priorityClassTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    {
      name: 'Value',
      type: 'integer',
      description: 'The value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.',
      priority: 0,
    },
    {
      name: 'Global-Default',
      type: 'boolean',
      description:
        'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.',
      priority: 0,
    },
    AGE_COLUMN,
  ],
  cells: (o) => [o.metadata.name ?? '', num(o.value), o.globalDefault === true, creationTimestampCell(o)],
};

/** scheduling.k8s.io/v1 priorityclasses (short name pc); delete answers a Status. */
export const priorityClassKind: KindDescriptor = {
  group: 'scheduling.k8s.io',
  versions: ['v1'],
  resource: 'priorityclasses',
  singular: 'priorityclass',
  kind: 'PriorityClass',
  listKind: 'PriorityClassList',
  namespaced: false,
  shortNames: ['pc'],
  strategy: priorityClassStrategy,
  table: priorityClassTable,
  deleteReturns: 'Status',
  hasGeneration: 'create',
  bootstrap: SYSTEM_PRIORITY_CLASSES,
  undeletable: SYSTEM_PRIORITY_CLASSES.map((c) => c.metadata.name!),
  undeletableReason: 'this is a system priority class and cannot be deleted',
};
