/**
 * Ingress (networking.k8s.io/v1, namespaced, with /status), after Kubernetes 1.24.17:
 * ValidateIngressCreate / ValidateIngressUpdate / ValidateIngressStatusUpdate
 * (pkg/apis/networking/validation), pkg/registry/networking/ingress (status reset on create and
 * kept on update, generation 1 then bumped on a spec change; /status keeps the spec) and
 * printIngress (pkg/printers/internalversion/printers.go). v1 has no defaults.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, invalid, notSupported, required } from '../../api/field-errors.ts';
import { isDNS1123Subdomain, isWildcardDNS1123Subdomain, nameIsDNS1035Label, nameIsDNSSubdomain } from '../../validation/names.ts';
import { isValidPortName, isValidPortNum, parseIP } from '../../validation/network.ts';
import type { KindDescriptor, StatusStrategy, Strategy, TableConvertor } from '../rest/strategy.ts';
import type { ResetFieldsStrategy } from '../generic/managed-fields.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { isObj } from '../../gocompat/json.ts';
import { str, arr, obj, specOf } from './helpers.ts';
import { validateTypedReference } from './ingressclass.ts';

const ANNOTATION_INGRESS_CLASS = 'kubernetes.io/ingress.class';
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];


interface Options {
  /** spec.tls[*].secretName values that are not Secret names are kept (an old object had one). */
  allowInvalidSecretName: boolean;
  /** Rules with wildcard hosts skip their rule checks (an old object had such an invalid rule). */
  allowInvalidWildcardHostRule: boolean;
}
const STRICT: Options = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false };

