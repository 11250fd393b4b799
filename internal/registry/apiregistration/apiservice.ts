/**
 * APIService (apiregistration.k8s.io/v1, cluster-scoped, with /status), after kube-aggregator
 * v0.24.17: ValidateAPIService / ValidateAPIServiceStatus (pkg/apis/apiregistration/validation),
 * SetDefaults_ServiceReference (port 443), pkg/registry/apiservice (status cleared on create, a
 * local APIService — no service — Available at once; status kept on update; /status keeps spec,
 * labels, annotations, finalizers and owner references; PUT does not create, updates need a
 * resourceVersion) and its own Table (Name, Service, Available, Age).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, invalid, notSupported, required } from '../../api/field-errors.ts';
import { isObj } from '../../gocompat/json.ts';
import { isDNS1035Label, isDNS1123Subdomain } from '../../validation/names.ts';
import { isValidPortNum } from '../../validation/network.ts';
import type { KindDescriptor, StatusStrategy, Strategy, TableConvertor } from '../rest/strategy.ts';
import type { ResetFieldsStrategy } from '../generic/managed-fields.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';

export const GROUP = 'apiregistration.k8s.io';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (isObj(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);
const set = (v: unknown): v is Json => isObj(v);

/** NewLocalAvailableAPIServiceCondition. */
export function localAvailableCondition(now: Date = new Date()): Json {
  return { type: 'Available', status: 'True', lastTransitionTime: now.toISOString().replace(/\.\d+Z$/, 'Z'), reason: 'Local', message: 'Local APIServices are always available' };
}

/** SetDefaults_ServiceReference. */
function defaultAPIService(o: KubeObject): void {
  const svc = obj(o.spec).service;
  if (set(svc) && (svc.port === undefined || svc.port === null)) svc.port = 443;
}

/** The bytes of a base64 caBundle (its length is what kube's message prints). */
const caBundleBytes = (v: unknown): number => (typeof v === 'string' ? Buffer.from(v, 'base64').length : 0);

/** ValidateAPIService minus the generic ObjectMeta checks: the name is `<version>.<group>`. */
export function validateAPIService(o: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  const group = str(spec.group);
  const version = str(spec.version);
  const errs: FieldError[] = [];
  const requiredName = `${version}.${group}`;
  const name = o.metadata.name ?? '';
  // (the store checks it is a path segment name first; kube's validator stops at that failure)
  const pathSegment = name !== '.' && name !== '..' && !/[/%]/.test(name);
  if (name !== '' && pathSegment && name !== requiredName) errs.push(invalid(new FieldPath('metadata').child('name'), name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  const sp = new FieldPath('spec');
  if (group === '' && version !== 'v1') errs.push(required(sp.child('group'), 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') errs.push(...isDNS1123Subdomain(group).map((m) => invalid(sp.child('group'), group, m)));
  errs.push(...isDNS1035Label(version).map((m) => invalid(sp.child('version'), version, m)));
  const gpm = int(spec.groupPriorityMinimum);
  if (gpm <= 0 || gpm > 20000) errs.push(invalid(sp.child('groupPriorityMinimum'), gpm, 'must be positive and less than 20000'));
  const vp = int(spec.versionPriority);
  if (vp <= 0 || vp > 1000) errs.push(invalid(sp.child('versionPriority'), vp, 'must be positive and less than 1000'));
  const insecure = spec.insecureSkipTLSVerify === true;
  const ca = caBundleBytes(spec.caBundle);
  if (!set(spec.service)) {
    if (ca !== 0) errs.push(invalid(sp.child('caBundle'), `${ca} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errs.push(invalid(sp.child('insecureSkipTLSVerify'), true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  const svc = spec.service;
  if (str(svc.namespace) === '') errs.push(required(sp.child('service').child('namespace')));
  if (str(svc.name) === '') errs.push(required(sp.child('service').child('name')));
  const port = int(svc.port);
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(invalid(sp.child('service').child('port'), port, `port is not valid: ${portErrs.join(', ')}`));
  if (insecure && ca > 0) errs.push(invalid(sp.child('insecureSkipTLSVerify'), true, 'may not be true if caBundle is present'));
  return errs;
}

/** ValidateAPIServiceStatus: each condition's status True, False or Unknown. */
function validateStatus(o: KubeObject): FieldError[] {
  const conditions = Array.isArray(obj(o.status).conditions) ? (obj(o.status).conditions as unknown[]) : [];
  const errs: FieldError[] = [];
  conditions.forEach((c, i) => {
    const s = str(obj(c).status);
    if (s !== 'True' && s !== 'False' && s !== 'Unknown') errs.push(notSupported(new FieldPath('status').child('conditions').index(i).child('status'), s, ['True', 'False', 'Unknown']));
  });
  return errs;
}

export const apiServiceStrategy: Strategy & ResetFieldsStrategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  resetFields: ['status'],
  defaults: defaultAPIService,
  prepareForCreate(o) {
    o.status = set(obj(o.spec).service) ? {} : { conditions: [localAvailableCondition()] };
  },
  prepareForUpdate(n, o) {
    n.status = o.status === undefined ? {} : structuredClone(o.status);
  },
  validate: validateAPIService,
  validateUpdate: (n) => validateAPIService(n),
};

/** /status: spec, labels, annotations, finalizers and owner references stay as stored. */
export const apiServiceStatusStrategy: StatusStrategy & ResetFieldsStrategy = {
  resetFields: ['spec', 'metadata'],
  prepareForUpdate(n, o) {
    n.spec = structuredClone(o.spec);
    for (const f of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
      if (o.metadata[f] === undefined) delete n.metadata[f];
      else (n.metadata as Record<string, unknown>)[f] = structuredClone(o.metadata[f]);
    }
  },
  validateUpdate: validateStatus,
};

/** The REST's ConvertToTable: Local or namespace/name; Available, or "False (Reason)". */
export const apiServiceTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Service', type: 'string', description: 'The reference to the service that hosts this API endpoint.', priority: 0 },
    { name: 'Available', type: 'string', description: 'Whether this service is available.', priority: 0 },
    AGE_COLUMN,
  ],
  cells: (o) => {
    const svc = obj(o.spec).service;
    const service = set(svc) ? `${str(svc.namespace)}/${str(svc.name)}` : 'Local';
    const conditions = Array.isArray(obj(o.status).conditions) ? (obj(o.status).conditions as unknown[]).map(obj) : [];
    const c = conditions.find((x) => x.type === 'Available');
    const status = !c ? 'Unknown' : c.status === 'True' || str(c.reason) === '' ? str(c.status) : `${str(c.status)} (${str(c.reason)})`;
    return [o.metadata.name ?? '', service, status, creationTimestampCell(o)];
  },
};

export const apiServiceKind: KindDescriptor = {
  group: GROUP,
  versions: ['v1'],
  resource: 'apiservices',
  singular: 'apiservice',
  kind: 'APIService',
  listKind: 'APIServiceList',
  namespaced: false,
  nameFormat: 'pathSegment',
  shortNames: [],
  categories: ['api-extensions'],
  strategy: apiServiceStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: apiServiceStatusStrategy }],
  table: apiServiceTable,
  deleteReturns: 'Status',
};
