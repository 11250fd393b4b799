/**
 * Patch application for the non-apply patch types. Pure: (current object, patch bytes) → new object.
 * - application/merge-patch+json: RFC 7386.
 * - application/json-patch+json: RFC 6902 (fast-json-patch), test ops included.
 * - application/strategic-merge-patch+json: merge patch plus the list semantics our kinds declare
 *   (finalizers merge as sets) and the `$patch: replace|delete` and `$deleteFromPrimitiveList`
 *   directives kubectl sends.
 */
import jsonpatch from 'fast-json-patch';
import { goSyntaxError } from '../../decode/json-parse.ts';
import { goJson, jsonEqual } from './serialize.ts';
import type { KubeObject } from '../../api/types.ts';
import type { OpenApiSchema } from '../../schema/types.ts';
import { generatedSource } from '../../schema/registry.ts';
import { badRequest, unsupportedMediaTypeRoute, ApiError, failure, unknownError } from '../../api/errors.ts';

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

/** Paths (dot-joined) of scalar lists that strategic merge treats as sets when no schema is known. */
const SET_LISTS = new Set(['metadata.finalizers']);

/** A schema node with `$ref`s of the generated definitions followed. */
function resolveSchema(node: OpenApiSchema | undefined): OpenApiSchema | undefined {
  let n = node;
  for (let i = 0; n?.$ref && i < 16; i++) n = generatedSource().definition(n.$ref);
  return n;
}

/** The schema of field `k` of an object node (a struct's property or a map's value). */
function fieldSchema(node: OpenApiSchema | undefined, k: string): OpenApiSchema | undefined {
  const r = resolveSchema(node);
  if (!r) return undefined;
  if (r.properties) return r.properties[k];
  return typeof r.additionalProperties === 'object' && r.additionalProperties !== null ? (r.additionalProperties as OpenApiSchema) : undefined;
}

/** The root schema of the kind a stored object is (undefined: not a generated kind). */
export function kindSchema(obj: unknown): OpenApiSchema | undefined {
  if (!isObj(obj) || typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return undefined;
  const slash = obj.apiVersion.indexOf('/');
  const gvk = { group: slash >= 0 ? obj.apiVersion.slice(0, slash) : '', version: obj.apiVersion.slice(slash + 1), kind: obj.kind };
  return resolveSchema(generatedSource().kind(gvk));
}

/**
 * A list with patchStrategy merge and a patchMergeKey (e.g. conditions by `type`, containers by
 * `name`): patch elements merge into the element with the same key, new ones are appended,
 * `{$patch: delete, key: …}` removes one, an element `{$patch: replace}` replaces the whole list.
 */
function mergeKeyedList(current: unknown, patch: unknown[], key: string, items: OpenApiSchema | undefined, path: string): unknown[] {
  if (patch.some((e) => isObj(e) && e.$patch === 'replace')) return patch.filter((e) => !(isObj(e) && e.$patch === 'replace'));
  const out = Array.isArray(current) ? [...current] : [];
  for (const el of patch) {
    if (!isObj(el)) {
      out.push(el);
      continue;
    }
    const i = out.findIndex((x) => isObj(x) && jsonEqual(x[key], el[key]));
    if (el.$patch === 'delete') {
      if (i >= 0) out.splice(i, 1);
      continue;
    }
    if (i >= 0) out[i] = strategicMergePatch(out[i], el, path, items);
    else out.push(strategicMergePatch({}, el, path, items));
  }
  return out;
}

/**
 * `$setElementOrder/<field>` (strategicpatch normalizeElementOrder): the merged elements named in
 * `order` come in that order; the others (only on the server) keep their server order, and the two
 * sequences are interleaved by server position (mergeSortedSlice).
 */
function applyElementOrder(merged: unknown[], server: unknown[], order: unknown[], idOf: (x: unknown) => unknown): unknown[] {
  const pos = (list: unknown[], x: unknown): number => list.findIndex((y) => jsonEqual(idOf(y), idOf(x)));
  const inOrder = merged.filter((x) => pos(order, x) >= 0).sort((a, b) => pos(order, a) - pos(order, b));
  const serverOnly = merged.filter((x) => pos(order, x) < 0).sort((a, b) => pos(server, a) - pos(server, b));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < inOrder.length) {
    if (i >= serverOnly.length) out.push(inOrder[j++]);
    else if (j >= inOrder.length) out.push(serverOnly[i++]);
    else {
      const li = pos(server, serverOnly[i]);
      const ri = pos(server, inOrder[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]);
      else out.push(inOrder[j++]);
    }
  }
  return out;
}

