/**
 * fast-check arbitraries for one fuzzed request, as plain data ("plans"): which resource and verb,
 * which namespace and name, the body (a base object mutated, or raw text/bytes), the encoding, the
 * query and the headers, and an odd rewrite of the path. Indices are resolved against the model at
 * send time (request.ts), so a plan stays valid while the server's state changes.
 */
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A change to a base object: at the `at`-th path of the object (mod the number of paths). */
export type Mutation =
  | { op: 'set'; at: number; value: Json }
  | { op: 'delete'; at: number }
  | { op: 'add'; at: number; key: string; value: Json }
  | { op: 'retype'; at: number; value: Json };

/** A change to the serialized body text. */
export type TextMutation =
  | { op: 'truncate'; at: number }
  | { op: 'flip'; at: number; byte: number }
  | { op: 'duplicate-key' }
  | { op: 'bom' }
  | { op: 'append'; text: string }
  | { op: 'nest'; depth: number };

export interface BodyPlan {
  base: 'seed' | 'sample' | 'bare' | 'none';
  sampleSeed: number;
  mutations: Mutation[];
  /** What travels: the object as JSON / YAML / Protobuf, or raw `text` / `bytes`. */
  encoding: 'json' | 'json-pretty' | 'yaml' | 'protobuf' | 'text' | 'bytes';
  text: string;
  bytes: Uint8Array;
  textMutation: TextMutation | null;
  /** JSON Patch operations (for json-patch). */
  ops: { op: string; at: number; value: Json; from: number }[];
  /** For merge / strategic merge patches: keep this fraction of the object's top-level keys. */
  keep: number;
  directive: null | '$patch' | '$retainKeys' | '$setElementOrder' | '$deleteFromPrimitiveList';
}

export interface Plan {
  /** A plausible request: plain JSON, no odd header, path, content type or text damage, at most one mutation. */
  sane: boolean;
  resource: number;
  /** Index into the resource's verbs; past them, a method from ODD_METHODS. */
  verb: number;
  oddMethod: string;
  /** 0-1 the fuzzer's namespaces, 2 a missing one, 3 `ns`, 4 no namespace (all-namespaces list). */
  nsPick: number;
  ns: string;
  /** Name: a stored one (index), a seed's, or `name`. */
  namePick: 'stored' | 'seed' | 'random';
  nameIndex: number;
  name: string;
  body: BodyPlan;
  patchType: string;
  query: [string, string][];
  encodeQuery: boolean;
  accept: string;
  contentType: string | null;
  extraHeaders: [string, string][];
  pathRewrite: PathRewrite | null;
}

export type PathRewrite =
  | { op: 'trailing-slash' }
  | { op: 'double-slash'; at: number }
  | { op: 'segment'; at: number; with: string }
  | { op: 'append'; segment: string }
  | { op: 'upper'; at: number }
  | { op: 'drop'; at: number };

export const ODD_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND'];

export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

const unicode = fc.constantFrom('é', 'ü', '日本', '\u0000', '\u202e', '\ud83d\ude00', '\ufeff', '\u00a0', 'İ', 'ß', '\u0085', '\t', '\n');
const oddString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  unicode,
  fc.constantFrom('', ' ', '.', '..', '/', 'a/b', '%', '%2F', 'x'.repeat(254), 'x'.repeat(64), 'A', '-a', 'a-', 'a..b', 'a_b', '0', 'true', 'null', '1e400', '{', '"'),
  fc.integer({ min: 1, max: 70_000 }).map((n) => 'y'.repeat(n)),
);

const hugeNumber = fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -(2 ** 63), 2 ** 64, 0.1, -0, 1.5, 2 ** 31, -(2 ** 31) - 1, 4294967296, 1e-320);

/** JSON values of every shape, including wrong types, huge numbers, unicode and deep-ish nesting. */
export const jsonValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 2, arbitrary: oddString },
  { weight: 2, arbitrary: hugeNumber },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [null], [''], { '': null }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 120 }).map((d) => nested(d)) },
);

