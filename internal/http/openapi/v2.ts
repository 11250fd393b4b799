/**
 * The OpenAPI v2 (swagger 2.0) document of what this server serves, built the way kube-openapi's
 * builder builds kube-apiserver's: paths from the registry's routes (parameters shared by every
 * operation of a path move to the path, both lists sorted by name), definitions as the closure of
 * the types the operations refer to, rendered from the generated schemas plus their descriptions.
 */
import type { Registry } from '../../registry/registry.ts';
import type { GroupVersionKind, OpenApiSchema } from '../../schema/types.ts';
import { type Route, type Parameter, type DefinitionOf, METHOD_ORDER, STRING_RESPONSE, kindRoutes, discoveryRoutes, operationIdAndTags } from './routes.ts';
import { customResourceDefinitions, customResourceRoutes, isCustomResource } from './custom-resource.ts';

/** Where definitions come from (the generated schemas, later a CRD's). */
export interface DefinitionProvider {
  /** Definition name of a kind in a group/version. */
  nameOf: DefinitionOf;
  /** The compacted definition (bare `$ref` names, `x-go` annotations). */
  definition(name: string): OpenApiSchema | undefined;
  /** Descriptions: '' = the type, 'a.b' = field a.b. */
  descriptions(name: string): Record<string, string> | undefined;
}

/** A JSON object of a document being built. */
export type Json = Record<string, unknown>;

const REF_PREFIX = '#/definitions/';

/**
 * Go's json key order for spec.Schema fields we emit; extensions follow, sorted. No `default`:
 * kube-apiserver prunes every default from the v2 definitions (kube-openapi handler.PruneDefaults);
 * only v3 serves them.
 */
const SCHEMA_KEYS = ['description', 'type', 'format', 'enum', 'required', 'items', '$ref', 'properties', 'additionalProperties'];

/**
 * A compacted node → the published form: refs prefixed, `x-go` dropped, descriptions restored.
 * `path` is the dotted field path inside the definition (descriptions are keyed by it).
 */
function renderSchema(node: OpenApiSchema, descs: Record<string, string> | undefined, path: string, refs: Set<string>): Json {
  const out: Json = {};
  const src = node as Record<string, unknown>;
  for (const k of SCHEMA_KEYS) {
    if (k === 'description') {
      const d = descs?.[path];
      if (d) out.description = d;
      continue;
    }
    const v = src[k];
    if (v === undefined) continue;
    if (k === '$ref') {
      refs.add(v as string);
      out.$ref = REF_PREFIX + (v as string);
    } else if (k === 'items') out.items = renderSchema(v as OpenApiSchema, undefined, '', refs);
    else if (k === 'additionalProperties') out.additionalProperties = typeof v === 'object' ? renderSchema(v as OpenApiSchema, undefined, '', refs) : v;
    else if (k === 'properties') {
      const props: Json = {};
      for (const name of Object.keys(v as object).sort()) props[name] = renderSchema((v as Record<string, OpenApiSchema>)[name]!, descs, path ? `${path}.${name}` : name, refs);
      out.properties = props;
    } else out[k] = v;
  }
  for (const k of Object.keys(src).filter((x) => x.startsWith('x-') && x !== 'x-go').sort()) out[k] = src[k];
  return out;
}

/** The definitions named in `roots` and every definition they refer to, sorted by name. */
export function definitionsClosure(roots: Iterable<string>, provider: DefinitionProvider): Json {
  const rendered = new Map<string, Json>();
  const queue = [...roots];
  while (queue.length) {
    const name = queue.pop()!;
    if (rendered.has(name)) continue;
    const def = provider.definition(name);
    if (!def) throw new Error(`openapi: no schema for definition ${name}`);
    const refs = new Set<string>();
    rendered.set(name, renderSchema(def, provider.descriptions(name), '', refs));
    for (const r of refs) if (!rendered.has(r)) queue.push(r);
  }
  const out: Json = {};
  for (const name of [...rendered.keys()].sort()) out[name] = rendered.get(name)!;
  return out;
}

export const paramKey = (p: Parameter): string => `${p.name}\u0000${p.in}`;
export const byNameIn = (a: Parameter, b: Parameter): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.in < b.in ? -1 : a.in > b.in ? 1 : 0);

function renderParam(p: Parameter): Json {
  if (p.in === 'body') return { name: p.name, in: p.in, ...(p.required ? { required: true } : {}), schema: { $ref: REF_PREFIX + p.schema.$ref } };
  return { ...p };
}

/** The definition names a route refers to. */
function routeRefs(r: Route): string[] {
  const out: string[] = [];
  for (const p of r.parameters) if (p.in === 'body') out.push(p.schema.$ref);
  for (const [, , def] of r.responses) if (def && def !== STRING_RESPONSE) out.push(def);
  return out;
}


/** Path items keyed by path (sorted), as kube-openapi's buildPaths groups routes. */
/**
 * Routes grouped by path, paths sorted, with the parameters every operation of a path shares
 * (never the body): both OpenAPI versions declare those once on the path item.
 */
export function pathGroups(routes: Route[]): { path: string; rs: Route[]; common: Map<string, Parameter> }[] {
  const byPath = new Map<string, Route[]>();
  for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  return [...byPath.keys()].sort().map((path) => {
    const rs = byPath.get(path)!;
    const counts = new Map<string, number>();
    for (const r of rs) for (const p of r.parameters) counts.set(paramKey(p), (counts.get(paramKey(p)) ?? 0) + 1);
    const common = new Map<string, Parameter>();
    for (const r of rs) for (const p of r.parameters) if (p.in !== 'body' && counts.get(paramKey(p)) === rs.length) common.set(paramKey(p), p);
    return { path, rs, common };
  });
}

