/**
 * `application/strategic-merge-patch+json` on a stored object, as kube-apiserver 1.24's PATCH
 * handler does it (handlers/patch.go strategicPatchObject → applyPatchToObject): the patch
 * metadata is the kind's (the versioned type of the request, here the object's apiVersion/kind,
 * which the store serves in the requested version), and the merge's errors become
 * interpretStrategicMergePatchError's status codes. A result that does not convert into the Go
 * type is the 422 applyPatchToObject answers (strategic-merge-decode.ts).
 *
 * A kind without a schema merges as strategicpatch does without metadata (maps merge, lists are
 * replaced). kube refuses this patch type for custom resources with a 415 before reading the body
 * (apiextensions-apiserver offers only JSON, merge and apply patches); a CRD route must do the same.
 */
import { ApiError, badRequest, failure, unknownError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { schemas } from '../schema/registry.ts';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenApiSchema } from '../schema/types.ts';
import { fromUnstructuredError } from './strategic-merge-decode.ts';
import { goFormat, SmpError } from './strategic-merge-errors.ts';
import { type LookupPatchMeta, NO_SCHEMA, patchMetaFromSchema } from './strategic-merge-meta.ts';
import { strategicMerge } from './strategic-merge.ts';

/** The kind's root schema node and how to resolve its `$ref`s, by the object's apiVersion and kind. */
function kindSchemaOf(obj: { apiVersion?: unknown; kind?: unknown }): { root: OpenApiSchema; resolve: (name: string) => OpenApiSchema | undefined } | undefined {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const slash = apiVersion.indexOf('/');
  const gvk = { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
  const reg = schemas();
  const root = reg.openApiKind(gvk);
  return root ? { root, resolve: (name) => reg.openApiDefinition(name) } : undefined;
}

/** The patch metadata of an object's kind (by its apiVersion and kind), or NO_SCHEMA. */
export function patchMetaOf(obj: { apiVersion?: unknown; kind?: unknown }): LookupPatchMeta {
  const k = kindSchemaOf(obj);
  return k ? patchMetaFromSchema(k.root, k.resolve) : NO_SCHEMA;
}

const GO_TYPES = join(dirname(fileURLToPath(import.meta.url)), '..', 'schema', 'generated', 'go', 'types.json');
let goTypes: Record<string, Record<string, string>> | undefined;

/**
 * applyPatchToObject's conversion failure: NewInvalid(GroupKind{}, "", patch: Invalid value:
 * <the patch map as the merge left it, %+v>: <the converter's error>), a 422.
 */
function patchNotConvertible(patch: Record<string, unknown>, why: string): ApiError {
  const body = `Invalid value: ${JSON.stringify(goFormat(patch))}: ${why}`;
  return new ApiError(failure(422, 'Invalid', ` "" is invalid: patch: ${body}`, { causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }] }));
}

/**
 * interpretStrategicMergePatchError: the malformed-directive sentinels are 400s, lists of lists a
 * 422 from NewGenericServerResponse, anything else a plain error (500 without a reason).
 */
export function strategicPatchError(e: SmpError): ApiError {
  switch (e.sentinel) {
    case 'noListOfLists':
    case 'patchContentNotMatchRetainKeys':
      return new ApiError(
        failure(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ reason: 'UnexpectedServerResponse', message: e.message }] }),
      );
    case undefined:
      return unknownError(e.message);
    default:
      return badRequest(e.message);
  }
}

/** The stored object with a (decoded, object) strategic merge patch applied; throws ApiError. */
export function strategicPatch(current: KubeObject, patch: Record<string, unknown>): KubeObject {
  const k = kindSchemaOf(current);
  let merged: { result: Record<string, unknown>; patch: Record<string, unknown> };
  try {
    merged = strategicMerge(current as unknown as Record<string, unknown>, patch, k ? patchMetaFromSchema(k.root, k.resolve) : NO_SCHEMA);
  } catch (e) {
    if (e instanceof SmpError) throw strategicPatchError(e);
    throw e;
  }
  if (k) {
    goTypes ??= JSON.parse(readFileSync(GO_TYPES, 'utf8')) as Record<string, Record<string, string>>;
    const why = fromUnstructuredError(merged.result, k.root, k.resolve, goTypes);
    if (why) throw patchNotConvertible(merged.patch, why);
  }
  return merged.result as unknown as KubeObject;
}
