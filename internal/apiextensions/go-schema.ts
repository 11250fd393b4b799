/**
 * Go's `%#v` of apiextensions' internal JSONSchemaProps struct, which kube prints as the value of
 * the "only [...] fields are allowed at the root of the schema if the status subresource is
 * enabled" error. Fields in the struct's order; a set pointer prints as `(*T)(0x…)`, whose
 * address is the Go heap's: here a fixed `0xc000000000`.
 */
import { goQuote } from '../gocompat/quote.ts';
import { isObj } from '../gocompat/json.ts';
import { goSharpV, type JSONSchemaProps } from './types.ts';

const ADDR = '0xc000000000';
const T = 'apiextensions.JSONSchemaProps';

type Kind = 'string' | 'bool' | 'ptr' | 'json[]' | 'string[]' | 'schema[]' | 'schemaMap' | 'rules';

/**
 * The struct's fields in Go's order, `GoName:jsonName:kind[:pointed-to or map type]`, parsed into
 * [Go name, JSON name, how %#v prints it, type].
 */
const FIELD_SPEC = `
  ID:id:string Schema:$schema:string Ref:$ref:ptr:string Description:description:string Type:type:string
  Nullable:nullable:bool Format:format:string Title:title:string Default:default:ptr:apiextensions.JSON
  Maximum:maximum:ptr:float64 ExclusiveMaximum:exclusiveMaximum:bool Minimum:minimum:ptr:float64
  ExclusiveMinimum:exclusiveMinimum:bool MaxLength:maxLength:ptr:int64 MinLength:minLength:ptr:int64
  Pattern:pattern:string MaxItems:maxItems:ptr:int64 MinItems:minItems:ptr:int64 UniqueItems:uniqueItems:bool
  MultipleOf:multipleOf:ptr:float64 Enum:enum:json[] MaxProperties:maxProperties:ptr:int64
  MinProperties:minProperties:ptr:int64 Required:required:string[] Items:items:ptr:apiextensions.JSONSchemaPropsOrArray
  AllOf:allOf:schema[] OneOf:oneOf:schema[] AnyOf:anyOf:schema[] Not:not:ptr:${T}
  Properties:properties:schemaMap:map[string]${T} AdditionalProperties:additionalProperties:ptr:apiextensions.JSONSchemaPropsOrBool
  PatternProperties:patternProperties:schemaMap:map[string]${T} Dependencies:dependencies:schemaMap:apiextensions.JSONSchemaDependencies
  AdditionalItems:additionalItems:ptr:apiextensions.JSONSchemaPropsOrBool Definitions:definitions:schemaMap:apiextensions.JSONSchemaDefinitions
  ExternalDocs:externalDocs:ptr:apiextensions.ExternalDocumentation Example:example:ptr:apiextensions.JSON
  XPreserveUnknownFields:x-kubernetes-preserve-unknown-fields:ptr:bool XEmbeddedResource:x-kubernetes-embedded-resource:bool
  XIntOrString:x-kubernetes-int-or-string:bool XListMapKeys:x-kubernetes-list-map-keys:string[]
  XListType:x-kubernetes-list-type:ptr:string XMapType:x-kubernetes-map-type:ptr:string XValidations:x-kubernetes-validations:rules`;
const FIELDS = FIELD_SPEC.trim()
  .split(/\s+/)
  .map((f) => {
    const [name, json, kind, ...type] = f.split(':');
    return [name, json, kind as Kind, type.join(':') || undefined] as const;
  });

function field(kind: Kind, v: unknown, ptrType?: string): string {
  switch (kind) {
    case 'string':
      return goQuote(typeof v === 'string' ? v : '');
    case 'bool':
      return String(v === true);
    case 'ptr':
      return v === undefined || v === null ? `(*${ptrType})(nil)` : `(*${ptrType})(${ADDR})`;
    case 'json[]':
      return Array.isArray(v) ? `[]apiextensions.JSON{${v.map(goSharpV).join(', ')}}` : '[]apiextensions.JSON(nil)';
    case 'string[]':
      return Array.isArray(v) ? `[]string{${v.map((x) => goQuote(String(x))).join(', ')}}` : '[]string(nil)';
    case 'schema[]':
      return Array.isArray(v) ? `[]${T}{${v.map((x) => goSchemaStruct(x)).join(', ')}}` : `[]${T}(nil)`;
    case 'schemaMap':
      return isObj(v)
        ? `${ptrType}{${Object.keys(v).sort().map((k) => `${goQuote(k)}:${goSchemaStruct(v[k] as JSONSchemaProps)}`).join(', ')}}`
        : `${ptrType}(nil)`;
    case 'rules':
      return Array.isArray(v)
        ? `apiextensions.ValidationRules{${v.map((r: any) => `apiextensions.ValidationRule{Rule:${goQuote(String(r?.rule ?? ''))}, Message:${goQuote(String(r?.message ?? ''))}}`).join(', ')}}`
        : 'apiextensions.ValidationRules(nil)';
  }
}

/** `%#v` of the schema as apiextensions.JSONSchemaProps. */
export function goSchemaStruct(s: JSONSchemaProps): string {
  return `${T}{${FIELDS.map(([name, json, kind, ptr]) => `${name}:${field(kind, (s as any)[json], ptr)}`).join(', ')}}`;
}

/** The struct fields kube allows at the root of a schema whose version has the status subresource. */
export const ALLOWED_AT_ROOT_WITH_STATUS = [
  'Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern',
  'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations',
];

/**
 * The first struct field (in Go's order) set at the root that the status subresource forbids,
 * or 'Type' when the type is set and not object, or undefined when the root is acceptable.
 */
export function firstForbiddenAtRoot(s: JSONSchemaProps): string | undefined {
  for (const [name, json, kind] of FIELDS) {
    const v = (s as any)[json];
    const zero = v === undefined || v === null || (kind === 'string' && v === '') || (kind === 'bool' && v !== true);
    if (zero) continue;
    if (name === 'Type') {
      if (v !== 'object') return 'Type';
      continue;
    }
    if (!ALLOWED_AT_ROOT_WITH_STATUS.includes(name)) return name;
  }
  return undefined;
}
