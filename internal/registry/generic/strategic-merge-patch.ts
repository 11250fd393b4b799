/**
 * `application/strategic-merge-patch+json` on a stored object, as kube-apiserver 1.24's PATCH
 * handler does it (handlers/patch.go strategicPatchObject → applyPatchToObject): the patch
 * metadata is the kind's (the versioned type of the request, here the object's apiVersion/kind,
 * which the store serves in the requested version), and the merge's errors become
 * interpretStrategicMergePatchError's status codes.
 *
 * A kind without a schema merges as strategicpatch does without metadata (maps merge, lists are
 * replaced). kube refuses this patch type for custom resources with a 415 before reading the body
 * (apiextensions-apiserver offers only JSON, merge and apply patches); a CRD route must do the same.
 */
import { ApiError, badRequest, failure, unknownError } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { schemas } from '../../schema/registry.ts';
import { SmpError } from './strategic-merge-errors.ts';
import { type LookupPatchMeta, NO_SCHEMA, patchMetaFromSchema } from './strategic-merge-meta.ts';
import { strategicMergeMapPatch } from './strategic-merge.ts';

/** The patch metadata of an object's kind (by its apiVersion and kind), or NO_SCHEMA. */
export function patchMetaOf(obj: { apiVersion?: unknown; kind?: unknown }): LookupPatchMeta {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const slash = apiVersion.indexOf('/');
  const gvk = { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
  const reg = schemas();
  const root = reg.openApiKind(gvk);
  return root ? patchMetaFromSchema(root, (name) => reg.openApiDefinition(name)) : NO_SCHEMA;
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
  try {
    return strategicMergeMapPatch(current as unknown as Record<string, unknown>, patch, patchMetaOf(current)) as unknown as KubeObject;
  } catch (e) {
    if (e instanceof SmpError) throw strategicPatchError(e);
    throw e;
  }
}
