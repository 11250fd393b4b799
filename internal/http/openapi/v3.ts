/**
 * OpenAPI v3 documents, one per group version (kube-openapi builder3 as kube-apiserver 1.24 serves
 * them under `/openapi/v3/<gv>`): the same routes as v2, with request bodies and responses as
 * `content` per media type, parameters with a `schema`, and components from v3schema.ts. A document
 * holds the routes of one web service root (`api`, `api/v1`, `apis`, `apis/<g>`, `apis/<g>/<v>`,
 * `version`) and exactly the schemas they reach.
 */
import type { Registry } from '../../registry/registry.ts';
import { type Route, type Parameter, METHOD_ORDER, STRING_RESPONSE } from './routes.ts';
import { operationIdAndTags } from './routes.ts';
import { servedRoutes, pathGroups, paramKey, byNameIn, customResourceParts, type DefinitionProvider, type Json } from './v2.ts';
import { CRD_V3_INFO, customResourceGroupVersions } from './custom-resource.ts';
import { renderV3Definition } from './v3schema.ts';

const REF_PREFIX = '#/components/schemas/';


function renderParam(p: Parameter): Json {
  if (p.in === 'body') throw new Error('openapi v3: a body is a requestBody');
  const out: Json = { name: p.name, in: p.in, description: p.description };
  if (p.required) out.required = true;
  out.schema = { type: p.type, uniqueItems: p.uniqueItems };
  return out;
}

const content = (mimes: string[], def: string): Json => {
  const c: Json = {};
  for (const m of [...mimes].sort()) c[m] = { schema: def === STRING_RESPONSE ? { type: 'string' } : { $ref: REF_PREFIX + def } };
  return c;
};

function buildPathsV3(routes: Route[], refs: Set<string>): Json {
  const paths: Json = {};
  for (const { path, rs, common } of pathGroups(routes)) {
    const item: Json = {};
    for (const m of METHOD_ORDER) {
      const r = rs.find((x) => x.method === m);
      if (!r) continue;
      const { id, tags } = operationIdAndTags(r);
      const op: Json = { tags, description: r.description, operationId: id };
      const own = r.parameters.filter((p) => p.in !== 'body' && !common.has(paramKey(p))).sort(byNameIn);
      if (own.length) op.parameters = own.map(renderParam);
      const bodyParam = r.parameters.find((p) => p.in === 'body');
      if (bodyParam && bodyParam.in === 'body') {
        refs.add(bodyParam.schema.$ref);
        // builder3 drops the body's `required` (1.24 documents never mark a requestBody required).
        op.requestBody = { content: content(r.consumes, bodyParam.schema.$ref) };
      }
      const responses: Json = {};
      for (const [code, desc, def] of r.responses) {
        if (def && def !== STRING_RESPONSE) refs.add(def);
        responses[String(code)] = def ? { description: desc, content: content(r.produces, def) } : { description: desc };
      }
      responses['401'] = { description: 'Unauthorized' };
      op.responses = responses;
      if (r.action) op['x-kubernetes-action'] = r.action;
      if (r.gvk) op['x-kubernetes-group-version-kind'] = { group: r.gvk.group, version: r.gvk.version, kind: r.gvk.kind };
      item[m] = op;
    }
    if (common.size) item.parameters = [...common.values()].sort(byNameIn).map(renderParam);
    paths[path] = item;
  }
  return paths;
}

function schemasClosure(roots: Iterable<string>, provider: DefinitionProvider): Json {
  const rendered = new Map<string, Json>();
  const queue = [...roots];
  const isStruct = (ref: string): boolean => provider.definition(ref) !== undefined;
  while (queue.length) {
    const name = queue.pop()!;
    if (rendered.has(name)) continue;
    const def = provider.definition(name);
    if (!def) throw new Error(`openapi: no schema for definition ${name}`);
    const refs = new Set<string>();
    rendered.set(name, renderV3Definition(name, def, provider.descriptions(name), refs, isStruct));
    for (const r of refs) if (!rendered.has(r)) queue.push(r);
  }
  const out: Json = {};
  for (const n of [...rendered.keys()].sort()) out[n] = rendered.get(n)!;
  return out;
}

/** group-version key (`api/v1`, `apis/<g>/<v>`, …) → its v3 document. */
export function buildV3(registry: Registry, provider: DefinitionProvider, version: string): Map<string, Json> {
  const byRoot = new Map<string, Route[]>();
  for (const r of servedRoutes(registry, provider.nameOf)) {
    const key = r.tagPath.replace(/^\//, '');
    // kube-aggregator 1.24 publishes no v3 document of its own group (it is in /openapi/v2 only).
    if (key.startsWith('apis/apiregistration.k8s.io/') || key === 'apis/apiregistration.k8s.io') continue;
    byRoot.set(key, [...(byRoot.get(key) ?? []), r]);
  }
  const docs = new Map<string, Json>();
  for (const key of [...byRoot.keys()].sort()) {
    const refs = new Set<string>();
    const paths = buildPathsV3(byRoot.get(key)!, refs);
    docs.set(key, {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version },
      paths,
      components: {
        schemas: schemasClosure(refs, provider),
        securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
      },
    });
  }
  // The CRD builder's documents (builder.MergeSpecsV3 of a group version's CRDs): its own info,
  // no security schemes, and the meta schemas from its namer, which knows no GVKs.
  for (const [key] of customResourceGroupVersions(registry.kinds.map((k) => k.kind))) {
    const { routes, defs, roots } = customResourceParts(registry, false, key);
    const refs = new Set(roots);
    const paths = buildPathsV3(routes, refs);
    const schemas = schemasClosure([...refs].filter((r) => !defs.has(r)), provider);
    for (const name of Object.keys(schemas)) delete (schemas[name] as Json)['x-kubernetes-group-version-kind'];
    for (const [name, def] of defs) schemas[name] = def;
    docs.set(key, {
      openapi: '3.0.0',
      info: CRD_V3_INFO,
      paths,
      components: { schemas: Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]])) },
    });
  }
  return docs;
}
