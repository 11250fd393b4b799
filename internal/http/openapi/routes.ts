/**
 * The routes kube-apiserver 1.24's endpoint installer (apiserver/pkg/endpoints/installer.go)
 * registers for a served kind, described the way its OpenAPI builder (kube-openapi
 * pkg/builder) renders them: one route per (path, method) with kube's operation names,
 * descriptions, parameters and responses. Derived from the registry's KindDescriptors only, so a
 * kind (or a verb, or a subresource) that is not served has no route.
 */
import type { KindDescriptor } from '../../registry/rest/strategy.ts';
import type { GroupVersionKind } from '../../schema/types.ts';
import { FULL_VERBS } from '../discovery.ts';
import {
  type QueryParameter,
  pathParam,
  NAMESPACE_PARAM,
  PRETTY,
  LIST_PARAMS,
  DELETE_COLLECTION_PARAMS,
  DELETE_PARAMS,
  CREATE_PARAMS,
  PATCH_PARAMS,
} from './parameters.ts';

/** The request body parameter of a route (its schema is a definition name). */
export interface BodyParameter {
  name: 'body';
  in: 'body';
  required?: true;
  schema: { $ref: string };
}

/** A route parameter: a query/path parameter or the body. */
export type Parameter = QueryParameter | BodyParameter;

/** HTTP methods of resource routes (path-item keys). */
export type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch';

