/**
 * Node (core/v1, cluster-scoped, `/status`, `/proxy`), after Kubernetes 1.24.17
 * pkg/registry/core/node (strategy: every field, status included, may be set on create; a
 * main-resource update keeps the stored status, a status update the stored spec; the
 * DynamicKubeletConfig fields dropped while the gate is off; NodeToSelectableFields;
 * ResourceLocation for the proxy), ValidateNode / ValidateNodeUpdate (pkg/apis/core/validation),
 * SetObjectDefaults_Node, the v1 podCIDR ⇄ podCIDRs conversion and printNode.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, forbidden, internalError, invalid, notSupported, required } from '../../api/field-errors.ts';
import { badRequest, notFound, unknownError } from '../../api/errors.ts';
import type { KindDescriptor, ProxyLocation, StatusStrategy, Strategy, SubresourceDescriptor, TableColumn, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { validateLabelName } from '../../validation/label-selector.ts';
import { isValidLabelValue, nameIsDNSSubdomain, validateNamespaceName } from '../../validation/names.ts';
import { parseCIDR, parseIP } from '../../validation/network.ts';
import { goQuote } from '../../gocompat/quote.ts';
import { validateQuantityValue } from './pod-resources.ts';
import { defaultResourceList } from './volumes/index.ts';
import { type J, list, obj, s } from './pod-util.ts';
import descriptions from '../../schema/generated/descriptions/core_v1.json' with { type: 'json' };
import { proxyPathDoc } from './connect-options.ts';
import { validateNodeAnnotations } from './node-annotations.ts';

export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
/** v1.TaintNodeNotReady, the taint TaintNodesByCondition puts on every new Node. */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';

const specOf = (o: KubeObject): J => obj(o.spec) ?? ((o as J).spec = {});
const statusOf = (o: KubeObject): J => obj(o.status) ?? ((o as J).status = {});

/**
 * SetObjectDefaults_Node (allocatable = capacity when absent, quantities rounded up to milli) and
 * the v1 conversion of the pod CIDRs: podCIDR wins over a different podCIDRs[0], fills an empty
 * podCIDRs, and is podCIDRs[0] on the way out.
 */
export function defaultNode(o: KubeObject): void {
  const status = statusOf(o);
  if ((status.allocatable === undefined || status.allocatable === null) && obj(status.capacity)) status.allocatable = structuredClone(status.capacity);
  defaultResourceList(status.capacity);
  defaultResourceList(status.allocatable);
  const spec = specOf(o);
  const cidr = s(spec.podCIDR);
  const cidrs = list(spec.podCIDRs) as unknown as string[];
  if (cidr && (!cidrs.length || cidrs[0] !== cidr)) spec.podCIDRs = [cidr];
  const first = (list(spec.podCIDRs) as unknown as string[])[0];
  if (first) spec.podCIDR = first;
}

/** Go's %#v of a core.Taint, as validateNodeTaints' Duplicate prints it. */
const goTaint = (t: J): GoValue =>
  new GoValue(`core.Taint{Key:${goQuote(s(t.key))}, Value:${goQuote(s(t.value))}, Effect:${goQuote(s(t.effect))}, TimeAdded:${t.timeAdded ? '<time>' : '<nil>'}}`);