/** validateIngressBackend: exactly one of resource and service; a service names a port. */
function validateBackend(backend: Record<string, unknown>, p: FieldPath): FieldError[] {
  const hasResource = isObj(backend.resource);
  const hasService = isObj(backend.service);
  if (hasResource && hasService) return [invalid(p, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateTypedReference(backend.resource as Record<string, unknown>, p.child('resource'));
  if (!hasService) return [invalid(p, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const svc = backend.service as Record<string, unknown>;
  const name = str(svc.name);
  const namePath = p.child('service').child('name');
  if (name === '') errs.push(required(namePath, ''));
  else for (const m of nameIsDNS1035Label(name, false)) errs.push(invalid(namePath, name, m));
  const port = obj(svc.port);
  const portName = str(port.name);
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  const portPath = p.child('service').child('port');
  if (portName !== '' && portNumber !== 0) errs.push(invalid(p, '', 'cannot set both port name & port number'));
  else if (portName !== '') for (const m of isValidPortName(portName)) errs.push(invalid(portPath.child('name'), portName, m));
  else if (portNumber !== 0) for (const m of isValidPortNum(portNumber)) errs.push(invalid(portPath.child('number'), portNumber, m));
  else errs.push(required(p, 'port name or number is required'));
  return errs;
}

/** validateHTTPIngressPath: pathType required; Exact/Prefix paths absolute and clean. */
function validatePath(path: Record<string, unknown>, p: FieldPath): FieldError[] {
  if (typeof path.pathType !== 'string') return [required(p.child('pathType'), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = str(path.path);
  const pp = p.child('path');
  switch (path.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(invalid(pp, value, 'must be an absolute path'));
      for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(invalid(pp, value, `must not contain '${seq}'`));
      for (const suf of INVALID_PATH_SUFFIXES) if (value.endsWith(suf)) errs.push(invalid(pp, value, `cannot end with '${suf}'`));
      break;
    case 'ImplementationSpecific':
      if (value.length > 0 && !value.startsWith('/')) errs.push(invalid(pp, value, 'must be an absolute path'));
      break;
    default:
      errs.push(notSupported(p.child('pathType'), path.pathType, PATH_TYPES));
  }
  return [...errs, ...validateBackend(obj(path.backend), p.child('backend'))];
}

/** validateIngressRuleValue: an http rule needs paths, each valid. */
function validateRuleValue(rule: Record<string, unknown>, p: FieldPath): FieldError[] {
  if (!isObj(rule.http)) return [];
  const hp = p.child('http');
  const paths = arr(rule.http.paths);
  const errs: FieldError[] = paths.length === 0 ? [required(hp.child('paths'), '')] : [];
  paths.forEach((x, i) => errs.push(...validatePath(obj(x), hp.child('paths').index(i))));
  return errs;
}

/** validateIngressRules: hosts are DNS names (wildcards allowed), not IPs. */
function validateRules(rules: unknown[], p: FieldPath, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((x, i) => {
    const rule = obj(x);
    const host = str(rule.host);
    const hp = p.index(i).child('host');
    let wildcard = false;
    if (host.length > 0) {
      if (parseIP(host) !== undefined) errs.push(invalid(hp, host, 'must be a DNS name, not an IP address'));
      wildcard = host.includes('*');
      for (const m of wildcard ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host)) errs.push(invalid(hp, host, m));
    }
    if (!wildcard || !opts.allowInvalidWildcardHostRule) errs.push(...validateRuleValue(rule, p.index(i)));
  });
  return errs;
}

/** ValidateSecretName of a non-empty TLS secret name. */
const tlsSecretNameErrors = (name: string): string[] => (name.length === 0 ? [] : nameIsDNSSubdomain(name, false));

/** validateIngressTLS: hosts DNS names (wildcards allowed), secret names Secret names. */
function validateTLS(tls: unknown[], p: FieldPath, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  tls.forEach((x, i) => {
    const t = obj(x);
    arr(t.hosts).forEach((h, j) => {
      const host = str(h);
      for (const m of host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host)) errs.push(invalid(p.index(i).child('hosts').index(j), host, m));
    });
    if (!opts.allowInvalidSecretName) for (const m of tlsSecretNameErrors(str(t.secretName))) errs.push(invalid(p.index(i).child('secretName'), str(t.secretName), m));
  });
  return errs;
}

/** ValidateIngressSpec. */
function validateSpec(o: KubeObject, opts: Options): FieldError[] {
  const s = specOf(o);
  const p = new FieldPath('spec');
  const rules = arr(s.rules);
  const errs: FieldError[] = [];
  if (rules.length === 0 && !isObj(s.defaultBackend)) {
    errs.push(invalid(p, new GoValue(Array.isArray(s.rules) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)'), 'either `defaultBackend` or `rules` must be specified'));
  }
  if (isObj(s.defaultBackend)) errs.push(...validateBackend(s.defaultBackend, p.child('defaultBackend')));
  if (rules.length > 0) errs.push(...validateRules(rules, p.child('rules'), opts));
  const tls = arr(s.tls);
  if (tls.length > 0) errs.push(...validateTLS(tls, p.child('tls'), opts));
  if (typeof s.ingressClassName === 'string') for (const m of nameIsDNSSubdomain(s.ingressClassName, false)) errs.push(invalid(p.child('ingressClassName'), s.ingressClassName, m));
  return errs;
}

/** ValidateIngressCreate minus ObjectMeta: the spec, and the class annotation beside the class field. */
export function validateIngressCreate(o: KubeObject): FieldError[] {
  const errs = validateSpec(o, STRICT);
  const ann = o.metadata.annotations ?? {};
  if (ANNOTATION_INGRESS_CLASS in ann && typeof specOf(o).ingressClassName === 'string') {
    errs.push(invalid(new FieldPath('annotations').child(ANNOTATION_INGRESS_CLASS), ann[ANNOTATION_INGRESS_CLASS], 'can not be set when the class field is also set'));
  }
  return errs;
}

/** ValidateIngressUpdate minus ObjectMeta: what the old object already had invalid stays allowed. */
export function validateIngressUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const old = specOf(o);
  const opts: Options = {
    allowInvalidSecretName: arr(old.tls).some((t) => tlsSecretNameErrors(str(obj(t).secretName)).length > 0),
    allowInvalidWildcardHostRule: arr(old.rules).some((r) => str(obj(r).host).includes('*') && validateRuleValue(obj(r), new FieldPath('')).length > 0),
  };
  return validateSpec(n, opts);
}

/** ValidateLoadBalancerStatus of status.loadBalancer. */
export function validateIngressStatus(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const p = new FieldPath('status').child('loadBalancer').child('ingress');
  arr(obj(obj(o.status).loadBalancer).ingress).forEach((x, i) => {
    const lb = obj(x);
    const ip = str(lb.ip);
    const hostname = str(lb.hostname);
    if (ip.length > 0 && parseIP(ip) === undefined) errs.push(invalid(p.index(i).child('ip'), ip, 'must be a valid IP address'));
    if (hostname.length > 0) {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(invalid(p.index(i).child('hostname'), hostname, m));
      if (parseIP(hostname) !== undefined) errs.push(invalid(p.index(i).child('hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** The stored status (an IngressStatus always has its loadBalancer). */
const keepStatus = (n: KubeObject, o: KubeObject): void => {
  n.status = isObj(o.status) ? structuredClone(o.status) : { loadBalancer: {} };
};

export const ingressStrategy: Strategy & ResetFieldsStrategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  resetFields: ['status'],
  prepareForCreate(o) {
    o.status = { loadBalancer: {} };
  },
  prepareForUpdate: keepStatus,
  validate: validateIngressCreate,
  validateUpdate: validateIngressUpdate,
};

/** /status: the stored spec wins; status.loadBalancer is validated. */
export const ingressStatusStrategy: StatusStrategy & ResetFieldsStrategy = {
  resetFields: ['spec'],
  prepareForUpdate(n, o) {
    if (o.spec === undefined) delete n.spec;
    else n.spec = structuredClone(o.spec);
    if (!isObj(n.status)) n.status = { loadBalancer: {} };
    else if (!isObj(n.status.loadBalancer)) n.status.loadBalancer = {};
  },
  validateUpdate: validateIngressStatus,
};

/** formatHosts: up to three hosts, then "+ N more..."; `*` when none. */
function formatHosts(rules: unknown[]): string {
  const list: string[] = [];
  let more = false;
  for (const r of rules) {
    if (list.length === 3) more = true;
    const host = str(obj(r).host);
    if (!more && host.length !== 0) list.push(host);
  }
  if (list.length === 0) return '*';
  return more ? `${list.join(',')} + ${rules.length - 3} more...` : list.join(',');
}

/** loadBalancerStatusStringer (wide, as the server's Table is): sorted unique IPs or hostnames. */
function addresses(o: KubeObject): string {
  const set = new Set<string>();
  for (const x of arr(obj(obj(o.status).loadBalancer).ingress)) {
    const lb = obj(x);
    if (str(lb.ip) !== '') set.add(str(lb.ip));
    else if (str(lb.hostname) !== '') set.add(str(lb.hostname));
  }
  return [...set].sort().join(',');
}

/** printIngress. */
export const ingressTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Class', type: 'string', description: 'The name of the IngressClass resource that should be used for additional configuration', priority: 0 },
    { name: 'Hosts', type: 'string', description: 'Hosts that incoming requests are matched against before the ingress rule', priority: 0 },
    { name: 'Address', type: 'string', description: 'Address is a list containing ingress points for the load-balancer', priority: 0 },
    { name: 'Ports', type: 'string', description: 'Ports of TLS configurations that open', priority: 0 },
    AGE_COLUMN,
  ],
  cells: (o) => {
    const s = specOf(o);
    return [
      o.metadata.name ?? '',
      typeof s.ingressClassName === 'string' ? s.ingressClassName : '<none>',
      formatHosts(arr(s.rules)),
      addresses(o),
      arr(s.tls).length !== 0 ? '80, 443' : '80',
      creationTimestampCell(o),
    ];
  },
};

/** networking.k8s.io/v1 ingresses (short name ing, + status); delete answers a Status (the store's default). */
export const ingressKind: KindDescriptor = {
  group: 'networking.k8s.io',
  versions: ['v1'],
  resource: 'ingresses',
  singular: 'ingress',
  kind: 'Ingress',
  listKind: 'IngressList',
  namespaced: true,
  shortNames: ['ing'],
  strategy: ingressStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: ingressStatusStrategy }],
  table: ingressTable,
  deleteReturns: 'Status',
  hasGeneration: true,
  invalidGroup: 'extensions',
};
