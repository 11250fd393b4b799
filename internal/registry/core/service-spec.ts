/**
 * Service (core/v1) spec shape, defaulting and the update-time normalizations kube applies before
 * validation: SetDefaults_Service (pkg/apis/core/v1/defaults.go), normalizeClusterIPs and
 * patchAllocatedValues (pkg/registry/core/service/storage), dropTypeDependentFields (strategy.go).
 * Pure functions on the request's private copy.
 */
import type { KubeObject } from '../../api/types.ts';
import { formatIP, parseCIDR } from '../../validation/network.ts';
import { isPlainObject } from './configmap.ts';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

/** The `kubernetes` Service's ClusterIP: the first usable address of the range (10.0.0.1). */
export function kubernetesServiceIP(range: string = DEFAULT_SERVICE_CLUSTER_IP_RANGE): string {
  const cidr = parseCIDR(range);
  if (!cidr) throw new Error(`--service-cluster-ip-range: "${range}" is not a CIDR`);
  return formatIP({ family: cidr.family, value: cidr.base + 1n });
}

/** The default ClientIP affinity timeout (3 hours). */
const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;


/** The parts of a ServicePort this file reads (wire values are not trusted to have these types). */
export interface ServicePort {
  name?: string;
  protocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
  appProtocol?: string;
}

/** The parts of a ServiceSpec this file reads. */
export interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  ports?: ServicePort[];
  selector?: Record<string, string>;
  sessionAffinity?: string;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } } | null;
  externalIPs?: string[];
  externalName?: string;
  externalTrafficPolicy?: string;
  internalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  allocateLoadBalancerNodePorts?: boolean;
  loadBalancerSourceRanges?: string[];
  loadBalancerClass?: string;
}

/** obj.spec as a ServiceSpec, created when absent (Go's struct is never nil). */
export function serviceSpec(obj: KubeObject): ServiceSpec {
  if (!isPlainObject(obj.spec)) obj.spec = {};
  return obj.spec as ServiceSpec;
}

/** Wire values are untrusted JSON: a list field that is not an array reads as empty. */
export const arr = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);
/** A string field, '' when absent or not a string (Go's zero value). */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** A number field, 0 when absent or not a number (Go's zero value). */
export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** clusterIPs is exactly ["None"]. */
export const isHeadless = (s: ServiceSpec): boolean => arr(s.clusterIPs).length === 1 && s.clusterIPs![0] === 'None';
/** Every type but ExternalName has cluster IPs. */
export const needsClusterIP = (s: ServiceSpec): boolean => s.type !== 'ExternalName';
/** NodePort and LoadBalancer services have node ports. */
export const needsNodePort = (s: ServiceSpec): boolean => s.type === 'NodePort' || s.type === 'LoadBalancer';
/** apiservice.NeedsHealthCheck: LoadBalancer with externalTrafficPolicy Local. */
export const needsHealthCheck = (s: ServiceSpec): boolean => s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
/** Unset node ports are allocated for NodePort, and for LoadBalancer unless allocateLoadBalancerNodePorts is false. */
export const shouldAllocateNodePorts = (s: ServiceSpec): boolean =>
  s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
/** Two string lists are equal (absent = empty). */
export const sameStrings = (a: string[] | undefined, b: string[] | undefined): boolean => JSON.stringify(arr(a)) === JSON.stringify(arr(b));

// ---------------------------------------------------------------------------------------------
// defaulting and normalization

/** SetDefaults_Service (v1), with the 1.24 feature gates (ServiceInternalTrafficPolicy on). */
export function defaultService(obj: KubeObject): void {
  const s = serviceSpec(obj);
  if (!s.sessionAffinity) s.sessionAffinity = 'None';
  if (s.sessionAffinity === 'None') delete s.sessionAffinityConfig;
  if (s.sessionAffinity === 'ClientIP' && typeof s.sessionAffinityConfig?.clientIP?.timeoutSeconds !== 'number') {
    s.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS } };
  }
  if (!s.type) s.type = 'ClusterIP';
  for (const p of arr(s.ports)) {
    if (!isPlainObject(p)) continue;
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (needsNodePort(s) && !s.externalTrafficPolicy) s.externalTrafficPolicy = 'Cluster';
  if (!s.internalTrafficPolicy && (s.type === 'NodePort' || s.type === 'LoadBalancer' || s.type === 'ClusterIP')) s.internalTrafficPolicy = 'Cluster';
  if (s.type === 'LoadBalancer' && typeof s.allocateLoadBalancerNodePorts !== 'boolean') s.allocateLoadBalancerNodePorts = true;
  dropEmpty(s);
}