/** validateNodeTaints (kube reports them under `metadata.taints`, not `spec.taints`). */
export function validateNodeTaints(taints: J[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const ip = p.index(i);
    errs.push(...validateLabelName(s(t.key), ip.child('key')));
    const valueErrs = isValidLabelValue(s(t.value));
    if (valueErrs.length) errs.push(invalid(ip.child('value'), s(t.value), valueErrs.join(';')));
    const effect = s(t.effect);
    if (!effect) errs.push(required(ip.child('effect')));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(notSupported(ip.child('effect'), effect, TAINT_EFFECTS));
    const k = `${effect}\u0000${s(t.key)}`;
    if (seen.has(k)) {
      errs.push({ ...duplicate(ip, goTaint(t)), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    seen.add(k);
  });
  return errs;
}

/** ValidateNodeResources: capacity then allocatable, each quantity non-negative (integers whole). */
function validateNodeResources(o: KubeObject): FieldError[] {
  const status = obj(o.status) ?? {};
  const errs: FieldError[] = [];
  for (const field of ['capacity', 'allocatable']) {
    const m = obj(status[field]) ?? {};
    for (const k of Object.keys(m)) errs.push(...validateQuantityValue(k, String(m[k]), new FieldPath('status').child(field).child(k)));
  }
  return errs;
}

/** The podCIDRs rules of ValidateNode: each a CIDR, at most one per IP family, no duplicates. */
function validatePodCIDRs(cidrs: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const p = new FieldPath('spec').child('podCIDRs');
  const all = cidrs;
  cidrs.forEach((c, i) => {
    if (!parseCIDR(c)) errs.push(invalid(p.index(i), all, 'must be valid CIDR'));
  });
  if (cidrs.length > 1) {
    const bad = cidrs.find((c) => !parseCIDR(c));
    let dualStack = false;
    if (bad !== undefined) errs.push(internalError(p, `invalid PodCIDRs. failed to check with dual stack with error:failed to parse cidr value:${goQuote(bad)} with error:invalid CIDR address: ${bad}`));
    else {
      const families = new Set(cidrs.map((c) => parseCIDR(c)!.family));
      dualStack = families.size === 2;
    }
    if (!dualStack || cidrs.length > 2) errs.push(invalid(p, all, 'may specify no more than one CIDR for each IP family'));
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(duplicate(p.index(i), c));
      seen.add(c);
    });
  }
  return errs;
}

/** ValidateNode minus ObjectMeta (the store's: cluster-scoped, DNS subdomain name); the annotations' rules are node-annotations.ts. */
export function validateNode(o: KubeObject): FieldError[] {
  const spec = obj(o.spec) ?? {};
  const taints = list(spec.taints);
  return [
    ...validateNodeAnnotations(o.metadata.annotations, validateNodeTaints),
    ...(taints.length ? validateNodeTaints(taints, new FieldPath('metadata').child('taints')) : []),
    ...validateNodeResources(o),
    ...validatePodCIDRs(list(spec.podCIDRs) as unknown as string[]),
  ];
}

/** validateConfigMapNodeConfigSource: the target's namespace, name and key (`inStatus`: uid and resourceVersion required, else forbidden). */
function validateConfigSource(source: J, p: FieldPath, inStatus: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const cm = obj(source.configMap);
  if (cm) {
    const cp = p.child('configMap');
    if (inStatus) {
      if (!s(cm.uid)) errs.push(required(cp.child('uid'), 'uid must be set in status'));
      if (!s(cm.resourceVersion)) errs.push(required(cp.child('resourceVersion'), 'resourceVersion must be set in status'));
    } else {
      if (s(cm.uid)) errs.push(forbidden(cp.child('uid'), 'uid must not be set in spec'));
      if (s(cm.resourceVersion)) errs.push(forbidden(cp.child('resourceVersion'), 'resourceVersion must not be set in spec'));
    }
    if (!s(cm.namespace)) errs.push(required(cp.child('namespace'), 'namespace must be set'));
    else for (const m of validateNamespaceName(s(cm.namespace), false)) errs.push(invalid(cp.child('namespace'), s(cm.namespace), m));
    if (!s(cm.name)) errs.push(required(cp.child('name'), 'name must be set'));
    else for (const m of nameIsDNSSubdomain(s(cm.name), false)) errs.push(invalid(cp.child('name'), s(cm.name), m));
    if (!s(cm.kubeletConfigKey)) errs.push(required(cp.child('kubeletConfigKey'), 'kubeletConfigKey must be set'));
  } else errs.push(invalid(p, new GoValue('&core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}'), 'exactly one reference subfield must be non-nil'));
  return errs;
}

