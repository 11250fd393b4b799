/**
 * NetworkPolicy (networking.k8s.io/v1, namespaced, with /status), after Kubernetes 1.24.17 under
 * its default gates (NetworkPolicyEndPort on, NetworkPolicyStatus off): SetDefaults_NetworkPolicy /
 * _NetworkPolicyPort (pkg/apis/networking/v1/defaults.go), ValidateNetworkPolicy / Update
 * (pkg/apis/networking/validation), pkg/registry/networking/networkpolicy and printNetworkPolicy.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import { SUPPORTED_PROTOCOLS, isValidPortName, isValidPortNum, parseCIDR } from '../../validation/network.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import type { KindDescriptor, StatusStrategy, Strategy, TableConvertor } from '../rest/strategy.ts';
import type { ResetFieldsStrategy } from '../generic/managed-fields.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { isObj } from '../../gocompat/json.ts';
import { str, arr, obj, specOf } from './helpers.ts';
import { goQuote } from '../../gocompat/quote.ts';

const POLICY_TYPES = ['Ingress', 'Egress'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];


/** Every port of every ingress and egress rule. */
const allPorts = (s: Record<string, unknown>): Record<string, unknown>[] =>
  [...arr(s.ingress), ...arr(s.egress)].flatMap((r) => arr(obj(r).ports)).filter(isObj);

/** SetDefaults_NetworkPolicy (policyTypes from the rules) and _NetworkPolicyPort (protocol TCP). */
export function defaultNetworkPolicy(o: KubeObject): void {
  if (!isObj(o.spec)) o.spec = {};
  const s = o.spec as Record<string, unknown>;
  if (arr(s.policyTypes).length === 0) s.policyTypes = arr(s.egress).length !== 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  for (const p of allPorts(s)) if (p.protocol === undefined || p.protocol === null) p.protocol = 'TCP';
}

