/**
 * Strategic merge patch: a port of k8s.io/apimachinery@v0.24.17 pkg/util/strategicpatch
 * (patch.go: StrategicMergeMapPatch and everything it calls), the server side of
 * `application/strategic-merge-patch+json` (kubectl apply / patch / edit / label / annotate,
 * client-go's StrategicMergePatchType).
 *
 * Semantics come from the kind's schema (see strategic-merge-meta.ts): lists whose field has
 * patch strategy `merge` merge (maps by the field's merge key, scalars as sets), other lists are
 * replaced; maps merge key by key. Directives: `$patch: replace|delete` in a map, `$patch:
 * replace|delete` items in a merging list, `$retainKeys`, `$setElementOrder/<list>` and
 * `$deleteFromPrimitiveList/<list>`. Errors carry kube's texts (see strategic-merge-errors.ts).
 *
 * Like the Go code, the merge works on private copies it mutates; kube iterates the patch map in
 * random order, which only matters for contradictory patches, and here follows the patch's order.
 */
import { badArgType, badPatchType, goFormat, noMergeKey, reflectType, sentinel, SmpError } from './strategic-merge-errors.ts';
import type { LookupPatchMeta } from './strategic-merge-meta.ts';
import { type ElemKind, findMapByKey, goEq, normalizeElementOrder, type Obj, partitionMaps, partitionPrimitives } from './strategic-merge-order.ts';
import { isObj } from '../gocompat/json.ts';

const DIRECTIVE = '$patch';
const DELETE = 'delete';
const REPLACE = 'replace';
const MERGE = 'merge';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/**
 * Apply `patch` to `original` (StrategicMergeMapPatchUsingLookupPatchMeta: parallel lists merged,
 * unmatched nulls dropped). Neither argument is modified. Throws SmpError.
 */
export function strategicMergeMapPatch(original: Obj, patch: Obj, schema: LookupPatchMeta): Obj {
  return strategicMerge(original, patch, schema).result;
}

/**
 * strategicMergeMapPatch, also returning the patch as the merge left it: Go's merge consumes
 * directives and processed lists from the patch map, and kube prints that map (`%+v`) when the
 * result does not convert into the Go type.
 */
export function strategicMerge(original: Obj, patch: Obj, schema: LookupPatchMeta): { result: Obj; patch: Obj } {
  const p = structuredClone(patch);
  return { result: mergeMap(structuredClone(original), p, schema), patch: p };
}

/** Go's reflect.Kind of a decoded JSON value, as mergeMap switches on it. */
const kindOf = (v: unknown): 'map' | 'slice' | 'scalar' => (Array.isArray(v) ? 'slice' : isObj(v) ? 'map' : 'scalar');

/** handleDirectiveInMergeMap: `$patch: replace` keeps the patch, `delete` empties the map. */
function handleDirectiveInMergeMap(directive: unknown, patch: Obj): Obj {
  if (directive === REPLACE) {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === DELETE) return {};
  throw badPatchType(directive, patch);
}

/** extractKey: `<prefix>/<field>` → field. */
function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST) throw sentinel('badPatchFormatForPrimitiveList');
    throw sentinel('badPatchFormatForSetElementOrderList');
  }
  return s.slice(slash + 1);
}

/** extractRetainKeysPatchStrategy: the strategy other than retainKeys ("" if none). */
function otherStrategy(strategies: string[]): string {
  switch (strategies.length) {
    case 0:
      return '';
    case 1:
      return strategies[0] === 'retainKeys' ? '' : strategies[0]!;
    case 2:
      if (strategies[0] === 'retainKeys') return strategies[1]!;
      if (strategies[1] === 'retainKeys') return strategies[0]!;
  }
  throw new SmpError(`unexpected patch strategy: ${goFormat(strategies)}`);
}

/**
 * applyRetainKeysDirective: `$retainKeys` lists the keys the map keeps; every other key of the
 * original goes, and the patch may only set listed keys.
 */
