/**
 * Content negotiation, in kube-apiserver's two layers:
 *
 * 1. The go-restful router (Route.matchesAccept / matchesContentType) refuses, before any
 *    handler runs, an Accept none of whose types (parameters cut, case-sensitive) is one the
 *    route produces or * / *: 406 "406: Not Acceptable" with empty details. PATCH routes also
 *    check the Content-Type against the patch types: 415 "415: Unsupported Media Type" when the
 *    request has a body (406 when it has none: no route is left to match).
 * 2. The handler (NegotiateOutputMediaType) picks the representation from the Accept clauses,
 *    best quality first (goautoneg), against the serializers in their order (JSON, YAML,
 *    Protobuf), honouring the `as`/`g`/`v` conversion (Table, PartialObjectMetadata) and
 *    `stream`/`sv` parameters; nothing acceptable → 406 listing the media types.
 *
 * Also how to decode a request body by its Content-Type.
 */
import YAML from 'yaml';
import { notAcceptableRoute, notAcceptableTypes, unsupportedMediaType, unsupportedMediaTypeRoute, badRequest, ApiError, isStackOverflow } from '../api/errors.ts';
import { PROTOBUF, decodeProtobuf } from './protobuf.ts';
import { parseDeepYaml } from '../decode/deep-yaml.ts';
import { parseJson, GoSyntaxError, jsonDepthError, valueDepthError, yamlDepthError, mayNestTooDeep } from '../decode/json-parse.ts';
import { noteParsed, findKindError, unrecognizedBody, unrecognized } from '../decode/body.ts';

/** The YAML 1.1 tags go-yaml v2 resolves when decoding into interface{} (no timestamps, no base-60 numbers). */
const GO_YAML_V2_TAGS = (tags: YAML.Tags): YAML.Tags => tags.filter((t) => !(typeof t === 'object' && (t.tag === 'tag:yaml.org,2002:timestamp' || t.format === 'TIME')));

export type Representation = 'json' | 'yaml' | 'table' | 'metadata' | 'protobuf';

/** The serializers of the API, in kube's order (it lists them in this order in its 406). */
const SERIALIZERS = ['application/json', 'application/yaml', PROTOBUF];
/** The patch types a PATCH route consumes (installer.go, built-in kinds). */
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

/** go-restful: media types of a header split at ",", parameters cut, spaces trimmed, case kept. */
const routeTypes = (header: string): string[] => header.split(',').map((part) => part.split(';')[0].replace(/^ +| +$/g, ''));

/** Route.matchesAccept for a resource route (no Accept means * / *). */
function routeAccepts(accept: string): boolean {
  return routeTypes(accept || '*/*').some((t) => t === '*/*' || SERIALIZERS.includes(t));
}

/**
 * The router's Content-Type check of a PATCH: 415 when the type is not a patch type and the
 * request has a body, 406 when it has none (go-restful then has no route left for the Accept).
 */
export function checkPatchRoute(contentType: string | undefined, hasBody: boolean): void {
  if (routeTypes(contentType || 'application/octet-stream').some((t) => PATCH_TYPES.includes(t))) return;
  throw hasBody ? unsupportedMediaTypeRoute() : notAcceptableRoute();
}

interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Record<string, string>;
}

/** goautoneg.ParseAccept: clauses with their quality and parameters, best first. */
function parseAccept(header: string): AcceptClause[] {
  const out: AcceptClause[] = [];
  for (const raw of header.split(',')) {
    const [range, ...ps] = raw.trim().split(';');
    const parts = range.split('/');
    const type = parts[0].trim();
    if (parts.length > 2 || (parts.length === 1 && type !== '*')) continue;
    const c: AcceptClause = { type, subType: parts.length === 1 ? '*' : parts[1].trim(), q: 1, params: {} };
    for (const p of ps) {
      const kv = p.split('=');
      if (kv.length !== 2) continue;
      const key = kv[0].trim();
      if (key === 'q') c.q = Number.parseFloat(kv[1]) || 0;
      else c.params[key] = kv[1].trim();
    }
    out.push(c);
  }
  // Higher quality first, then concrete types before wildcards (a stable sort here; Go's is not).
  const rank = (c: AcceptClause): number => (c.type === '*' ? 2 : c.subType === '*' ? 1 : 0);
  return out.sort((a, b) => b.q - a.q || rank(a) - rank(b));
}

