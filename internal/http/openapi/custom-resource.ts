/**
 * The OpenAPI of custom resource kinds, as kube-apiserver 1.24's apiextensions OpenAPI builder
 * (apiextensions-apiserver pkg/controller/openapi/builder) describes each served version of an
 * Established CRD: its own routes (not the endpoint installer's: GetOptions on reads, ListOptions
 * on deletecollection, UpdateOptions on patch, JSON and YAML only, no watch paths), the kind and
 * list-kind definitions built from the version's schema (internal/apiextensions/openapi.ts), and,
 * in v3, one document per group version with title "Kubernetes CRD Swagger". kube publishes no
 * discovery paths (`/apis/<group>/`) for a CRD's group: its discovery is not a go-restful route.
 */
import type { KindDescriptor } from '../../registry/rest/strategy.ts';
import { customResourceDefinitionName, customResourceListSchema, customResourceSchema, type PublishedKind } from '../../apiextensions/openapi.ts';
import { type Route, type BodyParameter, META, articleFor } from './routes.ts';
import { pathParam, NAMESPACE_PARAM, PRETTY, GET_PARAMS, LIST_PARAMS, DELETE_PARAMS, CREATE_PARAMS } from './parameters.ts';
import type { Json } from './v2.ts';

const SCALE = 'io.k8s.api.autoscaling.v1.Scale';
const MIMES = ['application/json', 'application/yaml'];
const PATCH_MIMES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** Is this kind a CRD's (its OpenAPI comes from the CRD, not from the generated schemas)? */
export const isCustomResource = (kind: KindDescriptor): boolean => kind.customResourceSchemas !== undefined;

/** The versions of a custom kind the registry serves, with what the CRD says of each. */
function servedVersions(kind: KindDescriptor): NonNullable<KindDescriptor['customResourceSchemas']>['versions'] {
  const served = new Set(kind.versions);
  return (kind.customResourceSchemas?.versions ?? []).filter((v) => served.has(v.name));
}

const published = (kind: KindDescriptor, version: string, schema: PublishedKind['schema']): PublishedKind => ({
  group: kind.group,
  version,
  kind: kind.kind,
  listKind: kind.listKind,
  plural: kind.resource,
  schema,
  preserveUnknownFields: kind.customResourceSchemas?.preserveUnknownFields ?? false,
});

const body = (def: string, required: boolean): BodyParameter => (required ? { name: 'body', in: 'body', required: true, schema: { $ref: def } } : { name: 'body', in: 'body', schema: { $ref: def } });

