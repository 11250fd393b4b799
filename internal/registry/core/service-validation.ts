/**
 * ValidateService, ValidateServiceUpdate and ValidateServiceStatusUpdate of Kubernetes 1.24
 * (pkg/apis/core/validation/validation.go), minus ObjectMeta (the store validates metadata).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../validation/names.ts';
import { validateLabels } from '../../validation/objectmeta.ts';
import { SUPPORTED_PROTOCOLS, isValidIP, isValidPortName, isValidPortNum, parseCIDR, parseIP, specialIPErrors } from '../../validation/network.ts';
import { isPlainObject } from './configmap.ts';
import { type ServicePort, type ServiceSpec, arr, isHeadless, needsHealthCheck, needsNodePort, num, serviceSpec, str } from './service-spec.ts';

/** The port kubelet listens on: LoadBalancer services may not expose it. */
const KUBELET_PORT = 10250;
/** MaxClientIPServiceAffinitySeconds. */
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
const LB_SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const AFFINITY_TYPES = ['ClientIP', 'None'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];

export const specPath = new FieldPath('spec');

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
export function validateServiceStatus(newObj: KubeObject): FieldError[] {
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

