/**
 * Schema generator: `npm run gen:schemas`.
 *
 * Reads Kubernetes 1.24's published OpenAPI v2 document (k8s.io/kubernetes@v1.24.17
 * api/openapi-spec/swagger.json, from the Go module cache; `go mod download` locates or fetches it)
 * and writes, under internal/schema/generated/:
 *   - `<package>.json` (e.g. core_v1.json, meta_v1.json): the definitions of the served kinds and of
 *     every type they reference, compacted to what the server needs at run time (types, formats,
 *     refs, required, defaults, enums and the x-kubernetes-* list/map/patch/GVK extensions);
 *   - `descriptions/<package>.json`: the descriptions, kept apart so the runtime schema stays small
 *     (OpenAPI serving and `kubectl explain` read them);
 *   - `manifest.json`: the root kinds: every kind the built-in kind descriptors carry in bodies
 *     (internal/registry/kind-types.ts), kinds already listed keeping their place. When the
 *     descriptors cannot load yet (a new kind's file imports files this writes), the manifest's kinds
 *     plus those named on the command line (`npm run gen:schemas -- apps/v1/Deployment`, core kinds
 *     `v1/Pod`); run it again once they load. docs/adding-a-kind.md is the recipe.
 *
 *   - `connect/core_v1.json`: the query parameters of the connect subresources' options kinds
 *     (PodLogOptions, PodExecOptions, … NodeProxyOptions), which are no definitions in the document
 *     but the parameters of their paths, described by the options' field docs.
 *
 * One annotation is not in the OpenAPI document: `x-go` on each property, how its Go field
 * serializes. kube-apiserver computes managedFields on Go objects, which differ from JSON bodies:
 * an omitempty field with a zero value is absent, a field without omitempty is present even when
 * zero, a non-pointer struct is always present. Codes: first letter `p` pointer, `s` struct,
 * `t` struct written as null when zero (metav1.Time), `q` resource.Quantity, `i` IntOrString,
 * `l` slice or map, `v` scalar; then `o` when the field is omitempty. Read from the Go sources of
 * the same module versions (k8s.io/api, k8s.io/apimachinery); absent when the field is not found.
 *
 * Also from the Go sources, because kube-apiserver serves them but the published swagger.json
 * lacks them: `enum` (+ kube-openapi's "Possible enum values" description lines) on fields whose
 * type is a `// +enum` string type, and `default` from `// +default=` field markers.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KUBE_MODULE = 'k8s.io/kubernetes@v1.24.17';
const STAGING_VERSION = 'v0.24.17';
const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'internal', 'schema', 'generated');

/** Meta types every API serves (Status bodies, DeleteOptions, watch events, discovery). */
const META_TYPES = [
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Status', 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions', 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  'io.k8s.apimachinery.pkg.version.Info',
  // the body of a custom resource's scale subresource (and its OpenAPI routes)
  'io.k8s.api.autoscaling.v1.Scale',
];

/** Schema keywords and extensions kept in the runtime files. */
const KEEP = new Set([
  'type', 'format', 'items', 'additionalProperties', '$ref', 'required', 'properties', 'default', 'enum',
  'x-kubernetes-patch-merge-key', 'x-kubernetes-patch-strategy', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type', 'x-kubernetes-group-version-kind', 'x-kubernetes-unions', 'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource',
]);

/** Go structs that serialize as a JSON scalar: x-go code by definition (see the header). */
const SCALAR_STRUCTS: Record<string, string> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 't',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 't',
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'q',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'i',
};

type Json = any; // the OpenAPI document is untyped JSON

/** Each connect options kind (rest.Connecter's NewConnectOptions) and the path whose query parameters are its fields. */
const CONNECT_OPTIONS: Record<string, string> = {
  PodLogOptions: '/api/v1/namespaces/{namespace}/pods/{name}/log',
  PodExecOptions: '/api/v1/namespaces/{namespace}/pods/{name}/exec',
  PodAttachOptions: '/api/v1/namespaces/{namespace}/pods/{name}/attach',
  PodPortForwardOptions: '/api/v1/namespaces/{namespace}/pods/{name}/portforward',
  PodProxyOptions: '/api/v1/namespaces/{namespace}/pods/{name}/proxy',
  ServiceProxyOptions: '/api/v1/namespaces/{namespace}/services/{name}/proxy',
  NodeProxyOptions: '/api/v1/nodes/{name}/proxy',
};

