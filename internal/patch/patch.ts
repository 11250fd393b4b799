/**
 * Patch application for the non-apply patch types. Pure: (current object, patch bytes) → new object.
 * - application/merge-patch+json: RFC 7386.
 * - application/json-patch+json: RFC 6902 (fast-json-patch), test ops included.
 * - application/strategic-merge-patch+json: strategicpatch's merge, with the patch metadata of the
 *   kind's schema (strategic-merge.ts).
 */
import jsonpatch from 'fast-json-patch';
import { goSyntaxError, jsonDepthError } from '../decode/json-parse.ts';

import type { KubeObject } from '../api/types.ts';
import { badRequest, unsupportedMediaTypeRoute, ApiError, failure } from '../api/errors.ts';
import { strategicPatch } from './strategic-merge-patch.ts';
import { isObj, goJson } from '../gocompat/json.ts';
import { jsonEqual } from '../gocompat/equal.ts';

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** The media type each patch type is named by in kube's 415 (apply: its YAML form). */
export const PATCH_MEDIA_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

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

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const goJsonType = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v);

/** evanphx/json-patch's ErrBadJSONPatch, which kube returns as a 400 for unusable merge patches. */
const badMergePatch = (): ApiError => badRequest('Invalid JSON Patch');

/**
 * A JSON patch that does not apply (failed test, missing path, unknown op): kube wraps the error
 * in NewGenericServerResponse(422), which keeps only a fixed message and empty details.
 */
const jsonPatchFailed = (): ApiError => new ApiError(failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));

/**
 * What kube answers when the patched document is not an object (a merge patch that is a JSON
 * array replaces the whole document): decoding it fails, reported as NewInvalid(GroupKind{}, "",
 * patch: Invalid value: <document>).
 */
function patchedNotAnObject(doc: unknown): ApiError {
  const text = JSON.stringify(doc);
  const why = `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonType(doc)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
  const body = `Invalid value: ${JSON.stringify(text)}: ${why}`;
  return new ApiError(failure(422, 'Invalid', ` "" is invalid: patch: ${body}`, { causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }] }));
}

const sortedKeys = (o: Record<string, unknown>): string[] => Object.keys(o).filter((k) => o[k] !== undefined).sort();

/**
 * The patched document as kube-apiserver prints it when it cannot be decoded: json-patch (evanphx)
 * keeps the bytes of every untouched subdocument (in the stored, Go order) and re-marshals what
 * the patch touched as Go maps (keys sorted). metadata.managedFields are part of it (the patcher
 * works on the stored object; the field manager runs later).
 */
function renderPatched(patched: unknown, current: unknown): string {
  if (jsonEqual(patched, current)) return goJson(current);
  if (isObj(patched)) {
    const cur = isObj(current) ? current : undefined;
    return `{${sortedKeys(patched).map((k) => `${goJson(k)}:${renderPatched(patched[k], cur?.[k])}`).join(',')}}`;
  }
  if (Array.isArray(patched)) return `[${patched.map((x) => renderPatched(x, undefined)).join(',')}]`;
  return goJson(patched);
}

/**
 * A merge or JSON patch whose result does not decode: kube reports NewInvalid(GroupKind{}, "",
 * patch: Invalid value: <patched document>: <the decoder's error>), 422.
 */
export function patchedUndecodable(current: KubeObject, patched: KubeObject, why: string): ApiError {
  const body = `Invalid value: ${JSON.stringify(renderPatched(patched, current))}: ${why}`;
  return new ApiError(failure(422, 'Invalid', ` "" is invalid: patch: ${body}`, { causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }] }));
}

/**
 * Apply a non-apply patch, answering malformed patches as kube-apiserver 1.24 does:
 * - merge: not JSON, null or a scalar → 400 "Invalid JSON Patch"; an array replaces the document,
 *   which then fails to decode (422, see patchedNotAnObject);
 * - strategic: anything but an object → 400 with encoding/json's message;
 * - json: anything but an array of objects → 400 with encoding/json's message; a patch that does
 *   not apply → 422 with empty details.
 */
export function applyPatch(type: Exclude<PatchType, 'apply'>, current: unknown, body: Buffer): unknown {
  let patch: unknown;
  try {
    patch = JSON.parse(body.toString('utf8'));
  } catch {
    if (type === 'merge') throw badMergePatch();
    // json.Unmarshal's scanner error, as kube answers it (duplicate keys in a patch resolve as in
    // a map[string]interface{}: the last wins, which JSON.parse does).
    throw badRequest(goSyntaxError(body.toString('utf8')) || 'unexpected end of JSON input');
  }
  // encoding/json's depth limit (JSON.parse has none): json-patch's merge reports it as any
  // unreadable merge patch.
  const deep = jsonDepthError(body.toString('utf8'));
  if (deep) throw type === 'merge' ? badMergePatch() : badRequest(deep);
  if (type === 'json') {
    if (!Array.isArray(patch)) throw badRequest(`json: cannot unmarshal ${patch === null ? 'null' : goJsonType(patch)} into Go value of type jsonpatch.Patch`);
    const notOp = patch.find((op) => !isObj(op) && op !== null);
    if (notOp !== undefined) throw badRequest(`json: cannot unmarshal ${goJsonType(notOp)} into Go value of type jsonpatch.Operation`);
    try {
      return jsonpatch.applyPatch(structuredClone(current), patch as jsonpatch.Operation[], true, false).newDocument;
    } catch {
      throw jsonPatchFailed();
    }
  }
  if (type === 'merge') {
    if (Array.isArray(patch)) throw patchedNotAnObject(patch);
    if (!isObj(patch)) throw badMergePatch();
    return mergePatch(current, patch);
  }
  if (patch === null) return current; // json.Unmarshal of null into a map: an empty patch
  if (!isObj(patch)) throw badRequest(`json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`);
  return strategicPatch(current as KubeObject, patch);
}