function applyRetainKeysDirective(original: Obj, patch: Obj): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw sentinel('badPatchFormatForRetainKeys');
  const keep = (k: string): boolean => list.some((x) => goEq(x, k));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep(k)) throw sentinel('badPatchFormatForRetainKeys');
  }
  for (const k of Object.keys(original)) if (!keep(k)) delete original[k];
}

/**
 * validatePatchWithSetOrderList: the patch list's items (deletions aside) appear in the
 * `$setElementOrder` list, in the same relative order.
 */
function validatePatchWithSetOrderList(patchList: unknown, orderList: unknown, mergeKey: string): void {
  if (!Array.isArray(orderList) || !Array.isArray(patchList)) throw sentinel('badPatchFormatForSetElementOrderList');
  if (!orderList.length || !patchList.length) return;
  let items = patchList;
  if (mergeKey) {
    items = [];
    for (const v of patchList) {
      if (!isObj(v)) throw badArgType('map[string]interface {}', v);
      if (v[DIRECTIVE] !== DELETE) items.push(v);
    }
  }
  let p = 0;
  let o = 0;
  while (p < items.length && o < orderList.length) {
    if (isObj(items[p]) && Object.hasOwn(items[p] as Obj, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(items[p], orderList[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= orderList.length) {
    throw new SmpError(`The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormat(orderList)}\n`);
  }
}

/** mergeKeyValueEqual: same merge key value (or same value, for scalars). */
function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return goEq(left, right);
  if (!isObj(left)) throw badArgType('map[string]interface {}', left);
  if (!isObj(right)) throw badArgType('map[string]interface {}', right);
  if (!Object.hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return goEq(left[mergeKey], right[mergeKey]);
}

/**
 * sliceElementType: the one Go type of all items of the lists ('map' or another); lists of lists
 * and mixed types are errors. Go dereferences a null first item's type and panics; here that is an
 * error with Go's runtime message.
 */
function sliceElementType(...lists: unknown[][]): ElemKind {
  let prev: string | null | undefined;
  for (const l of lists) {
    for (const v of l) {
      const t = reflectType(v);
      if (prev === undefined) {
        if (t === null) throw new SmpError('runtime error: invalid memory address or nil pointer dereference');
        prev = t;
        if (t === '[]interface {}') throw sentinel('noListOfLists');
      } else if (prev !== t) {
        throw new SmpError(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (prev === undefined) throw new SmpError('no elements in any of the given slices');
  return prev === 'map[string]interface {}' ? 'map' : 'other';
}

/**
 * mergePatchIntoOriginal: each `$setElementOrder/<list>` with its list: merged, then ordered by
 * the directive (then the patch, then the live order). Both leave the patch.
 */
function mergePatchIntoOriginal(original: Obj, patch: Obj, schema: LookupPatchMeta): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType('[]interface {}', order);
    const field = extractKey(key, SET_ELEMENT_ORDER);
    const foundOriginal = Object.hasOwn(original, field);
    const foundPatch = Object.hasOwn(patch, field);
    const originalList = original[field];
    const patchList = patch[field];
    if (foundOriginal && !Array.isArray(originalList)) throw badArgType('[]interface {}', originalList);
    if (foundPatch && !Array.isArray(patchList)) throw badArgType('[]interface {}', patchList);
    const { schema: sub, meta } = schema.lookupSlice(field);
    const strategy = otherStrategy(meta.strategies);
    // A list the patch lacks validates as Go's nil slice.
    validatePatchWithSetOrderList(foundPatch ? patchList : [], order, meta.mergeKey);
    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalList as unknown[];
    else if (!foundOriginal && foundPatch) merged = patchList as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, sub, strategy, meta.mergeKey, false);
    else continue;
    const [patchItems, serverOnly] = meta.mergeKey ? partitionMaps(merged, order, meta.mergeKey) : partitionPrimitives(merged, order);
    const kind = sliceElementType(foundOriginal ? (originalList as unknown[]) : [], foundPatch ? (patchList as unknown[]) : []);
    original[field] = normalizeElementOrder(patchItems, serverOnly, order, foundOriginal ? (originalList as unknown[]) : [], meta.mergeKey, kind);
    delete patch[field];
  }
}

/** discardNullValuesFromPatch: drop null map values, at any depth (lists included). */
function discardNulls(v: unknown): void {
  if (Array.isArray(v)) v.forEach(discardNulls);
  else if (isObj(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (x === null) delete v[k];
      else discardNulls(x);
    }
  }
}

/** mergeMap: merge `patch` into `original` (both owned by the merge, mutated). */
function mergeMap(original: Obj | null, patch: Obj, schema: LookupPatchMeta): Obj {
  if (Object.hasOwn(patch, DIRECTIVE)) return handleDirectiveInMergeMap(patch[DIRECTIVE], patch);
  const out = original ?? {};
  applyRetainKeysDirective(out, patch);
  mergePatchIntoOriginal(out, patch, schema);
  for (const key of Object.keys(patch)) {
    const patchV = patch[key];
    let k = key;
    // preprocessDeletionListForMerging: `$deleteFromPrimitiveList/<list>` acts on <list>.
    const isDeleteList = key.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    if (isDeleteList) k = extractKey(key, DELETE_FROM_PRIMITIVE_LIST);
    if (patchV === null) {
      delete out[k];
      continue;
    }
    if (!Object.hasOwn(out, k)) {
      if (!isDeleteList) {
        discardNulls(patchV);
        out[k] = patchV;
      }
      continue;
    }
    const ov = out[k];
    if (reflectType(ov) !== reflectType(patchV)) {
      if (!isDeleteList) {
        discardNulls(patchV);
        out[k] = patchV;
      }
      continue;
    }
    switch (kindOf(ov)) {
      case 'map': {
        const { schema: sub, meta } = schema.lookupStruct(k);
        const strategy = otherStrategy(meta.strategies);
        out[k] = strategy !== REPLACE ? mergeMap(ov as Obj, patchV as Obj, sub) : patchV;
        break;
      }
      case 'slice': {
        const { schema: sub, meta } = schema.lookupSlice(k);
        const strategy = otherStrategy(meta.strategies);
        out[k] = mergeSliceHandler(ov, patchV, sub, strategy, meta.mergeKey, isDeleteList);
        break;
      }
      default:
        out[k] = patchV;
    }
  }
  return out;
}

/** mergeSliceHandler: merge lists whose field has strategy merge; any other list is replaced. */
function mergeSliceHandler(original: unknown, patch: unknown, schema: LookupPatchMeta, strategy: string, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (!Array.isArray(original)) throw badArgType('[]interface {}', original);
  if (!Array.isArray(patch)) throw badArgType('[]interface {}', patch);
  return strategy === MERGE ? mergeSlice(original, patch, schema, mergeKey, isDeleteList) : patch;
}

/**
 * deduplicateScalars, as written in Go, in place: a duplicate is overwritten by the last item (so
 * order changes), and the array keeps its length (the caller's view shortens).
 */
function deduplicateScalars(s: unknown[]): number {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (goEq(s[i], s[j])) {
        s[j] = s[length];
        length--;
        j--;
      }
    }
  }
  return length + 1;
}

/**
 * A Go slice over `arr`: the first `len` items; its capacity is `arr.length` as long as `arr` is
 * the caller's array. Go's merge shortens and appends to the live list in place, which the caller
 * (mergePatchIntoOriginal) then reads as the live order; emulating the aliasing keeps its results.
 */
interface GoSlice {
  arr: unknown[];
  len: number;
}

const items = (s: GoSlice): unknown[] => s.arr.slice(0, s.len);

/** append(s, v): in place while there is capacity, else into a new array the caller never sees. */
function append(s: GoSlice, v: unknown): void {
  if (s.len < s.arr.length) s.arr[s.len] = v;
  else s.arr = [...items(s), v];
  s.len++;
}

/**
 * mergeSlice: scalars as a set (or minus a deletion list), maps by merge key; then ordered.
 * `original` is the live list, which may be changed in place as in Go (see GoSlice).
 */
function mergeSlice(original: unknown[], patchIn: unknown[], schema: LookupPatchMeta, mergeKey: string, isDeleteList: boolean): unknown[] {
  let patch = patchIn;
  if (!original.length && !patch.length) return original;
  const kind = sliceElementType(original, patch);
  let merged: unknown[];
  let live: unknown[] = original;
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((v) => !patch.some((x) => goEq(x, v)));
    // append(original, patch...): in Go this reuses the live list's array when it has spare
    // capacity (which depends on how the stored object was decoded), and deduplicating then
    // reorders the live list too; that shows only when the live list has duplicates. Here the
    // array is taken as full (it is reused only when there is nothing to append).
    const both = patch.length ? [...original, ...patch] : original;
    merged = both.slice(0, deduplicateScalars(both));
  } else {
    if (!mergeKey) throw new SmpError(`cannot merge lists without merge key for ${schema.name()}`);
    const view: GoSlice = { arr: original, len: original.length };
    const special = mergeSliceWithSpecialElements(view, patch, mergeKey);
    patch = special.plain;
    const target: GoSlice = special.replaced ? { arr: special.replaced, len: special.replaced.length } : view;
    live = items(target);
    mergeSliceWithoutSpecialElements(target, patch, mergeKey, schema);
    merged = items(target);
  }
  const [patchItems, serverOnly] = mergeKey ? partitionMaps(merged, patch, mergeKey) : partitionPrimitives(merged, patch);
  return normalizeElementOrder(patchItems, serverOnly, patch, live, mergeKey, kind);
}

/**
 * mergeSliceWithSpecialElements: `$patch: delete` items remove their key from the live list (in
 * place), `$patch: replace` makes the patch's other items the whole list (`replaced`). `plain`:
 * the patch items left to merge.
 */
function mergeSliceWithSpecialElements(live: GoSlice, patch: unknown[], mergeKey: string): { replaced?: unknown[]; plain: unknown[] } {
  const plain: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as Obj;
    if (!Object.hasOwn(m, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const directive = m[DIRECTIVE];
    if (directive === DELETE) {
      if (!Object.hasOwn(m, mergeKey)) throw noMergeKey(m, mergeKey);
      // deleteMatchingEntries: append(s[:i], s[i+1:]...) shifts the tail left in place.
      for (let i = findMapByKey(items(live), mergeKey, m[mergeKey]); i >= 0; i = findMapByKey(items(live), mergeKey, m[mergeKey])) {
        live.arr.copyWithin(i, i + 1, live.len);
        live.len--;
      }
    } else if (directive === REPLACE) replace = true;
    else if (directive === MERGE) throw new SmpError('merging lists cannot yet be specified in the patch');
    else throw badPatchType(directive, m);
  }
  return replace ? { replaced: plain, plain: [] } : { plain };
}

/** mergeSliceWithoutSpecialElements: each patch map merges into the live map with its key, or is appended. */
function mergeSliceWithoutSpecialElements(live: GoSlice, patch: unknown[], mergeKey: string, schema: LookupPatchMeta): void {
  for (const v of patch) {
    const m = v as Obj;
    if (!Object.hasOwn(m, mergeKey)) throw noMergeKey(m, mergeKey);
    const i = findMapByKey(items(live), mergeKey, m[mergeKey]);
    if (i >= 0) live.arr[i] = mergeMap(live.arr[i] as Obj, m, schema);
    else append(live, v);
  }
}