/** Go's %v of a core.NodeAddress: `{InternalIP 10.0.0.1}`. */
const goAddress = (a: J): GoValue => new GoValue(`core.NodeAddress{Type:${goQuote(s(a.type))}, Address:${goQuote(s(a.address))}}`);

const PODCIDR_CHANGE = 'node updates may not change podCIDR except from "" to valid';

/** ValidateNodeUpdate minus ObjectMeta. */
export function validateNodeUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const errs = [...validateNodeAnnotations(n.metadata.annotations, validateNodeTaints), ...validateNodeResources(n)];
  const seen = new Set<string>();
  list(obj(n.status)?.addresses).forEach((a, i) => {
    const k = `${s(a.type)}\u0000${s(a.address)}`;
    if (seen.has(k)) errs.push(duplicate(new FieldPath('status').child('addresses').index(i), goAddress(a)));
    seen.add(k);
  });
  const ns = obj(n.spec) ?? {};
  const os = obj(o.spec) ?? {};
  const oldCIDRs = list(os.podCIDRs) as unknown as string[];
  const newCIDRs = list(ns.podCIDRs) as unknown as string[];
  const cidrPath = new FieldPath('spec').child('podCIDRs');
  if (oldCIDRs.length) {
    if (oldCIDRs.length !== newCIDRs.length) errs.push(forbidden(cidrPath, PODCIDR_CHANGE));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(forbidden(cidrPath, PODCIDR_CHANGE)));
  }
  if (s(os.providerID) && s(os.providerID) !== s(ns.providerID)) errs.push(forbidden(new FieldPath('spec').child('providerID'), 'node updates may not change providerID except from "" to valid'));
  if (obj(ns.configSource)) errs.push(...validateConfigSource(obj(ns.configSource)!, new FieldPath('spec').child('configSource'), false));
  const config = obj(obj(n.status)?.config);
  if (config) {
    for (const f of ['assigned', 'active', 'lastKnownGood']) {
      const src = obj(config[f]);
      if (src) errs.push(...validateConfigSource(src, new FieldPath('status').child('config').child(f), true));
    }
  }
  const taints = list(ns.taints);
  if (taints.length) errs.push(...validateNodeTaints(taints, new FieldPath('metadata').child('taints')));
  if (s(ns.externalID) !== s(os.externalID)) errs.push(forbidden(new FieldPath('spec').child('externalID'), 'may not be updated'));
  return errs;
}

const CONFIG_SOURCE_WARNING = 'spec.configSource: deprecated in v1.22, support removal is planned in v1.23';

export const nodeStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultNode,
  // dropDisabledFields with DynamicKubeletConfig off (1.24's default).
  prepareForCreate(o) {
    delete specOf(o).configSource;
    delete statusOf(o).config;
  },
  prepareForUpdate(n, o) {
    n.status = structuredClone(o.status);
    if (!obj(obj(o.spec)?.configSource)) delete specOf(n).configSource;
  },
  validate: validateNode,
  // nodeStrategy.ValidateUpdate: ValidateNode, then ValidateNodeUpdate.
  validateUpdate: (n, o) => [...validateNode(n), ...validateNodeUpdate(n, o)],
  warnings: (o) => (obj(obj(o.spec)?.configSource) ? [CONFIG_SOURCE_WARNING] : []),
};

export const nodeStatusStrategy: StatusStrategy = {
  prepareForUpdate(n, o) {
    n.spec = structuredClone(o.spec);
    if (!obj(obj(o.status)?.config)) delete statusOf(n).config;
  },
  validateUpdate: validateNodeUpdate,
};

// ---------------------------------------------------------------------------------------------
// proxy (nodes/proxy: ResourceLocation; the HTTP layer dials it)

/** kube-apiserver's --kubelet-preferred-address-types default. */
const PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];
/** kube-apiserver's --kubelet-port default, used when a Node reports no kubelet endpoint port. */
const DEFAULT_KUBELET_PORT = 10250;