/**
 * A transformation asked for with `;as=<Kind>;g=meta.k8s.io;v=<v>` (kube's MediaTypeOptions.Convert):
 * the answer is a Table or PartialObjectMetadata(List) of that meta.k8s.io version instead of the
 * object itself. kube-apiserver 1.24 still serves both v1 and v1beta1.
 */
export interface Conversion {
  as: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  version: 'v1' | 'v1beta1';
}

/** The negotiated answer: a serialization and, optionally, a conversion of the object. */
export interface Negotiated {
  rep: 'json' | 'yaml' | 'protobuf';
  convert?: Conversion;
}

/** acceptMediaTypeOptions + AllowsMediaTypeTransform for one clause and one serializer. */
function representationFor(params: Record<string, string>, offered: string, allowTable: boolean, allowProtobuf: boolean, allowMetadata: boolean): Negotiated | undefined {
  const stream = params.stream ?? '';
  if (stream && (offered === 'application/yaml' || stream !== 'watch')) return undefined;
  if (params.sv && params.sv !== 'v1') return undefined;
  const rep = offered === 'application/json' ? 'json' : offered === 'application/yaml' ? 'yaml' : 'protobuf';
  const converting = 'as' in params || 'g' in params || 'v' in params;
  if (!converting) return rep === 'protobuf' && !allowProtobuf ? undefined : { rep };
  if (params.g !== 'meta.k8s.io' || (params.v !== 'v1' && params.v !== 'v1beta1')) return undefined;
  // Tables are JSON or YAML only (AllowsMediaTypeTransform); object metadata is a meta.k8s.io
  // message, so it has a protobuf form even for a kind without one (a custom resource).
  if (params.as === 'Table') return allowTable && rep !== 'protobuf' ? { rep, convert: { as: 'Table', version: params.v } } : undefined;
  if (params.as === 'PartialObjectMetadata' || params.as === 'PartialObjectMetadataList') {
    return allowMetadata ? { rep, convert: { as: params.as, version: params.v } } : undefined;
  }
  return undefined;
}

/**
 * Pick the response serialization and conversion, or throw 406 (router or handler flavour, see
 * the module comment). `allowTable`: the endpoint can convert to Table (kube: its storage has a
 * TableConvertor); `allowProtobuf`: the kind has a protobuf encoding; `allowMetadata`: it can
 * convert to PartialObjectMetadata (every kube endpoint can, so it follows `allowTable` unless
 * given).
 */
export function negotiateOutput(accept: string | undefined, allowTable: boolean, allowProtobuf = false, allowMetadata = allowTable): Negotiated {
  const header = accept ?? '';
  if (!routeAccepts(header)) throw notAcceptableRoute();
  if (!header) return { rep: 'json' };
  for (const c of parseAccept(header)) {
    for (const o of SERIALIZERS) {
      const [type, subType] = o.split('/');
      if (!((c.type === type && (c.subType === subType || c.subType === '*')) || (c.type === '*' && c.subType === '*'))) continue;
      const n = representationFor(c.params, o, allowTable, allowProtobuf, allowMetadata);
      if (n) return n;
    }
  }
  throw notAcceptableTypes(SERIALIZERS);
}

/**
 * `negotiateOutput` folded into one name ('table' and 'metadata' for the conversions, whatever
 * their serialization and version), for callers that only need to tell them apart.
 */