function nested(depth: number): Json {
  let v: Json = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: jsonValue }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('add' as const), at: fc.nat(), key: fc.oneof(fc.constantFrom('spec', 'status', 'metadata', 'apiVersion', 'kind', 'labels', 'annotations', 'finalizers', 'ownerReferences', 'namespace', 'name', 'generateName', 'deletionTimestamp', 'uid', 'resourceVersion', 'managedFields', 'x', 'data', 'items'), oddString), value: jsonValue }),
  fc.record({ op: fc.constant('retype' as const), at: fc.nat(), value: fc.constantFrom<Json>(1, 'x', true, null, [], {}, [1], 1e308) }),
);

const textMutation: fc.Arbitrary<TextMutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), byte: fc.nat(255) }),
  fc.constant({ op: 'duplicate-key' as const }),
  fc.constant({ op: 'bom' as const }),
  fc.record({ op: fc.constant('append' as const), text: fc.constantFrom(' ', '\n', '}', ']', ',', '{}', 'null', '---\n', '\u0000', 'garbage') }),
  fc.record({ op: fc.constant('nest' as const), depth: fc.constantFrom(399, 400, 401, 1000, 10_001, 20_000) }),
);

const body: fc.Arbitrary<BodyPlan> = fc.record({
  base: fc.constantFrom('seed', 'sample', 'sample', 'bare', 'none'),
  sampleSeed: fc.nat(),
  mutations: fc.array(mutation, { maxLength: 4 }),
  encoding: fc.oneof(
    { weight: 6, arbitrary: fc.constant('json' as const) },
    { weight: 1, arbitrary: fc.constant('json-pretty' as const) },
    { weight: 3, arbitrary: fc.constant('yaml' as const) },
    { weight: 3, arbitrary: fc.constant('protobuf' as const) },
    { weight: 1, arbitrary: fc.constant('text' as const) },
    { weight: 1, arbitrary: fc.constant('bytes' as const) },
  ),
  text: fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 50 }), fc.constantFrom('', '{}', '[]', 'null', '{"a":', '---', '- a', 'a: [', '&a [*a]', 'a: &a\n  b: *a', '!!binary eA==', '{"apiVersion":"v1"}', '"x"', '1e99999')),
  bytes: fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }).map((b) => new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...b]))),
  textMutation: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: textMutation }),
  ops: fc.array(fc.record({ op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus', ''), at: fc.nat(), value: jsonValue, from: fc.nat() }), { maxLength: 4 }),
  keep: fc.double({ min: 0, max: 1, noNaN: true }),
  directive: fc.constantFrom(null, null, null, '$patch', '$retainKeys', '$setElementOrder', '$deleteFromPrimitiveList'),
});

const QUERY_VALUES: Record<string, string[]> = {
  resourceVersion: ['', '0', '1', '2', '-1', 'abc', '1.5', '18446744073709551616'],
  resourceVersionMatch: ['NotOlderThan', 'Exact', '', 'bogus'],
  limit: ['0', '1', '2', '-1', '500', 'abc', '99999999999999999999'],
  continue: ['', 'abc', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiLi4vLi4ifQ', '%%%', 'e30'],
  labelSelector: ['a=b', 'a in (x,y)', '!a', 'a!=', '=', '((', 'a,b', 'a=b=c', 'x'.repeat(70) + '=1', 'a notin ()', 'a>1', 'é=1'],
  fieldSelector: ['metadata.name=x', 'metadata.namespace!=a', 'spec.nodeName=', 'bogus=1', 'metadata.name', '=', 'status.phase=Running', 'type=Normal', 'metadata.name==x'],
  dryRun: ['All', '', 'bogus', 'all'],
  fieldManager: ['fz', '', 'x'.repeat(200), 'é', 'kubectl', 'before-first-apply'],
  fieldValidation: ['Strict', 'Warn', 'Ignore', '', 'bogus', 'strict'],
  force: ['true', 'false', 'bogus', ''],
  timeout: ['1s', '1ms', '0', 'bogus', '-1s', '1h', '5s', '1', ''],
  propagationPolicy: ['Orphan', 'Background', 'Foreground', 'bogus', ''],
  gracePeriodSeconds: ['0', '-1', '30', 'abc', '1'],
  watch: ['true', '1', 'false', 'bogus', ''],
  timeoutSeconds: ['1', '0', '-1', 'x'],
  allowWatchBookmarks: ['true', 'false', 'x'],
  pretty: ['true', '1', 'false', 'x'],
  orphanDependents: ['true', 'false', 'x'],
  includeObject: ['None', 'Metadata', 'Object', 'x'],
};

const queryPair: fc.Arbitrary<[string, string]> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...Object.keys(QUERY_VALUES)).chain((k) => fc.tuple(fc.constant(k), fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_VALUES[k]) }, { weight: 1, arbitrary: oddString }))) },
  { weight: 1, arbitrary: fc.tuple(oddString, oddString) },
);

