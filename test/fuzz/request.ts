/**
 * A plan (arbitraries.ts) made concrete against the model: the request to send, and what it is
 * (resource, verb, the item it addresses) for the invariants and the bookkeeping of stored objects.
 */
import { stringify as toYaml } from 'yaml';
import { encodeProtobuf } from '../../internal/http/protobuf.ts';
import type { Sent } from './client.ts';
import type { BodyPlan, Json, Mutation, PathRewrite, Plan, TextMutation } from './arbitraries.ts';
import { gvOf, keyOf, prefixOf, rng, sample, type Model, type Resource } from './model.ts';

export interface Resolved {
  sent: Sent;
  resource: Resource;
  /** The discovery verb, or `odd` for a method the resource does not list. */
  verb: string;
  /** The query as sent (decoded pairs). */
  query: [string, string][];
}

/**
 * Writes of these kinds are sent with dryRun=All: a stored webhook configuration pointing nowhere
 * fails every later matching request with kube's 500 `failed calling webhook` (kube does the same),
 * which would end the fuzzing of every other kind. Their validation still runs in full.
 */
const DRY_RUN_ONLY = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'APIService']);

/** The JSON paths of an object (arrays and objects included), root first. */
export function pathsOf(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (out.length > 400) return out;
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) pathsOf(x, [...at, k], out);
  return out;
}

function getAt(root: any, p: (string | number)[]): any {
  return p.reduce((o, k) => (o == null ? undefined : o[k]), root);
}

