/**
 * The typed operations server-side apply needs beyond `compare`/`toFieldSet`, ported from
 * structured-merge-diff v4.2.3 (the version kube-apiserver 1.24 vendors):
 *
 * - `validate` (typed/validate.go): the applied object must fit its schema; SMD's messages.
 * - `merge` (typed/merge.go, ruleKeepRHS): the applied configuration laid over the live object,
 *   by schema: granular maps/structs merge per key, associative lists (sets, maps keyed by their
 *   key fields) merge per item in SMD's order, atomic nodes and scalars are replaced whole.
 * - `removeItems` (typed/remove.go): drop the given paths from a value.
 * - `ensureNamedFieldsAreMembers` (fieldpath/set.go): make every struct field that is on the way
 *   to a member a member itself, so removing it removes the whole field.
 *
 * Values are JSON values; `undefined` stands for "absent", `null` is a present null (an applied
 * `null` replaces the live value and later decodes as the Go zero value, as in kube).
 */
import { FieldSet, pathString, type Path, type PathElement } from './fieldpath.ts';
import { deduceAtom } from './registry.ts';
import { listItemElement, toFieldSet, TypedError } from './typed.ts';
import type { Atom, ListAtom, MapAtom, TypeRef } from './types.ts';
import { isObj } from '../gocompat/json.ts';
import { goSharpV, goV } from '../gocompat/print.ts';

type Obj = Record<string, unknown>;
const isEmpty = (v: unknown): boolean => (Array.isArray(v) ? v.length === 0 : isObj(v) ? Object.keys(v).length === 0 : true);

/** The type of a struct field or map entry (SMD: the named field, else the element type). */
function fieldType(m: MapAtom, key: string): TypeRef | undefined {
  return m.fields.get(key)?.type ?? m.elementType;
}

/** Which of an atom's forms a handler takes (SMD handleAtom: map, then scalar, then list). */
function formOf(a: Atom): 'map' | 'scalar' | 'list' | undefined {
  return a.map ? 'map' : a.scalar ? 'scalar' : a.list ? 'list' : undefined;
}

// ------------------------------------------------------------------ validate

function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/**
 * Check a value against its type (SMD TypedValue validation, run when kube builds the typed
 * patch object). Returns SMD's error text, or undefined when the value fits.
 */
export function validate(value: unknown, type: TypeRef): string | undefined {
  const errs: Array<{ path: Path; msg: string }> = [];
  const walk = (v: unknown, t: TypeRef, path: Path): void => {
    if (v === null || v === undefined) return;
    const a = deduceAtom(t.atom, v);
    const form = formOf(a);
    if (form === 'map') {
      // SMD prints the unstructured value (%v of *valueUnstructured): `&{x}`, `&{map[a:1]}`.
      if (!isObj(v)) return void errs.push({ path, msg: `expected map, got &{${goV(v)}}` });
      const m = a.map!;
      for (const [k, child] of Object.entries(v)) {
        const ft = fieldType(m, k);
        if (!ft) {
          errs.push({ path: [...path, { field: k }], msg: 'field not declared in schema' });
          continue;
        }
        walk(child, ft, [...path, { field: k }]);
      }
    } else if (form === 'list') {
      if (!Array.isArray(v)) return void errs.push({ path, msg: `expected list, got &{${goV(v)}}` });
      const list = a.list!;
      const seen = new Set<string>();
      v.forEach((item, i) => {
        let pe: PathElement;
        if (list.relationship !== 'associative') pe = { index: i };
        else {
          try {
            pe = listItemElement(list, i, item);
          } catch (e) {
            if (!(e instanceof TypedError)) throw e;
            errs.push({ path, msg: `element ${i}: ${e.message}` });
            return;
          }
          const key = pathString([pe]);
          if (seen.has(key)) {
            errs.push({ path, msg: `duplicate entries for key ${key}` });
            return;
          }
          seen.add(key);
        }
        walk(item, list.elementType, [...path, pe]);
      });
    } else if (form === 'scalar') {
      const s = a.scalar!;
      if (s === 'numeric' && typeof v !== 'number') errs.push({ path, msg: `expected numeric (int or float), got ${goType(v)}` });
      else if (s === 'string' && typeof v !== 'string') errs.push({ path, msg: `expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}` });
      else if (s === 'boolean' && typeof v !== 'boolean') errs.push({ path, msg: `expected boolean, got &{${goV(v)}}` });
    }
  };
  walk(value, type, []);
  if (!errs.length) return undefined;
  const one = (e: { path: Path; msg: string }): string => (e.path.length ? `${pathString(e.path)}: ${e.msg}` : e.msg);
  return errs.length === 1 ? one(errs[0]) : ['errors:', ...errs.map((e) => `  ${one(e)}`)].join('\n');
}

