/**
 * Endpoints (core/v1), after Kubernetes 1.24: SetDefaults_Endpoints, pkg/registry/core/endpoint
 * (create on update allowed) and ValidateEndpoints (pkg/apis/core/validation).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, invalid, notSupported, required } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableColumn, TableConvertor } from '../rest/strategy.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../validation/names.ts';
import { SUPPORTED_PROTOCOLS, isValidIP, isValidPortNum, parseIP, specialIPErrors } from '../../validation/network.ts';
import type { Storage } from '../../storage/storage.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell, isPlainObject } from './configmap.ts';
import { ENDPOINTS_ORDER, orderInPlace } from './service-spec.ts';

/** The parts of an EndpointAddress this file reads. */
export interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string;
}

/** The parts of an EndpointPort this file reads. */
export interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

/** The parts of an EndpointSubset this file reads. */
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as unknown[]).map((x) => (isPlainObject(x) ? x : {}) as T) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** obj.subsets, entries that are not objects read as empty ones. */
export const subsetsOf = (obj: KubeObject): EndpointSubset[] => list<EndpointSubset>(obj.subsets);

/** SetDefaults_Endpoints: port protocol TCP. */
export function defaultEndpoints(obj: KubeObject): void {
  for (const ss of Array.isArray(obj.subsets) ? obj.subsets : []) {
    if (!isPlainObject(ss)) continue;
    for (const p of Array.isArray(ss.ports) ? ss.ports : []) if (isPlainObject(p) && !p.protocol) p.protocol = 'TCP';
  }
}

function validateAddress(a: EndpointAddress, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ip = str(a.ip);
  for (const m of isValidIP(ip)) errs.push(invalid(p.child('ip'), ip, m));
  if (a.hostname) for (const m of isDNS1123Label(str(a.hostname))) errs.push(invalid(p.child('hostname'), a.hostname, m));
  if (a.nodeName !== undefined && a.nodeName !== null) for (const m of isDNS1123Subdomain(str(a.nodeName))) errs.push(invalid(p.child('nodeName'), a.nodeName, m));
  // ValidateNonSpecialIP repeats the parse failure in its own words.
  const parsed = parseIP(ip);
  if (!parsed) errs.push(invalid(p.child('ip'), ip, 'must be a valid IP address'));
  else errs.push(...specialIPErrors(ip, parsed).map((m) => invalid(p.child('ip'), ip, m)));
  return errs;
}

function validatePort(port: EndpointPort, requireName: boolean, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(port.name);
  if (requireName && !name) errs.push(required(p.child('name')));
  else if (name) for (const m of isDNS1123Label(name)) errs.push(invalid(p.child('name'), name, m));
  const n = typeof port.port === 'number' ? port.port : 0;
  for (const m of isValidPortNum(n)) errs.push(invalid(p.child('port'), n, m));
  if (!port.protocol) errs.push(required(p.child('protocol')));
  else if (!SUPPORTED_PROTOCOLS.includes(port.protocol)) errs.push(notSupported(p.child('protocol'), port.protocol, SUPPORTED_PROTOCOLS));
  if (port.appProtocol !== undefined) for (const m of isQualifiedName(str(port.appProtocol))) errs.push(invalid(p.child('appProtocol'), port.appProtocol, m));
  return errs;
}

/** ValidateEndpoints minus ObjectMeta. */
export function validateEndpoints(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  subsetsOf(obj).forEach((ss, i) => {
    const p = new FieldPath('subsets').index(i);
    const addrs = list<EndpointAddress>(ss.addresses);
    const notReady = list<EndpointAddress>(ss.notReadyAddresses);
    const ports = list<EndpointPort>(ss.ports);
    if (addrs.length === 0 && notReady.length === 0) errs.push(required(p, 'must specify `addresses` or `notReadyAddresses`'));
    addrs.forEach((a, j) => errs.push(...validateAddress(a, p.child('addresses').index(j))));
    notReady.forEach((a, j) => errs.push(...validateAddress(a, p.child('notReadyAddresses').index(j))));
    ports.forEach((port, j) => errs.push(...validatePort(port, ports.length > 1, p.child('ports').index(j))));
  });
  return errs;
}

export const endpointsStrategy: Strategy = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaults: defaultEndpoints,
  validate: validateEndpoints,
  validateUpdate: (newObj) => validateEndpoints(newObj),
  // Stored in Go struct order, as kube-apiserver writes Endpoints.
  canonicalize: (obj) => orderInPlace(obj, ENDPOINTS_ORDER),
};

/** Go's net.JoinHostPort: IPv6 hosts in brackets. */
const joinHostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** formatEndpoints (printers.go): the first three host:port pairs, then "+ N more...". */
export function formatEndpoints(obj: KubeObject): string {
  const subsets = subsetsOf(obj);
  if (subsets.length === 0) return '<none>';
  const MAX = 3;
  const shown: string[] = [];
  let count = 0;
  const add = (s: string): void => {
    if (shown.length < MAX) shown.push(s);
    count++;
  };
  for (const ss of subsets) {
    const addrs = list<EndpointAddress>(ss.addresses);
    const ports = list<EndpointPort>(ss.ports);
    if (ports.length === 0) for (const a of addrs) add(str(a.ip));
    else for (const port of ports) for (const a of addrs) add(joinHostPort(str(a.ip), typeof port.port === 'number' ? port.port : 0));
  }
  const joined = shown.join(',');
  return count > MAX ? `${joined} + ${count - MAX} more...` : joined;
}

const ENDPOINTS_COLUMN: TableColumn = {
  name: 'Endpoints',
  type: 'string',
  description:
    'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.',
  priority: 0,
};

export const endpointsTable: TableConvertor = {
  columns: [NAME_COLUMN, ENDPOINTS_COLUMN, AGE_COLUMN],
  cells: (obj) => [obj.metadata.name ?? '', formatEndpoints(obj), creationTimestampCell(obj)],
};

/**
 * Delete the Endpoints named like a deleted Service (kube's service afterDelete does, so a new
 * Service of that name does not inherit stale addresses). Missing → nothing to do.
 */
export async function deleteEndpointsOf(storage: Pick<Storage, 'get' | 'writeSystem'>, namespace: string, name: string): Promise<void> {
  const key = { group: '', resource: 'endpoints', namespace, name };
  const bytes = await storage.get(key);
  if (!bytes) return;
  const obj = JSON.parse(bytes.toString('utf8')) as KubeObject;
  const rv = Number(obj.metadata.resourceVersion);
  delete obj.metadata.resourceVersion;
  await storage.writeSystem({
    op: 'DELETE',
    key,
    expectRv: rv,
    expectUid: obj.metadata.uid ?? null,
    uid: obj.metadata.uid ?? '',
    object: obj,
    verb: 'delete',
  });
}

export const endpointsKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'endpoints',
  singular: 'endpoints',
  kind: 'Endpoints',
  listKind: 'EndpointsList',
  namespaced: true,
  shortNames: ['ep'],
  strategy: endpointsStrategy,
  table: endpointsTable,
  deleteReturns: 'Status',
};