export function negotiate(accept: string | undefined, allowTable: boolean, allowProtobuf = false): Representation {
  const n = negotiateOutput(accept, allowTable, allowProtobuf);
  if (n.convert) return n.convert.as === 'Table' ? 'table' : 'metadata';
  return n.rep;
}

/** What kube-apiserver's input negotiation accepts (no Content-Type means JSON); anything else is 415. */
const BODY_TYPES = new Set(['application/json', '', 'application/yaml', PROTOBUF]);

/**
 * The media type of a request body (parameters dropped), or 415 when it cannot be decoded. Write
 * handlers call it before reading options, as kube-apiserver negotiates the input serializer
 * before it looks at the query.
 */
export function bodyMediaType(contentType: string | undefined): string {
  const ct = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  if (!BODY_TYPES.has(ct)) throw unsupportedMediaType(ct);
  return ct;
}

/**
 * Decode a request body by Content-Type: JSON (default), YAML or Protobuf. With `kind` (the
 * endpoint's kind), a JSON body whose version/kind cannot be read is refused as kube-apiserver
 * refuses it ("the object provided is unrecognized (must be of type <kind>)…").
 */
export function decodeBody(contentType: string | undefined, body: Buffer, kind?: string): unknown {
  const ct = bodyMediaType(contentType);
  if (ct === 'application/json' || ct === '') {
    try {
      // Duplicate keys resolve as Go's decoder resolves them (objects merge) and are noted for
      // fieldValidation (internal/decode).
      const { value, duplicates, literals } = parseJson(body.toString('utf8'));
      if (kind) {
        const why = findKindError(value);
        if (why) throw unrecognizedBody(kind, why, body);
      }
      noteParsed(value, duplicates, literals);
      return value;
    } catch (e) {
      if (e instanceof GoSyntaxError && kind) throw unrecognizedBody(kind, e.message, body);
      if (!(e instanceof GoSyntaxError)) throw e;
      throw badRequest(`error decoding request body: ${(e as Error).message}`);
    }
  }
  if (ct === 'application/yaml') {
    try {
      // sigs.k8s.io/yaml (non-strict) lets a later duplicate key win. It reads with go-yaml v2,
      // which resolves plain scalars by YAML 1.1 (y/yes/on/off are booleans, 0777 is octal; a
      // bool key becomes "true"/"false"), except that timestamps stay strings and there are no
      // sexagesimal (1:20) numbers.
      const text = body.toString('utf8');
      // The YAML becomes JSON, which the JSON decoder reads with its depth limit.
      const tooDeep = (why: string): Error => (kind ? unrecognizedBody(kind, why, body) : badRequest(`error decoding request body: ${why}`));
      // go-yaml's own limit on flow collections, then the JSON decoder's on what they became.
      const yamlDeep = yamlDepthError(text, true);
      if (yamlDeep) throw kind ? unrecognized(kind, yamlDeep, body) : badRequest(`error decoding YAML: ${yamlDeep}`);
      const value = yamlWithinDepth(() => YAML.parse(text, { uniqueKeys: false, version: '1.1', customTags: GO_YAML_V2_TAGS }), text, tooDeep);
      const deep = mayNestTooDeep(text) ? valueDepthError(value) : '';
      if (deep) throw tooDeep(deep);
      return value;
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
  }
  if (ct === PROTOBUF) {
    try {
      return decodeProtobuf(body).object;
    } catch (e) {
      throw badRequest(`error decoding protobuf request body: ${(e as Error).message}`);
    }
  }
  throw unsupportedMediaType(ct);
}

/** encoding/json's name of a decoded value's type, for "cannot unmarshal X into ..." messages. */
const jsonTypeName = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'number' : typeof v);

/**
 * The body of an apply patch (applyPatcher: sigs.k8s.io/yaml into a map): YAML 1.1 as go-yaml v2
 * reads it, JSON being YAML (parsed as JSON when it is, which is the common and faster case).
 * Empty or null is an empty object; anything but a map is a 400, as kube answers.
 */