/** builder.buildRoute for every route of one version (generateBuilder's list, in its order). */
function versionRoutes(kind: KindDescriptor, v: { name: string; status: boolean; scale: boolean }): Route[] {
  const K = kind.kind;
  const def = customResourceDefinitionName(kind.group, v.name, K);
  const listDef = customResourceDefinitionName(kind.group, v.name, kind.listKind);
  const gvk = { group: kind.group, version: v.name, kind: K };
  const tagPath = `/apis/${kind.group}/${v.name}`;
  const scoped = kind.namespaced ? 'Namespaced' : '';
  const root = kind.namespaced ? `${tagPath}/namespaces/{namespace}/${kind.resource}` : `${tagPath}/${kind.resource}`;
  const nsParams = kind.namespaced ? [NAMESPACE_PARAM] : [];
  const nameParam = pathParam('name', `name of the ${K}`);
  const routes: Route[] = [];
  /** One route: `sub` is '' or a subresource, `sample` the definition it returns. */
  const add = (path: string, sub: string, method: Route['method'], action: string, verb: string, sample: string, extra: Partial<Route> = {}): void => {
    const item = path !== root;
    const subText = sub ? ` ${sub} of` : '';
    const article = verb === 'list' ? ' objects of kind ' : verb === 'create' || verb === 'delete' ? articleFor(K) : verb === 'deletecollection' ? ' ' : ' the specified ';
    const description = verb === 'patch' ? `partially update${subText}${article}${K}` : verb === 'deletecollection' ? `delete collection of${subText ? `${subText} a` : ''}${article}${K}` : `${verb}${subText}${article}${K}`;
    const options = action === 'get' ? GET_PARAMS : action === 'list' || action === 'deletecollection' ? LIST_PARAMS : action === 'delete' ? DELETE_PARAMS : CREATE_PARAMS;
    const responses: Route['responses'] = [[200, 'OK', sample]];
    if (action === 'post') responses.push([201, 'Created', sample], [202, 'Accepted', sample]);
    if (action === 'put') responses.push([201, 'Created', sample]);
    if (action === 'delete') responses.push([202, 'Accepted', sample]);
    const Sub = sub ? sub.charAt(0).toUpperCase() + sub.slice(1) : '';
    routes.push({
      path,
      method,
      verbPrefix: verb === 'deletecollection' ? 'delete' : verb,
      opRest: `${verb === 'deletecollection' ? 'Collection' : ''}${scoped}${K}${Sub}`,
      description,
      consumes: method === 'patch' ? PATCH_MIMES : MIMES,
      produces: MIMES,
      parameters: [PRETTY, ...nsParams, ...(item ? [nameParam] : []), ...options],
      responses,
      action,
      gvk,
      tagPath,
      ...extra,
    });
  };
  const withBody = (b: BodyParameter, r: Route[]): void => {
    r[r.length - 1]!.parameters.unshift(b);
  };
  if (kind.namespaced) {
    add(`${tagPath}/${kind.resource}`, '', 'get', 'list', 'list', listDef, { parameters: [PRETTY, ...LIST_PARAMS], verbPrefix: 'list', opRest: `${K}ForAllNamespaces` });
  }
  add(root, '', 'get', 'list', 'list', listDef);
  add(root, '', 'post', 'post', 'create', def);
  withBody(body(def, true), routes);
  add(root, '', 'delete', 'deletecollection', 'deletecollection', META.status);
  const item = `${root}/{name}`;
  add(item, '', 'get', 'get', 'read', def);
  add(item, '', 'put', 'put', 'replace', def);
  withBody(body(def, true), routes);
  add(item, '', 'delete', 'delete', 'delete', META.status);
  withBody(body(META.deleteOptions, false), routes);
  add(item, '', 'patch', 'patch', 'patch', def);
  withBody(body(META.patch, true), routes);
  for (const [sub, on, sample] of [['status', v.status, def], ['scale', v.scale, SCALE]] as const) {
    if (!on) continue;
    add(`${item}/${sub}`, sub, 'get', 'get', 'read', sample);
    add(`${item}/${sub}`, sub, 'put', 'put', 'replace', sample);
    withBody(body(sample, true), routes);
    add(`${item}/${sub}`, sub, 'patch', 'patch', 'patch', sample);
    withBody(body(META.patch, true), routes);
  }
  return routes;
}

/** Routes of every served version of a custom kind. */
export function customResourceRoutes(kind: KindDescriptor): Route[] {
  return servedVersions(kind).flatMap((v) => versionRoutes(kind, v));
}

/** The kind and list-kind definitions of every served version (v2 or v3 form), by name. */
export function customResourceDefinitions(kind: KindDescriptor, v2: boolean, version?: string): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const v of servedVersions(kind)) {
    if (version !== undefined && v.name !== version) continue;
    const k = published(kind, v.name, v.schema);
    out.set(customResourceDefinitionName(kind.group, v.name, kind.kind), customResourceSchema(k, { v2 }));
    out.set(customResourceDefinitionName(kind.group, v.name, kind.listKind), customResourceListSchema(k, { v2 }));
  }
  return out;
}

/** `apis/<group>/<version>` keys of the v3 documents custom kinds publish, each with its kinds. */
export function customResourceGroupVersions(kinds: readonly KindDescriptor[]): Map<string, { version: string; kinds: KindDescriptor[] }> {
  const out = new Map<string, { version: string; kinds: KindDescriptor[] }>();
  for (const kind of kinds) {
    if (!isCustomResource(kind)) continue;
    for (const v of servedVersions(kind)) {
      const key = `apis/${kind.group}/${v.name}`;
      const e = out.get(key) ?? { version: v.name, kinds: [] };
      e.kinds.push(kind);
      out.set(key, e);
    }
  }
  return out;
}

/** The v3 document's info of a CRD group version (the CRD builder's config, not kube-apiserver's). */
export const CRD_V3_INFO = { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' };
