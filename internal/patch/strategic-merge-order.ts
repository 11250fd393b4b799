/**
 * Element order of merged lists (strategicpatch patch.go: normalizeElementOrder, mergeSortedSlice,
 * index, partition*), with Go's sort.SliceStable ported as is: kube's comparators are not strict
 * orders (an item missing from the order list is "less" than anything), so only the same
 * algorithm gives the same order.
 */
import { badArgType, noMergeKey, SmpError } from './strategic-merge-errors.ts';
import { isObj } from '../gocompat/json.ts';

export type Obj = Record<string, unknown>;

/** Go's == on two interface{} values holding decoded JSON (maps and slices never compare equal here). */
export const goEq = (a: unknown, b: unknown): boolean => (a === undefined ? null : a) === (b === undefined ? null : b) && (a === null || typeof a !== 'object');

/** Go's sort.SliceStable (insertion sort on blocks of 20, then SymMerge), on `s` in place. */
export function sliceStable(s: unknown[], less: (a: unknown, b: unknown) => boolean): void {
  const n = s.length;
  const lt = (i: number, j: number): boolean => less(s[i], s[j]);
  const swap = (i: number, j: number): void => {
    const t = s[i];
    s[i] = s[j];
    s[j] = t;
  };
  const insertion = (a: number, b: number): void => {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && lt(j, j - 1); j--) swap(j, j - 1);
  };
  const swapRange = (a: number, b: number, k: number): void => {
    for (let i = 0; i < k; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number): void => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lt(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lt(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const nn = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = nn - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = nn - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lt(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = nn - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertion(a, b);
    a = b;
    b += blockSize;
  }
  insertion(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}

/** The kind of a list's elements that matters for ordering: maps (by merge key) or anything else. */
export type ElemKind = 'map' | 'other';

/** index(): position of `v` in `l`, by merge key value for maps, by value otherwise; -1 if absent. */
export function indexOf(l: unknown[], v: unknown, mergeKey: string, kind: ElemKind): number {
  const val = (x: unknown): unknown => (kind === 'map' ? (isObj(x) ? x[mergeKey] : null) : x);
  const want = val(v);
  return l.findIndex((x) => goEq(want, val(x)));
}

/** validateMergeKeyInLists: every item is a map holding the merge key. */
function validateMergeKeyInLists(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObj(item)) throw badArgType('map[string]interface {}', item);
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
}

/** extractToDeleteItems: the items without, then with, `$patch: delete`. */
function extractToDeleteItems(l: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const del: unknown[] = [];
  for (const v of l) {
    if (!isObj(v)) throw badArgType('map[string]interface {}', v);
    (v.$patch === 'delete' ? del : keep).push(v);
  }
  return [keep, del];
}

/** normalizeSliceOrder: `toSort` ordered by `order` (items `order` lacks sort first), deletions last. */
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  let del: unknown[] = [];
  let s = toSort;
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, toSort, order);
    [s, del] = extractToDeleteItems(toSort);
  }
  s = [...s];
  sliceStable(s, (a, b) => {
    const ia = indexOf(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexOf(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...s, ...del];
}

/**
 * mergeSortedSlice: interleave `left` (server-only items) into `right` (patch items), keeping both
 * relative orders; a left item goes before a right one when the live order says so.
 */
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, kind);
      const ri = indexOf(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/**
 * normalizeElementOrder: patch items in the patch's order, server-only items in the live order,
 * merged so that both relative orders hold.
 */
export function normalizeElementOrder(patch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

/** partitionPrimitivesByPresentInList: [items present in `by`, the others]. */
export function partitionPrimitives(list: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) (by.some((x) => goEq(x, v)) ? inPatch : serverOnly).push(v);
  return [inPatch, serverOnly];
}

/** findMapInSliceBasedOnKeyValue: the index of the first map whose `key` equals `value`, or -1. */
export function findMapByKey(list: unknown[], key: string, value: unknown): number {
  for (let k = 0; k < list.length; k++) {
    const v = list[k];
    if (!isObj(v)) throw new SmpError(`value for key ${k} is not a map`);
    if (Object.hasOwn(v, key) && goEq(v[key], value)) return k;
  }
  return -1;
}

/** partitionMapsByPresentInList: [maps whose merge key value is in `by`, the others]. */
export function partitionMaps(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isObj(v)) throw badArgType('map[string]interface {}', v);
    if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    (findMapByKey(by, mergeKey, v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}
