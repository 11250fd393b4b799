/**
 * Service (core/v1), after Kubernetes 1.24: SetDefaults_Service (pkg/apis/core/v1/defaults.go),
 * pkg/registry/core/service/strategy.go, ValidateService / ValidateServiceUpdate
 * (pkg/apis/core/validation) and the allocation hooks of pkg/registry/core/service/storage.
 *
 * This server is single-stack: one `--service-cluster-ip-range`, whose family is the only one
 * configured (as kube-apiserver with one CIDR).
 */
import type { KubeObject } from '../../api/types.ts';
import { invalid as invalidStatus, internalError } from '../../api/errors.ts';
import { type FieldError, FieldPath, GoValue, duplicate, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import type { FinishFunc, HookDeps, KindDescriptor, Strategy, TableColumn, TableConvertor, WriteHooks } from '../rest/strategy.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../validation/names.ts';
import { validateLabels } from '../../validation/objectmeta.ts';
import { type IPFamily, formatIP, isValidIP, isValidPortName, isValidPortNum, parseCIDR, parseIP, specialIPErrors } from '../../validation/network.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell, isPlainObject } from './configmap.ts';
import { AllocationError, type AllocationOwner, IPAllocator, PortAllocator } from './service-alloc.ts';
import { deleteEndpointsOf } from './endpoints.ts';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

/** The `kubernetes` Service's ClusterIP: the first usable address of the range (10.0.0.1). */
export function kubernetesServiceIP(range: string = DEFAULT_SERVICE_CLUSTER_IP_RANGE): string {
  const cidr = parseCIDR(range);
  if (!cidr) throw new Error(`--service-cluster-ip-range: "${range}" is not a CIDR`);
  return formatIP({ family: cidr.family, value: cidr.base + 1n });
}
/** The port kubelet listens on: LoadBalancer services may not expose it. */
const KUBELET_PORT = 10250;
/** MaxClientIPServiceAffinitySeconds and the default timeout (3 hours). */
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;
const LB_SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

export const SUPPORTED_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const AFFINITY_TYPES = ['ClientIP', 'None'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];

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

const arr = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const isHeadless = (s: ServiceSpec): boolean => arr(s.clusterIPs).length === 1 && s.clusterIPs![0] === 'None';
const needsClusterIP = (s: ServiceSpec): boolean => s.type !== 'ExternalName';
const needsNodePort = (s: ServiceSpec): boolean => s.type === 'NodePort' || s.type === 'LoadBalancer';
/** apiservice.NeedsHealthCheck: LoadBalancer with externalTrafficPolicy Local. */
const needsHealthCheck = (s: ServiceSpec): boolean => s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
const shouldAllocateNodePorts = (s: ServiceSpec): boolean =>
  s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
const sameStrings = (a: string[] | undefined, b: string[] | undefined): boolean => JSON.stringify(arr(a)) === JSON.stringify(arr(b));

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
function dropEmpty(s: ServiceSpec): void {
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
function normalizeClusterIPs(s: ServiceSpec, old: ServiceSpec | null): void {
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
function patchAllocatedValues(s: ServiceSpec, old: ServiceSpec): void {
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
function dropTypeDependentFields(s: ServiceSpec, old: ServiceSpec): void {
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

// ---------------------------------------------------------------------------------------------
// validation

const specPath = new FieldPath('spec');

/** ValidateServiceClusterIPsRelatedFields. */
export function validateClusterIPsRelatedFields(s: ServiceSpec): FieldError[] {
  if (s.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ipsPath = specPath.child('clusterIPs');
  const ips = arr(s.clusterIPs);
  if (s.clusterIP) {
    if (ips.length === 0) errs.push(required(ipsPath));
    else if (ips[0] !== s.clusterIP) errs.push(invalid(ipsPath, ips, 'first value must match `clusterIP`'));
  } else if (ips.length !== 0) {
    errs.push(invalid(ipsPath, ips, 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  arr(s.ipFamilies).forEach((f, i) => {
    if (!IP_FAMILIES.includes(f)) errs.push(notSupported(specPath.child('ipFamilies').index(i), f, IP_FAMILIES));
    if (seen.has(f)) errs.push(duplicate(specPath.child('ipFamilies').index(i), f));
    seen.add(f);
  });
  if (s.ipFamilyPolicy !== undefined && !IP_FAMILY_POLICIES.includes(s.ipFamilyPolicy)) {
    errs.push(notSupported(specPath.child('ipFamilyPolicy'), s.ipFamilyPolicy, IP_FAMILY_POLICIES));
  }
  let hasInvalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        hasInvalidIPs = true;
        errs.push(invalid(ipsPath, ips, "'None' must be the first and only value"));
      }
      return;
    }
    for (const msg of isValidIP(str(ip))) {
      hasInvalidIPs = true;
      errs.push(invalid(ipsPath.index(i), ip, msg));
    }
  });
  if (ips.length > 2) errs.push(invalid(ipsPath, ips, 'may only hold up to 2 values'));
  if (hasInvalidIPs) return errs;
  if (ips.length > 1) {
    const fams = ips.map((ip) => parseIP(ip)!.family);
    if (ips.length !== 2 || fams[0] === fams[1]) errs.push(invalid(ipsPath, ips, 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(s) && ips.length > 0 && arr(s.ipFamilies).length > 0) {
    ips.forEach((ip, i) => {
      const fam = s.ipFamilies![i];
      if (fam === undefined) return;
      const v6 = parseIP(ip)?.family === 'IPv6' && ip.includes(':');
      if (fam === 'IPv4' && v6) errs.push(invalid(ipsPath.index(i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (fam === 'IPv6' && !v6) errs.push(invalid(ipsPath.index(i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

/** ValidatePortNumOrName. */
function validatePortNumOrName(v: unknown, p: FieldPath): FieldError[] {
  if (typeof v === 'number') return isValidPortNum(v).map((m) => invalid(p, v, m));
  if (typeof v === 'string') return isValidPortName(v).map((m) => invalid(p, v, m));
  return [invalid(p, v, 'must be an integer or a string')];
}

function validateServicePort(sp: ServicePort, requireName: boolean, names: Set<string>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sp.name);
  if (requireName && !name) errs.push(required(p.child('name')));
  else if (name) {
    for (const m of isDNS1123Label(name)) errs.push(invalid(p.child('name'), name, m));
    if (names.has(name)) errs.push(duplicate(p.child('name'), name));
    else names.add(name);
  }
  for (const m of isValidPortNum(num(sp.port))) errs.push(invalid(p.child('port'), num(sp.port), m));
  if (!sp.protocol) errs.push(required(p.child('protocol')));
  else if (!SUPPORTED_PROTOCOLS.includes(sp.protocol)) errs.push(notSupported(p.child('protocol'), sp.protocol, SUPPORTED_PROTOCOLS));
  errs.push(...validatePortNumOrName(sp.targetPort, p.child('targetPort')));
  if (sp.appProtocol !== undefined) for (const m of isQualifiedName(str(sp.appProtocol))) errs.push(invalid(p.child('appProtocol'), sp.appProtocol, m));
  return errs;
}

/** ValidateService minus ObjectMeta (the store validates metadata). */
export function validateService(obj: KubeObject): FieldError[] {
  const s = serviceSpec(obj);
  const errs: FieldError[] = [];
  const ports = arr(s.ports).map((p) => (isPlainObject(p) ? p : {}));
  const headless = isHeadless(s);
  if (ports.length === 0 && !headless && s.type !== 'ExternalName') errs.push(required(specPath.child('ports')));
  switch (s.type) {
    case 'LoadBalancer':
      ports.forEach((p, i) => {
        if (p.port === KUBELET_PORT) errs.push(invalid(specPath.child('ports').index(i), p.port, `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`));
      });
      if (headless) errs.push(invalid(specPath.child('clusterIPs').index(0), 'None', "may not be set to 'None' for LoadBalancer services"));
      break;
    case 'NodePort':
      if (headless) errs.push(invalid(specPath.child('clusterIPs').index(0), 'None', "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if (arr(s.clusterIPs).length > 0) errs.push(forbidden(specPath.child('clusterIPs'), 'may not be set for ExternalName services'));
      if (arr(s.ipFamilies).length > 0) errs.push(forbidden(specPath.child('ipFamilies'), 'may not be set for ExternalName services'));
      if (s.ipFamilyPolicy !== undefined) errs.push(forbidden(specPath.child('ipFamilyPolicy'), 'may not be set for ExternalName services'));
      const cname = str(s.externalName).replace(/\.$/, '');
      if (cname) for (const m of isDNS1123Subdomain(cname)) errs.push(invalid(specPath.child('externalName'), cname, m));
      else errs.push(required(specPath.child('externalName')));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, specPath.child('ports').index(i))));
  if (s.selector !== undefined) errs.push(...validateLabels(s.selector, specPath.child('selector')));

  if (!s.sessionAffinity) errs.push(required(specPath.child('sessionAffinity')));
  else if (!AFFINITY_TYPES.includes(s.sessionAffinity)) errs.push(notSupported(specPath.child('sessionAffinity'), s.sessionAffinity, AFFINITY_TYPES));
  const cfgPath = specPath.child('sessionAffinityConfig');
  if (s.sessionAffinity === 'ClientIP') {
    const cfg = s.sessionAffinityConfig;
    if (!cfg) errs.push(required(cfgPath, 'when session affinity type is ClientIP'));
    else if (!cfg.clientIP) errs.push(required(cfgPath.child('clientIP'), 'when session affinity type is ClientIP'));
    else if (typeof cfg.clientIP.timeoutSeconds !== 'number') errs.push(required(cfgPath.child('clientIP').child('timeoutSeconds'), 'when session affinity type is ClientIP'));
    else if (cfg.clientIP.timeoutSeconds <= 0 || cfg.clientIP.timeoutSeconds > MAX_CLIENT_IP_AFFINITY_SECONDS) {
      errs.push(invalid(cfgPath.child('clientIP').child('timeoutSeconds'), cfg.clientIP.timeoutSeconds, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`));
    }
  } else if (s.sessionAffinity === 'None' && s.sessionAffinityConfig) {
    errs.push(forbidden(cfgPath, 'must not be set when session affinity is None'));
  }

  errs.push(...validateClusterIPsRelatedFields(s));

  arr(s.externalIPs).forEach((ip, i) => {
    const p = specPath.child('externalIPs').index(i);
    const parsed = parseIP(str(ip));
    if (!parsed) errs.push(...isValidIP(str(ip)).map((m) => invalid(p, ip, m)));
    else errs.push(...specialIPErrors(ip, parsed).map((m) => invalid(p, ip, m)));
  });

  if (!s.type) errs.push(required(specPath.child('type')));
  else if (!SERVICE_TYPES.includes(s.type)) errs.push(notSupported(specPath.child('type'), s.type, SERVICE_TYPES));

  if (s.type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (num(p.nodePort) !== 0) errs.push(forbidden(specPath.child('ports').index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (num(p.nodePort) === 0) return;
    const k = `${p.protocol}/${p.nodePort}`;
    if (nodePorts.has(k)) errs.push(duplicate(specPath.child('ports').index(i).child('nodePort'), p.nodePort));
    nodePorts.add(k);
  });
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    const k = `${p.protocol}/${num(p.port)}`;
    // Go prints the duplicate key (a ServicePort with only Protocol and Port set) with %#v.
    const key = new GoValue(
      `core.ServicePort{Name:"", Protocol:${JSON.stringify(str(p.protocol))}, AppProtocol:(*string)(nil), Port:${num(p.port)}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
    );
    if (portKeys.has(k)) errs.push(duplicate(specPath.child('ports').index(i), key));
    portKeys.add(k);
  });

  const annotation = obj.metadata.annotations?.[LB_SOURCE_RANGES_ANNOTATION];
  const ranges = arr(s.loadBalancerSourceRanges);
  if (ranges.length > 0 || annotation !== undefined) {
    const fromSpec = ranges.length > 0;
    const p = fromSpec ? specPath.child('LoadBalancerSourceRanges') : new FieldPath('metadata').child('annotations').key(LB_SOURCE_RANGES_ANNOTATION);
    const val = fromSpec ? `[${ranges.join(' ')}]` : str(annotation);
    if (s.type !== 'LoadBalancer') errs.push(forbidden(p, "may only be used when `type` is 'LoadBalancer'"));
    const items = fromSpec ? ranges.map((r) => str(r).trim()) : str(annotation).split(',').map((r) => r.trim()).filter((r) => r);
    if (items.some((r) => !parseCIDR(r))) errs.push(invalid(p, val, 'must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 '));
  }
  if (s.allocateLoadBalancerNodePorts !== undefined && s.type !== 'LoadBalancer') {
    errs.push(forbidden(specPath.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"));
  }
  if (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts === undefined) errs.push(required(new FieldPath('allocateLoadBalancerNodePorts')));
  errs.push(...validateLoadBalancerClass(s));

  // external traffic policy
  if (!needsNodePort(s)) {
    if (s.externalTrafficPolicy) {
      errs.push(invalid(specPath.child('externalTrafficPolicy'), s.externalTrafficPolicy, "may only be set when `type` is 'NodePort' or 'LoadBalancer'"));
    }
  } else if (!s.externalTrafficPolicy) errs.push(required(specPath.child('externalTrafficPolicy')));
  else if (!TRAFFIC_POLICIES.includes(s.externalTrafficPolicy)) errs.push(notSupported(specPath.child('externalTrafficPolicy'), s.externalTrafficPolicy, TRAFFIC_POLICIES));
  if (!needsHealthCheck(s)) {
    if (num(s.healthCheckNodePort) !== 0) {
      errs.push(invalid(specPath.child('healthCheckNodePort'), s.healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    }
  } else if (num(s.healthCheckNodePort) === 0) errs.push(required(specPath.child('healthCheckNodePort')));
  else for (const m of isValidPortNum(num(s.healthCheckNodePort))) errs.push(invalid(specPath.child('healthCheckNodePort'), s.healthCheckNodePort, m));

  // internal traffic policy
  if (s.internalTrafficPolicy === undefined) {
    if (s.type === 'NodePort' || s.type === 'LoadBalancer' || s.type === 'ClusterIP') errs.push(required(specPath.child('internalTrafficPolicy')));
  } else if (!TRAFFIC_POLICIES.includes(s.internalTrafficPolicy)) {
    errs.push(notSupported(specPath.child('internalTrafficPolicy'), s.internalTrafficPolicy, TRAFFIC_POLICIES));
  }
  return errs;
}

/** validateLoadBalancerClassField's update rule: immutable while the Service stays LoadBalancer. */
function validateLoadBalancerClassUpdate(old: ServiceSpec, s: ServiceSpec): FieldError[] {
  if (old.type === 'LoadBalancer' && s.type === 'LoadBalancer' && old.loadBalancerClass !== s.loadBalancerClass) {
    return [invalid(specPath.child('loadBalancerClass'), s.loadBalancerClass ?? null, 'may not change once set')];
  }
  return [];
}

/** validateLoadBalancerClassField on one object: only for LoadBalancer, a qualified name. */
function validateLoadBalancerClass(s: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  const p = specPath.child('loadBalancerClass');
  if (s.loadBalancerClass !== undefined) {
    if (s.type !== 'LoadBalancer') errs.push(forbidden(p, 'may only be used when `type` is \'LoadBalancer\''));
    else for (const m of isQualifiedName(str(s.loadBalancerClass))) errs.push(invalid(p, s.loadBalancerClass, m));
  }
  return errs;
}

/** validateUpgradeDowngradeClusterIPs and …IPFamilies: allocated values never change. */
function validateClusterIPsUpdate(old: ServiceSpec, s: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (s.type === 'ExternalName' || old.type === 'ExternalName') return errs;
  const ips = arr(s.clusterIPs);
  const oldIps = arr(old.clusterIPs);
  const p = specPath.child('clusterIPs');
  if (!(isHeadless(old) && isHeadless(s))) {
    if (oldIps.length === ips.length) {
      oldIps.forEach((ip, i) => {
        if (ip !== ips[i]) errs.push(invalid(p.index(i), ips, 'may not change once set'));
      });
    } else if (oldIps.length > ips.length) {
      if (ips.length === 0) errs.push(invalid(p.index(0), ips, 'primary clusterIP can not be unset'));
      if (oldIps.length > 0 && ips.length > 0 && ips[0] !== oldIps[0]) errs.push(invalid(p.index(0), ips, 'may not change once set'));
      if (ips.length === 1 && s.ipFamilyPolicy !== 'SingleStack') {
        errs.push(invalid(specPath.child('ipFamilyPolicy'), s.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
      }
    } else if (oldIps.length > 0 && ips[0] !== oldIps[0]) {
      errs.push(invalid(p.index(0), ips, 'may not change once set'));
    }
  }
  if (isHeadless(old) !== isHeadless(s) || isHeadless(s)) return errs;
  const fams = arr(s.ipFamilies);
  const oldFams = arr(old.ipFamilies);
  if (oldFams.length === fams.length) {
    oldFams.forEach((f, i) => {
      if (f !== fams[i]) errs.push(invalid(specPath.child('ipFamilies').index(0), fams, 'may not change once set'));
    });
  } else if (oldFams.length > fams.length) {
    if (ips.length === 0) errs.push(invalid(specPath.child('ipFamilies').index(0), fams, 'primary ipFamily can not be unset'));
    if (fams.length > 0 && fams[0] !== oldFams[0]) errs.push(invalid(specPath.child('ipFamilies').index(0), ips, 'may not change once set'));
  } else if (oldFams.length > 0 && fams[0] !== oldFams[0]) {
    errs.push(invalid(specPath.child('ipFamilies').index(0), fams, 'may not change once set'));
  }
  return errs;
}

/** ValidateServiceUpdate minus ObjectMeta. */
export function validateServiceUpdate(newObj: KubeObject, oldObj: KubeObject): FieldError[] {
  const s = serviceSpec(newObj);
  const old = serviceSpec(oldObj);
  const errs = [...validateClusterIPsUpdate(old, s), ...validateLoadBalancerClassUpdate(old, s)];
  if (needsHealthCheck(old) && needsHealthCheck(s) && s.healthCheckNodePort !== old.healthCheckNodePort) {
    errs.push(forbidden(specPath.child('healthCheckNodePort'), 'field is immutable'));
  }
  return [...errs, ...validateService(newObj)];
}

/** ValidateServiceStatusUpdate minus ObjectMeta: ingress IPs must be IPs. */
function validateServiceStatus(newObj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const status = isPlainObject(newObj.status) ? newObj.status : {};
  const lb = isPlainObject(status.loadBalancer) ? status.loadBalancer : {};
  const p = new FieldPath('status').child('loadBalancer').child('ingress');
  arr(lb.ingress as { ip?: string; hostname?: string }[]).forEach((ing, i) => {
    if (!isPlainObject(ing)) return;
    if (ing.ip && !parseIP(str(ing.ip))) errs.push(invalid(p.index(i).child('ip'), ing.ip, 'must be a valid IP address'));
    if (ing.hostname) {
      for (const m of isDNS1123Subdomain(str(ing.hostname))) errs.push(invalid(p.index(i).child('hostname'), ing.hostname, m));
      if (parseIP(str(ing.hostname))) errs.push(invalid(p.index(i).child('hostname'), ing.hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

export const serviceStrategy: Strategy = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaults: defaultService,
  prepareForCreate(obj) {
    obj.status = { loadBalancer: {} };
  },
  prepareForUpdate(newObj, oldObj) {
    newObj.status = oldObj.status ?? { loadBalancer: {} };
    dropTypeDependentFields(serviceSpec(newObj), serviceSpec(oldObj));
  },
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  canonicalize(obj) {
    const s = serviceSpec(obj);
    dropEmpty(s);
    // kube stores internalTrafficPolicy on ExternalName services but drops it on every read
    // (defaultOnReadInternalTrafficPolicy); not storing it reads the same.
    if (s.type === 'ExternalName') delete s.internalTrafficPolicy;
  },
};

// ---------------------------------------------------------------------------------------------
// allocation hooks (storage.beginCreate / beginUpdate / afterDelete)

const serviceInvalid = (obj: KubeObject, errs: FieldError[]) => invalidStatus('Service', '', obj.metadata.name ?? '', errs);

/** Undo/confirm steps collected while allocating; run in order by the FinishFunc. */
interface Txn {
  onSuccess: (() => Promise<void>)[];
  onFailure: (() => Promise<void>)[];
}

const finisher = (txn: Txn): FinishFunc => async (success) => {
  for (const step of success ? txn.onSuccess : txn.onFailure) await step().catch(() => undefined);
};

/** The Service hooks: ClusterIP and NodePort allocation (kube's storage/alloc.go). */
export class ServiceAllocators implements WriteHooks {
  readonly ips: IPAllocator;
  readonly ports: PortAllocator;

  constructor(private readonly deps: HookDeps) {
    this.ips = new IPAllocator(deps.storage, deps.options.serviceClusterIPRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE);
    this.ports = new PortAllocator(deps.storage, deps.options.serviceNodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE);
  }

  private get family(): IPFamily {
    return this.ips.family;
  }

  async beginCreate(obj: KubeObject, dryRun: boolean): Promise<FinishFunc> {
    const s = serviceSpec(obj);
    normalizeClusterIPs(s, null);
    const txn: Txn = { onSuccess: [], onFailure: [] };
    try {
      this.initIPFamilyFields(obj, null);
      await this.allocClusterIPs(obj, dryRun, txn);
      if (needsNodePort(s)) await this.initNodePorts(obj, dryRun, txn);
      if (needsHealthCheck(s)) await this.allocHealthCheckNodePort(obj, dryRun, txn);
    } catch (e) {
      await finisher(txn)(false);
      throw e;
    }
    return finisher(txn);
  }

  async beginUpdate(newObj: KubeObject, oldObj: KubeObject, dryRun: boolean): Promise<FinishFunc> {
    const s = serviceSpec(newObj);
    const old = serviceSpec(oldObj);
    patchAllocatedValues(s, old);
    normalizeClusterIPs(s, old);
    const txn: Txn = { onSuccess: [], onFailure: [] };
    try {
      this.initIPFamilyFields(newObj, oldObj);
      // ClusterIPs: only a move from/to ExternalName allocates or releases (single-stack server).
      if (old.type === 'ExternalName' && s.type !== 'ExternalName') await this.allocClusterIPs(newObj, dryRun, txn);
      else if (!isHeadless(old) && old.type !== 'ExternalName' && s.type === 'ExternalName' && !dryRun) {
        for (const ip of arr(old.clusterIPs)) txn.onSuccess.push(() => this.ips.release(ip));
      }
      if (needsNodePort(old) && !needsNodePort(s) && !dryRun) {
        for (const np of nodePortsOf(old)) txn.onSuccess.push(() => this.ports.release(np));
      }
      if (needsNodePort(s)) await this.updateNodePorts(newObj, old, dryRun, txn);
      if (!needsHealthCheck(old) && needsHealthCheck(s)) await this.allocHealthCheckNodePort(newObj, dryRun, txn);
      else if (needsHealthCheck(old) && !needsHealthCheck(s) && old.healthCheckNodePort && !dryRun) {
        const hc = old.healthCheckNodePort;
        txn.onSuccess.push(() => this.ports.release(hc));
      }
    } catch (e) {
      await finisher(txn)(false);
      throw e;
    }
    return finisher(txn);
  }

  async afterDelete(obj: KubeObject): Promise<void> {
    const s = serviceSpec(obj);
    // kube deletes the Service's Endpoints too, so a new Service of that name starts clean.
    await deleteEndpointsOf(this.deps.storage, obj.metadata.namespace ?? '', obj.metadata.name ?? '').catch(() => undefined);
    if (needsClusterIP(s) && !isHeadless(s)) for (const ip of arr(s.clusterIPs)) await this.ips.release(ip).catch(() => undefined);
    for (const np of nodePortsOf(s)) await this.ports.release(np).catch(() => undefined);
    if (needsHealthCheck(s) && s.healthCheckNodePort) await this.ports.release(s.healthCheckNodePort).catch(() => undefined);
  }

  /** alloc.initIPFamilyFields for a single-stack cluster. Throws 422 with kube's messages. */
  private initIPFamilyFields(obj: KubeObject, oldObj: KubeObject | null): void {
    const s = serviceSpec(obj);
    const old = oldObj ? serviceSpec(oldObj) : null;
    if (s.type === 'ExternalName') return;
    if (s.ipFamilyPolicy === undefined) {
      if (old?.ipFamilyPolicy !== undefined) s.ipFamilyPolicy = old.ipFamilyPolicy;
      else s.ipFamilyPolicy = s.clusterIP === 'None' && !s.selector ? 'RequireDualStack' : 'SingleStack';
    }
    const related = validateClusterIPsRelatedFields(s);
    if (related.length) throw serviceInvalid(obj, related);
    const errs: FieldError[] = [];
    const policyPath = specPath.child('ipFamilyPolicy');
    if (old) {
      if (s.ipFamilyPolicy === 'SingleStack') {
        if (sameStrings(old.clusterIPs, s.clusterIPs) && arr(s.clusterIPs).length > 1) s.clusterIPs = s.clusterIPs!.slice(0, 1);
        if (sameStrings(old.ipFamilies, s.ipFamilies) && arr(s.ipFamilies).length > 1) s.ipFamilies = s.ipFamilies!.slice(0, 1);
      } else {
        if (arr(s.clusterIPs).length < arr(old.clusterIPs).length) errs.push(invalid(policyPath, s.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"));
        if (arr(s.ipFamilies).length < arr(old.ipFamilies).length) errs.push(invalid(policyPath, s.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"));
      }
    }
    if (s.ipFamilyPolicy === 'SingleStack') {
      if (arr(s.clusterIPs).length === 2) errs.push(invalid(policyPath, s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
      if (arr(s.ipFamilies).length === 2) errs.push(invalid(policyPath, s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
    }
    const ips = arr(s.clusterIPs);
    for (let i = 0; i < ips.length; i++) {
      if (ips[i] === 'None') break;
      const fam = parseIP(ips[i]!)!.family;
      if (i >= arr(s.ipFamilies).length) {
        if (fam !== this.family) errs.push(invalid(specPath.child('clusterIPs').index(i), ips, `${fam} is not configured on this cluster`));
        else s.ipFamilies = [...arr(s.ipFamilies), fam];
      }
    }
    if (errs.length) throw serviceInvalid(obj, errs);
    if (s.clusterIP === 'None' && !s.selector) {
      if (arr(s.ipFamilies).length === 0) s.ipFamilies = [this.family];
      if (s.ipFamilies!.length < 2 && s.ipFamilyPolicy !== 'SingleStack') s.ipFamilies!.push(s.ipFamilies![0] === 'IPv4' ? 'IPv6' : 'IPv4');
      return;
    }
    if (s.ipFamilyPolicy === 'RequireDualStack') errs.push(invalid(policyPath, s.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
    arr(s.ipFamilies).forEach((f, i) => {
      if (f !== this.family) errs.push(invalid(specPath.child('ipFamilies').index(i), f, 'not configured on this cluster'));
    });
    if (errs.length) throw serviceInvalid(obj, errs);
    if (arr(s.ipFamilies).length === 0) s.ipFamilies = [this.family];
  }

  private owner(obj: KubeObject): AllocationOwner {
    return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '' };
  }

  /** alloc.allocClusterIPs: the requested IP, or the next free one. */
  private async allocClusterIPs(obj: KubeObject, dryRun: boolean, txn: Txn): Promise<void> {
    const s = serviceSpec(obj);
    if (s.type === 'ExternalName' || arr(s.clusterIPs)[0] === 'None') return;
    const want = arr(s.clusterIPs)[0] ?? '';
    let ip: string;
    if (!want) {
      try {
        ip = await this.ips.allocateNext(this.owner(obj), dryRun);
      } catch (e) {
        if (e instanceof AllocationError) throw internalError(`failed to allocate a serviceIP: ${e.message}`);
        throw e;
      }
    } else {
      try {
        await this.ips.allocate(want, this.owner(obj), dryRun);
      } catch (e) {
        if (e instanceof AllocationError) throw serviceInvalid(obj, [invalid(specPath.child('clusterIPs'), arr(s.clusterIPs), `failed to allocate IP ${want}: ${e.message}`)]);
        throw e;
      }
      ip = want;
    }
    if (!dryRun) txn.onFailure.push(() => this.ips.release(ip));
    s.clusterIPs = [ip, ...arr(s.clusterIPs).slice(1)];
    s.clusterIP = ip;
  }

  private async claimPort(obj: KubeObject, port: number, path: FieldPath, dryRun: boolean, txn: Txn): Promise<void> {
    try {
      await this.ports.allocate(port, this.owner(obj), dryRun);
    } catch (e) {
      if (e instanceof AllocationError) throw serviceInvalid(obj, [invalid(path, port, e.message)]);
      throw e;
    }
    if (!dryRun) txn.onFailure.push(() => this.ports.release(port));
  }

  private async nextPort(obj: KubeObject, dryRun: boolean, txn: Txn, what = 'a nodePort'): Promise<number> {
    let port: number;
    try {
      port = await this.ports.allocateNext(this.owner(obj), dryRun);
    } catch (e) {
      if (e instanceof AllocationError) throw internalError(`failed to allocate ${what}: ${e.message}`);
      throw e;
    }
    if (!dryRun) txn.onFailure.push(() => this.ports.release(port));
    return port;
  }

  /** alloc.initNodePorts: ports sharing a port number (TCP+UDP 53) share one NodePort. */
  private async initNodePorts(obj: KubeObject, dryRun: boolean, txn: Txn): Promise<void> {
    const s = serviceSpec(obj);
    const ports = arr(s.ports);
    const byServicePort = new Map<number, number>();
    for (let i = 0; i < ports.length; i++) {
      const sp = ports[i]!;
      if (!isPlainObject(sp)) continue;
      if (num(sp.nodePort) === 0 && !shouldAllocateNodePorts(s)) continue;
      const path = specPath.child('ports').index(i).child('nodePort');
      const already = byServicePort.get(num(sp.port)) ?? 0;
      if (already === 0) {
        const requested = ports.find((p) => isPlainObject(p) && num(p.port) === num(sp.port) && num(p.nodePort) !== 0)?.nodePort ?? 0;
        if (requested !== 0) {
          await this.claimPort(obj, requested, path, dryRun, txn);
          sp.nodePort = requested;
        } else {
          sp.nodePort = await this.nextPort(obj, dryRun, txn);
        }
        byServicePort.set(num(sp.port), num(sp.nodePort));
      } else if (num(sp.nodePort) !== already) {
        if (num(sp.nodePort) === 0) sp.nodePort = already;
        else await this.claimPort(obj, num(sp.nodePort), path, dryRun, txn);
      }
    }
  }

  /** alloc.updateNodePorts: claim new ones, release those no longer used once the write lands. */
  private async updateNodePorts(obj: KubeObject, old: ServiceSpec, dryRun: boolean, txn: Txn): Promise<void> {
    const s = serviceSpec(obj);
    const oldPorts = nodePortsOf(old);
    const claimed = new Set<number>();
    const ports = arr(s.ports);
    for (let i = 0; i < ports.length; i++) {
      const sp = ports[i]!;
      if (!isPlainObject(sp)) continue;
      if (num(sp.nodePort) === 0 && !shouldAllocateNodePorts(s)) continue;
      if (num(sp.nodePort) !== 0) {
        if (!oldPorts.includes(num(sp.nodePort)) && !claimed.has(num(sp.nodePort))) {
          await this.claimPort(obj, num(sp.nodePort), specPath.child('ports').index(i).child('nodePort'), dryRun, txn);
          claimed.add(num(sp.nodePort));
        }
      } else {
        sp.nodePort = await this.nextPort(obj, dryRun, txn);
      }
    }
    const now = nodePortsOf(s);
    if (!dryRun) for (const np of oldPorts) if (!now.includes(np)) txn.onSuccess.push(() => this.ports.release(np));
  }

  private async allocHealthCheckNodePort(obj: KubeObject, dryRun: boolean, txn: Txn): Promise<void> {
    const s = serviceSpec(obj);
    const want = num(s.healthCheckNodePort);
    if (want !== 0) {
      try {
        await this.ports.allocate(want, this.owner(obj), dryRun);
      } catch (e) {
        if (e instanceof AllocationError) throw internalError(`failed to allocate requested HealthCheck NodePort ${want}: ${e.message}`);
        throw e;
      }
      if (!dryRun) txn.onFailure.push(() => this.ports.release(want));
    } else {
      s.healthCheckNodePort = await this.nextPort(obj, dryRun, txn, 'a HealthCheck NodePort 0');
    }
  }
}

/** collectServiceNodePorts: every distinct non-zero NodePort. */
function nodePortsOf(s: ServiceSpec): number[] {
  const out: number[] = [];
  for (const p of arr(s.ports)) if (isPlainObject(p) && num(p.nodePort) !== 0 && !out.includes(num(p.nodePort))) out.push(num(p.nodePort));
  return out;
}

// ---------------------------------------------------------------------------------------------
// table (printService in pkg/printers/internalversion/printers.go)

const col = (name: string, description: string, priority = 0): TableColumn => ({ name, type: 'string', description, priority });

/** ServiceSpec/ServicePort descriptions as kube's Table columns carry them. */
const SERVICE_COLUMNS: TableColumn[] = [
  NAME_COLUMN,
  col(
    'Type',
    'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
  ),
  col(
    'Cluster-IP',
    'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  ),
  col(
    'External-IP',
    'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
  ),
  col('Port(s)', 'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies'),
  AGE_COLUMN,
  col(
    'Selector',
    'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
    1,
  ),
];

/** getServiceExternalIP (non-wide: load balancer names longer than 16 characters are cut). */
function externalIPCell(obj: KubeObject): string {
  const s = serviceSpec(obj);
  const ext = arr(s.externalIPs);
  switch (s.type) {
    case 'ClusterIP':
    case 'NodePort':
      return ext.length ? ext.join(',') : '<none>';
    case 'LoadBalancer': {
      const status = isPlainObject(obj.status) && isPlainObject(obj.status.loadBalancer) ? obj.status.loadBalancer : {};
      const names = [...new Set(arr(status.ingress as { ip?: string; hostname?: string }[]).map((i) => str(i?.ip) || str(i?.hostname)).filter((x) => x))].sort();
      let lb = names.join(',');
      if (lb.length > 16) lb = `${lb.slice(0, 13)}...`;
      if (ext.length) return [...(lb ? lb.split(',') : []), ...ext].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return str(s.externalName);
    default:
      return '<unknown>';
  }
}

const portsCell = (s: ServiceSpec): string =>
  arr(s.ports)
    .map((p) => (num(p?.nodePort) > 0 ? `${num(p.port)}:${p.nodePort}/${str(p.protocol)}` : `${num(p?.port)}/${str(p?.protocol)}`))
    .join(',') || '<none>';

/** labels.FormatLabels: sorted k=v pairs, "<none>" when empty. */
const selectorCell = (s: ServiceSpec): string => {
  const sel = isPlainObject(s.selector) ? s.selector : {};
  const keys = Object.keys(sel).sort();
  return keys.length ? keys.map((k) => `${k}=${sel[k]}`).join(',') : '<none>';
};

export const serviceTable: TableConvertor = {
  columns: SERVICE_COLUMNS,
  cells: (obj) => {
    const s = serviceSpec(obj);
    return [obj.metadata.name ?? '', str(s.type), arr(s.clusterIPs)[0] ?? '<none>', externalIPCell(obj), portsCell(s), creationTimestampCell(obj), selectorCell(s)];
  },
};

export const serviceKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'services',
  singular: 'service',
  kind: 'Service',
  listKind: 'ServiceList',
  namespaced: true,
  nameFormat: 'dns1035',
  shortNames: ['svc'],
  categories: ['all'],
  strategy: serviceStrategy,
  hooks: (deps) => new ServiceAllocators(deps),
  subresources: [
    {
      name: 'status',
      verbs: ['get', 'update', 'patch'],
      strategy: {
        prepareForUpdate(newObj, oldObj) {
          // serviceStatusStrategy: the spec is the stored one; status (and metadata) come from the request.
          newObj.spec = structuredClone(oldObj.spec);
          if (!isPlainObject(newObj.status)) newObj.status = { loadBalancer: {} };
        },
        validateUpdate: (newObj) => validateServiceStatus(newObj),
      },
    },
  ],
  table: serviceTable,
  deleteReturns: 'Object',
};
