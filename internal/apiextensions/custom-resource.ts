/**
 * What kube-apiserver 1.24 does to a custom resource with its version's structural schema, in
 * its order: on decode, prune unknown fields, drop non-nullable nulls, coerce embedded metadata,
 * then apply defaults (`decodeCustomResource`); on create/update, validate against the schema,
 * then the embedded resources' metadata, then list-type uniqueness (`validateCustomResource`).
 * The object's own TypeMeta/ObjectMeta checks (kind, apiVersion, metadata) come first in kube
 * and are the caller's (the store's) business.
 */
import type { FieldError } from '../api/field-errors.ts';
import { coerceEmbedded, coerceObjectMeta, validateEmbedded } from './embedded.ts';
import { validateListSetsAndMaps } from './listtype.ts';
import { applyDefaults, prune, pruneNonNullableNulls } from './prune.ts';
import { validateScaleSpec, validateScaleStatus, type ScaleSubresource } from './scale.ts';
import { validateAgainstSchema } from './validate.ts';
import type { JSONSchemaProps } from './types.ts';

export { CoerceError } from './embedded.ts';
export type { ScaleSubresource } from './scale.ts';

export interface DecodeOptions {
  /** The CRD's spec.preserveUnknownFields (false in v1 unless carried over from v1beta1). */
  preserveUnknownFields?: boolean;
  /** The object comes from storage: wrongly typed embedded metadata fields are dropped, not refused. */
  fromStorage?: boolean;
}

/**
 * Prunes, coerces and defaults a decoded custom resource in place (the body of a create, update
 * or patch, or an object read from storage: kube defaults on read too). Returns the pruned field
 * paths (sorted). Throws CoerceError when a metadata field (its own or an embedded one) has the wrong type (kube:
 * 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: <field error>`), unless fromStorage.
 */
export function decodeCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined, opts: DecodeOptions = {}): string[] {
  return decode(obj, schema, opts).pruned;
}

/**
 * decodeCustomResource that also says whether the object changed (false: it was already pruned,
 * coerced and defaulted, e.g. a stored object written under the same schema, which can then be
 * served as its stored bytes).
 */
export function decodeStoredCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined, opts: DecodeOptions = {}): boolean {
  return decode(obj, schema, opts).changed;
}

function decode(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined, opts: DecodeOptions): { pruned: string[]; changed: boolean } {
  let pruned: string[] = [];
  let changed = false;
  if (!opts.preserveUnknownFields) {
    pruned = prune(obj, schema);
    changed = pruneNonNullableNulls(obj, schema) || pruned.length > 0;
  }
  if (coerceObjectMeta(obj, !!opts.fromStorage)) changed = true;
  if (coerceEmbedded(obj, schema, undefined, false, !!opts.fromStorage)) changed = true;
  if (applyDefaults(obj, schema)) changed = true;
  return { pruned, changed };
}

/** The schema's (and scale subresource's) field errors for a custom resource being created. Pure. */
export function validateCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined, scale?: ScaleSubresource): FieldError[] {
  return [...validateAgainstSchema(schema, obj), ...validateScaleSpec(obj, scale), ...validateScaleStatus(obj, scale), ...validateEmbedded(obj, schema), ...validateListSetsAndMaps(schema, obj)];
}

/**
 * The schema's field errors for an update of the main resource: as for a create, except that list
 * sets and maps are checked only when the old object passed that check (kube's ratchet, so an
 * object stored before the rule existed can still be updated). Pure.
 */
export function validateCustomResourceUpdate(obj: Record<string, unknown>, old: Record<string, unknown>, schema: JSONSchemaProps | undefined, scale?: ScaleSubresource): FieldError[] {
  const errs = [...validateAgainstSchema(schema, obj), ...validateScaleSpec(obj, scale), ...validateScaleStatus(obj, scale), ...validateEmbedded(obj, schema)];
  if (validateListSetsAndMaps(schema, old).length === 0) errs.push(...validateListSetsAndMaps(schema, obj));
  return errs;
}

/** The field errors of an update through /status: the schema and the scale status only (no embedded or list-type rules). Pure. */
export function validateCustomResourceStatusUpdate(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined, scale?: ScaleSubresource): FieldError[] {
  return [...validateAgainstSchema(schema, obj), ...validateScaleStatus(obj, scale)];
}