/** Path-item key order (kube-openapi's): the connect routes add options and head. */
export const METHOD_ORDER: Method[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** A response whose schema is `{type: string}` (a connect route's proxied answer), not a definition. */
export const STRING_RESPONSE = '<string>';

/** One route: the input of the OpenAPI builder (definition names are bare, not `#/definitions/…`). */
export interface Route {
  path: string;
  method: Method;
  /** The operation name before kube inserts the group/version: verb prefix + rest. */
  verbPrefix: string;
  opRest: string;
  description: string;
  consumes: string[];
  produces: string[];
  parameters: Parameter[];
  /** status code → [description, definition name or undefined]. */
  responses: Array<[number, string, string | undefined]>;
  action?: string;
  gvk?: GroupVersionKind;
  /** Path segments kube derives the operation's group/version tag from (`api`, `apis/<g>/<v>`). */
  tagPath: string;
}

/** Definition names of the meta types the resource routes refer to. */
export const META = {
  deleteOptions: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  status: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
  patch: 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  watchEvent: 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
  apiVersions: 'io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions',
  apiResourceList: 'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
  apiGroupList: 'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList',
  apiGroup: 'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup',
  versionInfo: 'io.k8s.apimachinery.pkg.version.Info',
} as const;

const PRODUCES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const PRODUCES_STREAM = [...PRODUCES, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
const ANY = ['*/*'];

/** Resolves a kind's (or list kind's) definition name; undefined when no schema serves it. */
export type DefinitionOf = (gvk: GroupVersionKind) => string | undefined;

const body = (def: string, required: boolean): BodyParameter => (required ? { name: 'body', in: 'body', required: true, schema: { $ref: def } } : { name: 'body', in: 'body', schema: { $ref: def } });

const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The routes of one kind at one version. Kinds without a generated (or registered) schema have no
 * OpenAPI routes: kube cannot describe a kind it has no type for either.
 */
export function kindRoutes(kind: KindDescriptor, version: string, definitionOf: DefinitionOf): Route[] {
  const gvk: GroupVersionKind = { group: kind.group, version, kind: kind.kind };
  const verbs = new Set(kind.verbs ?? FULL_VERBS);
  const def = definitionOf(gvk);
  // Only listing verbs need the list type (create-only kinds such as the access reviews have none).
  const listed = verbs.has('list') || verbs.has('watch');
  const listDef = listed ? definitionOf({ ...gvk, kind: kind.listKind }) : undefined;
  if (!def || (listed && !listDef)) return [];
  const root = kind.group ? `/apis/${kind.group}/${version}` : `/api/${version}`;
  const tagPath = root;
  const ns = kind.namespaced ? '/namespaces/{namespace}' : '';
  const nsParams = kind.namespaced ? [NAMESPACE_PARAM] : [];
  const scoped = kind.namespaced ? 'Namespaced' : '';
  const K = kind.kind;
  const nameParam = pathParam('name', `name of the ${K}`);
  const deleteDef = kind.deleteReturns === 'Object' && !kind.strategy.beginDelete ? def : META.status;
  const routes: Route[] = [];
  const add = (r: Omit<Route, 'tagPath' | 'gvk'>) => routes.push({ ...r, tagPath, gvk });

  const collection = `${root}${ns}/${kind.resource}`;
  const item = `${collection}/{name}`;
  if (verbs.has('list')) {
    add({ path: collection, method: 'get', verbPrefix: 'list', opRest: `${scoped}${K}`, description: `list ${verbs.has('watch') ? 'or watch ' : ''}objects of kind ${K}`, consumes: ANY, produces: PRODUCES_STREAM, parameters: [...nsParams, PRETTY, ...LIST_PARAMS], responses: [[200, 'OK', listDef]], action: 'list' });
  }
  if (verbs.has('create')) {
    add({ path: collection, method: 'post', verbPrefix: 'create', opRest: `${scoped}${K}`, description: `create${articleFor(K)}${K}`, consumes: ANY, produces: PRODUCES, parameters: [body(def, true), ...nsParams, PRETTY, ...CREATE_PARAMS], responses: [[200, 'OK', def], [201, 'Created', def], [202, 'Accepted', def]], action: 'post' });
  }
  if (verbs.has('deletecollection')) {
    add({ path: collection, method: 'delete', verbPrefix: 'delete', opRest: `Collection${scoped}${K}`, description: `delete collection of ${K}`, consumes: ANY, produces: PRODUCES, parameters: [body(META.deleteOptions, false), ...nsParams, PRETTY, ...DELETE_COLLECTION_PARAMS], responses: [[200, 'OK', META.status]], action: 'deletecollection' });
  }
  if (verbs.has('watch')) {
    add({ path: `${root}/watch${ns}/${kind.resource}`, method: 'get', verbPrefix: 'watch', opRest: `${scoped}${K}List`, description: `watch individual changes to a list of ${K}. deprecated: use the 'watch' parameter with a list operation instead.`, consumes: ANY, produces: PRODUCES_STREAM, parameters: [...nsParams, PRETTY, ...LIST_PARAMS], responses: [[200, 'OK', META.watchEvent]], action: 'watchlist' });
  }
  if (verbs.has('get')) {
    add({ path: item, method: 'get', verbPrefix: 'read', opRest: `${scoped}${K}`, description: `read the specified ${K}`, consumes: ANY, produces: PRODUCES, parameters: [nameParam, ...nsParams, PRETTY], responses: [[200, 'OK', def]], action: 'get' });
  }
  if (verbs.has('update')) {
    add({ path: item, method: 'put', verbPrefix: 'replace', opRest: `${scoped}${K}`, description: `replace the specified ${K}`, consumes: ANY, produces: PRODUCES, parameters: [body(def, true), nameParam, ...nsParams, PRETTY, ...CREATE_PARAMS], responses: [[200, 'OK', def], [201, 'Created', def]], action: 'put' });
  }
  if (verbs.has('delete')) {
    add({ path: item, method: 'delete', verbPrefix: 'delete', opRest: `${scoped}${K}`, description: `delete${articleFor(K)}${K}`, consumes: ANY, produces: PRODUCES, parameters: [body(META.deleteOptions, false), nameParam, ...nsParams, PRETTY, ...DELETE_PARAMS], responses: [[200, 'OK', deleteDef], [202, 'Accepted', deleteDef]], action: 'delete' });
  }
  if (verbs.has('patch')) {
    add({ path: item, method: 'patch', verbPrefix: 'patch', opRest: `${scoped}${K}`, description: `partially update the specified ${K}`, consumes: PATCH_TYPES, produces: PRODUCES, parameters: [body(META.patch, true), nameParam, ...nsParams, PRETTY, ...PATCH_PARAMS], responses: [[200, 'OK', def], [201, 'Created', def]], action: 'patch' });
  }
  if (verbs.has('watch')) {
    add({ path: `${root}/watch${ns}/${kind.resource}/{name}`, method: 'get', verbPrefix: 'watch', opRest: `${scoped}${K}`, description: `watch changes to an object of kind ${K}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`, consumes: ANY, produces: PRODUCES_STREAM, parameters: [nameParam, ...nsParams, PRETTY, ...LIST_PARAMS], responses: [[200, 'OK', META.watchEvent]], action: 'watch' });
  }
  // A namespaced kind is also listed and watched across all namespaces.
  if (kind.namespaced && verbs.has('list')) {
    add({ path: `${root}/${kind.resource}`, method: 'get', verbPrefix: 'list', opRest: `${K}ForAllNamespaces`, description: `list or watch objects of kind ${K}`, consumes: ANY, produces: PRODUCES_STREAM, parameters: [PRETTY, ...LIST_PARAMS], responses: [[200, 'OK', listDef]], action: 'list' });
  }
  if (kind.namespaced && verbs.has('watch')) {
    add({ path: `${root}/watch/${kind.resource}`, method: 'get', verbPrefix: 'watch', opRest: `${K}ListForAllNamespaces`, description: `watch individual changes to a list of ${K}. deprecated: use the 'watch' parameter with a list operation instead.`, consumes: ANY, produces: PRODUCES_STREAM, parameters: [PRETTY, ...LIST_PARAMS], responses: [[200, 'OK', META.watchEvent]], action: 'watchlist' });
  }
  for (const sub of kind.subresources ?? []) {
    const p = `${item}/${sub.name}`;
    const Sub = upperFirst(sub.name);
    const sv = new Set(sub.verbs);
    // A view subresource (a built-in kind's scale) reads and writes its own kind (autoscaling/v1 Scale).
    const viewGvk = sub.view ? { group: sub.view.kind.group, version: sub.view.kind.version, kind: sub.view.kind.kind } : undefined;
    const viewDef = viewGvk ? definitionOf(viewGvk) : undefined;
    const own = viewGvk && viewDef ? { def: viewDef, name: pathParam('name', `name of the ${viewGvk.kind}`), gvk: viewGvk } : { def, name: nameParam, gvk };
    const addSub = (r: Omit<Route, 'tagPath' | 'gvk'>) => routes.push({ ...r, tagPath, gvk: own.gvk });
    // A connect subresource (nodes/proxy): every method, on the path and on `<path>/{path}`.
    if (sub.connect) {
      const connectName = pathParam('name', `name of the ${sub.kind?.kind ?? K}`);
      const pathQuery: QueryParameter = { uniqueItems: true, type: 'string', description: sub.connectPathDoc ?? '', name: 'path', in: 'query' };
      const connectGvk = sub.kind ? { group: sub.kind.group, version: sub.kind.version, kind: sub.kind.kind } : gvk;
      if (sub.connectQuery) {
        const options = sub.connectQuery.map((o): QueryParameter => ({ uniqueItems: true, type: o.type, description: o.description, name: o.name, in: 'query' }));
        const params = [connectName, ...nsParams, ...options, ...(sub.connectRead ? [PRETTY] : [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        if (sub.connectRead) {
          addSub({ path: p, method: 'get', verbPrefix: 'read', opRest: `${scoped}${K}${Sub}`, description: `read ${sub.name} of the specified ${K}`, consumes: ANY, produces: ['text/plain', ...PRODUCES], parameters: params, responses: [[200, 'OK', STRING_RESPONSE]], action: 'get' });
          continue;
        }
        for (const m of ['get', 'post'] as const) {
          routes.push({ path: p, method: m, verbPrefix: 'connect', opRest: `${upperFirst(m)}${scoped}${K}${Sub}`, description: `connect ${m.toUpperCase()} requests to ${sub.name} of ${K}`, consumes: ANY, produces: ANY, parameters: params, responses: [[200, 'OK', STRING_RESPONSE]], action: 'connect', tagPath, gvk: connectGvk });
        }
        continue;
      }
      for (const [path, suffix, params] of [
        [p, '', [connectName, ...nsParams, pathQuery]],
        [`${p}/{path}`, 'WithPath', [connectName, ...nsParams, pathParam('path', 'path to the resource'), pathQuery]],
      ] as const) {
        for (const m of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const) {
          const M = m.toUpperCase();
          routes.push({ path, method: m, verbPrefix: 'connect', opRest: `${upperFirst(m)}${scoped}${K}${Sub}${suffix}`, description: `connect ${M} requests to ${sub.name} of ${K}`, consumes: ANY, produces: ANY, parameters: [...params], responses: [[200, 'OK', STRING_RESPONSE]], action: 'connect', tagPath, gvk: connectGvk });
        }
      }
      continue;
    }
    if (sv.has('get')) {
      addSub({ path: p, method: 'get', verbPrefix: 'read', opRest: `${scoped}${K}${Sub}`, description: `read ${sub.name} of the specified ${K}`, consumes: ANY, produces: PRODUCES, parameters: [own.name, ...nsParams, PRETTY], responses: [[200, 'OK', own.def]], action: 'get' });
    }
    if (sv.has('update')) {
      addSub({ path: p, method: 'put', verbPrefix: 'replace', opRest: `${scoped}${K}${Sub}`, description: `replace ${sub.name} of the specified ${K}`, consumes: ANY, produces: PRODUCES, parameters: [body(own.def, true), own.name, ...nsParams, PRETTY, ...CREATE_PARAMS], responses: [[200, 'OK', own.def], [201, 'Created', own.def]], action: 'put' });
    }
    if (sv.has('patch')) {
      addSub({ path: p, method: 'patch', verbPrefix: 'patch', opRest: `${scoped}${K}${Sub}`, description: `partially update ${sub.name} of the specified ${K}`, consumes: PATCH_TYPES, produces: PRODUCES, parameters: [body(META.patch, true), own.name, ...nsParams, PRETTY, ...PATCH_PARAMS], responses: [[200, 'OK', own.def], [201, 'Created', own.def]], action: 'patch' });
    }
    // A POST subresource (rest.NamedCreater: pods/eviction, pods/binding) takes and names its own
    // kind; kube describes it only when that kind has a schema.
    const subGvk = sub.kind ? { group: sub.kind.group, version: sub.kind.version, kind: sub.kind.kind } : gvk;
    const subDef = sv.has('create') ? definitionOf(subGvk) : undefined;
    if (subDef) {
      const subName = pathParam('name', `name of the ${subGvk.kind}`);
      routes.push({ path: p, method: 'post', verbPrefix: 'create', opRest: `${scoped}${K}${Sub}`, description: `create ${sub.name} of${articleFor(K)}${K}`, consumes: ANY, produces: PRODUCES, parameters: [body(subDef, true), subName, ...nsParams, PRETTY, ...CREATE_PARAMS], responses: [[200, 'OK', subDef], [201, 'Created', subDef], [202, 'Accepted', subDef]], action: 'post', tagPath, gvk: subGvk });
    }
  }
  return routes;
}

const DISCOVERY_MIME = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** The discovery and version routes kube describes next to the resources (only those we serve). */
export function discoveryRoutes(groups: ReadonlyMap<string, readonly string[]>): Route[] {
  const r = (path: string, verbPrefix: string, opRest: string, description: string, def: string, tagPath: string, mime = DISCOVERY_MIME): Route => ({
    path, method: 'get', verbPrefix, opRest, description, consumes: mime, produces: mime, parameters: [], responses: [[200, 'OK', def]], tagPath,
  });
  const routes: Route[] = [r('/version/', 'get', 'CodeVersion', 'get the code version', META.versionInfo, '/version', ['application/json'])];
  for (const [group, versions] of groups) {
    if (!group) {
      routes.push(r('/api/', 'get', 'APIVersions', 'get available API versions', META.apiVersions, '/api'));
      for (const v of versions) routes.push(r(`/api/${v}/`, 'get', 'APIResources', 'get available resources', META.apiResourceList, `/api/${v}`));
      continue;
    }
    routes.push(r(`/apis/${group}/`, 'get', 'APIGroup', 'get information of a group', META.apiGroup, `/apis/${group}`));
    for (const v of versions) routes.push(r(`/apis/${group}/${v}/`, 'get', 'APIResources', 'get available resources', META.apiResourceList, `/apis/${group}/${v}`));
  }
  if ([...groups.keys()].some((g) => g)) routes.push(r('/apis/', 'get', 'APIVersions', 'get available API versions', META.apiGroupList, '/apis'));
  return routes;
}

/** Go's openapi.ToValidOperationID: keep letters, '_' and non-leading digits; capitalize after a dropped rune. */
export function toValidOperationID(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let cap = capitalizeFirst;
  let i = 0;
  for (const ch of s) {
    if (/\p{L}/u.test(ch) || ch === '_' || (i !== 0 && /\p{Nd}/u.test(ch))) {
      out += cap ? ch.toUpperCase() : ch;
      cap = false;
    } else cap = true;
    i += ch.length;
  }
  return out;
}

/** kube's GetOperationIDAndTags: `/api` counts as `/apis/core`; `.k8s.io` is trimmed from groups. */
export function operationIdAndTags(route: Route): { id: string; tags: string[] } {
  let parts = route.tagPath.replace(/^\/+|\/+$/g, '').split('/');
  if (parts[0] === 'api') parts = ['apis', 'core', ...parts.slice(1)];
  let prefix = route.verbPrefix;
  const tags: string[] = [];
  if (parts.length >= 2 && parts[0] === 'apis') {
    const trimmed = parts[1]!.replace(/\.k8s\.io$/, '');
    prefix += toValidOperationID(trimmed, prefix !== '');
    let tag = toValidOperationID(trimmed, false);
    if (parts.length > 2) {
      prefix += toValidOperationID(parts[2]!, prefix !== '');
      tag += `_${toValidOperationID(parts[2]!, false)}`;
    }
    tags.push(tag);
  } else if (parts.length >= 1) tags.push(toValidOperationID(parts[0]!, false));
  return { id: prefix + toValidOperationID(route.opRest, prefix !== ''), tags };
}

/**
 * go-restful route docs use kube's GetArticleForNoun: no article for a plural-looking kind
 * (`Endpoints`, but not `…ss`), "an" before a vowel, "a" otherwise; padded with spaces.
 */
export function articleFor(kind: string): string {
  if (!kind.endsWith('ss') && kind.endsWith('s')) return ' ';
  return /^[aeiouAEIOU]/.test(kind) ? ' an ' : ' a ';
}
