/**
 * The API objects of the configuration (flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema and
 * PriorityLevelConfiguration) and this engine's specs (bootstrap.ts), both ways: the bootstrap
 * configuration as the objects kube's config-producer writes (k8s.io/apiserver
 * pkg/apis/flowcontrol/bootstrap/default.go, with the `apf.kubernetes.io/autoupdate-spec: "true"`
 * annotation), and stored objects read back into specs for the limiter.
 */
import type { KubeObject } from '../api/types.ts';
import { FLOW_SCHEMAS, PRIORITY_LEVELS, type FlowSchemaSpec, type PolicyRulesWithSubjects, type PriorityLevelSpec, type Subject } from './bootstrap.ts';

export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.k8s.io';
/** flowcontrolv1beta2.AutoUpdateAnnotationKey. */
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

/** The mandatory objects (always restored) and the suggested ones, in default.go's order. */
export const MANDATORY_PRIORITY_LEVELS = ['catch-all', 'exempt'];
export const MANDATORY_FLOW_SCHEMAS = ['exempt', 'catch-all'];
export const SUGGESTED_PRIORITY_LEVELS = ['system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default'];
export const SUGGESTED_FLOW_SCHEMAS = [
  'system-nodes', 'system-node-high', 'probes', 'system-leader-election', 'workload-leader-election', 'endpoint-controller',
  'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts', 'service-accounts', 'global-default',
];

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strs = (v: unknown): string[] => arr(v).filter((x): x is string => typeof x === 'string');
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

function subjectObject(s: Subject): Json {
  if (s.kind === 'User') return { kind: 'User', user: { name: s.name } };
  if (s.kind === 'Group') return { kind: 'Group', group: { name: s.name } };
  return { kind: 'ServiceAccount', serviceAccount: { namespace: s.namespace, name: s.name } };
}

function ruleObject(r: PolicyRulesWithSubjects): Json {
  const out: Json = { subjects: r.subjects.map(subjectObject) };
  if (r.resourceRules.length) {
    out.resourceRules = r.resourceRules.map((x) => ({ verbs: x.verbs, apiGroups: x.apiGroups, resources: x.resources, ...(x.clusterScope ? { clusterScope: true } : {}), namespaces: x.namespaces }));
  }
  if (r.nonResourceRules.length) out.nonResourceRules = r.nonResourceRules.map((x) => ({ verbs: x.verbs, nonResourceURLs: x.nonResourceURLs }));
  return out;
}

/** The v1beta2 spec of a FlowSchema spec (field order as kube's JSON). */
export function flowSchemaSpecObject(s: FlowSchemaSpec): Json {
  return {
    priorityLevelConfiguration: { name: s.priorityLevel },
    matchingPrecedence: s.matchingPrecedence,
    ...(s.distinguisherMethod ? { distinguisherMethod: { type: s.distinguisherMethod } } : {}),
    rules: s.rules.map(ruleObject),
  };
}

/** The v1beta2 spec of a priority level. */
export function priorityLevelSpecObject(s: PriorityLevelSpec): Json {
  if (s.type === 'Exempt') return { type: 'Exempt' };
  const limitResponse = s.queuing ? { type: 'Queue', queuing: { ...s.queuing } } : { type: 'Reject' };
  return { type: 'Limited', limited: { assuredConcurrencyShares: s.assuredConcurrencyShares, limitResponse } };
}

const meta = (name: string) => ({ name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } });

/** A bootstrap FlowSchema as kube's config-producer creates it (v1beta2). */
export function bootstrapFlowSchema(name: string): KubeObject {
  const spec = FLOW_SCHEMAS.find((s) => s.name === name);
  if (!spec) throw new Error(`no bootstrap FlowSchema ${name}`);
  return { apiVersion: `${FLOWCONTROL_GROUP}/v1beta2`, kind: 'FlowSchema', metadata: meta(name), spec: flowSchemaSpecObject(spec) };
}

/** A bootstrap PriorityLevelConfiguration as kube's config-producer creates it (v1beta2). */
export function bootstrapPriorityLevel(name: string): KubeObject {
  const spec = PRIORITY_LEVELS.find((s) => s.name === name);
  if (!spec) throw new Error(`no bootstrap PriorityLevelConfiguration ${name}`);
  return { apiVersion: `${FLOWCONTROL_GROUP}/v1beta2`, kind: 'PriorityLevelConfiguration', metadata: meta(name), spec: priorityLevelSpecObject(spec) };
}

function subjectSpec(v: unknown): Subject | null {
  const s = obj(v);
  switch (s.kind) {
    case 'User':
      return { kind: 'User', name: str(obj(s.user).name) };
    case 'Group':
      return { kind: 'Group', name: str(obj(s.group).name) };
    case 'ServiceAccount':
      return { kind: 'ServiceAccount', name: str(obj(s.serviceAccount).name), namespace: str(obj(s.serviceAccount).namespace) };
    default:
      return null;
  }
}

/** A stored FlowSchema (any served version: their specs are alike) as the limiter's spec. */
export function flowSchemaFromObject(o: KubeObject): FlowSchemaSpec {
  const spec = obj(o.spec);
  const dm = str(obj(spec.distinguisherMethod).type);
  return {
    name: o.metadata.name ?? '',
    priorityLevel: str(obj(spec.priorityLevelConfiguration).name),
    matchingPrecedence: num(spec.matchingPrecedence),
    ...(dm === 'ByUser' || dm === 'ByNamespace' ? { distinguisherMethod: dm } : {}),
    rules: arr(spec.rules).map((r) => ({
      subjects: arr(obj(r).subjects).map(subjectSpec).filter((s): s is Subject => s !== null),
      resourceRules: arr(obj(r).resourceRules).map((x) => ({ verbs: strs(obj(x).verbs), apiGroups: strs(obj(x).apiGroups), resources: strs(obj(x).resources), namespaces: strs(obj(x).namespaces), clusterScope: obj(x).clusterScope === true })),
      nonResourceRules: arr(obj(r).nonResourceRules).map((x) => ({ verbs: strs(obj(x).verbs), nonResourceURLs: strs(obj(x).nonResourceURLs) })),
    })),
  };
}

/** A stored PriorityLevelConfiguration as the limiter's spec. */
export function priorityLevelFromObject(o: KubeObject): PriorityLevelSpec {
  const spec = obj(o.spec);
  const name = o.metadata.name ?? '';
  if (spec.type === 'Exempt') return { name, type: 'Exempt' };
  const limited = obj(spec.limited);
  const lr = obj(limited.limitResponse);
  const q = obj(lr.queuing);
  return {
    name,
    type: 'Limited',
    assuredConcurrencyShares: num(limited.assuredConcurrencyShares),
    ...(lr.type === 'Queue' ? { queuing: { queues: num(q.queues), handSize: num(q.handSize), queueLengthLimit: num(q.queueLengthLimit) } } : {}),
  };
}
