/**
 * What kube-apiserver 1.24 does to a custom resource with its version's structural schema, in
 * its order: on decode, prune unknown fields, drop non-nullable nulls, coerce embedded metadata,
 * then apply defaults (`decodeCustomResource`); on create/update, validate against the schema,
 * then the embedded resources' metadata, then list-type uniqueness (`validateCustomResource`).
 * The object's own TypeMeta/ObjectMeta checks (kind, apiVersion, metadata) come first in kube
 * and are the caller's (the store's) business.
 */
import type { FieldError } from '../api/field-errors.ts';
import { coerceEmbedded, validateEmbedded } from './embedded.ts';
import { validateListSetsAndMaps } from './listtype.ts';
import { applyDefaults, prune, pruneNonNullableNulls } from './prune.ts';
import { validateAgainstSchema } from './validate.ts';
import type { JSONSchemaProps } from './types.ts';

export { CoerceError } from './embedded.ts';

/**
 * Prunes, coerces and defaults a decoded custom resource in place (the body of a create, update
 * or patch, or an object read from storage). Returns the pruned field paths (sorted).
 * `preserveUnknownFields` is the CRD's spec.preserveUnknownFields (always false in v1).
 * Throws CoerceError when an embedded metadata field has the wrong type (kube: 400).
 */
export function decodeCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined, preserveUnknownFields = false): string[] {
  let pruned: string[] = [];
  if (!preserveUnknownFields) {
    pruned = prune(obj, schema);
    pruneNonNullableNulls(obj, schema);
  }
  coerceEmbedded(obj, schema);
  applyDefaults(obj, schema);
  return pruned;
}

/** The schema's field errors for a custom resource (empty when valid). Pure. */
export function validateCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined): FieldError[] {
  return [...validateAgainstSchema(schema, obj), ...validateEmbedded(obj, schema), ...validateListSetsAndMaps(schema, obj)];
}