const ACCEPT = [
  'application/json', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', '*/*', '',
  'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=Table;v=v1beta1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io', 'application/json;stream=watch',
  'application/vnd.kubernetes.protobuf;stream=watch', 'text/html', 'text/plain', 'application/*', 'application/json, */*;q=0.1', 'application/json;q=0', 'application/json;as=Bogus;v=v1;g=meta.k8s.io',
  'application/json;charset=utf-8', 'application/json;pretty=1', ';;;', 'application/json;as=Table', 'APPLICATION/JSON', 'application/yaml;q=0.9, application/json;q=0.5',
];

const CONTENT_TYPES = [
  'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json;charset=latin1', 'application/json; foo=bar', 'APPLICATION/JSON', 'application/yaml; charset=utf-8',
  'application/x-yaml', 'text/yaml', 'text/plain', 'application/octet-stream', '', ';', 'application/json;', 'application/vnd.kubernetes.protobuf;charset=x', 'multipart/form-data; boundary=x',
  'application/merge-patch+json; charset=utf-8', 'application/apply-patch+yaml; charset=utf-8', 'application/json-patch+json;x=y', 'application/*', '*/*', 'application/json, application/yaml',
];

const headerValue = fc.oneof(fc.constantFrom('', 'x', '1', '-1', 'true', '0, 1', 'a'.repeat(8000)), fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')));

const EXTRA_HEADERS = ['impersonate-user', 'impersonate-group', 'impersonate-uid', 'x-remote-user', 'content-encoding', 'accept-encoding', 'expect', 'x-kubernetes-pf-flowschema-uid', 'if-match', 'if-none-match', 'range', 'origin', 'audit-id', 'x-http-method-override', 'accept-language', 'user-agent', 'authorization'];

const pathRewrite: fc.Arbitrary<PathRewrite> = fc.oneof(
  fc.constant({ op: 'trailing-slash' as const }),
  fc.record({ op: fc.constant('double-slash' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('segment' as const), at: fc.nat(), with: fc.constantFrom('.', '..', '%2e%2e', '%2E', '%2F', '%00', '%zz', '%', '%C3%A9', '%ff', 'x'.repeat(300), '', 'watch', 'status', 'scale', 'proxy', 'log', '%2e%2e%2f%2e%2e', ';x', '~', '*', 'API', 'namespaces', 'v1', 'v2', 'apis') }),
  fc.record({ op: fc.constant('append' as const), segment: fc.constantFrom('status', 'scale', 'x', '..', '.', '%2F', 'log', 'binding', 'eviction', 'finalize', 'token', 'ephemeralcontainers', 'approval', 'a/b/c', 'proxy/x', 'exec', 'attach', 'portforward') }),
  fc.record({ op: fc.constant('upper' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
);

export const plan: fc.Arbitrary<Plan> = fc.record({
  sane: fc.boolean(),
  resource: fc.nat(),
  verb: fc.nat(40),
  oddMethod: fc.constantFrom(...ODD_METHODS),
  nsPick: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(0, 1) }, { weight: 1, arbitrary: fc.constantFrom(2, 3, 4) }),
  ns: oddString,
  namePick: fc.constantFrom('stored', 'stored', 'seed', 'random'),
  nameIndex: fc.nat(),
  name: fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/) }, { weight: 1, arbitrary: oddString }),
  body,
  patchType: fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...PATCH_TYPES) }, { weight: 1, arbitrary: fc.constantFrom('application/json', 'application/apply-patch+json', 'application/yaml', 'text/plain', 'application/merge-patch+yaml') }),
  query: fc.array(queryPair, { maxLength: 3 }),
  encodeQuery: fc.boolean(),
  accept: fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...ACCEPT) }, { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')) }),
  contentType: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
  extraHeaders: fc.oneof({ weight: 6, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom(...EXTRA_HEADERS), headerValue), { maxLength: 2 }) }),
  pathRewrite: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: pathRewrite }),
});
