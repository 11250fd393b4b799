/**
 * The protobuf schema of internal/http/protobuf.ts: the messages of proto/k8s.proto (upstream
 * generated.proto of Kubernetes 1.24, written by cmd/gen-proto.ts), which message a
 * group/version/kind is, and the Go facts the .proto cannot say.
 *
 * Kinds: every kind of the generated OpenAPI schema (internal/schema/generated, written by
 * cmd/gen-schemas.ts from the kind descriptors) is served as the message of the same name: the
 * definition `io.k8s.api.core.v1.ConfigMap` that names exactly v1 ConfigMap is the message
 * `k8s.io.api.core.v1.ConfigMap`. No kind is listed here; adding one is docs/adding-a-kind.md.
 *
 * Go facts: to match the bytes Go writes, and the JSON Go would print for what it decodes, we
 * need which Go fields are pointers (written only when set; a zero value is a value) and which
 * plain fields lack `omitempty` (JSON shows their zero value). Both come from the generated
 * schema's `x-go` annotation (internal/schema, read from the k8s.io/api v0.24.17 Go sources); the
 * small `PTR`/`KEEP` tables below only cover types the schema does not describe (runtime and
 * FieldsV1 raw bytes). Everything else is a
 * non-pointer `omitempty` field, which gogo-protobuf always writes (strings, numbers, bools and
 * nested structs, even when zero) and which Go's JSON omits when zero (nested structs excepted:
 * encoding/json never omits a struct, so `spec: {}` / `status: {}` stay). Repeated fields and maps
 * are written only when non-empty; map entries go in Go's order (keys sorted bytewise).
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { generatedSource } from '../schema/registry.ts';

export const R = 'k8s.io.apimachinery.pkg.runtime.';
export const M = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const C = 'k8s.io.api.core.v1.';
export const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
export const INTSTR = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
/** apiextensions-apiserver's v1 package (CustomResourceDefinition); its schema unions are special messages in protobuf.ts. */
export const APIEXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.';

/** The protobuf message of an OpenAPI definition (io.k8s.api.core.v1.ConfigMap → k8s.io.api.core.v1.ConfigMap). */
export const messageOfDefinition = (name: string): string =>
  name.replace(/^io\.k8s\./, 'k8s.io.').replace(/^k8s\.io\.apiextensions-apiserver\./, 'k8s.io.apiextensions_apiserver.').replace(/^k8s\.io\.kube-aggregator\./, 'k8s.io.kube_aggregator.');
/** The OpenAPI definition of a protobuf message (the inverse of messageOfDefinition). */
const definitionOfMessage = (message: string): string =>
  `io.${message.replace(/^k8s\.io\.apiextensions_apiserver\./, 'k8s.io.apiextensions-apiserver.').replace(/^k8s\.io\.kube_aggregator\./, 'k8s.io.kube-aggregator.').replace(/^k8s\.io\./, 'k8s.')}`;

/**
 * JSON names that differ from the protobuf field names (every other field has the same name in
 * both): JSONSchemaProps' `$schema`, `$ref` and `x-kubernetes-*` extensions, and the Go field
 * APIGroup of IngressClassParametersReference (go-to-protobuf names it `aPIGroup`).
 */
const JSON_NAMES = new Map<string, Map<string, string>>([
  ['k8s.io.api.networking.v1.IngressClassParametersReference', new Map([['aPIGroup', 'apiGroup']])],
  [
    APIEXT + 'JSONSchemaProps',
    new Map([
      ['schema', '$schema'],
      ['ref', '$ref'],
      ...['PreserveUnknownFields', 'EmbeddedResource', 'IntOrString', 'ListMapKeys', 'ListType', 'MapType', 'Validations'].map(
        (x): [string, string] => [`xKubernetes${x}`, `x-kubernetes-${x.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).slice(1)}`],
      ),
    ]),
  ],
]);
/**
 * Named Go slice types (`type ExtraValue []string`): a message with one repeated `items` field on
 * the wire, the bare array in JSON.
 */