/**
 * The options kinds' fields as their paths' query parameters list them (name, type, description;
 * in the document's order), without the path's own `name`/`namespace` and the generic `pretty`.
 */
function connectOptions(paths: Record<string, Json>): Record<string, { name: string; type: string; description: string }[]> {
  const out: Record<string, { name: string; type: string; description: string }[]> = {};
  for (const [kind, path] of Object.entries(CONNECT_OPTIONS)) {
    const params: Json[] = paths[path]?.parameters ?? [];
    if (!params.length) throw new Error(`connect options ${kind}: no parameters at ${path}`);
    out[`io.k8s.api.core.v1.${kind}`] = params.filter((q) => q.in === 'query' && q.name !== 'pretty').map((q) => ({ name: q.name, type: q.type, description: q.description ?? '' }));
  }
  return out;
}

interface Manifest {
  source: string;
  kinds: string[];
  metaTypes: string[];
}

function moduleDir(mod: string): string {
  const cached = join(homedir(), '.cache', 'kube-ref', 'gopath', 'pkg', 'mod', mod);
  if (existsSync(cached)) return cached;
  const out = execFileSync('go', ['mod', 'download', '-json', mod], { encoding: 'utf8' });
  const dir = JSON.parse(out).Dir as string | undefined;
  if (!dir) throw new Error(`go mod download ${mod}: no Dir in ${out}`);
  return dir;
}

/** `group/version/Kind` (core: `v1/Kind`) → GVK. */
function parseKind(s: string): { group: string; version: string; kind: string } {
  const parts = s.split('/');
  if (parts.length === 2) return { group: '', version: parts[0], kind: parts[1] };
  if (parts.length === 3) return { group: parts[0], version: parts[1], kind: parts[2] };
  throw new Error(`kind "${s}": expected group/version/Kind or v1/Kind`);
}

/** The output file of a definition: its Go package, shortened (io.k8s.api.core.v1 → core_v1). */
export function fileOf(defName: string): string {
  const pkg = defName.slice(0, defName.lastIndexOf('.'));
  const short = pkg
    .replace(/^io\.k8s\.api\./, '')
    .replace(/^io\.k8s\.apimachinery\.pkg\.apis\./, '')
    .replace(/^io\.k8s\.apimachinery\.pkg\./, '')
    .replace(/^io\.k8s\.apiextensions-apiserver\.pkg\.apis\./, '')
    .replace(/^io\.k8s\.kube-aggregator\.pkg\.apis\./, '');
  return short.replace(/\./g, '_');
}

/** Go source directory of a definition's package, when it is one we can read. */
function goPackageDir(modRoot: string, defName: string): string | undefined {
  const pkg = defName.slice(0, defName.lastIndexOf('.'));
  let m: RegExpMatchArray | null;
  if ((m = pkg.match(/^io\.k8s\.api\.([\w-]+)\.(\w+)$/))) return join(modRoot, 'k8s.io', `api@${STAGING_VERSION}`, m[1], m[2]);
  if ((m = pkg.match(/^io\.k8s\.apimachinery\.pkg\.(.+)$/))) return join(modRoot, 'k8s.io', `apimachinery@${STAGING_VERSION}`, 'pkg', ...m[1].split('.'));
  if ((m = pkg.match(/^io\.k8s\.apiextensions-apiserver\.pkg\.(.+)$/))) return join(modRoot, 'k8s.io', `apiextensions-apiserver@${STAGING_VERSION}`, 'pkg', ...m[1].split('.'));
  if ((m = pkg.match(/^io\.k8s\.kube-aggregator\.pkg\.(.+)$/))) return join(modRoot, 'k8s.io', `kube-aggregator@${STAGING_VERSION}`, 'pkg', ...m[1].split('.'));
  return undefined;
}