/** Go's omitempty: empty strings, zero ports and empty lists are not stored. */
export function dropEmpty(s: ServiceSpec): void {
  for (const k of ['clusterIP', 'externalName', 'externalTrafficPolicy', 'loadBalancerClass', 'ipFamilyPolicy', 'internalTrafficPolicy'] as const) {
    if (s[k] === '' || s[k] === null) delete s[k];
  }
  for (const k of ['clusterIPs', 'ipFamilies', 'externalIPs', 'loadBalancerSourceRanges', 'ports'] as const) {
    if (Array.isArray(s[k]) && s[k]!.length === 0) delete s[k];
    if (s[k] === null) delete s[k];
  }
  if (s.selector === null || (isPlainObject(s.selector) && Object.keys(s.selector).length === 0)) delete s.selector;
  if (s.healthCheckNodePort === 0 || s.healthCheckNodePort === null) delete s.healthCheckNodePort;
  for (const p of arr(s.ports)) if (isPlainObject(p) && (p.nodePort === 0 || p.nodePort === null)) delete p.nodePort;
}

/** storage.normalizeClusterIPs: keep clusterIP and clusterIPs[0] in step. */
export function normalizeClusterIPs(s: ServiceSpec, old: ServiceSpec | null): void {
  if (!old) {
    if (s.clusterIP && arr(s.clusterIPs).length === 0) s.clusterIPs = [s.clusterIP];
    return;
  }
  if (arr(old.clusterIPs).length > 0 && arr(s.clusterIPs).length === 0 && str(old.clusterIP) === str(s.clusterIP)) s.clusterIPs = old.clusterIPs;
  if (str(old.clusterIP) !== str(s.clusterIP)) {
    const same = sameStrings(old.clusterIPs, s.clusterIPs);
    if (old.clusterIP && !s.clusterIP) {
      if (same) delete s.clusterIPs;
    } else if (same) s.clusterIPs = [s.clusterIP!];
  }
}

/** storage.patchAllocatedValues: an update that omits allocated values keeps them. */
export function patchAllocatedValues(s: ServiceSpec, old: ServiceSpec): void {
  if (needsClusterIP(old) && needsClusterIP(s)) {
    if (!s.clusterIP && old.clusterIP) s.clusterIP = old.clusterIP;
    if (arr(s.clusterIPs).length === 0 && arr(old.clusterIPs).length > 0) s.clusterIPs = [...old.clusterIPs!];
  }
  if (needsNodePort(old) && needsNodePort(s)) {
    const usedBy = (x: ServiceSpec): Set<number> => new Set(arr(x.ports).map((p) => num(p?.nodePort)).filter((n) => n !== 0));
    const newUsed = usedBy(s);
    const used = new Set([...usedBy(old)].filter((n) => newUsed.has(n)));
    const byName = new Map(arr(old.ports).map((p) => [str(p?.name), num(p?.nodePort)]));
    for (const p of arr(s.ports)) {
      if (!isPlainObject(p) || num(p.nodePort) !== 0) continue;
      const was = byName.get(str(p.name)) ?? 0;
      if (was !== 0 && !used.has(was)) p.nodePort = was;
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(s) && !s.healthCheckNodePort && old.healthCheckNodePort) s.healthCheckNodePort = old.healthCheckNodePort;
}

/** strategy.dropTypeDependentFields: leaving a type drops the fields only it needed, if unchanged. */
export function dropTypeDependentFields(s: ServiceSpec, old: ServiceSpec): void {
  if (needsClusterIP(old) && !needsClusterIP(s)) {
    if (sameStrings(old.clusterIPs, s.clusterIPs) && str(old.clusterIP) === str(s.clusterIP)) {
      delete s.clusterIP;
      delete s.clusterIPs;
    }
    if (sameStrings(old.ipFamilies, s.ipFamilies)) delete s.ipFamilies;
    if (old.ipFamilyPolicy === s.ipFamilyPolicy) delete s.ipFamilyPolicy;
  }
  const nodePorts = (x: ServiceSpec): string => JSON.stringify(arr(x.ports).map((p) => num(p?.nodePort)));
  if (needsNodePort(old) && !needsNodePort(s) && nodePorts(old) === nodePorts(s)) for (const p of arr(s.ports)) if (isPlainObject(p)) delete p.nodePort;
  if (needsHealthCheck(old) && !needsHealthCheck(s) && old.healthCheckNodePort === s.healthCheckNodePort) delete s.healthCheckNodePort;
  if (old.type === 'LoadBalancer' && s.type !== 'LoadBalancer' && s.allocateLoadBalancerNodePorts === old.allocateLoadBalancerNodePorts) {
    delete s.allocateLoadBalancerNodePorts;
  }
  if (old.type === 'LoadBalancer' && s.type !== 'LoadBalancer' && s.loadBalancerClass === old.loadBalancerClass) delete s.loadBalancerClass;
  if (needsNodePort(old) && !needsNodePort(s) && s.externalTrafficPolicy === old.externalTrafficPolicy) delete s.externalTrafficPolicy;
}


/** collectServiceNodePorts: every distinct non-zero NodePort. */
export function nodePortsOf(s: ServiceSpec): number[] {
  const out: number[] = [];
  for (const p of arr(s.ports)) if (isPlainObject(p) && num(p.nodePort) !== 0 && !out.includes(num(p.nodePort))) out.push(num(p.nodePort));
  return out;
}

// ---------------------------------------------------------------------------------------------
// field order

/** A JSON key order: the keys in order, and the order of nested values by key. */
export interface KeyOrder {
  keys: string[];
  nested?: Record<string, KeyOrder>;
}

/**
 * Rewrite `value` (an object, or a list of objects) with its keys in Go struct order, so the
 * stored JSON reads byte for byte as kube-apiserver writes it; keys not listed keep their place
 * after the listed ones. Pure; returns a new value.
 */
export function orderKeys(value: unknown, order: KeyOrder): unknown {
  if (Array.isArray(value)) return value.map((v) => orderKeys(v, order));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  const put = (k: string): void => {
    const nested = order.nested?.[k];
    out[k] = nested ? orderKeys(value[k], nested) : value[k];
  };
  for (const k of order.keys) if (k in value) put(k);
  for (const k of Object.keys(value)) if (!(k in out)) put(k);
  return out;
}

const OBJECT_REFERENCE: KeyOrder = { keys: ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] };