export const WRAPPED_LISTS = new Set(['k8s.io.api.authorization.v1.ExtraValue', 'k8s.io.api.authentication.v1.ExtraValue', 'k8s.io.apimachinery.pkg.apis.meta.v1.Verbs']);

/** Meta/v1 messages valid in every group version: Status, DeleteOptions, WatchEvent and the discovery documents. */
const ANY_GROUP_KINDS = new Map<string, string>([
  ['Status', M + 'Status'],
  ['DeleteOptions', M + 'DeleteOptions'],
  ['WatchEvent', M + 'WatchEvent'],
  // Discovery documents (meta/v1, served under /api and /apis).
  ['APIVersions', M + 'APIVersions'],
  ['APIGroupList', M + 'APIGroupList'],
  ['APIGroup', M + 'APIGroup'],
  ['APIResourceList', M + 'APIResourceList'],
]);

/**
 * Go pointer (or nil-able []byte) fields of types outside the generated schema: encoded only when
 * set, zero values kept in JSON. Every schema type gets this from `x-go` (goFacts below).
 */
const PTR: [string, string][] = [
  [R + 'RawExtension', 'raw'],
  [R + 'Unknown', 'raw'],
  [M + 'FieldsV1', 'Raw'],
];

/** Plain (non-pointer) scalar fields without `omitempty` of types outside the generated schema. */
const KEEP: [string, string][] = [];

/** `json:",inline"` members: their fields sit in the parent's JSON object. */
const INLINE: [string, string][] = [
  [C + 'PersistentVolumeSpec', 'persistentVolumeSource'],
  [C + 'Volume', 'volumeSource'],
  [C + 'Probe', 'handler'],
  [C + 'EphemeralContainer', 'ephemeralContainerCommon'],
  ['k8s.io.api.networking.v1.IngressRule', 'ingressRuleValue'],
  ...['SecretProjection', 'ConfigMapVolumeSource', 'ConfigMapProjection', 'ConfigMapKeySelector', 'SecretKeySelector', 'ConfigMapEnvSource', 'SecretEnvSource'].map(
    (m): [string, string] => [C + m, 'localObjectReference'],
  ),
];

// ---------------------------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------------------------

export type Json = Record<string, unknown>;

export interface FieldInfo {
  /** The protobuf field name. */
  name: string;
  /** The JSON member name (the protobuf name but for JSON_NAMES). */
  json: string;
  /** The protobuf field number. */
  id: number;
  /** 'map' fields are encoded through a synthetic repeated entry message, so we control the order. */
  kind: 'single' | 'repeated' | 'map';
  /** Scalar type name ('string', 'int64', 'bytes', …) for scalars and map values. */
  scalar?: string;
  /** Message info for message fields and message map values. */
  message?: MessageInfo;
  ptr: boolean;
  keep: boolean;
  inline: boolean;
}

export interface MessageInfo {
  fullName: string;
  type: protobuf.Type;
  fields: FieldInfo[];
}

interface Schema {
  messages: Map<string, MessageInfo>;
  unknown: protobuf.Type;
  watchEvent: protobuf.Type;
}

let schema: Schema | undefined;

/**
 * Pointer and keep-when-zero fields of a proto message from the generated schema's `x-go` codes
 * (`p…` pointer; `v`/`t`/`q`/`i` without `o`: a value Go's JSON prints even when zero); undefined
 * when the schema has no Go facts for that name.
 */
function goFacts(message: string): { ptr: Set<string>; keep: Set<string> } | undefined {
  const def = generatedSource().definition(definitionOfMessage(message));
  if (!def) return undefined;
  const ptr = new Set<string>();
  const keep = new Set<string>();
  let known = false;
  for (const [field, prop] of Object.entries(def.properties ?? {})) {
    const code = prop['x-go'];
    if (!code) continue;
    known = true;
    if (code[0] === 'p') ptr.add(field);
    else if ('vtqi'.includes(code[0]!) && !code.includes('o')) keep.add(field);
  }
  // Definitions without Go facts (runtime.RawExtension, FieldsV1: no Go struct fields) use the tables.
  return known ? { ptr, keep } : undefined;
}