interface GoField {
  type: string;
  omitempty: boolean;
  /** The type as Go's reflect prints it in decode errors (`v1.ServiceType`, `[]v1.Container`). */
  reflect: string;
  /** The field's doc comment lines (`//` and one space stripped), for `+default=` and enum types. */
  comments: string[];
}

/** An enum type of a package: a `// +enum` string type and the constants declared with it. */
interface GoEnum {
  /** Each typed constant: its name, value and doc comment (lines joined with spaces). */
  values: { name: string; value: string; comment: string }[];
}

/** A Go package as the generator sees it: its structs and its enum types. */
interface GoPackage {
  structs: Map<string, Map<string, GoField>>;
  enums: Map<string, GoEnum>;
  /** Every string constant of the package: name → value. */
  consts: Map<string, string>;
}

/** The value of another package's string constant (import path, constant name), if known. */
type ConstResolver = (importPath: string, name: string) => string | undefined;

/** `//` comment text as go/ast's CommentGroup.Text returns a line: marker and one space removed. */
const commentText = (line: string): string => line.trim().replace(/^\/\/ ?/, '').trimEnd();

/**
 * The `// +enum` types of a package's sources and their constants, read the way kube-openapi's
 * openapi-gen (gengo) reads them: a type is an enum when the comment block right above
 * `type X string` holds a `+enum` line; its values are the constants declared with type X
 * (`Name X = "value"`), each with the comment block right above it.
 */
