/**
 * EndpointSlice (discovery.k8s.io/v1 and the deprecated v1beta1, namespaced), after Kubernetes
 * 1.24.17: SetDefaults_EndpointPort (pkg/apis/discovery/v1, v1beta1), ValidateEndpointSlice /
 * Update (pkg/apis/discovery/validation), pkg/registry/discovery/endpointslice (generation 1 on
 * create and +1 on any non-metadata or label change; dropTopologyOnV1; unconditional updates
 * allowed, PUT never creates), printEndpointSlice (pkg/printers/internalversion) and the v1beta1
 * conversion (pkg/apis/discovery/v1beta1/conversion.go: `topology` ⇄ `nodeName`, `zone`,
 * `deprecatedTopology`). Objects are kept in their v1 form (kube 1.24 encodes them as v1beta1:
 * discovery's hash names it); v1beta1 is a view of the same objects.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, duplicate, invalid, notSupported, required, tooMany } from '../../api/field-errors.ts';
import { FIELD_IMMUTABLE, validateLabels } from '../../validation/objectmeta.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../validation/names.ts';
import { parseIP, specialIPErrors } from '../../validation/network.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { isObj } from '../../gocompat/json.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import descriptions from '../../schema/generated/descriptions/discovery_v1beta1.json' with { type: 'json' };

type J = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const objs = (v: unknown): J[] => (Array.isArray(v) ? v.map((x) => (isObj(x) ? x : {})) : []);
const sliceDoc = (field: string): string => (descriptions as Record<string, Record<string, string>>)['io.k8s.api.discovery.v1beta1.EndpointSlice']?.[field] ?? '';

/** corev1.LabelHostname and corev1.LabelTopologyZone. */
const LABEL_HOSTNAME = 'kubernetes.io/hostname';
const LABEL_ZONE = 'topology.kubernetes.io/zone';
const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_ENDPOINTS = 1000;
const MAX_ZONE_HINTS = 8;

/** SetDefaults_EndpointPort (both versions): name '' and protocol TCP. */
export function defaultEndpointSlice(o: KubeObject): void {
  for (const p of Array.isArray(o.ports) ? o.ports : []) {
    if (!isObj(p)) continue;
    if (p.name === undefined || p.name === null) p.name = '';
    if (p.protocol === undefined || p.protocol === null) p.protocol = 'TCP';
  }
}

