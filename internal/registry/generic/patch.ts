/**
 * Patch application for the non-apply patch types. Pure: (current object, patch bytes) → new object.
 * - application/merge-patch+json: RFC 7386.
 * - application/json-patch+json: RFC 6902 (fast-json-patch), test ops included.
 * - application/strategic-merge-patch+json: merge patch plus the list semantics our kinds declare
 *   (finalizers merge as sets) and the `$patch: replace|delete` and `$deleteFromPrimitiveList`
 *   directives kubectl sends.
 */
import jsonpatch from 'fast-json-patch';
import { badRequest, unsupportedMediaTypeRoute, ApiError, failure } from '../../api/errors.ts';

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export function patchTypeOf(contentType: string): PatchType {
  const ct = contentType.split(';')[0].trim().toLowerCase();
  switch (ct) {
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/json-patch+json':
      return 'json';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+json':
      return 'apply';
    default:
      throw unsupportedMediaTypeRoute(); // the PATCH route consumes only the patch types
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Paths (dot-joined) of scalar lists that strategic merge treats as sets (patchStrategy: merge). */
const SET_LISTS = new Set(['metadata.finalizers']);

export function strategicMergePatch(target: unknown, patch: unknown, path = ''): unknown {
  if (!isObj(patch)) return patch;
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return rest;
  }
  if (patch.$patch === 'delete') return undefined;
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k.startsWith('$setElementOrder/') || k === '$retainKeys') continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = (out[field] as unknown[]).filter((x) => !v.includes(x));
      continue;
    }
    const child = path ? `${path}.${k}` : k;
    if (v === null) delete out[k];
    else if (Array.isArray(v) && SET_LISTS.has(child) && Array.isArray(out[k])) {
      const merged = [...(out[k] as unknown[])];
      for (const x of v) if (!merged.includes(x)) merged.push(x);
      out[k] = merged;
    } else {
      const r = strategicMergePatch(out[k], v, child);
      if (r === undefined) delete out[k];
      else out[k] = r;
    }
  }
  return out;
}

/** Apply a non-apply patch. Throws 400 for a malformed patch, 422 for a failed JSON-patch test. */
export function applyPatch(type: Exclude<PatchType, 'apply'>, current: unknown, body: Buffer): unknown {
  let patch: unknown;
  try {
    patch = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  if (type === 'json') {
    if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
    try {
      return jsonpatch.applyPatch(structuredClone(current), patch as jsonpatch.Operation[], true, false).newDocument;
    } catch (e) {
      const err = e as { name?: string; message?: string };
      if (err.name === 'TEST_OPERATION_FAILED') throw new ApiError(failure(422, 'Invalid', `the server rejected our request due to an error in our request: testing value failed`));
      throw new ApiError(failure(422, 'Invalid', `the server rejected our request due to an error in our request: ${String(err.message ?? e).split('\n')[0]}`));
    }
  }
  if (!isObj(patch)) throw badRequest('json: cannot unmarshal patch: expected a JSON object');
  return type === 'merge' ? mergePatch(current, patch) : strategicMergePatch(current, patch);
}
