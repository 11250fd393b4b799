/**
 * IngressClass (networking.k8s.io/v1, cluster-scoped), after Kubernetes 1.24.17:
 * SetDefaults_IngressClass (pkg/apis/networking/v1/defaults.go), ValidateIngressClass /
 * ValidateIngressClassUpdate (pkg/apis/networking/validation), pkg/registry/networking/ingressclass
 * (generation 1 on create, bumped on a spec change; PUT may omit the resourceVersion) and
 * printIngressClass (pkg/printers/internalversion/printers.go).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, forbidden, invalid, notSupported, required, tooLong } from '../../api/field-errors.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import { isDNS1123Subdomain, nameIsPathSegment, regexError, validateNamespaceName } from '../../validation/names.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { isObj } from '../../gocompat/json.ts';
import { str, specOf } from './helpers.ts';

const MAX_LEN_CONTROLLER = 250;
const SCOPES = ['Cluster', 'Namespace'];
const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH = new RegExp(`^${HTTP_PATH_FMT}$`);


/** SetDefaults_IngressClass: parameters without a scope are Cluster-scoped. */
export function defaultIngressClass(o: KubeObject): void {
  const p = specOf(o).parameters;
  if (isObj(p) && (p.scope === undefined || p.scope === null)) p.scope = 'Cluster';
}

/** apimachinery validation.IsDomainPrefixedPath (e.g. `acme.io/foo`). */
export function isDomainPrefixedPath(path: FieldPath, value: string): FieldError[] {
  if (value.length === 0) return [required(path, '')];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host.length === 0 || rest.length === 0) return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((m) => invalid(path, host, m));
  if (!HTTP_PATH.test(rest)) errs.push(invalid(path, rest, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

/** validateIngressTypedLocalObjectReference: apiGroup a subdomain, kind and name path segments. */
export function validateTypedReference(params: Record<string, unknown>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof params.apiGroup === 'string') for (const m of isDNS1123Subdomain(params.apiGroup)) errs.push(invalid(p.child('apiGroup'), params.apiGroup, m));
  for (const f of ['kind', 'name'] as const) {
    const v = str(params[f]);
    if (v === '') errs.push(required(p.child(f), `${f} is required`));
    else for (const m of nameIsPathSegment(v, false)) errs.push(invalid(p.child(f), v, m));
  }
  return errs;
}

/** validateIngressClassParametersReference: the reference, then scope and namespace rules. */
function validateParameters(params: unknown, p: FieldPath): FieldError[] {
  if (!isObj(params)) return [];
  const errs = validateTypedReference(params, p);
  if (typeof params.scope !== 'string') return [...errs, required(p.child('scope'), '')];
  const scope = params.scope;
  if (!SCOPES.includes(scope)) return [...errs, notSupported(p.child('scope'), scope, SCOPES)];
  const hasNs = typeof params.namespace === 'string';
  if (scope === 'Namespace') {
    if (!hasNs) errs.push(required(p.child('namespace'), "`parameters.scope` is set to 'Namespace'"));
    else for (const m of validateNamespaceName(params.namespace as string, false)) errs.push(invalid(p.child('namespace'), params.namespace, m));
  }
  if (scope === 'Cluster' && hasNs) errs.push(forbidden(p.child('namespace'), "`parameters.scope` is set to 'Cluster'"));
  return errs;
}

/** ValidateIngressClass minus ObjectMeta (the store's; names are DNS subdomains). */
export function validateIngressClass(o: KubeObject): FieldError[] {
  const s = specOf(o);
  const p = new FieldPath('spec');
  const controller = str(s.controller);
  const errs: FieldError[] = [];
  if (Buffer.byteLength(controller) > MAX_LEN_CONTROLLER) errs.push(tooLong(p.child('controller'), controller, MAX_LEN_CONTROLLER));
  errs.push(...isDomainPrefixedPath(p.child('controller'), controller));
  errs.push(...validateParameters(s.parameters, p.child('parameters')));
  return errs;
}

/** ValidateIngressClassUpdate: the controller is immutable, then the new object's rules. */
export function validateIngressClassUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const controller = str(specOf(n).controller);
  if (controller !== str(specOf(o).controller)) errs.push(invalid(new FieldPath('spec').child('controller'), controller, FIELD_IMMUTABLE));
  return [...errs, ...validateIngressClass(n)];
}

export const ingressClassStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultIngressClass,
  validate: validateIngressClass,
  validateUpdate: validateIngressClassUpdate,
};

/** printIngressClass: parameters as `Kind[.apiGroup]/name`, or `<none>`. */
export const ingressClassTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Controller', type: 'string', description: 'Controller that is responsible for handling this class', priority: 0 },
    { name: 'Parameters', type: 'string', description: 'A reference to a resource with additional parameters', priority: 0 },
    AGE_COLUMN,
  ],
  cells: (o) => {
    const s = specOf(o);
    let parameters = '<none>';
    if (isObj(s.parameters)) {
      const p = s.parameters;
      parameters = `${str(p.kind)}${typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : ''}/${str(p.name)}`;
    }
    return [o.metadata.name ?? '', str(s.controller), parameters, creationTimestampCell(o)];
  },
};

/** networking.k8s.io/v1 ingressclasses; delete answers a Status (the store's default). */
export const ingressClassKind: KindDescriptor = {
  group: 'networking.k8s.io',
  versions: ['v1'],
  resource: 'ingressclasses',
  singular: 'ingressclass',
  kind: 'IngressClass',
  listKind: 'IngressClassList',
  namespaced: false,
  shortNames: [],
  strategy: ingressClassStrategy,
  table: ingressClassTable,
  deleteReturns: 'Status',
  hasGeneration: true,
};
