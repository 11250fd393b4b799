/**
 * FlowSchema (flowcontrol.apiserver.k8s.io/v1beta2, and the deprecated v1beta1 over the same
 * objects; cluster-scoped, with /status), after Kubernetes 1.24.17: ValidateFlowSchema
 * (pkg/apis/flowcontrol/validation), SetDefaults_FlowSchemaSpec (matchingPrecedence 1000),
 * pkg/registry/flowcontrol/flowschema (status cleared on create and kept on update, generation 1
 * then bumped on a spec change; PUT does not create) and printFlowSchema/List (rows in matching
 * order).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import { goStringSlice } from '../../gocompat/quote.ts';
import { nameIsDNSSubdomain, validateNamespaceName } from '../../validation/names.ts';
import { bootstrapFlowSchema } from '../../flowcontrol/objects.ts';
import type { KindDescriptor, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { GROUP, type Json, arr, doc, goFlowSchemaSpec, int, obj, flowcontrolStrategy, statusStrategy, str, v1beta1View, validateObject } from './helpers.ts';

/** flowcontrol.FlowSchemaMaxMatchingPrecedence. */
const MAX_MATCHING_PRECEDENCE = 10000;
const DEFAULT_MATCHING_PRECEDENCE = 1000;
const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";
/** The mandatory FlowSchemas whose spec may never change. */
const MANDATORY = new Map(['exempt', 'catch-all'].map((n) => [n, bootstrapFlowSchema(n).spec]));

/** SetDefaults_FlowSchemaSpec. */
export function defaultFlowSchema(o: KubeObject): void {
  if (!(o.spec && typeof o.spec === 'object')) o.spec = {};
  const spec = o.spec as Json;
  if (int(spec.matchingPrecedence) === 0) spec.matchingPrecedence = DEFAULT_MATCHING_PRECEDENCE;
}

