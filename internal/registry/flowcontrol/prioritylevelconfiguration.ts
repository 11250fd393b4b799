/**
 * PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1beta2, and the deprecated v1beta1
 * over the same objects; cluster-scoped, with /status), after Kubernetes 1.24.17:
 * ValidatePriorityLevelConfiguration (pkg/apis/flowcontrol/validation), the v1beta2 defaults
 * (assuredConcurrencyShares 30; queues 64, handSize 8, queueLengthLimit 50),
 * pkg/registry/flowcontrol/prioritylevelconfiguration (as FlowSchema's) and
 * printPriorityLevelConfiguration.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import { bootstrapPriorityLevel } from '../../flowcontrol/objects.ts';
import { requiredEntropyBits, MAX_HASH_BITS } from '../../flowcontrol/shuffle-sharding.ts';
import type { KindDescriptor, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { GROUP, type Json, doc, goPriorityLevelSpec, int, obj, flowcontrolStrategy, statusStrategy, str, v1beta1View, validateObject } from './helpers.ts';

const MAX_QUEUES = 10_000_000;
const TYPES = ['Exempt', 'Limited'];
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];
/** The mandatory priority levels whose spec may never change. */
const MANDATORY = new Map(['exempt', 'catch-all'].map((n) => [n, bootstrapPriorityLevel(n).spec]));

const set = (v: unknown): v is Json => v !== undefined && v !== null && typeof v === 'object';

/** SetDefaults_LimitedPriorityLevelConfiguration and SetDefaults_QueuingConfiguration. */
export function defaultPriorityLevel(o: KubeObject): void {
  const limited = obj(o.spec).limited;
  if (!set(limited)) return;
  if (int(limited.assuredConcurrencyShares) === 0) limited.assuredConcurrencyShares = 30;
  const q = obj(limited.limitResponse).queuing;
  if (!set(q)) return;
  if (int(q.handSize) === 0) q.handSize = 8;
  if (int(q.queues) === 0) q.queues = 64;
  if (int(q.queueLengthLimit) === 0) q.queueLengthLimit = 50;
}

function validateQueuing(q: Json, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const limit = int(q.queueLengthLimit);
  const queues = int(q.queues);
  const hand = int(q.handSize);
  if (limit <= 0) errs.push(invalid(p.child('queueLengthLimit'), limit, 'must be positive'));
  if (queues <= 0) errs.push(invalid(p.child('queues'), queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(invalid(p.child('queues'), queues, `must not be greater than ${MAX_QUEUES}`));
  if (hand <= 0) errs.push(invalid(p.child('handSize'), hand, 'must be positive'));
  else if (hand > queues) errs.push(invalid(p.child('handSize'), hand, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, hand) > MAX_HASH_BITS) {
    errs.push(invalid(p.child('handSize'), hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}

function validateLimitResponse(lr: Json, p: FieldPath): FieldError[] {
  const type = str(lr.type);
  if (type === 'Reject') return set(lr.queuing) ? [forbidden(p.child('queuing'), 'must be nil if limited.limitResponse.type is not Limited')] : [];
  if (type === 'Queue') return set(lr.queuing) ? validateQueuing(lr.queuing, p.child('queuing')) : [required(p.child('queuing'), 'must not be empty if limited.limitResponse.type is Limited')];
  return [notSupported(p.child('type'), type, LIMIT_RESPONSE_TYPES)];
}

/** ValidatePriorityLevelConfigurationSpec. */
function validateSpec(spec: Json, name: string, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(invalid(p.child('type'), type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === 'Exempt') {
    if (set(spec.limited)) errs.push(forbidden(p.child('limited'), 'must be nil if the type is not Limited'));
  } else if (type === 'Limited') {
    if (!set(spec.limited)) errs.push(required(p.child('limited'), 'must not be empty when type is Limited'));
    else {
      const lp = p.child('limited');
      const shares = int(spec.limited.assuredConcurrencyShares);
      if (shares <= 0) errs.push(invalid(lp.child('assuredConcurrencyShares'), shares, 'must be positive'));
      errs.push(...validateLimitResponse(obj(spec.limited.limitResponse), lp.child('limitResponse')));
    }
  } else errs.push(notSupported(p.child('type'), type, TYPES));
  return errs;
}

/** ValidatePriorityLevelConfiguration minus ObjectMeta. */
export const validatePriorityLevel = (o: KubeObject): FieldError[] => validateObject(o, MANDATORY, (name, spec, p) => validateSpec(spec, name, p), goPriorityLevelSpec);

export const priorityLevelStrategy = flowcontrolStrategy(defaultPriorityLevel, validatePriorityLevel);


/** printPriorityLevelConfiguration: `<none>` where a level has no limit or no queuing. */
export const priorityLevelTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Type', type: 'string', description: doc('PriorityLevelConfigurationSpec', 'type'), priority: 0 },
    { name: 'AssuredConcurrencyShares', type: 'string', description: doc('LimitedPriorityLevelConfiguration', 'assuredConcurrencyShares'), priority: 0 },
    { name: 'Queues', type: 'string', description: doc('QueuingConfiguration', 'queues'), priority: 0 },
    { name: 'HandSize', type: 'string', description: doc('QueuingConfiguration', 'handSize'), priority: 0 },
    { name: 'QueueLengthLimit', type: 'string', description: doc('QueuingConfiguration', 'queueLengthLimit'), priority: 0 },
    AGE_COLUMN,
  ],
  cells: (o) => {
    const spec = obj(o.spec);
    let acs: unknown = '<none>';
    let queues: unknown = '<none>';
    let handSize: unknown = '<none>';
    let limit: unknown = '<none>';
    if (set(spec.limited)) {
      acs = int(spec.limited.assuredConcurrencyShares);
      const q = obj(spec.limited.limitResponse).queuing;
      if (set(q)) [queues, handSize, limit] = [int(q.queues), int(q.handSize), int(q.queueLengthLimit)];
    }
    return [o.metadata.name ?? '', str(spec.type), acs, queues, handSize, limit, creationTimestampCell(o)];
  },
};

/** flowcontrol.apiserver.k8s.io/v1beta2 prioritylevelconfigurations (+ status). */
export const priorityLevelKind: KindDescriptor = {
  group: GROUP,
  versions: ['v1beta2'],
  resource: 'prioritylevelconfigurations',
  singular: 'prioritylevelconfiguration',
  kind: 'PriorityLevelConfiguration',
  listKind: 'PriorityLevelConfigurationList',
  namespaced: false,
  shortNames: [],
  strategy: priorityLevelStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: statusStrategy }],
  table: priorityLevelTable,
  deleteReturns: 'Status',
  hasGeneration: true,
  // kube 1.24 stores flowcontrol objects as v1beta1 (discovery's storageVersionHash names it).
  storageVersion: 'v1beta1',
};

export const priorityLevelV1beta1Kind: KindDescriptor = v1beta1View(priorityLevelKind);
