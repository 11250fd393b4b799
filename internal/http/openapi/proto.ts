/**
 * The protobuf form of the v2 document: gnostic's `openapi.v2.Document` (proto/OpenAPIv2.proto),
 * which kube-apiserver serves for `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
 * and client-go's `OpenAPISchema()` (older kubectl) decodes. The mapping follows gnostic's
 * compiler (ParseDocument): named maps become repeated `Named*` pairs in document order,
 * parameters and responses become their oneof variants, and vendor extensions (`x-…`) carry
 * their value as YAML text in `Any.yaml`.
 */
import type protobuf from 'protobufjs';
import type { Json } from './v2.ts';
import { gnosticType, anyOf, vendorExtensions, validations, type Obj } from './gnostic.ts';

const docType: () => protobuf.Type = gnosticType('OpenAPIv2.proto', 'openapi.v2.Document');

function schema(s: Obj): Obj {
  const out: Obj = {};
  if (s.$ref !== undefined) out._ref = s.$ref;
  if (s.format !== undefined) out.format = s.format;
  if (s.title !== undefined) out.title = s.title;
  if (s.description !== undefined) out.description = s.description;
  if (s.default !== undefined) out.default = anyOf(s.default);
  validations(s, out);
  if (s.required !== undefined) out.required = s.required;
  if (s.enum !== undefined) out.enum = (s.enum as unknown[]).map(anyOf);
  if (s.additionalProperties !== undefined) {
    out.additional_properties = typeof s.additionalProperties === 'boolean' ? { boolean: s.additionalProperties } : { schema: schema(s.additionalProperties as Obj) };
  }
  if (s.type !== undefined) out.type = { value: Array.isArray(s.type) ? s.type : [s.type] };
  if (s.items !== undefined) out.items = { schema: (Array.isArray(s.items) ? s.items : [s.items]).map((i) => schema(i as Obj)) };
  if (s.allOf !== undefined) out.all_of = (s.allOf as Obj[]).map(schema);
  if (s.properties !== undefined) out.properties = { additional_properties: Object.entries(s.properties as Obj).map(([name, v]) => ({ name, value: schema(v as Obj) })) };
  const ext = vendorExtensions(s);
  if (ext.length) out.vendor_extension = ext;
  return out;
}

function parameter(p: Obj): Obj {
  if (p.in === 'body') {
    const b: Obj = { name: p.name, in: p.in, schema: schema(p.schema as Obj) };
    if (p.description !== undefined) b.description = p.description;
    if (p.required) b.required = true;
    return { parameter: { body_parameter: b } };
  }
  const sub: Obj = { in: p.in, name: p.name };
  if (p.required) sub.required = true;
  if (p.description !== undefined) sub.description = p.description;
  if (p.type !== undefined) sub.type = p.type;
  if (p.uniqueItems) sub.unique_items = true;
  const variant = p.in === 'path' ? 'path_parameter_sub_schema' : p.in === 'header' ? 'header_parameter_sub_schema' : p.in === 'formData' ? 'form_data_parameter_sub_schema' : 'query_parameter_sub_schema';
  return { parameter: { non_body_parameter: { [variant]: sub } } };
}

function operation(op: Obj): Obj {
  const out: Obj = {};
  if (op.tags) out.tags = op.tags;
  if (op.description !== undefined) out.description = op.description;
  if (op.operationId !== undefined) out.operation_id = op.operationId;
  if (op.produces) out.produces = op.produces;
  if (op.consumes) out.consumes = op.consumes;
  if (op.parameters) out.parameters = (op.parameters as Obj[]).map(parameter);
  if (op.responses) {
    out.responses = {
      response_code: Object.entries(op.responses as Obj).map(([code, r]) => {
        const resp = r as Obj;
        const value: Obj = { description: resp.description };
        if (resp.schema) value.schema = { schema: schema(resp.schema as Obj) };
        return { name: code, value: { response: value } };
      }),
    };
  }
  if (op.schemes) out.schemes = op.schemes;
  const ext = vendorExtensions(op);
  if (ext.length) out.vendor_extension = ext;
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** The gnostic message object (protobufjs plain-object form, proto field names) of a v2 document. */
export function toGnostic(doc: Json): Obj {
  const paths = Object.entries(doc.paths as Obj).map(([name, item]) => {
    const it = item as Obj;
    const value: Obj = {};
    for (const m of METHODS) if (it[m]) value[m] = operation(it[m] as Obj);
    if (it.parameters) value.parameters = (it.parameters as Obj[]).map(parameter);
    return { name, value };
  });
  const info = doc.info as Obj;
  const securityDefinitions = Object.entries((doc.securityDefinitions ?? {}) as Obj).map(([name, d]) => {
    const def = d as Obj;
    return { name, value: { api_key_security: { type: def.type, name: def.name, in: def.in, description: def.description } } };
  });
  return {
    swagger: doc.swagger,
    info: { title: info.title, version: info.version },
    paths: { path: paths },
    definitions: { additional_properties: Object.entries(doc.definitions as Obj).map(([name, s]) => ({ name, value: schema(s as Obj) })) },
    security: ((doc.security ?? []) as Obj[]).map((req) => ({ additional_properties: Object.entries(req).map(([name, v]) => ({ name, value: { value: v } })) })),
    security_definitions: { additional_properties: securityDefinitions },
  };
}

/** Encode a v2 document as gnostic's OpenAPIv2 protobuf. */
export function encodeSwagger(doc: Json): Buffer {
  const t = docType();
  return Buffer.from(t.encode(t.fromObject(toGnostic(doc))).finish());
}

/** Decode gnostic protobuf bytes to the plain message object (tests compare both targets). */
export function decodeSwagger(bytes: Uint8Array): Obj {
  const t = docType();
  return t.toObject(t.decode(bytes), { defaults: false, arrays: true }) as Obj;
}
