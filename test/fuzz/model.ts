/**
 * What the fuzzer knows of the server, all read from the server itself: every resource and
 * subresource with its verbs and scope (discovery: /api, /apis and each group version's
 * APIResourceList), each kind's OpenAPI v3 schema (/openapi/v3), real objects to mutate (the
 * first items of each list), and what the run itself stored (for the read-back checks).
 */
import type { FuzzClient, Sent } from './client.ts';

export interface Resource {
  group: string;
  version: string;
  /** Plural, e.g. `pods`. */
  plural: string;
  /** Subresource (`status`, `scale`, …) or ''. */
  sub: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

export interface Model {
  resources: Resource[];
  /** apiVersion/kind → OpenAPI v3 schema of the kind (refs resolved on demand through `schemas`). */
  kindSchemas: Map<string, any>;
  schemas: Map<string, any>;
  /** apiVersion/kind → real objects read from the server (metadata trimmed to what a client sends). */
  seeds: Map<string, any[]>;
  /** The fuzzer's own namespaces (created up front). */
  namespaces: string[];
  /** Objects this run stored: item path → the request that stored them last and the answer's object. */
  stored: Map<string, { by: string; object: any; resource: Resource; sentAt: number }>;
  /** Item paths per resource key (`group/version/plural`) this run created, to address them again. */
  names: Map<string, string[]>;
}

export const gvOf = (r: Resource): string => (r.group ? `${r.group}/${r.version}` : r.version);
export const keyOf = (r: Resource): string => `${r.group}/${r.version}/${r.plural}`;
export const prefixOf = (r: Resource): string => (r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`);

async function getJson(c: FuzzClient, path: string): Promise<any> {
  const a = await c.send({ method: 'GET', path, headers: { accept: 'application/json' } });
  if (a.status !== 200) throw new Error(`GET ${path}: HTTP ${a.status} ${a.body.toString().slice(0, 300)}`);
  return JSON.parse(a.body.toString());
}

/** Every resource the server serves, from discovery alone. */
export async function discover(c: FuzzClient): Promise<Resource[]> {
  const gvs: string[] = [];
  for (const v of (await getJson(c, '/api')).versions) gvs.push(v);
  for (const g of (await getJson(c, '/apis')).groups) for (const v of g.versions) gvs.push(v.groupVersion);
  const out: Resource[] = [];
  for (const gv of gvs) {
    const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
    const list = await getJson(c, group ? `/apis/${gv}` : `/api/${gv}`);
    for (const r of list.resources) {
      const [plural, sub = ''] = String(r.name).split('/');
      out.push({ group, version, plural, sub, kind: r.kind, namespaced: !!r.namespaced, verbs: r.verbs ?? [] });
    }
  }
  return out;
}

/** Every kind's schema from /openapi/v3 (each group version's document). */
export async function loadSchemas(c: FuzzClient): Promise<{ kindSchemas: Map<string, any>; schemas: Map<string, any> }> {
  const index = await getJson(c, '/openapi/v3');
  const kindSchemas = new Map<string, any>();
  const schemas = new Map<string, any>();
  for (const [name, entry] of Object.entries<any>(index.paths)) {
    if (!/^(api\/v1|apis\/[^/]+\/[^/]+)$/.test(name)) continue;
    const doc = await getJson(c, entry.serverRelativeURL);
    for (const [id, s] of Object.entries<any>(doc.components?.schemas ?? {})) {
      schemas.set(id, s);
      for (const gvk of s['x-kubernetes-group-version-kind'] ?? []) {
        kindSchemas.set(`${gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version}/${gvk.kind}`, s);
      }
    }
  }
  return { kindSchemas, schemas };
}

/** Follow `$ref` (bare or wrapped in allOf, as OpenAPI v3 writes it). */
export function deref(schemas: Map<string, any>, s: any): any {
  for (let i = 0; i < 8 && s; i++) {
    const ref = s.$ref ?? (Array.isArray(s.allOf) && s.allOf.length === 1 ? s.allOf[0].$ref : undefined);
    if (!ref) return s;
    s = schemas.get(String(ref).replace('#/components/schemas/', ''));
  }
  return s ?? {};
}

/** A tiny deterministic PRNG (mulberry32), so a schema sample is a function of one generated integer. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SAMPLE_STRINGS = ['x', 'a-b', 'foo.bar', '', '1', '100m', '1Gi', 'TCP', 'Always', 'None', 'ClusterIP', 'Exists', 'In', '10.0.0.1', 'true', '*', 'kube-system', 'é', '2024-01-01T00:00:00Z'];

/**
 * An object following `schema`: every required field, and each optional one with probability
 * `p` (down to depth 6); values from a small set of plausible ones, so some samples validate.
 */
export function sample(schemas: Map<string, any>, schema: any, rand: () => number, p = 0.3, depth = 0): unknown {
  const s = deref(schemas, schema);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  if (s['x-kubernetes-int-or-string']) return rand() < 0.5 ? pick([1, 80, 0]) : pick(['1', '50%', 'http']);
  if (s['x-kubernetes-preserve-unknown-fields'] && !s.properties) return {};
  switch (s.type) {
    case 'string':
      if (s.enum) return pick(s.enum);
      if (s.format === 'byte') return 'eA==';
      if (s.format === 'date-time') return '2024-01-01T00:00:00Z';
      return pick(SAMPLE_STRINGS);
    case 'integer':
      return pick([0, 1, 2, 80, -1]);
    case 'number':
      return pick([0, 1, 0.5]);
    case 'boolean':
      return rand() < 0.5;
    case 'array':
      if (depth > 6) return [];
      return Array.from({ length: rand() < 0.6 ? 1 : 0 }, () => sample(schemas, s.items ?? {}, rand, p, depth + 1));
    default: {
      if (s.additionalProperties && !s.properties) {
        if (depth > 6 || rand() < 0.5) return {};
        return { [pick(['a', 'app', 'x.io/k'])]: sample(schemas, s.additionalProperties, rand, p, depth + 1) };
      }
      const out: Record<string, unknown> = {};
      const required = new Set<string>(s.required ?? []);
      for (const [k, sub] of Object.entries<any>(s.properties ?? {})) {
        if (k === 'apiVersion' || k === 'kind' || k === 'metadata' || k === 'status') continue;
        if (required.has(k) || (depth < 6 && rand() < p)) out[k] = sample(schemas, sub, rand, p / 1.5, depth + 1);
      }
      return out;
    }
  }
}

/** Trim an object read from the server to what a client would send back (no server-set metadata). */
export function asSeed(obj: any): any {
  const o = structuredClone(obj);
  if (o.metadata) {
    for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation', 'selfLink', 'deletionTimestamp']) delete o.metadata[k];
  }
  return o;
}

/** Real objects of each listable kind (at most 3 a kind). */
export async function loadSeeds(c: FuzzClient, resources: Resource[]): Promise<Map<string, any[]>> {
  const seeds = new Map<string, any[]>();
  for (const r of resources) {
    if (r.sub || !r.verbs.includes('list')) continue;
    const a = await c.send({ method: 'GET', path: `${prefixOf(r)}/${r.plural}?limit=3`, headers: { accept: 'application/json' } });
    if (a.status !== 200) continue;
    const items = (JSON.parse(a.body.toString()).items ?? []).map((o: any) => asSeed({ apiVersion: gvOf(r), kind: r.kind, ...o }));
    seeds.set(`${gvOf(r)}/${r.kind}`, items);
  }
  return seeds;
}

/** Describe a request for a failure message (body cut at 2 KB, binary as hex). */
export function describe(s: Sent): string {
  const h = Object.entries(s.headers).map(([k, v]) => `  ${k}: ${v}`).join('\n');
  let body = '';
  if (s.body) {
    const text = s.body.toString('utf8');
    const printable = !/[\u0000-\u0008\u000e-\u001f]/.test(text) && !text.includes('\ufffd');
    body = printable ? text.slice(0, 2000) + (text.length > 2000 ? `… (${text.length} chars)` : '') : `<${s.body.length} bytes> ${s.body.subarray(0, 400).toString('hex')}`;
  }
  return `${s.method} ${s.path}\n${h}${body ? `\n\n${body}` : ''}`;
}