const APPLY_DEPTH_PREFIX = 'error decoding YAML: error unmarshaling JSON: while decoding JSON: ';

/**
 * Run a YAML parse. The parser recurses per nesting level, so a document nested about as deep as
 * the JSON decoder's limit overflows the stack: that is answered as the depth error its JSON gets
 * (`tooDeep` of encoding/json's message), never a 500.
 */
function yamlWithinDepth<T>(parse: () => T, text: string, tooDeep: (why: string) => Error, firstDocument = false): T {
  try {
    return parse();
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
  }
  // Deeper than the main thread's stack, maybe within go-yaml's limit: parsed again on a worker
  // with a stack for it (decode/deep-yaml.ts).
  let json: string;
  try {
    json = parseDeepYaml(text, firstDocument);
  } catch (e) {
    if (!isStackOverflow(e)) throw firstDocument ? badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${(e as Error).message.split('\n')[0]}`) : e;
    throw tooDeep(jsonDepthError(text) || "invalid character '[' exceeded max depth");
  }
  try {
    return parseJson(json).value as T;
  } catch (e) {
    if (e instanceof GoSyntaxError) throw tooDeep(e.message);
    // parseJson recurses per object level too (~9,000 objects on V8's default stack)
    if (isStackOverflow(e)) throw tooDeep(jsonDepthError(text) || "invalid character '{' exceeded max depth");
    throw e;
  }
}

export function decodeApplyBody(body: Buffer): Record<string, unknown> {
  const text = body.toString('utf8');
  let v: unknown;
  const trimmed = text.trimStart();
  // JSON is YAML here: go-yaml's limit on flow collections comes first.
  const yamlDeep = yamlDepthError(text, false);
  if (yamlDeep) throw badRequest(`error decoding YAML: error converting YAML to JSON: ${yamlDeep}`);
  let parsed = false;
  if (trimmed.startsWith('{')) {
    try {
      v = JSON.parse(text);
      parsed = true;
    } catch {
      // not strict JSON (comments, flow YAML): read as YAML below
    }
  }
  if (!parsed) {
    // go-yaml reads the first document of a multi-document stream and ignores the rest.
    v = yamlWithinDepth(() => {
      const doc = YAML.parseAllDocuments(text, { uniqueKeys: false, version: '1.1', customTags: GO_YAML_V2_TAGS })[0];
      const err = doc?.errors[0];
      if (err) throw isStackOverflow(err) ? err : badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${err.message.split('\n')[0]}`);
      return doc ? doc.toJS() : null;
    }, text, (why) => badRequest(`${APPLY_DEPTH_PREFIX}${why}`), true);
  }
  // The JSON decoder's depth limit (JSON.parse has none).
  const deep = mayNestTooDeep(text) ? valueDepthError(v) : '';
  if (deep) throw badRequest(`${APPLY_DEPTH_PREFIX}${deep}`);
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonTypeName(v)} into Go value of type map[string]interface {}`);
  }
  return v as Record<string, unknown>;
}

/**
 * Duplicate keys of an apply body, as go-yaml's strict decoding reports them (`line N: key "k"
 * already set in map`), for fieldValidation Strict (400) and Warn (warnings). Parsed only when asked.
 */
export function applyBodyDuplicates(body: Buffer): string[] {
  const text = body.toString('utf8');
  let doc: YAML.Document.Parsed;
  try {
    doc = YAML.parseDocument(text, { uniqueKeys: true, version: '1.1', customTags: GO_YAML_V2_TAGS });
  } catch {
    return [];
  }
  return doc.errors
    .filter((e) => e.code === 'DUPLICATE_KEY')
    .map((e) => {
      const raw = text.slice(e.pos[0]).match(/^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^:,}\s]+)/)?.[1] ?? '';
      const key = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.startsWith("'") ? raw.slice(1, -1) : raw;
      return `line ${e.linePos?.[0].line ?? 0}: key ${JSON.stringify(key)} already set in map`;
    });
}
