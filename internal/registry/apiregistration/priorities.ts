/**
 * kube-apiserver 1.24's apiVersionPriorities (cmd/kube-apiserver/app/aggregator.go): the
 * groupPriorityMinimum and versionPriority of the local APIService of each built-in group version,
 * and kube-aggregator's order of APIServices (helper.SortedByGroupAndVersion).
 */

/** [group/version, groupPriorityMinimum, versionPriority]. */
const PRIORITIES: [string, number, number][] = [
  ['/v1', 18000, 1], ['apps/v1', 17800, 15], ['events.k8s.io/v1', 17750, 15], ['events.k8s.io/v1beta1', 17750, 5],
  ['authentication.k8s.io/v1', 17700, 15], ['authorization.k8s.io/v1', 17600, 15], ['autoscaling/v1', 17500, 15],
  ['autoscaling/v2', 17500, 30], ['autoscaling/v2beta1', 17500, 9], ['autoscaling/v2beta2', 17500, 1], ['batch/v1', 17400, 15],
  ['batch/v1beta1', 17400, 9], ['batch/v2alpha1', 17400, 9], ['certificates.k8s.io/v1', 17300, 15], ['networking.k8s.io/v1', 17200, 15],
  ['policy/v1', 17100, 15], ['policy/v1beta1', 17100, 9], ['rbac.authorization.k8s.io/v1', 17000, 15], ['storage.k8s.io/v1', 16800, 15],
  ['storage.k8s.io/v1beta1', 16800, 9], ['storage.k8s.io/v1alpha1', 16800, 1], ['apiextensions.k8s.io/v1', 16700, 15],
  ['admissionregistration.k8s.io/v1', 16700, 15], ['scheduling.k8s.io/v1', 16600, 15], ['coordination.k8s.io/v1', 16500, 15],
  ['node.k8s.io/v1', 16300, 15], ['node.k8s.io/v1alpha1', 16300, 1], ['node.k8s.io/v1beta1', 16300, 9], ['discovery.k8s.io/v1', 16200, 15],
  ['discovery.k8s.io/v1beta1', 16200, 12], ['flowcontrol.apiserver.k8s.io/v1beta2', 16100, 15], ['flowcontrol.apiserver.k8s.io/v1beta1', 16100, 12],
  ['flowcontrol.apiserver.k8s.io/v1alpha1', 16100, 9], ['internal.apiserver.k8s.io/v1alpha1', 16000, 9],
];
const PRIORITY = new Map(PRIORITIES.map(([gv, g, v]) => [gv, { group: g, version: v }]));

export interface Priority {
  group: number;
  version: number;
}

/** The priorities kube gives a built-in group version (undefined: not in its table). */
export function builtinPriority(group: string, version: string): Priority | undefined {
  return PRIORITY.get(`${group}/${version}`);
}

/** The priorities of a custom resource group version's automanaged APIService (crdregistration). */
export const CUSTOM_RESOURCE_PRIORITY: Priority = { group: 1000, version: 100 };

/** What kube-aggregator sorts an APIService by. */
export interface APIServiceOrder {
  name: string;
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
}

/**
 * version.CompareKubeAwareVersionStrings: GA > beta > alpha > anything else; within a kind,
 * higher major, then higher minor; non-kube versions by name (ascending). Positive when a > b.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return null;
    return { major: Number(m[1]), rank: m[2] === 'alpha' ? 1 : m[2] === 'beta' ? 2 : 3, minor: Number(m[3] ?? 0) };
  };
  const x = parse(a);
  const y = parse(b);
  if (!x && !y) return a < b ? 1 : a > b ? -1 : 0;
  if (!x) return -1;
  if (!y) return 1;
  if (x.rank !== y.rank) return x.rank - y.rank;
  if (x.major !== y.major) return x.major - y.major;
  return x.minor - y.minor;
}

/**
 * helper.SortedByGroupAndVersion: APIServices by groupPriorityMinimum (highest first, then name),
 * grouped by group in that order, each group's by versionPriority (highest first, then the
 * kube-aware version order).
 */
export function sortedByGroupAndVersion<T extends APIServiceOrder>(services: readonly T[]): T[][] {
  const byGroup = [...services].sort((a, b) => b.groupPriorityMinimum - a.groupPriorityMinimum || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: T[][] = [];
  for (const s of byGroup) {
    const g = out.find((x) => x[0]!.group === s.group);
    if (g) g.push(s);
    else out.push([s]);
  }
  for (const g of out) g.sort((a, b) => b.versionPriority - a.versionPriority || compareKubeAwareVersions(b.version, a.version));
  return out;
}
