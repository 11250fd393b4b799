/**
 * Shared by the v2 and v3 protobuf encoders: loading a gnostic document message from its
 * proto/OpenAPIv{2,3}.proto (the files' only import is google/protobuf/any.proto, which protobufjs
 * ships as a common type) and gnostic's representation of vendor extensions (`x-…` → a named
 * `Any` holding the value as the YAML text gnostic marshals).
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import YAML from 'yaml';

export type Obj = Record<string, unknown>;

/** A loader for `message` of `proto/<file>`, parsed on first use and cached. */
export function gnosticType(file: string, message: string): () => protobuf.Type {
  let type: protobuf.Type | undefined;
  return () => {
    if (!type) {
      const text = readFileSync(new URL(`../../../proto/${file}`, import.meta.url), 'utf8');
      const root = new protobuf.Root();
      const any = (protobuf.common as unknown as Record<string, protobuf.INamespace>)['google/protobuf/any.proto'];
      if (any?.nested) root.addJSON(any.nested);
      protobuf.parse(text.replace(/^import .*$/m, ''), root, { keepCase: true });
      root.resolveAll();
      type = root.lookupType(message);
    }
    return type;
  };
}

/** gnostic keeps an extension's value as the YAML it marshals (`yaml.Marshal` of the node). */
export const anyOf = (v: unknown): Obj => ({ yaml: YAML.stringify(v) });

/** The `x-…` members of an object as gnostic's `NamedAny` pairs, in document order. */
export const vendorExtensions = (o: Obj): Obj[] =>
  Object.keys(o)
    .filter((k) => k.startsWith('x-'))
    .map((k) => ({ name: k, value: anyOf(o[k]) }));

/** JSON Schema's value validations (same field names in gnostic's v2 and v3 Schema messages). */
const VALIDATIONS: [string, string][] = [
  ['multipleOf', 'multiple_of'], ['maximum', 'maximum'], ['exclusiveMaximum', 'exclusive_maximum'], ['minimum', 'minimum'], ['exclusiveMinimum', 'exclusive_minimum'],
  ['maxLength', 'max_length'], ['minLength', 'min_length'], ['pattern', 'pattern'], ['maxItems', 'max_items'], ['minItems', 'min_items'], ['uniqueItems', 'unique_items'],
  ['maxProperties', 'max_properties'], ['minProperties', 'min_properties'],
];

/** Copy a schema's value validations into its gnostic message object. */
export function validations(s: Obj, out: Obj): void {
  for (const [json, pb] of VALIDATIONS) if (s[json] !== undefined && s[json] !== false) out[pb] = s[json];
}