function mutate(root: any, mu: Mutation): any {
  const m = 'value' in mu ? { ...mu, value: structuredClone(mu.value) } : mu;
  const paths = pathsOf(root);
  const p = paths[m.at % paths.length];
  if (p.length === 0) return m.op === 'delete' ? {} : m.op === 'add' ? { ...(root && typeof root === 'object' && !Array.isArray(root) ? root : {}), [m.key]: m.value } : m.value;
  const parent = getAt(root, p.slice(0, -1));
  const key = p[p.length - 1];
  if (parent == null || typeof parent !== 'object') return root;
  if (m.op === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else if (m.op === 'add') {
    const target = parent[key];
    if (target && typeof target === 'object' && !Array.isArray(target)) target[m.key] = m.value;
    else if (Array.isArray(target)) target.push(m.value);
    else parent[key] = m.value;
  } else parent[key] = m.value;
  return root;
}

const pointer = (p: (string | number)[]): string => p.map((k) => '/' + String(k).replace(/~/g, '~0').replace(/\//g, '~1')).join('');

function schemaFor(m: Model, r: Resource): { apiVersion: string; kind: string; schema: any } {
  const sub: Record<string, [string, string]> = { scale: ['autoscaling/v1', 'Scale'], binding: ['v1', 'Binding'], eviction: ['policy/v1', 'Eviction'], token: ['authentication.k8s.io/v1', 'TokenRequest'] };
  const [apiVersion, kind] = sub[r.sub] ?? [gvOf(r), r.kind];
  let schema = m.kindSchemas.get(`${apiVersion}/${kind}`);
  if (!schema) for (const [k, s] of m.kindSchemas) if (k.endsWith(`/${kind}`)) schema = s;
  return { apiVersion, kind, schema: schema ?? { type: 'object' } };
}

/** The base object of a body plan, named and placed, then mutated. */
function objectFor(m: Model, r: Resource, b: BodyPlan, name: string, ns: string | undefined): any {
  const { apiVersion, kind, schema } = schemaFor(m, r);
  const seeds = m.seeds.get(`${apiVersion}/${kind}`) ?? [];
  let obj: any;
  if (b.base === 'seed' && seeds.length) obj = structuredClone(seeds[b.sampleSeed % seeds.length]);
  else if (b.base === 'sample' || b.base === 'seed') obj = { apiVersion, kind, ...(sample(m.schemas, schema, rng(b.sampleSeed)) as object) };
  else obj = { apiVersion, kind };
  obj.metadata = { ...(obj.metadata ?? {}), name };
  if (ns !== undefined && r.namespaced) obj.metadata.namespace = ns;
  else delete obj.metadata.namespace;
  for (const mu of b.mutations) obj = mutate(obj, mu);
  return obj;
}

function patchFor(obj: any, b: BodyPlan, patchType: string): Json {
  if (patchType.includes('json-patch')) {
    const paths = pathsOf(obj);
    return b.ops.map((o) => {
      const op: Record<string, Json> = { op: o.op, path: pointer(paths[o.at % paths.length]) };
      if (o.op !== 'remove') op.value = o.value;
      if (o.op === 'move' || o.op === 'copy') op.from = pointer(paths[o.from % paths.length]);
      return op;
    });
  }
  if (patchType.includes('apply')) return obj;
  const out: Record<string, Json> = {};
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return obj; // a body mutated into a scalar or list stays one
  const keys = Object.keys(obj);
  keys.forEach((k, i) => {
    if (i < Math.ceil(keys.length * b.keep)) out[k] = obj[k];
  });
  if (b.directive === '$patch') out.$patch = ['replace', 'delete', 'merge', 'bogus'][b.sampleSeed % 4];
  else if (b.directive === '$retainKeys') out.$retainKeys = keys.slice(0, 1);
  else if (b.directive) out[`${b.directive}/metadata`] = ['x'];
  return out;
}

function mutateText(buf: Buffer, t: TextMutation): Buffer {
  switch (t.op) {
    case 'truncate':
      return buf.subarray(0, buf.length ? t.at % buf.length : 0);
    case 'flip': {
      const c = Buffer.from(buf);
      if (c.length) c[t.at % c.length] = t.byte;
      return c;
    }
    case 'duplicate-key': {
      const s = buf.toString();
      const i = s.indexOf('"name":');
      return Buffer.from(i < 0 ? s.replace('{', '{"kind":"Dup","kind":"Dup2",') : s.slice(0, i) + '"name":"dup-a",' + s.slice(i));
    }
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]);
    case 'append':
      return Buffer.concat([buf, Buffer.from(t.text)]);
    case 'nest':
      return Buffer.from('['.repeat(t.depth) + ']'.repeat(t.depth));
  }
}

function encodeBody(obj: Json, b: BodyPlan): { body: Buffer; type: string } {
  switch (b.encoding) {
    case 'json':
      return { body: Buffer.from(JSON.stringify(obj)), type: 'application/json' };
    case 'json-pretty':
      return { body: Buffer.from(JSON.stringify(obj, null, 2)), type: 'application/json' };
    case 'yaml':
      return { body: Buffer.from(toYaml(obj)), type: 'application/yaml' };
    case 'protobuf':
      try {
        return { body: encodeProtobuf(obj), type: 'application/vnd.kubernetes.protobuf' };
      } catch {
        return { body: Buffer.from(JSON.stringify(obj)), type: 'application/vnd.kubernetes.protobuf' };
      }
    case 'text':
      return { body: Buffer.from(b.text), type: b.sampleSeed % 2 ? 'application/json' : 'application/yaml' };
    case 'bytes':
      return { body: Buffer.from(b.bytes), type: 'application/vnd.kubernetes.protobuf' };
  }
}

/** Encode for the request target: everything node refuses to send (and `#`) always %-escaped. */
const safe = (s: string, all: boolean): string => (all ? encodeURIComponent(s) : s.replace(/[^\x21-\x7e]|#/gu, (c) => encodeURIComponent(c).replace(/%25/g, '%')));

function rewrite(path: string, w: PathRewrite): string {
  const segs = path.split('/');
  const at = (n: number): number => 1 + (n % Math.max(1, segs.length - 1));
  switch (w.op) {
    case 'trailing-slash':
      return path + '/';
    case 'double-slash':
      segs.splice(at(w.at), 0, '');
      break;
    case 'segment':
      segs[at(w.at)] = w.with;
      break;
    case 'append':
      segs.push(w.segment);
      break;
    case 'upper':
      segs[at(w.at)] = segs[at(w.at)].toUpperCase();
      break;
    case 'drop':
      if (segs.length > 2) segs.splice(at(w.at), 1);
      break;
  }
  return segs.join('/');
}

export function resolve(m: Model, plan: Plan, serial: number): Resolved {
  const p: Plan = plan.sane
    ? { ...plan, pathRewrite: null, contentType: null, extraHeaders: [], accept: 'application/json', nsPick: plan.nsPick % 2, query: plan.query.filter(([k]) => !['resourceVersion', 'continue', 'timeout', 'limit'].includes(k)), body: { ...plan.body, textMutation: null, mutations: plan.body.mutations.slice(0, 1), encoding: plan.body.encoding === 'protobuf' ? 'protobuf' : plan.body.encoding === 'yaml' ? 'yaml' : 'json', base: plan.body.base === 'none' ? 'seed' : plan.body.base } }
    : plan;
  const r = m.resources[p.resource % m.resources.length];
  const vi = p.verb % (r.verbs.length + 1);
  let verb = vi < r.verbs.length ? r.verbs[vi] : 'odd';
  const write = !['get', 'list', 'watch'].includes(verb);
  // Namespace and name.
  let ns: string | undefined;
  if (r.namespaced) ns = p.nsPick < 2 ? m.namespaces[p.nsPick] : p.nsPick === 2 ? 'fz-missing' : p.nsPick === 3 ? safe(p.ns, true) : undefined;
  let name = safe(p.name, true);
  let itemPath: string | undefined;
  const stored = m.names.get(keyOf(r)) ?? [];
  if (p.namePick === 'stored' && stored.length) itemPath = stored[p.nameIndex % stored.length];
  else if (p.namePick === 'seed' && !write) {
    const seeds = m.seeds.get(`${gvOf(r)}/${r.kind}`) ?? [];
    const s = seeds[p.nameIndex % Math.max(1, seeds.length)];
    if (s?.metadata?.name) {
      name = encodeURIComponent(s.metadata.name);
      ns = s.metadata.namespace ?? ns;
    }
  }
  if (itemPath) {
    const m2 = /\/namespaces\/([^/]+)\/[^/]+\/([^/]+)$/.exec(itemPath) ?? /\/([^/]+)$/.exec(itemPath);
    if (m2 && r.namespaced && m2.length === 3) [ns, name] = [m2[1], m2[2]];
    else if (m2) name = m2[m2.length - 1];
  }
  if (verb === 'create' && !r.sub) name = `fz-${serial.toString(36)}-${p.body.sampleSeed.toString(36)}`;
  // Cluster-scoped collections are the server's own (RBAC bootstrap, priority classes, …): never wiped.
  if (verb === 'deletecollection' && (!r.namespaced || ns === undefined)) verb = 'list';
  const collection = `${prefixOf(r)}${ns !== undefined && r.namespaced ? `/namespaces/${ns}` : ''}/${r.plural}`;
  const item = `${collection}/${name}${r.sub ? `/${r.sub}` : ''}`;
  let method: string;
  let path: string;
  switch (verb) {
    case 'list':
    case 'watch':
      [method, path] = ['GET', r.sub ? item : collection];
      break;
    case 'create':
      [method, path] = ['POST', r.sub ? item : collection];
      break;
    case 'deletecollection':
      [method, path] = ['DELETE', collection];
      break;
    case 'get':
      [method, path] = ['GET', item];
      break;
    case 'update':
      [method, path] = ['PUT', item];
      break;
    case 'patch':
      [method, path] = ['PATCH', item];
      break;
    case 'delete':
      [method, path] = ['DELETE', item];
      break;
    default:
      [method, path] = [p.oddMethod, p.nameIndex % 2 ? item : collection];
      // Not a deletecollection of a cluster-scoped resource either (see above).
      if (method === 'DELETE' && !r.namespaced) path = item;
  }
  // Query.
  let query = p.query.filter(([k]) => k !== 'timeoutSeconds' || !p.query.some(([k2]) => k2 === 'watch'));
  if (verb === 'watch') query.push(['watch', 'true']);
  // Every watch is bounded (the run must not hang): timeoutSeconds=1 replaces whatever was drawn.
  if (query.some(([k]) => k === 'watch') || p.accept.includes('watch')) query = [...query.filter(([k]) => k !== 'timeoutSeconds'), ['timeoutSeconds', '1']];
  const patchType = method === 'PATCH' ? p.patchType : '';
  if (patchType.includes('apply') && !query.some(([k]) => k === 'fieldManager')) query.push(['fieldManager', 'fz']);
  if (DRY_RUN_ONLY.has(r.kind) && method !== 'GET') query = [...query.filter(([k]) => k !== 'dryRun'), ['dryRun', 'All']];
  if (query.length) path += '?' + query.map(([k, v]) => `${safe(k, p.encodeQuery)}=${safe(v, p.encodeQuery)}`).join('&');
  if (p.pathRewrite) path = rewrite(path.split('?')[0], p.pathRewrite) + (path.includes('?') ? '?' + path.split('?').slice(1).join('?') : '');
  // Body.
  const headers: Record<string, string> = {};
  if (p.accept) headers.accept = p.accept;
  let body: Buffer | undefined;
  const wantsBody = ['POST', 'PUT', 'PATCH'].includes(method) || (method === 'DELETE' && p.body.base !== 'none' && p.body.sampleSeed % 4 === 0);
  if (wantsBody && p.body.base !== 'none') {
    let obj: Json;
    if (method === 'DELETE') obj = { kind: 'DeleteOptions', apiVersion: 'v1', ...(p.body.mutations.length ? mutate({}, p.body.mutations[0]) : {}), propagationPolicy: 'Background' };
    else obj = objectFor(m, r, p.body, decodeURIComponent(name), ns && decodeSafe(ns));
    if (patchType) obj = patchFor(obj, p.body, patchType);
    let enc = encodeBody(obj, p.body);
    if (patchType && p.body.encoding !== 'yaml' && !['text', 'bytes'].includes(p.body.encoding)) enc = { body: Buffer.from(JSON.stringify(obj)), type: patchType };
    body = p.body.textMutation ? mutateText(enc.body, p.body.textMutation) : enc.body;
    headers['content-type'] = patchType || enc.type;
  } else if (wantsBody && patchType) headers['content-type'] = patchType;
  if (p.contentType !== null && (body || p.body.sampleSeed % 3 === 0)) headers['content-type'] = p.contentType;
  for (const [k, v] of p.extraHeaders) headers[k] = v;
  return { sent: { method, path, headers, body }, resource: r, verb, query };
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