export function loadSchema(): Schema {
  if (schema) return schema;
  const text = readFileSync(new URL('../../proto/k8s.proto', import.meta.url), 'utf8');
  const root = new protobuf.Root();
  // protobufjs allows one `package` per parse: feed the file section by section (see its header).
  for (const section of text.split(/^(?=package\s)/m)) {
    if (!/^package\s/.test(section)) continue;
    protobuf.parse(`syntax = "proto2";\n${section}`, root, { keepCase: true });
  }
  const types: protobuf.Type[] = [];
  const collect = (ns: protobuf.NamespaceBase): void => {
    for (const o of ns.nestedArray) {
      if (o instanceof protobuf.Type) types.push(o);
      if (o instanceof protobuf.Namespace || o instanceof protobuf.Type) collect(o);
    }
  };
  collect(root);
  // Maps → repeated `<Name>Entry {key = 1; value = 2}` (the wire form protobuf defines for maps),
  // so entries can be written in Go's sorted-key order (protobufjs writes Object.keys order, which
  // puts integer-like keys first).
  const mapFields = new Map<protobuf.Type, { name: string; keyType: string; valueType: string }[]>();
  for (const t of types) {
    for (const f of [...t.fieldsArray]) {
      if (!(f instanceof protobuf.MapField)) continue;
      const entryName = f.name.charAt(0).toUpperCase() + f.name.slice(1) + 'Entry';
      const entry = new protobuf.Type(entryName);
      entry.add(new protobuf.Field('key', 1, f.keyType, 'optional'));
      entry.add(new protobuf.Field('value', 2, f.type, 'optional'));
      t.add(entry);
      t.remove(f);
      t.add(new protobuf.Field(f.name, f.id, entryName, 'repeated'));
      const list = mapFields.get(t) ?? [];
      list.push({ name: f.name, keyType: f.keyType, valueType: f.type });
      mapFields.set(t, list);
    }
  }
  root.resolveAll();

  const facts = (table: [string, string][]): Map<string, Set<string>> => new Map(table.map(([m, fs]) => [m, new Set(fs.split(' '))]));
  const inline = facts(INLINE);
  const ptr = facts(PTR);
  const keep = facts(KEEP);
  const learn = (name: string, go: { ptr: Set<string>; keep: Set<string> }): void => {
    if (ptr.has(name) || keep.has(name)) throw new Error(`internal/http/protobuf-schema.ts: ${name} is in the schema; drop its PTR/KEEP row`);
    ptr.set(name, go.ptr);
    keep.set(name, go.keep);
  };
  for (const t of types) {
    const go = goFacts(t.fullName.slice(1));
    if (go) learn(t.fullName.slice(1), go);
  }
  // An inline member's message (PersistentVolumeSource) has its fields in the parent's definition.
  for (const [parent, fields] of inline) {
    const go = goFacts(parent);
    for (const f of fields) {
      const member = root.lookupType(parent).fields[f]?.resolvedType;
      if (go && member instanceof protobuf.Type && !goFacts(member.fullName.slice(1))) learn(member.fullName.slice(1), go);
    }
  }
  const messages = new Map<string, MessageInfo>();
  for (const t of types) messages.set(t.fullName.slice(1), { fullName: t.fullName.slice(1), type: t, fields: [] });
  for (const t of types) {
    const info = messages.get(t.fullName.slice(1))!;
    const maps = mapFields.get(t) ?? [];
    for (const f of t.fieldsArray) {
      const map = maps.find((m) => m.name === f.name);
      const json = JSON_NAMES.get(info.fullName)?.get(f.name) ?? f.name;
      const fi: FieldInfo = {
        name: f.name,
        json,
        id: f.id,
        kind: map ? 'map' : f.repeated ? 'repeated' : 'single',
        ptr: ptr.get(info.fullName)?.has(json) ?? false,
        keep: keep.get(info.fullName)?.has(json) ?? false,
        inline: inline.get(info.fullName)?.has(f.name) ?? false,
      };
      const valueType = map ? (f.resolvedType as protobuf.Type).fields.value! : f;
      if (valueType.resolvedType instanceof protobuf.Type) fi.message = messages.get(valueType.resolvedType.fullName.slice(1))!;
      else fi.scalar = valueType.type;
      if (map && map.keyType !== 'string') throw new Error(`proto/k8s.proto: ${info.fullName}.${f.name}: only string map keys are supported`);
      info.fields.push(fi);
    }
    // Upstream (Go struct) order for JSON output; map fields were re-added at the end.
    const order = new Map(t.fieldsArray.map((f) => [f.name, f.id] as const));
    info.fields.sort((a, b) => order.get(a.name)! - order.get(b.name)!);
  }
  for (const [m, names] of JSON_NAMES) {
    const props = generatedSource().definition(definitionOfMessage(m))?.properties ?? {};
    for (const [f, json] of names) {
      if (!messages.get(m)?.fields.some((x) => x.name === f) || !(json in props)) throw new Error(`internal/http/protobuf-schema.ts JSON_NAMES: no field ${m}.${f} (${json})`);
    }
  }
  for (const [table, rows] of [['PTR', PTR], ['KEEP', KEEP], ['INLINE', INLINE]] as const) {
    for (const [m, fs] of rows) {
      const info = messages.get(m);
      for (const f of fs.split(' ')) {
        if (!info?.fields.some((x) => x.name === f)) throw new Error(`internal/http/protobuf-schema.ts ${table}: no field ${m}.${f} in proto/k8s.proto`);
      }
    }
  }
  schema = {
    messages,
    unknown: root.lookupType(R + 'Unknown'),
    watchEvent: root.lookupType(M + 'WatchEvent'),
  };
  return schema;
}