/** utilnet.SplitSchemeNamePort. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name = '';
  let port = '';
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  return name && ['', 'http', 'https'].includes(scheme) ? { scheme, name, port } : undefined;
}

/** The parts of an IP that `net.IP.IsGlobalUnicast` refuses (loopback, link-local, multicast, unspecified, broadcast). */
export function isGlobalUnicast(ip: string): boolean {
  const p = parseIP(ip);
  if (!p) return false;
  if (p.family === 'IPv4') {
    const v = Number(p.value);
    const a = v >>> 24;
    const b = (v >>> 16) & 0xff;
    return !(a === 0 || a === 127 || (a === 169 && b === 254) || a >= 224);
  }
  const hi = Number(p.value >> 112n);
  if (p.value === 0n || p.value === 1n) return false;
  if ((hi & 0xffc0) === 0xfe80 || hi >>> 8 === 0xff) return false;
  // An IPv4-mapped address is judged as its IPv4 address.
  if (p.value >> 32n === 0xffffn) return isGlobalUnicast(formatMapped(p.value & 0xffffffffn));
  return true;
}
const formatMapped = (v: bigint): string => [24n, 16n, 8n, 0n].map((sh) => String((v >> sh) & 0xffn)).join('.');

/**
 * A Node's kubelet (kube's NodeConnectionInfoGetter): its preferred address and the kubelet port
 * it reports (else --kubelet-port's default); kube's reason-less 500 when no address fits.
 */
export function kubeletEndpoint(node: KubeObject): { host: string; port: number } {
  const status = obj(node.status) ?? {};
  const addresses = list(status.addresses);
  let host: string | undefined;
  for (const t of PREFERRED_ADDRESS_TYPES) {
    host ??= addresses.find((a) => s(a.type) === t)?.address as string | undefined;
  }
  if (host === undefined) {
    const known = addresses.map((a) => `{${s(a.type)} ${s(a.address)}}`).join(' ');
    // nodeutil.NoMatchError is a plain error: a reason-less 500.
    throw unknownError(`no preferred addresses found; known addresses: [${known}]`);
  }
  const kubeletPort = Number(obj(obj(status.daemonEndpoints)?.kubeletEndpoint)?.Port ?? 0);
  return { host, port: kubeletPort > 0 ? kubeletPort : DEFAULT_KUBELET_PORT };
}

/**
 * node.ResourceLocation: the node named by `id` (`[scheme:]name[:port]`), its preferred address and
 * kubelet port; kube's errors when the id is malformed (400), the node is missing (404), it has no
 * usable address (500) or the address may not be proxied (400, `address not allowed`).
 * `resolve` looks a hostname up (IP literals are taken as they are).
 */
export async function nodeProxyLocation(id: string, get: (name: string) => Promise<KubeObject>, resolve: (host: string) => Promise<string[]>): Promise<ProxyLocation> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw badRequest(`invalid node request ${goQuote(id)}`);
  const node = await get(parsed.name).catch((e) => {
    throw e?.status?.code === 404 ? notFound({ group: '', resource: 'nodes' }, parsed.name) : e;
  });
  const { host, port } = kubeletEndpoint(node);
  const ips = parseIP(host) ? [host] : await resolve(host);
  if (!ips.length) throw badRequest('no addresses for hostname');
  if (ips.some((ip) => !isGlobalUnicast(ip))) throw badRequest('address not allowed');
  if (!parsed.port || parsed.port === String(port)) return { scheme: 'https', host, port };
  return { scheme: parsed.scheme || 'http', host, port: Number(parsed.port) };
}

/** nodes/proxy: every method (kube's connect verbs), answered by the HTTP layer's proxy. */
export const nodeProxySubresource: SubresourceDescriptor = {
  name: 'proxy',
  verbs: ['create', 'delete', 'get', 'patch', 'update'],
  kind: { group: '', version: 'v1', kind: 'NodeProxyOptions', generated: false },
  connect: (ctx) => nodeProxyLocation(ctx.name, ctx.get, ctx.resolve),
  connectPathDoc: proxyPathDoc('NodeProxyOptions'),
};