export function buildPaths(routes: Route[]): Json {
  const paths: Json = {};
  for (const { path, rs, common } of pathGroups(routes)) {
    const item: Json = {};
    for (const m of METHOD_ORDER) {
      const r = rs.find((x) => x.method === m);
      if (!r) continue;
      const { id, tags } = operationIdAndTags(r);
      const op: Json = { description: r.description, consumes: r.consumes, produces: r.produces, schemes: ['https'], tags, operationId: id };
      const own = r.parameters.filter((p) => !common.has(paramKey(p))).sort(byNameIn);
      if (own.length) op.parameters = own.map(renderParam);
      const responses: Json = {};
      for (const [code, desc, def] of r.responses) responses[String(code)] = def ? { description: desc, schema: def === STRING_RESPONSE ? { type: 'string' } : { $ref: REF_PREFIX + def } } : { description: desc };
      responses['401'] = { description: 'Unauthorized' };
      op.responses = responses;
      if (r.action) op['x-kubernetes-action'] = r.action;
      if (r.gvk) op['x-kubernetes-group-version-kind'] = { group: r.gvk.group, kind: r.gvk.kind, version: r.gvk.version };
      item[m] = op;
    }
    if (common.size) item.parameters = [...common.values()].sort(byNameIn).map(renderParam);
    paths[path] = item;
  }
  return paths;
}

/**
 * Every route of the built-in kinds: discovery, then each kind at each served version. Custom
 * kinds are described apart (custom-resource.ts), and a group only custom kinds serve has no
 * discovery route: kube serves a CRD group's discovery outside go-restful, so it publishes none.
 */
export function servedRoutes(registry: Registry, nameOf: DefinitionOf): Route[] {
  const builtIn = registry.kinds.filter(({ kind }) => !isCustomResource(kind));
  const gvs = new Set(builtIn.flatMap(({ kind }) => kind.versions.map((v) => `${kind.group}/${v}`)));
  const groups = new Map<string, string[]>();
  for (const [g, vs] of registry.groups()) {
    const kept = vs.filter((v) => gvs.has(`${g}/${v}`));
    if (kept.length) groups.set(g, kept);
  }
  const routes = discoveryRoutes(groups);
  for (const { kind } of builtIn) for (const v of kind.versions) routes.push(...kindRoutes(kind, v, nameOf));
  return routes;
}

/** The definition names (`#/definitions/` or `#/components/schemas/` stripped) a rendered schema refers to. */
export function refsOf(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const x of node) refsOf(x, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.add(v.slice(v.lastIndexOf('/') + 1));
      else refsOf(v, out);
    }
  }
  return out;
}

/**
 * Custom kinds' routes and definitions (for one group version key, or all) over the generated
 * ones they refer to (ObjectMeta, ListMeta, Status, DeleteOptions, Patch, Scale): the routes, the
 * custom definitions, and the names of the generated definitions to add.
 */
export function customResourceParts(registry: Registry, v2: boolean, gvKey?: string): { routes: Route[]; defs: Map<string, Json>; roots: Set<string> } {
  const routes: Route[] = [];
  const defs = new Map<string, Json>();
  for (const { kind } of registry.kinds) {
    if (!isCustomResource(kind)) continue;
    for (const r of customResourceRoutes(kind)) if (gvKey === undefined || r.tagPath === `/${gvKey}`) routes.push(r);
    const version = gvKey === undefined ? undefined : gvKey.slice(gvKey.lastIndexOf('/') + 1);
    if (gvKey !== undefined && !gvKey.startsWith(`apis/${kind.group}/`)) continue;
    for (const [name, def] of customResourceDefinitions(kind, v2, version)) defs.set(name, def);
  }
  const roots = new Set<string>();
  for (const d of referencedDefinitions(routes)) if (!defs.has(d)) roots.add(d);
  for (const d of refsOf([...defs.values()])) if (!defs.has(d)) roots.add(d);
  return { routes, defs, roots };
}

/** The definition names the routes refer to. */
export function referencedDefinitions(routes: Route[]): Set<string> {
  const s = new Set<string>();
  for (const r of routes) for (const d of routeRefs(r)) s.add(d);
  return s;
}

/** The whole v2 document. `version` is info.version (kube: its git version without build suffix). */
export function buildSwagger(registry: Registry, provider: DefinitionProvider, version: string): Json {
  const builtIn = servedRoutes(registry, provider.nameOf);
  const custom = customResourceParts(registry, true);
  // builder.MergeSpecs: the built-in document, then the custom kinds' paths and definitions.
  const definitions = definitionsClosure([...referencedDefinitions(builtIn), ...custom.roots], provider);
  for (const [name, def] of custom.defs) definitions[name] = def;
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version },
    paths: buildPaths([...builtIn, ...custom.routes]),
    definitions: Object.fromEntries(Object.keys(definitions).sort().map((k) => [k, definitions[k]])),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}

/** The definition provider over the generated schemas. */
export function generatedProvider(source: { kind(g: GroupVersionKind): OpenApiSchema | undefined; definition(n: string): OpenApiSchema | undefined }, descriptions: (n: string) => Record<string, string> | undefined): DefinitionProvider {
  return {
    nameOf: (gvk) => source.kind(gvk)?.$ref,
    definition: (n) => source.definition(n),
    descriptions,
  };
}