export function message(fullName: string): MessageInfo {
  const m = loadSchema().messages.get(fullName);
  if (!m) throw new Error(`no protobuf message ${fullName} in proto/k8s.proto`);
  return m;
}

function splitApiVersion(apiVersion: string): [string, string] {
  const i = apiVersion.indexOf('/');
  return i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

/** The message of each group/version/kind of the generated schema, built on first use (see the header). */
let kindMessages: Map<string, string> | undefined;

function kinds(): Map<string, string> {
  if (kindMessages) return kindMessages;
  const table = new Map<string, string>();
  const source = generatedSource();
  for (const name of source.names()) {
    // meta/v1 documents (Status, APIGroup, …) name v1 but serve every group: ANY_GROUP_KINDS.
    if (name.startsWith('io.k8s.apimachinery.')) continue;
    const gvks = source.definition(name)?.['x-kubernetes-group-version-kind'] ?? [];
    const message = messageOfDefinition(name);
    // A kind with a schema but no message is served as JSON and YAML only.
    if (gvks.length === 1 && loadSchema().messages.has(message)) table.set(`${gvks[0]!.group}/${gvks[0]!.version}/${gvks[0]!.kind}`, message);
  }
  return (kindMessages = table);
}

/**
 * The meta.k8s.io conversions a request asks for with `;as=…;g=meta.k8s.io;v=…` that have a
 * protobuf form (Tables have none): v1beta1's PartialObjectMetadata is v1's Go type.
 */
const META_KINDS = new Map<string, string>([
  ['meta.k8s.io/v1/PartialObjectMetadata', M + 'PartialObjectMetadata'],
  ['meta.k8s.io/v1/PartialObjectMetadataList', M + 'PartialObjectMetadataList'],
  ['meta.k8s.io/v1beta1/PartialObjectMetadata', M + 'PartialObjectMetadata'],
  ['meta.k8s.io/v1beta1/PartialObjectMetadataList', 'k8s.io.apimachinery.pkg.apis.meta.v1beta1.PartialObjectMetadataList'],
]);

/** The fully-qualified protobuf message for an apiVersion + kind, or undefined when we have none. */
export function protobufTypeFor(apiVersion: string, kind: string): string | undefined {
  const [group, version] = splitApiVersion(apiVersion);
  const key = `${group}/${version}/${kind}`;
  return kinds().get(key) ?? (group === 'meta.k8s.io' ? META_KINDS.get(key) : undefined) ?? ANY_GROUP_KINDS.get(kind);
}