function goEnums(sources: string[], resolveConst?: ConstResolver): { enums: Map<string, GoEnum>; values: Map<string, string> } {
  const enums = new Map<string, GoEnum>();
  const consts: { type: string; name: string; value: string; comment: string }[] = [];
  const values = new Map<string, string>();
  for (const src of sources) {
    const imports = new Map<string, string>();
    for (const m of src.matchAll(/^\s*(\w+)\s+"([^"]+)"/gm)) imports.set(m[1]!, m[2]!);
    const lines = src.split('\n');
    let block: string[] = [];
    let inConst = false;
    for (const line of lines) {
      if (/^\s*\/\//.test(line)) {
        block.push(commentText(line));
        continue;
      }
      if (/^const \($/.test(line)) inConst = true;
      else if (/^\)/.test(line)) inConst = false;
      const tm = line.match(/^type (\w+) string\s*$/);
      if (tm && block.some((c) => /^\+enum\s*$/.test(c))) enums.set(tm[1]!, { values: [] });
      const cm = line.match(inConst ? /^\s+(\w+)\s+(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"/ : /^const\s+(\w+)\s+(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"/);
      if (cm) consts.push({ name: cm[1]!, type: cm[2]!, value: JSON.parse(`"${cm[3]}"`) as string, comment: block.join(' ') });
      // `Name = Type("value")` and `Name = Type(pkg.Const)` (discovery's AddressType(v1.IPv4Protocol)).
      const conv = inConst ? line.match(/^\s+(\w+)\s*=\s*(\w+)\((?:"((?:[^"\\]|\\.)*)"|(\w+)\.(\w+))\)/) : null;
      if (conv) {
        const value = conv[3] !== undefined ? (JSON.parse(`"${conv[3]}"`) as string) : resolveConst?.(imports.get(conv[4]!) ?? '', conv[5]!);
        if (value !== undefined) consts.push({ name: conv[1]!, type: conv[2]!, value, comment: block.join(' ') });
      }
      block = [];
    }
  }
  for (const c of consts) {
    values.set(c.name, c.value);
    enums.get(c.type)?.values.push({ name: c.name, value: c.value, comment: c.comment });
  }
  return { enums, values };
}

/**
 * kube-openapi's rendering of an enum (pkg/generators/enum.go): the values Go-quoted and sorted,
 * and the description lines ` - \`"value"\` comment` (the comment without the constant's name
 * in front, whitespace runs collapsed), sorted, after a "Possible enum values:" paragraph.
 */
function enumSchema(e: GoEnum): { values: string[]; lines: string[] } {
  const byQuoted = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const values = [...e.values].sort((a, b) => byQuoted(JSON.stringify(a.value), JSON.stringify(b.value))).map((v) => v.value);
  const lines = e.values
    .map((v) => {
      const comment = v.comment.trim().replace(new RegExp(`^${v.name}`), '').trim().replace(/\s+/g, ' ');
      return ` - \`${JSON.stringify(v.value)}\` ${comment}`.trimEnd();
    })
    .sort(byQuoted);
  return { values, lines };
}

/**
 * The description kube-openapi builds for an enum field: the field's comment paragraphs, then
 * "Possible enum values:" and one indented line per value (its generateDescription turns an
 * indented comment line into a line of its own).
 */
export function enumDescription(fieldDescription: string | undefined, lines: string[]): string {
  const suffix = ['Possible enum values:', ...lines.map((l) => l.replace(/\\"/g, '"'))].join('\n');
  // The published swagger.json keeps the empty paragraph kube-openapi put before the (there
  // stripped) enum lines: the field text ends with "\n\n" there.
  const text = fieldDescription?.replace(/\n+$/, '');
  return text ? `${text}\n\n${suffix}` : suffix;
}

const GO_BUILTINS = new Set(['string', 'bool', 'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'byte', 'rune', 'interface{}']);

/**
 * A Go type expression from source → reflect.Type.String(): local names qualified with the
 * package name, import aliases replaced by the imported package's name, byte → uint8.
 */
function reflectTypeName(expr: string, pkgName: string, imports: Map<string, string>): string {
  if (expr.startsWith('*')) return '*' + reflectTypeName(expr.slice(1), pkgName, imports);
  if (expr.startsWith('[]')) return '[]' + reflectTypeName(expr.slice(2), pkgName, imports);
  if (expr.startsWith('map[')) {
    let depth = 0;
    let i = 3;
    for (; i < expr.length; i++) {
      if (expr[i] === '[') depth++;
      else if (expr[i] === ']' && --depth === 0) break;
    }
    return `map[${reflectTypeName(expr.slice(4, i), pkgName, imports)}]${reflectTypeName(expr.slice(i + 1), pkgName, imports)}`;
  }
  if (expr === 'byte') return 'uint8';
  if (GO_BUILTINS.has(expr)) return expr;
  const dot = expr.indexOf('.');
  if (dot > 0) {
    const path = imports.get(expr.slice(0, dot));
    const name = path ? path.slice(path.lastIndexOf('/') + 1) : expr.slice(0, dot);
    return `${name}.${expr.slice(dot + 1)}`;
  }
  return `${pkgName}.${expr}`;
}

/** A struct's declared entries: a field, or an inline struct to expand in place. */
type GoDecl = { json: string; field: GoField } | { inline: string; importPath?: string };

/**
 * A package's structs (struct name → json field name → Go field, in declaration order: the
 * order encoding/json writes fields; inline structs expanded where they are declared,
 * `resolveForeign` finding one of another package such as metav1.TypeMeta) and enums.
 */
function goPackage(dir: string, resolveForeign?: (qualified: string, importPath: string) => Map<string, GoField> | undefined, resolveConst?: ConstResolver): GoPackage {
  const out = new Map<string, Map<string, GoField>>();
  const decls = new Map<string, GoDecl[]>();
  if (!existsSync(dir)) return { structs: out, enums: new Map(), consts: new Map() };
  const sources: string[] = [];
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.go') || f.endsWith('_test.go') || f.startsWith('zz_generated') || f === 'generated.pb.go') continue;
    const src = readFileSync(join(dir, f), 'utf8');
    sources.push(src);
    const imports = new Map<string, string>();
    for (const m of src.matchAll(/^\s*(\w+)\s+"([^"]+)"/gm)) imports.set(m[1]!, m[2]!);
    const structRe = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
    for (const s of src.matchAll(structRe)) {
      const list: GoDecl[] = [];
      let comments: string[] = [];
      for (const line of s[2].split('\n')) {
        if (/^\s*\/\//.test(line)) {
          comments.push(commentText(line));
          continue;
        }
        const fm = line.match(/^\s+(?:(\w+)\s+)?([*\w.[\]]+)\s+`json:"([^"]*)"/);
        const fieldComments = comments;
        comments = [];
        if (!fm) continue;
        const [name, ...opts] = fm[3].split(',');
        if (!name && opts.includes('inline')) {
          const t = fm[2].replace(/^\*/, '');
          const dot = t.indexOf('.');
          list.push(dot > 0 ? { inline: t, importPath: imports.get(t.slice(0, dot)) } : { inline: t });
        } else if (name && name !== '-') {
          const reflect = reflectTypeName(fm[2], dir.slice(dir.lastIndexOf('/') + 1), imports);
          list.push({ json: name, field: { type: fm[2], omitempty: opts.includes('omitempty'), comments: fieldComments, reflect } });
        }
      }
      decls.set(s[1]!, list);
    }
  }
  const expand = (name: string, seen: Set<string>): Map<string, GoField> => {
    const fields = new Map<string, GoField>();
    for (const d of decls.get(name) ?? []) {
      if ('json' in d) {
        if (!fields.has(d.json)) fields.set(d.json, d.field);
        continue;
      }
      let inner: Map<string, GoField> | undefined;
      if (d.importPath) inner = resolveForeign?.(d.inline, d.importPath);
      else if (!seen.has(d.inline) && decls.has(d.inline)) inner = expand(d.inline, new Set([...seen, d.inline]));
      for (const [k, v] of inner ?? []) if (!fields.has(k)) fields.set(k, v);
    }
    return fields;
  };
  for (const name of decls.keys()) out.set(name, expand(name, new Set([name])));
  const { enums, values } = goEnums(sources, resolveConst);
  return { structs: out, enums, consts: values };
}

/**
 * The `+default=<json>` marker of a field's comment (kube-openapi's defaultFromComments), or
 * undefined. Zero-value defaults are not recorded: the v3 renderer derives them from `x-go`.
 */
function markerDefault(comments: string[]): unknown {
  const tag = comments.map((c) => c.trim()).find((c) => c.startsWith('+default='));
  if (tag === undefined) return undefined;
  try {
    return JSON.parse(tag.slice('+default='.length));
  } catch {
    return undefined;
  }
}

const refName = (ref: string): string => ref.replace(/^#\/definitions\//, '');

/** Compact one schema node: keep KEEP keys, move descriptions out, shorten refs. */
function compact(node: Json, descOut: Record<string, string> | undefined, path: string): Json {
  if (Array.isArray(node)) return node.map((x) => compact(x, undefined, path));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description') {
      if (descOut && typeof v === 'string') descOut[path] = v;
      continue;
    }
    if (!KEEP.has(k)) continue;
    if (k === '$ref') out[k] = refName(v as string);
    else if (k === 'properties') {
      const props: Json = {};
      for (const [pn, pv] of Object.entries(v as Json)) props[pn] = compact(pv, descOut, path ? `${path}.${pn}` : pn);
      out[k] = props;
    } else if (k === 'items' || k === 'additionalProperties') out[k] = compact(v, undefined, path);
    else out[k] = v;
  }
  return out;
}

function collectRefs(node: Json, into: Set<string>): void {
  if (Array.isArray(node)) node.forEach((x) => collectRefs(x, into));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') into.add(refName(v));
      else collectRefs(v, into);
    }
  }
}

/**
 * The kinds the built-in kind descriptors carry in bodies, or undefined when the descriptors do
 * not load (a kind file importing a generated file that does not exist yet).
 */
async function descriptorKinds(): Promise<string[] | undefined> {
  try {
    const [{ defaultKinds }, { bodyKinds }] = await Promise.all([import('../internal/registry/kinds.ts'), import('../internal/registry/kind-types.ts')]);
    return bodyKinds(defaultKinds);
  } catch (e) {
    console.warn(`the kind descriptors do not load (${(e as Error).message.split('\n')[0]}): generating the manifest's kinds and those named on the command line; run this again once they load`);
    return undefined;
  }
}

async function main(): Promise<void> {
  const kubeDir = moduleDir(KUBE_MODULE);
  const modRoot = dirname(dirname(kubeDir));
  const swaggerPath = join(kubeDir, 'api', 'openapi-spec', 'swagger.json');
  const swagger = JSON.parse(readFileSync(swaggerPath, 'utf8'));
  const defs: Record<string, Json> = swagger.definitions;

  const manifestPath = join(OUT_DIR, 'manifest.json');
  const prior: Manifest | undefined = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : undefined;
  // Stable order: kinds already in the manifest keep their place, new ones follow.
  const derived = await descriptorKinds();
  const kept = derived ? (prior?.kinds ?? []).filter((k) => derived.includes(k)) : (prior?.kinds ?? []);
  const kinds = [...new Set([...kept, ...(derived ?? []), ...process.argv.slice(2)])];
  const metaTypes = prior?.metaTypes ?? META_TYPES;

  // Roots: each kind's definition (matched by its x-kubernetes-group-version-kind) and its List.
  const roots = new Set<string>(metaTypes);
  for (const k of kinds) {
    const gvk = parseKind(k);
    const matches = Object.keys(defs).filter((n) =>
      (defs[n]['x-kubernetes-group-version-kind'] ?? []).some((g: Json) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind),
    );
    const exact = matches.filter((n) => (defs[n]['x-kubernetes-group-version-kind'] ?? []).length === 1);
    if (!exact.length) throw new Error(`kind ${k}: no definition in ${swaggerPath}`);
    for (const n of exact) roots.add(n);
    for (const n of Object.keys(defs)) {
      if ((defs[n]['x-kubernetes-group-version-kind'] ?? []).some((g: Json) => g.group === gvk.group && g.version === gvk.version && g.kind === `${gvk.kind}List`)) roots.add(n);
    }
  }
  const wanted = new Set<string>();
  const queue = [...roots];
  while (queue.length) {
    const n = queue.pop()!;
    if (wanted.has(n)) continue;
    if (!defs[n]) throw new Error(`definition ${n} referenced but absent`);
    wanted.add(n);
    const refs = new Set<string>();
    collectRefs(defs[n], refs);
    queue.push(...refs);
  }

  // Go field types, to mark non-pointer struct fields (see the header comment).
  const goCache = new Map<string, GoPackage>();
  // An inline struct of another package (k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta).
  const stagingPackage = (importPath: string): GoPackage | undefined => {
    const m = importPath.match(/^k8s\.io\/(api|apimachinery)\/(.+)$/);
    if (!m) return undefined;
    const dir = join(modRoot, 'k8s.io', `${m[1]}@${STAGING_VERSION}`, ...m[2]!.split('/'));
    if (!goCache.has(dir)) goCache.set(dir, goPackage(dir, foreign, constant));
    return goCache.get(dir)!;
  };
  const foreign = (qualified: string, importPath: string): Map<string, GoField> | undefined => stagingPackage(importPath)?.structs.get(qualified.slice(qualified.indexOf('.') + 1));
  // A constant of another package an enum constant is converted from (core/v1 IPv4Protocol).
  const constant: ConstResolver = (importPath, name) => stagingPackage(importPath)?.consts.get(name);
  const goPkg = (defName: string): GoPackage | undefined => {
    const dir = goPackageDir(modRoot, defName);
    if (!dir) return undefined;
    if (!goCache.has(dir)) goCache.set(dir, goPackage(dir, foreign, constant));
    return goCache.get(dir)!;
  };
  const goFields = (defName: string): Map<string, GoField> | undefined => goPkg(defName)?.structs.get(defName.slice(defName.lastIndexOf('.') + 1));
  const isStruct = (defName: string): boolean => defs[defName]?.type === 'object' && !!defs[defName].properties;

  const files = new Map<string, Record<string, Json>>();
  /** definition → JSON field → reflect type name (internal/decode's error messages). */
  const goTypes: Record<string, Record<string, string>> = {};
  const descFiles = new Map<string, Record<string, Record<string, string>>>();
  for (const n of [...wanted].sort()) {
    const file = fileOf(n);
    const desc: Record<string, string> = {};
    const def = compact(defs[n], desc, '');
    const go = goFields(n);
    // Properties in Go declaration order: encoding/json writes fields in that order, and the
    // decoder (internal/decode) emits objects the way kube-apiserver writes them. Properties
    // without a Go field keep their place at the front (alphabetical, as published).
    if (go && def.properties) {
      const props = def.properties as Record<string, Json>;
      const ordered: Record<string, Json> = {};
      for (const pn of Object.keys(props)) if (!go.has(pn)) ordered[pn] = props[pn];
      for (const pn of go.keys()) if (pn in props) ordered[pn] = props[pn];
      def.properties = ordered;
    }
    for (const [pn, pv] of Object.entries((def.properties ?? {}) as Record<string, Json>)) {
      const gf = go?.get(pn);
      if (!gf) continue;
      let code: string;
      if (gf.type.startsWith('*')) code = 'p';
      else if (gf.type.startsWith('[]') || gf.type.startsWith('map[')) code = 'l';
      else if (pv.$ref && SCALAR_STRUCTS[pv.$ref]) code = SCALAR_STRUCTS[pv.$ref];
      else if (pv.$ref && isStruct(pv.$ref)) code = 's';
      else if (pv.type === 'array' || (pv.type === 'object' && pv.additionalProperties)) code = 'l';
      else code = 'v';
      pv['x-go'] = code + (gf.omitempty ? 'o' : '');
      (goTypes[n] ??= {})[pn] = gf.reflect;
      // The served OpenAPI (not the published swagger.json) carries enums and `+default=` markers.
      // kube-openapi marks a field an enum only when its declared type is the enum type itself
      // (not a pointer or slice of it); types of another package are not resolved here (no
      // built-in kind served here declares one).
      const enumType = /^\w+$/.test(gf.type) ? goPkg(n)?.enums.get(gf.type) : undefined;
      if (enumType && pv.type === 'string') {
        const { values, lines } = enumSchema(enumType);
        pv.enum = values;
        desc[pn] = enumDescription(desc[pn], lines);
      }
      const dflt = markerDefault(gf.comments);
      if (dflt !== undefined && pv.default === undefined) pv.default = dflt;
    }
    if (!files.has(file)) files.set(file, {});
    files.get(file)![n] = def;
    if (!descFiles.has(file)) descFiles.set(file, {});
    descFiles.get(file)![n] = desc;
  }

  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(join(OUT_DIR, 'descriptions'), { recursive: true });
  for (const [file, content] of files) writeFileSync(join(OUT_DIR, `${file}.json`), JSON.stringify({ definitions: content }) + '\n');
  mkdirSync(join(OUT_DIR, 'go'), { recursive: true });
  writeFileSync(join(OUT_DIR, 'go', 'types.json'), JSON.stringify(goTypes) + '\n');
  for (const [file, content] of descFiles) writeFileSync(join(OUT_DIR, 'descriptions', `${file}.json`), JSON.stringify(content, null, 1) + '\n');
  mkdirSync(join(OUT_DIR, 'connect'), { recursive: true });
  writeFileSync(join(OUT_DIR, 'connect', 'core_v1.json'), JSON.stringify(connectOptions(swagger.paths), null, 1) + '\n');
  const manifest: Manifest = { source: `${KUBE_MODULE}/api/openapi-spec/swagger.json`, kinds, metaTypes };
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
  console.log(`wrote ${wanted.size} definitions for ${kinds.length} kinds into ${[...files.keys()].map((f) => `${f}.json`).join(', ')}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