/** The verbs check both rule kinds share. */
function validateVerbs(verbs: string[], p: FieldPath): FieldError[] {
  if (verbs.length === 0) return [required(p, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return verbs.length > 1 ? [invalid(p, new GoValue(goStringSlice(verbs)), "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => SUPPORTED_VERBS.includes(v)) ? [] : [notSupported(p, new GoValue(goStringSlice(verbs)), SUPPORTED_VERBS)];
}

const strList = (v: unknown): string[] => arr(v).map(str);

function validateSubject(s: Json, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const kind = str(s.kind);
  const other = (field: 'user' | 'group' | 'serviceAccount', msg: string): void => {
    if (s[field] !== undefined && s[field] !== null) errs.push(forbidden(p.child(field), msg));
  };
  if (kind === 'ServiceAccount') {
    if (s.serviceAccount === undefined || s.serviceAccount === null) errs.push(required(p.child('serviceAccount'), "serviceAccount is required when subject kind is 'ServiceAccount'"));
    else {
      const sa = obj(s.serviceAccount);
      const sp = p.child('serviceAccount');
      const name = str(sa.name);
      if (name === '') errs.push(required(sp.child('name')));
      else if (name !== '*') errs.push(...nameIsDNSSubdomain(name, false).map((m) => invalid(sp.child('name'), name, m)));
      const ns = str(sa.namespace);
      if (ns !== '') errs.push(...validateNamespaceName(ns, false).map((m) => invalid(sp.child('namespace'), ns, m)));
      else errs.push(required(sp.child('namespace'), 'must specify namespace for service account'));
    }
    other('user', "user is forbidden when subject kind is not 'User'");
    other('group', "group is forbidden when subject kind is not 'Group'");
  } else if (kind === 'User') {
    if (s.user === undefined || s.user === null) errs.push(required(p.child('user'), "user is required when subject kind is 'User'"));
    else if (str(obj(s.user).name) === '') errs.push(required(p.child('user').child('name')));
    other('serviceAccount', "serviceAccount is forbidden when subject kind is not 'ServiceAccount'");
    other('group', "group is forbidden when subject kind is not 'Group'");
  } else if (kind === 'Group') {
    if (s.group === undefined || s.group === null) errs.push(required(p.child('group'), "group is required when subject kind is 'Group'"));
    else if (str(obj(s.group).name) === '') errs.push(required(p.child('group').child('name')));
    other('serviceAccount', "serviceAccount is forbidden when subject kind is not 'ServiceAccount'");
    other('user', "user is forbidden when subject kind is not 'User'");
  } else errs.push(notSupported(p.child('kind'), kind, SUBJECT_KINDS));
  return errs;
}

function validateResourceRule(r: Json, p: FieldPath): FieldError[] {
  const errs = validateVerbs(strList(r.verbs), p.child('verbs'));
  const groups = strList(r.apiGroups);
  if (groups.length === 0) errs.push(required(p.child('apiGroups'), 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*')) errs.push(invalid(p.child('apiGroups'), new GoValue(goStringSlice(groups)), "if '*' is present, must not specify other api groups"));
  const resources = strList(r.resources);
  if (resources.length === 0) errs.push(required(p.child('resources'), 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) errs.push(invalid(p.child('resources'), new GoValue(goStringSlice(resources)), "if '*' is present, must not specify other resources"));
  const namespaces = strList(r.namespaces);
  if (namespaces.length === 0 && r.clusterScope !== true) errs.push(required(p.child('namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace'));
  else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(invalid(p.child('namespaces'), new GoValue(goStringSlice(namespaces)), "if '*' is present, must not specify other namespaces"));
  } else namespaces.forEach((ns, i) => errs.push(...validateNamespaceName(ns, false).map((m) => invalid(p.child('namespaces').index(i), ns, NS_ERR_INTRO + m))));
  return errs;
}

/** ValidateNonResourceURLPath. */
function validateNonResourceURL(path: string, p: FieldPath): FieldError[] {
  const bad = (msg: string): FieldError[] => [invalid(p, path, msg)];
  if (path === '') return bad('must not be empty');
  if (path === '/') return [];
  if (!path.startsWith('/')) return bad('must start with slash');
  if (path.includes(' ')) return bad('must not contain white-space');
  if (path.includes('//')) return bad('must not contain double slash');
  const wildcards = path.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && path.slice(-2) !== '/*')) return bad('wildcard can only do suffix matching');
  return [];
}

function validateNonResourceRule(r: Json, p: FieldPath): FieldError[] {
  const errs = validateVerbs(strList(r.verbs), p.child('verbs'));
  const urls = strList(r.nonResourceURLs);
  if (urls.length === 0) errs.push(required(p.child('nonResourceURLs'), 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(invalid(p.child('nonResourceURLs'), new GoValue(goStringSlice(urls)), "if '*' is present, must not specify other non-resource URLs"));
  } else urls.forEach((u, i) => errs.push(...validateNonResourceURL(u, p.child('nonResourceURLs').index(i))));
  return errs;
}

function validateRule(r: Json, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = arr(r.subjects);
  if (subjects.length > 0) subjects.forEach((s, i) => errs.push(...validateSubject(obj(s), p.child('subjects').index(i))));
  else errs.push(required(p.child('subjects'), 'subjects must contain at least one value'));
  const rr = arr(r.resourceRules);
  const nr = arr(r.nonResourceRules);
  if (rr.length === 0 && nr.length === 0) errs.push(required(p, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  rr.forEach((x, i) => errs.push(...validateResourceRule(obj(x), p.child('resourceRules').index(i))));
  nr.forEach((x, i) => errs.push(...validateNonResourceRule(obj(x), p.child('nonResourceRules').index(i))));
  return errs;
}

/** ValidateFlowSchemaSpec. */
function validateSpec(name: string, spec: Json, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const mp = int(spec.matchingPrecedence);
  if (mp <= 0) errs.push(invalid(p.child('matchingPrecedence'), mp, 'must be a positive value'));
  if (mp > MAX_MATCHING_PRECEDENCE) errs.push(invalid(p.child('matchingPrecedence'), mp, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
  if (mp === 1 && name !== 'exempt') errs.push(invalid(p.child('matchingPrecedence'), mp, "only the schema named 'exempt' may have matchingPrecedence 1"));
  if (spec.distinguisherMethod !== undefined && spec.distinguisherMethod !== null) {
    const type = str(obj(spec.distinguisherMethod).type);
    if (!DISTINGUISHER_METHODS.includes(type)) errs.push(notSupported(p.child('distinguisherMethod').child('type'), new GoValue(`flowcontrol.FlowDistinguisherMethod{Type:${JSON.stringify(type)}}`), DISTINGUISHER_METHODS));
  }
  const pl = str(obj(spec.priorityLevelConfiguration).name);
  const plp = p.child('priorityLevelConfiguration').child('name');
  if (pl.length > 0) errs.push(...nameIsDNSSubdomain(pl, false).map((m) => invalid(plp, pl, m)));
  else errs.push(required(plp, 'must reference a priority level'));
  arr(spec.rules).forEach((r, i) => errs.push(...validateRule(obj(r), p.child('rules').index(i))));
  return errs;
}

/** ValidateFlowSchema minus ObjectMeta (the store's): the spec, the mandatory ones' fixed spec, the status. */
export const validateFlowSchema = (o: KubeObject): FieldError[] => validateObject(o, MANDATORY, validateSpec, goFlowSchemaSpec);

export const flowSchemaStrategy = flowcontrolStrategy(defaultFlowSchema, validateFlowSchema);


/** apihelpers.FlowSchemaSequence: matching precedence, then name. */
export function matchingOrder(a: KubeObject, b: KubeObject): number {
  const d = int(obj(a.spec).matchingPrecedence) - int(obj(b.spec).matchingPrecedence);
  if (d !== 0) return d;
  const an = a.metadata.name ?? '';
  const bn = b.metadata.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/** printFlowSchema; a list's rows in matching order (printFlowSchemaList). */
export const flowSchemaTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'PriorityLevel', type: 'string', description: doc('PriorityLevelConfigurationReference', 'name'), priority: 0 },
    { name: 'MatchingPrecedence', type: 'string', description: doc('FlowSchemaSpec', 'matchingPrecedence'), priority: 0 },
    { name: 'DistinguisherMethod', type: 'string', description: doc('FlowSchemaSpec', 'distinguisherMethod'), priority: 0 },
    AGE_COLUMN,
    { name: 'MissingPL', type: 'string', description: 'references a broken or non-existent PriorityLevelConfiguration', priority: 0 },
  ],
  cells: (o) => {
    const spec = obj(o.spec);
    const dm = spec.distinguisherMethod !== undefined && spec.distinguisherMethod !== null ? str(obj(spec.distinguisherMethod).type) : '<none>';
    const dangling = arr(obj(o.status).conditions).map(obj).find((c) => c.type === 'Dangling');
    return [o.metadata.name ?? '', str(obj(spec.priorityLevelConfiguration).name), int(spec.matchingPrecedence), dm, creationTimestampCell(o), dangling ? str(dangling.status) : '?'];
  },
  sortRows: (objects) => [...objects].sort(matchingOrder),
};

/** flowcontrol.apiserver.k8s.io/v1beta2 flowschemas (+ status); delete answers a Status (the store's default). */
export const flowSchemaKind: KindDescriptor = {
  group: GROUP,
  versions: ['v1beta2'],
  resource: 'flowschemas',
  singular: 'flowschema',
  kind: 'FlowSchema',
  listKind: 'FlowSchemaList',
  namespaced: false,
  shortNames: [],
  strategy: flowSchemaStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: statusStrategy }],
  table: flowSchemaTable,
  deleteReturns: 'Status',
  hasGeneration: true,
  // kube 1.24 stores flowcontrol objects as v1beta1 (discovery's storageVersionHash names it).
  storageVersion: 'v1beta1',
};

export const flowSchemaV1beta1Kind: KindDescriptor = v1beta1View(flowSchemaKind);