// ------------------------------------------------------------------ merge

/**
 * The applied configuration `rhs` merged over `lhs` (SMD TypedValue.Merge with ruleKeepRHS).
 * Either side may be undefined (absent); the result is undefined only when both are.
 */
export function merge(lhs: unknown, rhs: unknown, type: TypeRef): unknown {
  const leaf = (l: unknown, r: unknown): unknown => (r !== undefined ? r : l);

  const walk = (l: unknown, r: unknown, t: TypeRef): unknown => {
    const atom = t.atom;
    // With different forms on both sides, the right-hand side's handler decides (it runs last).
    const a = r === undefined ? deduceAtom(atom, l) : deduceAtom(atom, r);
    const form = formOf(a);
    if (form === 'map') return mergeMap(a.map!, l, r);
    if (form === 'list') return mergeList(a.list!, l, r);
    return leaf(l, r);
  };

  const mergeMap = (m: MapAtom, l: unknown, r: unknown): unknown => {
    const lm = isObj(l) ? l : undefined;
    const rm = isObj(r) ? r : undefined;
    if (m.relationship === 'atomic' || ((!lm || isEmpty(lm)) && (!rm || isEmpty(rm)))) return leaf(l, r);
    const out: Obj = {};
    const visit = (k: string): void => {
      const lv = lm?.[k];
      const rv = rm?.[k];
      const ft = fieldType(m, k);
      const v = ft ? walk(lv, rv, ft) : leaf(lv, rv);
      if (v !== undefined) out[k] = v;
    };
    for (const k of Object.keys(lm ?? {})) visit(k);
    for (const k of Object.keys(rm ?? {})) if (!lm || !(k in lm)) visit(k);
    return Object.keys(out).length ? out : undefined;
  };

  const mergeList = (list: ListAtom, l: unknown, r: unknown): unknown => {
    const ll = Array.isArray(l) ? l : undefined;
    const rl = Array.isArray(r) ? r : undefined;
    if (list.relationship === 'atomic' || ((!ll || !ll.length) && (!rl || !rl.length))) return leaf(l, r);
    const index = (items: unknown[] | undefined): { order: string[]; byKey: Map<string, unknown> } => {
      const order: string[] = [];
      const byKey = new Map<string, unknown>();
      (items ?? []).forEach((item, i) => {
        let k: string;
        try {
          k = pathString([listItemElement(list, i, item)]);
        } catch {
          return; // SMD reports the element and goes on; validation caught it for the applied side
        }
        if (byKey.has(k)) return;
        byKey.set(k, item);
        order.push(k);
      });
      return { order, byKey };
    };
    const lhs = index(ll);
    const rhs = index(rl);
    // SMD visitListItems: the applied order wins for shared items; live-only items keep their
    // position relative to them.
    const shared = rhs.order.filter((k) => lhs.byKey.has(k));
    let si = 0;
    let nextShared: string | undefined = shared[si++];
    const out: unknown[] = [];
    const push = (k: string, lv: unknown, rv: unknown): void => {
      const v = walk(lv, rv, list.elementType);
      if (v !== undefined) out.push(v);
    };
    let li = 0;
    let ri = 0;
    while (li < lhs.order.length || ri < rhs.order.length) {
      if (li < lhs.order.length && ri < rhs.order.length) {
        const k = lhs.order[li];
        if (k === rhs.order[ri]) {
          push(k, lhs.byKey.get(k), rhs.byKey.get(k));
          li++;
          ri++;
          nextShared = shared[si++];
          continue;
        }
        if (rhs.byKey.has(k) && nextShared !== undefined && nextShared !== k) {
          li++;
          continue;
        }
      }
      if (li < lhs.order.length) {
        const k = lhs.order[li];
        if (!rhs.byKey.has(k)) {
          push(k, lhs.byKey.get(k), undefined);
          li++;
          continue;
        }
      }
      if (ri < rhs.order.length) {
        const k = rhs.order[ri];
        push(k, lhs.byKey.get(k), rhs.byKey.get(k));
        ri++;
        if (nextShared !== undefined && nextShared === k) nextShared = shared[si++];
      }
    }
    return out.length ? out : undefined;
  };

  return walk(lhs, rhs, type);
}

