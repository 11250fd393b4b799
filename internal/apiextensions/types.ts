/**
 * The schema of a custom resource as a CRD carries it (apiextensions.k8s.io/v1 JSONSchemaProps,
 * in its JSON form: `spec.versions[i].schema.openAPIV3Schema`), and the Go printing of decoded
 * JSON values that kube's messages use.
 */

/** One node of an openAPIV3Schema (only the fields kube reads; unknown keys are ignored). */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  default?: unknown;
  example?: unknown;
  enum?: unknown[];
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  additionalItems?: JSONSchemaProps | boolean;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  definitions?: Record<string, JSONSchemaProps>;
  $ref?: string;
  $schema?: string;
  id?: string;
  externalDocs?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
}

/** A schema's property by name: own properties only (`constructor`, `__proto__` are field names too). */
export const propertyOf = (s: JSONSchemaProps | undefined, name: string): JSONSchemaProps | undefined =>
  s?.properties && Object.prototype.hasOwnProperty.call(s.properties, name) ? s.properties[name] : undefined;

// Go's printing of decoded JSON values (%v, %#v, float64) lives in gocompat; re-exported for this folder's users.
export { goFloat, goNumber, goSharpV, goV } from '../gocompat/print.ts';