/** core/v1 Service in Go struct order (k8s.io/api/core/v1/types.go). */
export const SERVICE_ORDER: KeyOrder = {
  keys: ['kind', 'apiVersion', 'metadata', 'spec', 'status'],
  nested: {
    spec: {
      keys: [
        'ports', 'selector', 'clusterIP', 'clusterIPs', 'type', 'externalIPs', 'sessionAffinity', 'loadBalancerIP', 'loadBalancerSourceRanges',
        'externalName', 'externalTrafficPolicy', 'healthCheckNodePort', 'publishNotReadyAddresses', 'sessionAffinityConfig', 'ipFamilies',
        'ipFamilyPolicy', 'allocateLoadBalancerNodePorts', 'loadBalancerClass', 'internalTrafficPolicy',
      ],
      nested: { ports: { keys: ['name', 'protocol', 'appProtocol', 'port', 'targetPort', 'nodePort'] } },
    },
    status: {
      keys: ['loadBalancer', 'conditions'],
      nested: {
        loadBalancer: { keys: ['ingress'], nested: { ingress: { keys: ['ip', 'hostname', 'ports'], nested: { ports: { keys: ['port', 'protocol', 'error'] } } } } },
        conditions: { keys: ['type', 'status', 'observedGeneration', 'lastTransitionTime', 'reason', 'message'] },
      },
    },
  },
};

/** core/v1 Endpoints in Go struct order. */
export const ENDPOINTS_ORDER: KeyOrder = {
  keys: ['kind', 'apiVersion', 'metadata', 'subsets'],
  nested: {
    subsets: {
      keys: ['addresses', 'notReadyAddresses', 'ports'],
      nested: {
        addresses: { keys: ['ip', 'hostname', 'nodeName', 'targetRef'], nested: { targetRef: OBJECT_REFERENCE } },
        notReadyAddresses: { keys: ['ip', 'hostname', 'nodeName', 'targetRef'], nested: { targetRef: OBJECT_REFERENCE } },
        ports: { keys: ['name', 'port', 'protocol', 'appProtocol'] },
      },
    },
  },
};

/** Reorder `obj` in place (its own keys replaced) following `order`. */
export function orderInPlace(obj: KubeObject, order: KeyOrder): void {
  const ordered = orderKeys(obj, order) as KubeObject;
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, ordered);
}