// ------------------------------------------------------------------ remove

/**
 * `value` without the paths of `set` (SMD RemoveItems). As in SMD, a container left empty (or
 * one the walk cannot descend into) becomes null, which decodes as the Go zero value.
 */
export function removeItems(value: unknown, set: FieldSet, type: TypeRef): unknown {
  if (set.isEmpty()) return value;
  const walk = (v: unknown, toRemove: FieldSet, t: TypeRef): unknown => {
    const a = deduceAtom(t.atom, v);
    const form = formOf(a);
    if (form === 'scalar') return v;
    if (form === 'list') {
      if (!Array.isArray(v) || !v.length || a.list!.relationship === 'atomic') return null;
      const out: unknown[] = [];
      v.forEach((item, i) => {
        let pe: PathElement;
        try {
          pe = listItemElement(a.list!, i, item);
        } catch {
          out.push(item);
          return;
        }
        if (toRemove.has([pe])) return;
        const sub = toRemove.withPrefix(pe);
        out.push(sub.isEmpty() ? item : walk(item, sub, a.list!.elementType));
      });
      return out.length ? out : null;
    }
    if (form === 'map') {
      if (!isObj(v) || isEmpty(v) || a.map!.relationship === 'atomic') return null;
      const out: Obj = {};
      for (const [k, child] of Object.entries(v)) {
        if (child === undefined) continue;
        const pe = { field: k };
        if (toRemove.has([pe])) continue;
        const sub = toRemove.withPrefix(pe);
        const ft = fieldType(a.map!, k);
        out[k] = sub.isEmpty() || !ft ? child : walk(child, sub, ft);
      }
      return Object.keys(out).length ? out : null;
    }
    return v;
  };
  return walk(value, set, type);
}

/**
 * The set with every named struct field on the way to a member made a member too (SMD
 * Set.EnsureNamedFieldsAreMembers), so that removing it removes the field itself. Built level by
 * level from the set itself (no path list to sort and re-insert).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: TypeRef | undefined): FieldSet {
  return set.withMembersAdded(type, namedFieldStep);
}

/** One level of ensureNamedFieldsAreMembers: a struct field is named; map keys and list items are not. */
function namedFieldStep(t: TypeRef | undefined, pe: PathElement): { member: boolean; ctx: TypeRef | undefined } {
  const atom = t?.atom;
  if ('field' in pe && atom?.map) {
    const f = atom.map.fields.get(pe.field);
    return { member: f !== undefined, ctx: f?.type ?? atom.map.elementType };
  }
  if ('key' in pe && atom?.list) return { member: false, ctx: atom.list.elementType };
  return { member: false, ctx: undefined };
}


/**
 * SMD Updater.prune on one version's value: `merged` without what the applier owned last time
 * (`lastSet`) and no longer applies, unless some manager owns it (`owned`, every manager's set,
 * the applier's new one included: addBackOwnedItems) or it was never removable on its own
 * (addBackDanglingItems). Returns `merged` itself when nothing is removed.
 */
export function prune(merged: unknown, lastSet: FieldSet, owned: FieldSet, type: TypeRef): unknown {
  if (lastSet.isEmpty()) return merged;
  const ens = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(s, type);
  const last = ens(lastSet);
  const mergedSet = ens(toFieldSet(merged, type));
  const ownedSet = ens(owned);
  // What addBackOwnedItems would remove is unowned ∖ pruned, with pruned = merged less `last`. The
  // paths of merged nowhere on, above or below a path of `last` are untouched by that removal, so
  // all of them are in pruned's set: when every unowned path is such a path, nothing is removed
  // and addBackOwnedItems gives back `merged` itself, whose set is mergedSet, so
  // addBackDanglingItems removes nothing either (the usual re-apply of the same fields).
  const unownedAtAll = mergedSet.difference(ownedSet);
  if (!unownedAtAll.overlapsTree(last)) return merged;
  let pruned = removeItems(merged, last, type);
  const unowned = mergedSet.difference(ens(toFieldSet(pruned, type)).union(ownedSet));
  if (unowned.isEmpty()) return merged;
  pruned = removeItems(merged, unowned, type);
  const prunedSet = ens(toFieldSet(pruned, type));
  return removeItems(merged, mergedSet.difference(prunedSet).intersection(last), type);
}
