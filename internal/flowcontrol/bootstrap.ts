/**
 * The API Priority and Fairness configuration kube-apiserver 1.24 runs by default: the mandatory
 * and suggested FlowSchemas and PriorityLevelConfigurations of k8s.io/apiserver v0.24.17
 * (pkg/apis/flowcontrol/bootstrap/default.go), as data in the flowcontrol.apiserver.k8s.io/v1beta2
 * shape. Until the flowcontrol API objects are served (another issue), this is the whole
 * configuration; kube's controller keeps the same objects in etcd, with their uids.
 */

export type SubjectKind = 'User' | 'Group' | 'ServiceAccount';

export interface Subject {
  kind: SubjectKind;
  /** User or group name; `*` matches every user / every group member. */
  name: string;
  /** ServiceAccount subjects: the account's namespace (`name` `*` = every account in it). */
  namespace?: string;
}

export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  namespaces: string[];
  clusterScope: boolean;
}

export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules: ResourcePolicyRule[];
  nonResourceRules: NonResourcePolicyRule[];
}

export interface FlowSchemaSpec {
  name: string;
  priorityLevel: string;
  matchingPrecedence: number;
  /** How flows are told apart inside the priority level; none: one flow for the whole schema. */
  distinguisherMethod?: 'ByUser' | 'ByNamespace';
  rules: PolicyRulesWithSubjects[];
}

export interface QueuingConfiguration {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export interface PriorityLevelSpec {
  name: string;
  type: 'Exempt' | 'Limited';
  /** Limited: the level's share of the server's concurrency limit. */
  assuredConcurrencyShares?: number;
  /** Limited: queue (with this configuration) or reject what exceeds the level's limit. */
  queuing?: QueuingConfiguration;
}

const ALL_RESOURCES: ResourcePolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true };
const ALL_NON_RESOURCES: NonResourcePolicyRule = { verbs: ['*'], nonResourceURLs: ['*'] };
/** Everything, for the listed subjects. */
const everything = (subjects: Subject[]): PolicyRulesWithSubjects => ({ subjects, resourceRules: [ALL_RESOURCES], nonResourceRules: [ALL_NON_RESOURCES] });
const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', name }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', name }));
const kubeSystemServiceAccounts = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'ServiceAccount', name, namespace: 'kube-system' }));
const leases = (verbs: string[]): ResourcePolicyRule => ({ verbs, apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'], clusterScope: false });

const queuing = (queues: number, handSize: number, queueLengthLimit: number): QueuingConfiguration => ({ queues, handSize, queueLengthLimit });

/** Mandatory and suggested priority levels (exempt, catch-all; then the suggested six). */
export const PRIORITY_LEVELS: readonly PriorityLevelSpec[] = [
  { name: 'catch-all', type: 'Limited', assuredConcurrencyShares: 5 },
  { name: 'exempt', type: 'Exempt' },
  { name: 'system', type: 'Limited', assuredConcurrencyShares: 30, queuing: queuing(64, 6, 50) },
  { name: 'node-high', type: 'Limited', assuredConcurrencyShares: 40, queuing: queuing(64, 6, 50) },
  { name: 'leader-election', type: 'Limited', assuredConcurrencyShares: 10, queuing: queuing(16, 4, 50) },
  { name: 'workload-high', type: 'Limited', assuredConcurrencyShares: 40, queuing: queuing(128, 6, 50) },
  { name: 'workload-low', type: 'Limited', assuredConcurrencyShares: 100, queuing: queuing(128, 6, 50) },
  { name: 'global-default', type: 'Limited', assuredConcurrencyShares: 20, queuing: queuing(128, 6, 50) },
];

/** Mandatory and suggested flow schemas, in kube's matching order (precedence, then name). */
export const FLOW_SCHEMAS: readonly FlowSchemaSpec[] = [
  // system:masters is always served (priority inversion, and sysadmin requests stay possible).
  { name: 'exempt', priorityLevel: 'exempt', matchingPrecedence: 1, rules: [everything(groups('system:masters'))] },
  { name: 'probes', priorityLevel: 'exempt', matchingPrecedence: 2, rules: [{ subjects: groups('system:unauthenticated', 'system:authenticated'), resourceRules: [], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }] },
  {
    name: 'system-leader-election', priorityLevel: 'leader-election', matchingPrecedence: 100, distinguisherMethod: 'ByUser',
    rules: [{ subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccounts('*')], resourceRules: [leases(['get', 'create', 'update'])], nonResourceRules: [] }],
  },
  {
    name: 'endpoint-controller', priorityLevel: 'workload-high', matchingPrecedence: 150, distinguisherMethod: 'ByUser',
    rules: [{ subjects: [...users('system:kube-controller-manager'), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')], resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints'], namespaces: ['*'], clusterScope: false }], nonResourceRules: [] }],
  },
  {
    name: 'workload-leader-election', priorityLevel: 'leader-election', matchingPrecedence: 200, distinguisherMethod: 'ByUser',
    rules: [{ subjects: kubeSystemServiceAccounts('*'), resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: ['*'], clusterScope: false }, leases(['get', 'create', 'update'])], nonResourceRules: [] }],
  },
  {
    name: 'system-node-high', priorityLevel: 'node-high', matchingPrecedence: 400, distinguisherMethod: 'ByUser',
    rules: [{ subjects: groups('system:nodes'), resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], namespaces: ['*'], clusterScope: true }, leases(['*'])], nonResourceRules: [] }],
  },
  { name: 'system-nodes', priorityLevel: 'system', matchingPrecedence: 500, distinguisherMethod: 'ByUser', rules: [everything(groups('system:nodes'))] },
  { name: 'kube-controller-manager', priorityLevel: 'workload-high', matchingPrecedence: 800, distinguisherMethod: 'ByNamespace', rules: [everything(users('system:kube-controller-manager'))] },
  { name: 'kube-scheduler', priorityLevel: 'workload-high', matchingPrecedence: 800, distinguisherMethod: 'ByNamespace', rules: [everything(users('system:kube-scheduler'))] },
  { name: 'kube-system-service-accounts', priorityLevel: 'workload-high', matchingPrecedence: 900, distinguisherMethod: 'ByNamespace', rules: [everything(kubeSystemServiceAccounts('*'))] },
  { name: 'service-accounts', priorityLevel: 'workload-low', matchingPrecedence: 9000, distinguisherMethod: 'ByUser', rules: [everything(groups('system:serviceaccounts'))] },
  { name: 'global-default', priorityLevel: 'global-default', matchingPrecedence: 9900, distinguisherMethod: 'ByUser', rules: [everything(groups('system:unauthenticated', 'system:authenticated'))] },
  { name: 'catch-all', priorityLevel: 'catch-all', matchingPrecedence: 10000, distinguisherMethod: 'ByUser', rules: [everything(groups('system:unauthenticated', 'system:authenticated'))] },
];