// ---------------------------------------------------------------------------------------------
// table (printNode)

type Descriptions = Record<string, Record<string, string>>;
const doc = (type: string, field: string): string => (descriptions as Descriptions)[`io.k8s.api.core.v1.${type}`]?.[field] ?? '';
const col = (name: string, description: string, priority = 0): TableColumn => ({ name, type: 'string', description, priority });

/** findNodeRoles: `node-role.kubernetes.io/<role>` keys and `kubernetes.io/role` values, sorted, once each. */
export function nodeRoles(labels: Record<string, string> | undefined): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return [...roles].sort();
}

/** The STATUS cell: Ready / NotReady / Unknown, then SchedulingDisabled when cordoned. */
export function nodeStatusCell(o: KubeObject): string {
  const conditions = list(obj(o.status)?.conditions);
  // The last Ready condition wins, as printNode's map does.
  const ready = conditions.filter((c) => c.type === 'Ready').at(-1);
  const out = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (obj(o.spec)?.unschedulable === true) out.push('SchedulingDisabled');
  return out.join(',');
}

const addressOf = (o: KubeObject, type: string): string => s(list(obj(o.status)?.addresses).find((a) => a.type === type)?.address) || '<none>';

export const nodeTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    col('Status', 'The status of the node'),
    col('Roles', 'The roles of the node'),
    AGE_COLUMN,
    col('Version', doc('NodeSystemInfo', 'kubeletVersion')),
    col('Internal-IP', doc('NodeStatus', 'addresses'), 1),
    col('External-IP', doc('NodeStatus', 'addresses'), 1),
    col('OS-Image', doc('NodeSystemInfo', 'osImage'), 1),
    col('Kernel-Version', doc('NodeSystemInfo', 'kernelVersion'), 1),
    col('Container-Runtime', doc('NodeSystemInfo', 'containerRuntimeVersion'), 1),
  ],
  cells(o) {
    const info = obj(obj(o.status)?.nodeInfo) ?? {};
    const or = (v: unknown): string => s(v) || '<unknown>';
    return [
      o.metadata.name ?? '',
      nodeStatusCell(o),
      nodeRoles(o.metadata.labels).join(',') || '<none>',
      creationTimestampCell(o),
      s(info.kubeletVersion),
      addressOf(o, 'InternalIP'),
      addressOf(o, 'ExternalIP'),
      or(info.osImage),
      or(info.kernelVersion),
      or(info.containerRuntimeVersion),
    ];
  },
};

export const nodeKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'nodes',
  singular: 'node',
  kind: 'Node',
  listKind: 'NodeList',
  namespaced: false,
  shortNames: ['no'],
  strategy: nodeStrategy,
  subresources: [nodeProxySubresource, { name: 'status', verbs: ['get', 'patch', 'update'], strategy: nodeStatusStrategy }],
  table: nodeTable,
  fieldSelectors: { 'spec.unschedulable': (o) => String(obj(o.spec)?.unschedulable === true) },
  // The node store does not return the deleted object (a Status, as kube answers).
  deleteReturns: 'Status',
};

/** Whether two taints match (Taint.MatchTaint: same key and effect). */
export const matchTaint = (a: J, b: J): boolean => s(a.key) === s(b.key) && s(a.effect) === s(b.effect);

/** TaintNodesByCondition's addNotReadyTaint: a new Node gets node.kubernetes.io/not-ready:NoSchedule unless it has it. */
export function addNotReadyTaint(node: KubeObject): void {
  const spec = specOf(node);
  const taint = { key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' };
  const taints = list(spec.taints);
  if (!taints.some((t) => matchTaint(t, taint))) spec.taints = [...taints, taint];
}