/** validation.IsFullyQualifiedDomainName: at most one error. */
function fqdnErrors(p: FieldPath, value: string): FieldError[] {
  if (!value) return [required(p)];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const sub = isDNS1123Subdomain(name);
  if (sub.length) return [invalid(p, name, sub.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [invalid(p, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const errs = isDNS1123Label(label);
    if (errs.length) return [invalid(p, label, errs.join(','))];
  }
  return [];
}

/** IsValidIPv4Address / IsValidIPv6Address, then ValidateNonSpecialIP. */
function addressErrors(p: FieldPath, address: string, family: 'IPv4' | 'IPv6'): FieldError[] {
  const ip = parseIP(address);
  const errs = ip?.family === family ? [] : [invalid(p, address, `must be a valid ${family} address`)];
  if (!ip) return [...errs, invalid(p, address, 'must be a valid IP address')];
  return [...errs, ...specialIPErrors(address, ip).map((m) => invalid(p, address, m))];
}

function validateHints(hints: J, p: FieldPath): FieldError[] {
  const fz = p.child('forZones');
  const zones = objs(hints.forZones);
  if (zones.length > MAX_ZONE_HINTS) return [tooMany(fz, zones.length, MAX_ZONE_HINTS)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  zones.forEach((z, i) => {
    const zp = fz.index(i).child('name');
    const name = str(z.name);
    if (seen.has(name)) errs.push(duplicate(zp, name));
    seen.add(name);
    for (const m of isValidLabelValue(name)) errs.push(invalid(zp, name, m));
  });
  return errs;
}

function validateEndpoints(endpoints: J[], addressType: string, p: FieldPath): FieldError[] {
  if (endpoints.length > MAX_ENDPOINTS) return [tooMany(p, endpoints.length, MAX_ENDPOINTS)];
  const errs: FieldError[] = [];
  endpoints.forEach((ep, i) => {
    const ip = p.index(i);
    const ap = ip.child('addresses');
    const addresses = Array.isArray(ep.addresses) ? ep.addresses.map(str) : [];
    if (!addresses.length) errs.push(required(ap, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES) errs.push(tooMany(ap, addresses.length, MAX_ADDRESSES));
    addresses.forEach((a, j) => {
      if (addressType === 'IPv4' || addressType === 'IPv6') errs.push(...addressErrors(ap.index(j), a, addressType));
      else if (addressType === 'FQDN') errs.push(...fqdnErrors(ap.index(j), a));
    });
    if (typeof ep.nodeName === 'string') for (const m of isDNS1123Subdomain(ep.nodeName)) errs.push(invalid(ip.child('nodeName'), ep.nodeName, m));
    const tp = ip.child('deprecatedTopology');
    const topology = isObj(ep.deprecatedTopology) ? ep.deprecatedTopology : {};
    const count = Object.keys(topology).length;
    if (count > MAX_TOPOLOGY_LABELS) errs.push(tooMany(tp, count, MAX_TOPOLOGY_LABELS));
    errs.push(...validateLabels(ep.deprecatedTopology, tp));
    if (typeof ep.hostname === 'string') for (const m of isDNS1123Label(ep.hostname)) errs.push(invalid(ip.child('hostname'), ep.hostname, m));
    if (isObj(ep.hints)) errs.push(...validateHints(ep.hints, ip.child('hints')));
  });
  return errs;
}

function validatePorts(ports: J[], p: FieldPath): FieldError[] {
  if (ports.length > MAX_PORTS) return [tooMany(p, ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const ip = p.index(i);
    const name = str(port.name);
    if (name) for (const m of isDNS1123Label(name)) errs.push(invalid(ip.child('name'), name, m));
    if (names.has(name)) errs.push(duplicate(ip.child('name'), name));
    names.add(name);
    if (typeof port.protocol !== 'string') errs.push(required(ip.child('protocol')));
    else if (!PROTOCOLS.includes(port.protocol)) errs.push(notSupported(ip.child('protocol'), port.protocol, PROTOCOLS));
    if (typeof port.appProtocol === 'string') for (const m of isQualifiedName(port.appProtocol)) errs.push(invalid(ip.child('appProtocol'), port.appProtocol, m));
  });
  return errs;
}

/** ValidateEndpointSlice minus ObjectMeta, on the v1 (internal) form. */
export function validateEndpointSlice(o: KubeObject): FieldError[] {
  const addressType = str(o.addressType);
  const errs: FieldError[] = [];
  if (!addressType) errs.push(required(new FieldPath('addressType')));
  else if (!ADDRESS_TYPES.includes(addressType)) errs.push(notSupported(new FieldPath('addressType'), addressType, ADDRESS_TYPES));
  errs.push(...validateEndpoints(objs(o.endpoints), addressType, new FieldPath('endpoints')));
  errs.push(...validatePorts(objs(o.ports), new FieldPath('ports')));
  return errs;
}

/** ValidateEndpointSliceUpdate: the new slice, then the immutable addressType. */
export function validateEndpointSliceUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const errs = validateEndpointSlice(n);
  if (str(n.addressType) !== str(o.addressType)) errs.push(invalid(new FieldPath('addressType'), str(n.addressType), FIELD_IMMUTABLE));
  return errs;
}

/** PrepareForUpdate's generation: +1 when anything but metadata changed, or the labels did. */
function bumpGeneration(n: KubeObject, o: KubeObject): void {
  const { metadata: nm, ...nRest } = n;
  const { metadata: om, ...oRest } = o;
  delete nRest.apiVersion;
  delete nRest.kind;
  delete oRest.apiVersion;
  delete oRest.kind;
  const before = om.generation ?? 0;
  nm.generation = semanticEqual(nRest, oRest) && semanticEqual(nm.labels ?? null, om.labels ?? null) ? before : before + 1;
}

/**
 * dropTopologyOnV1 (a v1 request): unless the endpoints are unchanged, each endpoint's
 * deprecatedTopology is dropped, its hostname entry kept as nodeName when nodeName is unset and the
 * old slice named that node in its own deprecatedTopology.
 */
function dropTopologyOnV1(n: KubeObject, o: KubeObject | undefined): void {
  if (o && semanticEqual(n.endpoints ?? null, o.endpoints ?? null)) return;
  const prev = new Set(objs(o?.endpoints).map((ep) => str(isObj(ep.deprecatedTopology) ? ep.deprecatedTopology[LABEL_HOSTNAME] : '')).filter(Boolean));
  for (const ep of Array.isArray(n.endpoints) ? n.endpoints : []) {
    if (!isObj(ep)) continue;
    const node = isObj(ep.deprecatedTopology) ? ep.deprecatedTopology[LABEL_HOSTNAME] : undefined;
    if ((ep.nodeName === undefined || ep.nodeName === null) && typeof node === 'string' && prev.has(node) && !isDNS1123Subdomain(node).length) ep.nodeName = node;
    delete ep.deprecatedTopology;
  }
}

export const endpointSliceStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultEndpointSlice,
  prepareForCreate: (o) => dropTopologyOnV1(o, undefined),
  prepareForUpdate(n, o) {
    bumpGeneration(n, o);
    dropTopologyOnV1(n, o);
  },
  validate: validateEndpointSlice,
  validateUpdate: validateEndpointSliceUpdate,
};

/** listWithMoreString: at most three, then "+ N more...", `<unset>` for none. */
function listWithMore(items: string[]): string {
  const shown = items.slice(0, 3).join(',');
  if (items.length > 3) return `${shown} + ${items.length - 3} more...`;
  return shown || '<unset>';
}

/** printEndpointSlice on the v1 form: Name, AddressType, Ports, Endpoints, Age. */
export const endpointSliceTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'AddressType', type: 'string', description: sliceDoc('addressType'), priority: 0 },
    { name: 'Ports', type: 'string', description: sliceDoc('ports'), priority: 0 },
    { name: 'Endpoints', type: 'string', description: sliceDoc('endpoints'), priority: 0 },
    AGE_COLUMN,
  ],
  cells: (o) => [
    o.metadata.name ?? '',
    str(o.addressType),
    listWithMore(objs(o.ports).map((p) => (typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*'))),
    listWithMore(objs(o.endpoints).flatMap((ep) => (Array.isArray(ep.addresses) ? ep.addresses.map(str) : []))),
    creationTimestampCell(o),
  ],
};

/** discovery.k8s.io/v1 endpointslices; delete answers a Status (kube's store returns no object). */
export const endpointSliceKind: KindDescriptor = {
  group: 'discovery.k8s.io',
  versions: ['v1'],
  // 1.24 still encodes EndpointSlices in etcd as v1beta1 (discovery's storageVersionHash says so).
  storageVersion: 'v1beta1',
  resource: 'endpointslices',
  singular: 'endpointslice',
  kind: 'EndpointSlice',
  listKind: 'EndpointSliceList',
  namespaced: true,
  shortNames: [],
  strategy: endpointSliceStrategy,
  table: endpointSliceTable,
  hasGeneration: 'create',
  deleteReturns: 'Status',
};

/** Convert_v1beta1_Endpoint_To_discovery_Endpoint: topology → zone, nodeName and deprecatedTopology. */
function endpointToV1(ep: J): J {
  const { topology, ...out } = ep;
  if (!isObj(topology)) return out;
  const rest: J = { ...topology };
  if (typeof topology[LABEL_ZONE] === 'string') {
    out.zone = topology[LABEL_ZONE];
    delete rest[LABEL_ZONE];
  }
  if (typeof topology[LABEL_HOSTNAME] === 'string' && typeof out.nodeName === 'string' && topology[LABEL_HOSTNAME] === out.nodeName) delete rest[LABEL_HOSTNAME];
  if (Object.keys(rest).length) out.deprecatedTopology = rest;
  return out;
}

/** Convert_discovery_Endpoint_To_v1beta1_Endpoint: deprecatedTopology, zone and nodeName → topology. */
function endpointToV1beta1(ep: J): J {
  const { deprecatedTopology, zone, ...out } = ep;
  const has = (v: unknown): boolean => v !== undefined && v !== null;
  if (!has(deprecatedTopology) && !has(zone) && !has(ep.nodeName)) return out;
  const topology: J = { ...(isObj(deprecatedTopology) ? deprecatedTopology : {}) };
  if (typeof zone === 'string') topology[LABEL_ZONE] = zone;
  if (typeof ep.nodeName === 'string' && !topology[LABEL_HOSTNAME]) topology[LABEL_HOSTNAME] = ep.nodeName;
  out.topology = topology;
  return out;
}

const convertEndpoints = (o: KubeObject, apiVersion: string, f: (ep: J) => J): KubeObject => {
  const out: KubeObject = { ...o, apiVersion };
  if (Array.isArray(o.endpoints)) out.endpoints = o.endpoints.map((ep) => (isObj(ep) ? f(ep) : ep));
  return out;
};

/** A v1beta1 object in the v1 (storage, internal) form. */
export const endpointSliceToV1 = (o: KubeObject): KubeObject => convertEndpoints(o, 'discovery.k8s.io/v1', endpointToV1);
/** A v1 object in the v1beta1 form. */
export const endpointSliceToV1beta1 = (o: KubeObject): KubeObject => convertEndpoints(o, 'discovery.k8s.io/v1beta1', endpointToV1beta1);

/** The strategy of a v1beta1 request: kube's runs on the internal (v1) form and keeps topology. */
const v1beta1Strategy: Strategy = {
  ...endpointSliceStrategy,
  prepareForCreate: undefined,
  prepareForUpdate: bumpGeneration,
  validate: (o) => validateEndpointSlice(endpointSliceToV1(o)),
  validateUpdate: (n, o) => validateEndpointSliceUpdate(endpointSliceToV1(n), endpointSliceToV1(o)),
};

/**
 * discovery.k8s.io/v1beta1 EndpointSlice as 1.24 serves it: deprecated (removed in 1.25, kube's
 * Warning names v1), the v1 objects converted both ways as kube's conversion does.
 */
export const endpointSliceV1beta1Kind: KindDescriptor = {
  ...endpointSliceKind,
  versions: ['v1beta1'],
  strategy: v1beta1Strategy,
  table: { ...endpointSliceTable, cells: (o) => endpointSliceTable.cells(endpointSliceToV1(o)) },
  deprecationWarning: 'discovery.k8s.io/v1beta1 EndpointSlice is deprecated in v1.21+, unavailable in v1.25+; use discovery.k8s.io/v1 EndpointSlice',
  removedRelease: '1.25',
  storedAs: { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', resource: 'endpointslices', fromStorage: endpointSliceToV1beta1, toStorage: endpointSliceToV1 },
};
