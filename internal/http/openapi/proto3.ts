/**
 * The protobuf form of a v3 document: gnostic's `openapi.v3.Document` (proto/OpenAPIv3.proto),
 * which kube-apiserver serves for `Accept: application/com.github.proto-openapi.spec.v3@v1.0+protobuf`.
 * Mapping as gnostic's openapiv3 compiler reads JSON: named maps become repeated `Named*` pairs in
 * document order, `$ref` nodes become `Reference`s, `default` a `DefaultType` (scalars only),
 * `x-…` extensions `NamedAny` with YAML text.
 */
import type protobuf from 'protobufjs';
import type { Json } from './v2.ts';
import { gnosticType, anyOf, vendorExtensions, validations, type Obj } from './gnostic.ts';

const docType: () => protobuf.Type = gnosticType('OpenAPIv3.proto', 'openapi.v3.Document');

function schemaOrRef(s: Obj): Obj {
  if (typeof s.$ref === 'string') return { reference: { _ref: s.$ref } };
  return { schema: schema(s) };
}

/** gnostic's DefaultType holds scalars only: an object or list default is an empty message. */
function defaultType(v: unknown): Obj {
  if (typeof v === 'number') return { number: v };
  if (typeof v === 'boolean') return { boolean: v };
  if (typeof v === 'string') return { string: v };
  return {};
}

function schema(s: Obj): Obj {
  const out: Obj = {};
  if (s.nullable) out.nullable = true;
  if (s.title !== undefined) out.title = s.title;
  validations(s, out);
  if (s.required !== undefined) out.required = s.required;
  if (s.enum !== undefined) out.enum = (s.enum as unknown[]).map(anyOf);
  if (s.type !== undefined) out.type = s.type;
  if (s.allOf !== undefined) out.all_of = (s.allOf as Obj[]).map(schemaOrRef);
  if (s.oneOf !== undefined) out.one_of = (s.oneOf as Obj[]).map(schemaOrRef);
  if (s.anyOf !== undefined) out.any_of = (s.anyOf as Obj[]).map(schemaOrRef);
  if (s.not !== undefined) out.not = schema(s.not as Obj);
  if (s.items !== undefined) out.items = { schema_or_reference: (Array.isArray(s.items) ? s.items : [s.items]).map((i) => schemaOrRef(i as Obj)) };
  if (s.properties !== undefined) out.properties = { additional_properties: Object.entries(s.properties as Obj).map(([name, v]) => ({ name, value: schemaOrRef(v as Obj) })) };
  if (s.additionalProperties !== undefined) {
    out.additional_properties = typeof s.additionalProperties === 'boolean' ? { boolean: s.additionalProperties } : { schema_or_reference: schemaOrRef(s.additionalProperties as Obj) };
  }
  if (s.default !== undefined) out.default = defaultType(s.default);
  if (s.description !== undefined) out.description = s.description;
  if (s.format !== undefined) out.format = s.format;
  const ext = vendorExtensions(s);
  if (ext.length) out.specification_extension = ext;
  return out;
}

const mediaTypes = (content: Obj): Obj => ({
  additional_properties: Object.entries(content).map(([name, m]) => ({ name, value: { schema: schemaOrRef((m as Obj).schema as Obj) } })),
});

function parameter(p: Obj): Obj {
  const out: Obj = { name: p.name, in: p.in };
  if (p.description !== undefined) out.description = p.description;
  if (p.required) out.required = true;
  if (p.schema) out.schema = schemaOrRef(p.schema as Obj);
  return { parameter: out };
}

function operation(op: Obj): Obj {
  const out: Obj = {};
  if (op.tags) out.tags = op.tags;
  if (op.description !== undefined) out.description = op.description;
  if (op.operationId !== undefined) out.operation_id = op.operationId;
  if (op.parameters) out.parameters = (op.parameters as Obj[]).map(parameter);
  if (op.requestBody) {
    const rb = op.requestBody as Obj;
    const body: Obj = { content: mediaTypes(rb.content as Obj) };
    if (rb.required) body.required = true;
    out.request_body = { request_body: body };
  }
  if (op.responses) {
    out.responses = {
      response_or_reference: Object.entries(op.responses as Obj).map(([code, r]) => {
        const resp = r as Obj;
        const value: Obj = { description: resp.description };
        if (resp.content) value.content = mediaTypes(resp.content as Obj);
        return { name: code, value: { response: value } };
      }),
    };
  }
  const ext = vendorExtensions(op);
  if (ext.length) out.specification_extension = ext;
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The gnostic v3 message object (protobufjs plain-object form) of a v3 document. */
export function toGnosticV3(doc: Json): Obj {
  const paths = Object.entries(doc.paths as Obj).map(([name, item]) => {
    const it = item as Obj;
    const value: Obj = {};
    for (const m of METHODS) if (it[m]) value[m] = operation(it[m] as Obj);
    if (it.parameters) value.parameters = (it.parameters as Obj[]).map(parameter);
    return { name, value };
  });
  const info = doc.info as Obj;
  const components = (doc.components ?? {}) as Obj;
  const out: Obj = { openapi: doc.openapi, info: { title: info.title, version: info.version }, paths: { path: paths } };
  const comp: Obj = {};
  if (components.schemas) comp.schemas = { additional_properties: Object.entries(components.schemas as Obj).map(([name, s]) => ({ name, value: schemaOrRef(s as Obj) })) };
  if (components.securitySchemes) {
    comp.security_schemes = {
      additional_properties: Object.entries(components.securitySchemes as Obj).map(([name, d]) => {
        const def = d as Obj;
        const scheme: Obj = {};
        for (const k of ['type', 'description', 'name', 'in'] as const) if (def[k] !== undefined) scheme[k] = def[k];
        return { name, value: { security_scheme: scheme } };
      }),
    };
  }
  out.components = comp;
  return out;
}

/** Encode a v3 document as gnostic's OpenAPIv3 protobuf. */
export function encodeOpenApiV3(doc: Json): Buffer {
  const t = docType();
  return Buffer.from(t.encode(t.fromObject(toGnosticV3(doc))).finish());
}

/** Decode gnostic v3 protobuf bytes to the plain message object. */
export function decodeOpenApiV3(bytes: Uint8Array): Obj {
  const t = docType();
  return t.toObject(t.decode(bytes), { defaults: false, arrays: true }) as Obj;
}