/** ValidateNetworkPolicyPort: protocol, numeric or named port, endPort only after a numeric port. */
function validatePort(port: Record<string, unknown>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof port.protocol === 'string' && !SUPPORTED_PROTOCOLS.includes(port.protocol)) errs.push(notSupported(p.child('protocol'), port.protocol, PROTOCOLS));
  const endPort = typeof port.endPort === 'number' ? port.endPort : undefined;
  if (typeof port.port === 'number') {
    for (const m of isValidPortNum(port.port)) errs.push(invalid(p.child('port'), port.port, m));
    if (endPort !== undefined) {
      if (endPort < port.port) errs.push(invalid(p.child('endPort'), port.port, 'must be greater than or equal to `port`'));
      for (const m of isValidPortNum(endPort)) errs.push(invalid(p.child('endPort'), endPort, m));
    }
  } else if (typeof port.port === 'string') {
    if (endPort !== undefined) errs.push(invalid(p.child('endPort'), endPort, 'may not be specified when `port` is non-numeric'));
    for (const m of isValidPortName(port.port)) errs.push(invalid(p.child('port'), port.port, m));
  } else if (endPort !== undefined) {
    errs.push(invalid(p.child('endPort'), endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

/** IPNet.Contains of another network's base address, and a strictly longer prefix. */
function strictSubset(cidr: NonNullable<ReturnType<typeof parseCIDR>>, except: NonNullable<ReturnType<typeof parseCIDR>>): boolean {
  if (cidr.family !== except.family) return false;
  const bits = cidr.family === 'IPv4' ? 32 : 128;
  const shift = BigInt(bits - cidr.prefix);
  return except.base >> shift === cidr.base >> shift && cidr.prefix < except.prefix;
}

/** ValidateIPBlock: a CIDR, and excepts strictly inside it (the first unparsable except stops). */
function validateIPBlock(block: Record<string, unknown>, p: FieldPath): FieldError[] {
  const text = str(block.cidr);
  if (text === '') return [required(p.child('cidr'), '')];
  const cidr = parseCIDR(text);
  if (!cidr) return [invalid(p.child('cidr'), text, 'not a valid CIDR')];
  const errs: FieldError[] = [];
  for (const [i, x] of arr(block.except).entries()) {
    const e = str(x);
    const except = parseCIDR(e);
    if (!except) return [...errs, invalid(p.child('except').index(i), e, 'not a valid CIDR')];
    if (!strictSubset(cidr, except)) errs.push(invalid(p.child('except').index(i), e, 'must be a strict subset of `cidr`'));
  }
  return errs;
}

/** ValidateNetworkPolicyPeer: at least one peer; an ipBlock alone. */
function validatePeer(peer: Record<string, unknown>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  if (isObj(peer.podSelector)) (n++, errs.push(...validateLabelSelector(peer.podSelector, p.child('podSelector'))));
  if (isObj(peer.namespaceSelector)) (n++, errs.push(...validateLabelSelector(peer.namespaceSelector, p.child('namespaceSelector'))));
  if (isObj(peer.ipBlock)) (n++, errs.push(...validateIPBlock(peer.ipBlock, p.child('ipBlock'))));
  if (n === 0) errs.push(required(p, 'must specify a peer'));
  else if (n > 1 && isObj(peer.ipBlock)) errs.push(forbidden(p, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** ValidateNetworkPolicySpec. */
export function validateNetworkPolicy(o: KubeObject): FieldError[] {
  const s = specOf(o);
  const p = new FieldPath('spec');
  const errs = validateLabelSelector(obj(s.podSelector), p.child('podSelector'));
  for (const [dir, peers] of [['ingress', 'from'], ['egress', 'to']] as const) {
    arr(s[dir]).forEach((r, i) => {
      const rp = p.child(dir).index(i);
      arr(obj(r).ports).forEach((x, j) => errs.push(...validatePort(obj(x), rp.child('ports').index(j))));
      arr(obj(r)[peers]).forEach((x, j) => errs.push(...validatePeer(obj(x), rp.child(peers).index(j))));
    });
  }
  const types = arr(s.policyTypes).map(str);
  if (types.length > POLICY_TYPES.length) {
    return [...errs, invalid(p.child('policyTypes'), new GoValue(`[]networking.PolicyType{${types.map(goQuote).join(', ')}}`), 'may not specify more than two policyTypes')];
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(notSupported(p.child('policyTypes').index(i), t, POLICY_TYPES));
  });
  return errs;
}

/** Are there status conditions (the only status field)? */
const hasConditions = (o: KubeObject): boolean => arr(obj(o.status).conditions).length > 0;

/**
 * The strategy under 1.24's gates: generation 1 then bumped on a spec change; with
 * NetworkPolicyStatus off a create keeps the request's status and an update keeps the stored one
 * only when it has conditions. A NetworkPolicyStatus is a struct: `{}` when empty. The update validates the spec twice (ValidateNetworkPolicy, then
 * ValidateNetworkPolicyUpdate), as kube does.
 */
export const networkPolicyStrategy: Strategy & ResetFieldsStrategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  resetFields: ['status'],
  defaults: defaultNetworkPolicy,
  prepareForCreate(o) {
    if (!isObj(o.status)) o.status = {};
  },
  prepareForUpdate(n, o) {
    if (hasConditions(o)) n.status = structuredClone(o.status);
    else if (!isObj(n.status)) n.status = {};
  },
  validate: validateNetworkPolicy,
  validateUpdate: (n) => [...validateNetworkPolicy(n), ...validateNetworkPolicy(n)],
};

/** /status: the stored spec wins; with NetworkPolicyStatus off, conditions cannot be written. */
export const networkPolicyStatusStrategy: StatusStrategy & ResetFieldsStrategy = {
  resetFields: ['spec'],
  prepareForUpdate(n, o) {
    if (o.spec === undefined) delete n.spec;
    else n.spec = structuredClone(o.spec);
    if (!hasConditions(n)) n.status = {};
    else n.status = isObj(o.status) ? structuredClone(o.status) : {};
  },
  validateUpdate: () => [],
};

/** metav1.FormatLabelSelector: requirements sorted by key, `<none>` for an empty selector. */
export function formatLabelSelector(sel: Record<string, unknown>): string {
  const reqs: [string, string][] = Object.entries(obj(sel.matchLabels)).map(([k, v]) => [k, `${k}=${str(v)}`]);
  for (const x of arr(sel.matchExpressions)) {
    const e = obj(x);
    const key = str(e.key);
    const values = [...new Set(arr(e.values).map(str))].sort().join(',');
    switch (e.operator) {
      case 'In':
        reqs.push([key, `${key} in (${values})`]);
        break;
      case 'NotIn':
        reqs.push([key, `${key} notin (${values})`]);
        break;
      case 'Exists':
        reqs.push([key, key]);
        break;
      case 'DoesNotExist':
        reqs.push([key, `!${key}`]);
        break;
      default:
        return '<error>';
    }
  }
  const text = reqs
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, r]) => r)
    .join(',');
  return text === '' ? '<none>' : text;
}

/** extensionsv1beta1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]. */
const POD_SELECTOR_DESCRIPTION =
  'Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.';

/** printNetworkPolicy. */
export const networkPolicyTable: TableConvertor = {
  columns: [NAME_COLUMN, { name: 'Pod-Selector', type: 'string', description: POD_SELECTOR_DESCRIPTION, priority: 0 }, AGE_COLUMN],
  cells: (o) => [o.metadata.name ?? '', formatLabelSelector(obj(specOf(o).podSelector)), creationTimestampCell(o)],
};

/** networking.k8s.io/v1 networkpolicies (short name netpol, + status); delete answers a Status. */
export const networkPolicyKind: KindDescriptor = {
  group: 'networking.k8s.io',
  versions: ['v1'],
  resource: 'networkpolicies',
  singular: 'networkpolicy',
  kind: 'NetworkPolicy',
  listKind: 'NetworkPolicyList',
  namespaced: true,
  shortNames: ['netpol'],
  strategy: networkPolicyStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: networkPolicyStatusStrategy }],
  table: networkPolicyTable,
  deleteReturns: 'Status',
  hasGeneration: true,
  invalidGroup: 'extensions',
};