/**
 * Strategic merge patch (apimachinery strategicpatch, for the parts clients use): a merge patch
 * whose lists follow the schema's `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`
 * (`schema` is the node of `target`; without one, only metadata.finalizers merges), plus the
 * `$patch: replace|delete` and `$deleteFromPrimitiveList` directives kubectl sends.
 */
export function strategicMergePatch(target: unknown, patch: unknown, path = '', schema?: OpenApiSchema): unknown {
  if (!isObj(patch)) return patch;
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return rest;
  }
  if (patch.$patch === 'delete') return undefined;
  if ('$patch' in patch) throw badPatchType(patch.$patch, patch);
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k.startsWith('$setElementOrder/') || k === '$retainKeys') continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = (out[field] as unknown[]).filter((x) => !v.includes(x));
      continue;
    }
    const child = path ? `${path}.${k}` : k;
    const fs = resolveSchema(fieldSchema(schema, k));
    const strategy = fs?.['x-kubernetes-patch-strategy'] ?? '';
    const merges = strategy.split(',').includes('merge');
    const order = patch[`$setElementOrder/${k}`];
    const server = Array.isArray(out[k]) ? (out[k] as unknown[]) : [];
    if (v === null) delete out[k];
    else if (Array.isArray(v) && merges && fs?.['x-kubernetes-patch-merge-key']) {
      const key = fs['x-kubernetes-patch-merge-key'];
      const merged = mergeKeyedList(out[k], v, key, fs.items, child);
      out[k] = Array.isArray(order) ? applyElementOrder(merged, server, order, (x) => (isObj(x) ? x[key] : x)) : merged;
    } else if (Array.isArray(v) && (merges || (!schema && SET_LISTS.has(child))) && Array.isArray(out[k])) {
      const merged = [...(out[k] as unknown[])];
      for (const x of v) if (!merged.some((y) => jsonEqual(x, y))) merged.push(x);
      out[k] = Array.isArray(order) && merges ? applyElementOrder(merged, server, order, (x) => x) : merged;
    } else {
      const r = strategicMergePatch(out[k], v, child, fs);
      if (r === undefined) delete out[k];
      else out[k] = r;
    }
  }
  // A `$setElementOrder` without its list in the patch only reorders the list.
  for (const [d, order] of Object.entries(patch)) {
    if (!d.startsWith('$setElementOrder/') || !Array.isArray(order)) continue;
    const k = d.slice('$setElementOrder/'.length);
    if (k in patch || !Array.isArray(out[k])) continue;
    const fs = resolveSchema(fieldSchema(schema, k));
    if (!(fs?.['x-kubernetes-patch-strategy'] ?? '').split(',').includes('merge')) continue;
    const key = fs?.['x-kubernetes-patch-merge-key'];
    const list = out[k] as unknown[];
    out[k] = applyElementOrder(list, list, order, (x) => (key && isObj(x) ? x[key] : x));
  }
  return out;
}

/**
 * Go's %v of a decoded JSON value (maps print as map[k:v …] with sorted keys, slices as [a b],
 * null as <nil>), as strategicpatch's errors show patches.
 */
function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isObj(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goFormat(v[k])}`).join(' ')}]`;
  return String(v);
}

/**
 * mergepatch.ErrBadPatchType: a `$patch` directive in a map that is neither replace nor delete.
 * kube passes this plain error through, so it leaves as a 500 without a reason.
 */
function badPatchType(directive: unknown, patch: Record<string, unknown>): ApiError {
  const t = typeof directive === 'string' ? directive : directive === null ? '%!s(<nil>)' : `%!s(${typeof directive === 'number' ? 'float64' : 'bool'}=${goFormat(directive)})`;
  return unknownError(`unknown patch type: ${t} in map: ${goFormat(patch)}`);
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
  return strategicMergePatch(current, patch, '', kindSchema(current));
}
