/**
 * Typed operations on JSON values, as structured-merge-diff's `typed` package defines them:
 * `compare` (which fields two versions of an object added, changed or removed) and `toFieldSet`
 * (every field a value sets). managedFields for updates are built on `compare`; server-side apply
 * will use both.
 *
 * Values are JSON objects as this server stores them; kube-apiserver compares Go objects. Two
 * differences are bridged here so the results match: a JSON null is treated as absent (a Go
 * object has no nulls: the field is omitted), and fields take the presence their Go fields have
 * (`StructField.go`: omitempty zero values are absent, non-pointer structs and fields without
 * omitempty are present). Fields the schema does not know are ignored (decoding into Go drops
 * them).
 */
import { FieldSet, comparePathElements, fieldElement, fieldKey, pathString, serializePathElement, strCompare, type Path, type PathElement } from './fieldpath.ts';
import { deduceAtom } from './registry.ts';
import type { Atom, ListAtom, MapAtom, TypeRef } from './types.ts';
import { isObj } from '../gocompat/json.ts';
import { jsonEqual } from '../gocompat/equal.ts';

/** A value that does not fit its schema (SMD ValidationErrors, e.g. duplicate set items). */
export class TypedError extends Error {}

/** Result of `compare`: field paths added, changed (leaves) and removed. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** Does the comparison find no difference? */
export function isSame(c: Comparison): boolean {
  return c.added.isEmpty() && c.modified.isEmpty() && c.removed.isEmpty();
}

/** Drop paths under (and at) `fields` from every part of a comparison (SMD ExcludeFields). */
export function excludeFields(c: Comparison, fields: FieldSet | undefined): Comparison {
  if (!fields || fields.isEmpty()) return c;
  return { added: c.added.recursiveDifference(fields), modified: c.modified.recursiveDifference(fields), removed: c.removed.recursiveDifference(fields) };
}

type Obj = Record<string, unknown>;
const present = (v: unknown): boolean => v !== undefined && v !== null;

/** The path element of a list item (SMD listItemToPathElement). */
export function listItemElement(list: ListAtom, index: number, item: unknown): PathElement {
  if (list.relationship !== 'associative') return { index };
  if (list.keys.length) {
    if (!isObj(item)) throw new TypedError('associative list with keys may not have non-map elements');
    const key: Array<[string, unknown]> = [];
    const fields = list.elementType.atom.map?.fields;
    for (const name of list.keys) {
      if (present(item[name])) key.push([name, item[name]]);
      else if (fields?.get(name)?.default !== undefined) key.push([name, fields.get(name)!.default]);
      else throw new TypedError(`associative list with keys has an element that omits key field "${name}" (and doesn't have default value)`);
    }
    key.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { key };
  }
  if (isObj(item)) throw new TypedError("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new TypedError('not supported: associative list with lists as elements');
  if (item === null) throw new TypedError("associative list without keys has an element that's an explicit null");
  return { value: item };
}

/** Index a list's items by path element; duplicates are an error, as in SMD. */
function indexItems(list: ListAtom, items: unknown[], path: Path): Map<string, { pe: PathElement; item: unknown }> {
  const out = new Map<string, { pe: PathElement; item: unknown }>();
  items.forEach((item, i) => {
    const pe = listItemElement(list, i, item);
    const k = JSON.stringify(pe);
    if (out.has(k)) throw new TypedError(`${pathString(path)}: duplicate entries for key ${pathString([pe])}`);
    out.set(k, { pe, item });
  });
  return out;
}

/**
 * A Go null that is present: a zero metav1.Time field of a Go object. JSON nulls are "absent";
 * this one is a value (SMD compares it: a field going from absent to a zero time is "added").
 */
const GO_NULL = Symbol('go-null');

/** A non-pointer Go struct's zero value: one frozen object, since compare only reads it. */
const EMPTY_STRUCT: Obj = Object.freeze({});

/** The zero value a Go field of this code and type serializes as, or undefined for "omitted". */
function goZero(code: string, type: TypeRef): unknown {
  switch (code[0]) {
    case 's':
      return EMPTY_STRUCT;
    case 't':
      return GO_NULL;
    case 'q':
      return '0';
    case 'i':
      return 0;
    case 'l':
      return code.includes('o') ? undefined : GO_NULL;
    case 'v': {
      if (code.includes('o')) return undefined;
      const sc = type.atom.scalar;
      return sc === 'numeric' ? 0 : sc === 'boolean' ? false : '';
    }
    default:
      return undefined;
  }
}

/** Which zero values an omitempty Go field of this code drops: a list/map's, a scalar's, or none. */
function goOmitKind(code: string): 'l' | 'v' | null {
  if (!code.includes('o')) return null;
  return code[0] === 'l' ? 'l' : code[0] === 'v' ? 'v' : null;
}

/** An omitempty Go field of this kind with this JSON value is omitted. */
function goOmits(kind: 'l' | 'v', v: unknown): boolean {
  if (kind === 'l') return (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0) || v === '';
  return v === '' || v === 0 || v === false;
}

/**
 * The entries of a struct value as the Go object has them: omitempty fields with zero values
 * dropped, fields Go always writes filled in with their zero values (StructField.go).
 */
function entriesOf(fields: GoField[], v: Obj): Obj {
  let out = v;
  for (const f of fields) {
    const name = f.name;
    const cur = v[name];
    let next: unknown = cur;
    if (!present(cur)) next = f.zero;
    else if (f.omit && goOmits(f.omit, cur)) next = undefined;
    if (next === cur || (next === undefined && !present(cur))) continue;
    if (out === v) out = { ...v };
    if (next === undefined) delete out[name];
    else out[name] = next;
  }
  return out;
}

/** A struct field with a Go shape: its zero value and omitempty rule, worked out once. */
interface GoField {
  name: string;
  zero: unknown;
  omit: 'l' | 'v' | null;
}

/** The fields of a struct that have a Go shape, listed once per struct type. */
const goFields = new WeakMap<MapAtom, GoField[]>();
function goFieldsOf(m: MapAtom): GoField[] {
  let list = goFields.get(m);
  if (!list) {
    list = [];
    for (const [name, f] of m.fields) if (f.go) list.push({ name, zero: goZero(f.go, f.type), omit: goOmitKind(f.go) });
    goFields.set(m, list);
  }
  return list;
}

const isEmptyContainer = (v: unknown): boolean => !present(v) || (Array.isArray(v) ? v.length === 0 : isObj(v) && !hasKeys(v));

/** An object with an own enumerable key (Object.keys without the array). */
function hasKeys(o: Obj): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

/**
 * Compare two versions of a value of `type` (SMD TypedValue.Compare). `undefined` stands for
 * "absent" on either side (e.g. the empty object on create is `{}`, not undefined).
 */
export function compare(lhs: unknown, rhs: unknown, type: TypeRef): Comparison {
  const added: Path[] = [];
  const modified: Path[] = [];
  const removed: Path[] = [];

  const leaf = (l: unknown, r: unknown, path: Path): void => {
    if (!present(l)) added.push(path);
    else if (!present(r)) removed.push(path);
    else if (!jsonEqual(l, r)) modified.push(path);
  };

  const walk = (l: unknown, r: unknown, t: TypeRef, path: Path): void => {
    const atom = t.atom;
    const al = deduceAtom(atom, l);
    const ar = deduceAtom(atom, r);
    // Different forms on both sides (an untyped field changing shape): a leaf change.
    const a: Atom = !present(r) ? al : ar;
    if (present(l) && present(r) && formOf(al) !== formOf(ar)) {
      leaf(l, r, path);
      return;
    }
    let container = false;
    if (a.map && (isObj(l) || isObj(r) || !a.scalar)) container = visitMap(a.map, l, r, path);
    else if (a.list && (Array.isArray(l) || Array.isArray(r) || !a.scalar)) container = visitList(a.list, l, r, path);
    else leaf(l, r, path);
    if (container && path.length) {
      if (!present(l)) added.push(path);
      else if (!present(r)) removed.push(path);
    }
  };

  /** One field of a map walked (both sides' values, either may be absent). */
  const field = (m: MapAtom, lm: Obj | undefined, rm: Obj | undefined, k: string, path: Path): void => {
    const lv = lm?.[k];
    const rv = rm?.[k];
    if (!present(lv) && !present(rv)) return;
    const ft = m.fields.get(k)?.type ?? m.elementType;
    if (!ft) return; // unknown field: not part of the Go object
    walk(present(lv) ? lv : undefined, present(rv) ? rv : undefined, ft, [...path, fieldElement(k)]);
  };

  /** Returns true when the node was walked as a container (not a leaf). */
  const visitMap = (m: MapAtom, l: unknown, r: unknown, path: Path): boolean => {
    const go = goFieldsOf(m);
    const lm = isObj(l) ? (go.length ? entriesOf(go, l) : l) : undefined;
    const rm = isObj(r) ? (go.length ? entriesOf(go, r) : r) : undefined;
    if (m.relationship === 'atomic' || (isEmptyContainer(lm) && isEmptyContainer(rm))) {
      // A Go nil (GO_NULL) on a side that is not a map is a present null, as in SMD.
      leaf(lm ?? l, rm ?? r, path);
      return false;
    }
    // The keys of both sides, the left's first (no Set: this runs for every struct compared).
    if (lm) for (const k in lm) field(m, lm, rm, k, path);
    if (rm) for (const k in rm) if (!lm || !Object.hasOwn(lm, k)) field(m, lm, rm, k, path);
    return true;
  };

  const visitList = (list: ListAtom, l: unknown, r: unknown, path: Path): boolean => {
    const ll = Array.isArray(l) ? l : undefined;
    const rl = Array.isArray(r) ? r : undefined;
    if (list.relationship === 'atomic' || (isEmptyContainer(ll) && isEmptyContainer(rl))) {
      // A nil Go slice on both sides (GO_NULL, e.g. Pod spec.containers of the empty object) is
      // equal, not "added"; nil against [] is a change, as SMD compares the two values.
      leaf(ll ?? l, rl ?? r, path);
      return false;
    }
    const li = indexItems(list, ll ?? [], path);
    const ri = indexItems(list, rl ?? [], path);
    for (const [k, { pe, item }] of ri) walk(li.get(k)?.item, item, list.elementType, [...path, pe]);
    for (const [k, { pe, item }] of li) if (!ri.has(k)) walk(item, undefined, list.elementType, [...path, pe]);
    return true;
  };

  walk(present(lhs) ? lhs : undefined, present(rhs) ? rhs : undefined, type, []);
  return { added: FieldSet.fromPaths(added), modified: FieldSet.fromPaths(modified), removed: FieldSet.fromPaths(removed) };
}

function formOf(a: Atom): string {
  return a.map && !a.list && !a.scalar ? 'map' : a.list && !a.map && !a.scalar ? 'list' : a.scalar && !a.map && !a.list ? 'scalar' : 'any';
}

/** Every field path a value sets (SMD TypedValue.ToFieldSet), e.g. the fields an apply owns. */
export function toFieldSet(value: unknown, type: TypeRef): FieldSet {
  const paths: Path[] = [];
  const walk = (v: unknown, t: TypeRef, path: Path): void => {
    const a = deduceAtom(t.atom, v);
    if (a.map && isObj(v)) {
      if (a.map.relationship === 'atomic') {
        paths.push(path);
        return;
      }
      const m = a.map;
      for (const [k, child] of Object.entries(v)) {
        if (child === undefined) continue;
        const f = m.fields.get(k);
        const ft = f?.type ?? m.elementType;
        if (!ft) continue;
        const p: Path = [...path, { field: k }];
        walk(child, ft, p);
        if (child === null || (isObj(child) && Object.keys(child).length === 0) || !f) paths.push(p);
      }
    } else if (a.list && Array.isArray(v)) {
      if (a.list.relationship === 'atomic') {
        paths.push(path);
        return;
      }
      v.forEach((item, i) => {
        const p: Path = [...path, listItemElement(a.list!, i, item)];
        walk(item, a.list!.elementType, p);
        paths.push(p);
      });
    } else if (v !== null && v !== undefined) {
      paths.push(path);
    }
  };
  walk(value, type, []);
  return FieldSet.fromPaths(paths);
}

/**
 * The FieldsV1 document of what a write from `lhs` to `rhs` modified or added (`compare`'s
 * modified ∪ added), without the paths under `ignored` (recursively) and the exact paths of
 * `stripped`: the writer's new fields in an Update's managedFields, written straight from one walk
 * of both values (no path arrays, no FieldSets, no second pass to write it). The walk is
 * `compare`'s: fields the schema does not know are skipped, Go's zero values and omitempty rules
 * apply to structs, a container present on both sides is only a way to its fields, one added whole
 * is a member (`".": {}` when fields lie below it). Throws TypedError where compare would (an
 * associative list with duplicate or malformed items, on either side). A property test holds it
 * to `compare` (typed.test.ts).
 */
export function changedFieldsV1(lhs: unknown, rhs: unknown, type: TypeRef, ignored?: FieldSet, stripped?: FieldSet): Record<string, unknown> {
  if (!present(rhs)) return {};
  if (!present(lhs)) return addedBelow(rhs, type, ignored, stripped, false) || {};
  const c = pairContainer(lhs, rhs, type);
  return (c && containerBelow(c, ignored, stripped)) || {};
}

/** Do any of these keys need Go's byte order rather than JavaScript's (a surrogate pair)? */
const needsGoOrder = (keys: string[]): boolean => {
  for (const k of keys) for (let i = 0; i < k.length; i++) if (k.charCodeAt(i) >= 0xd800) return true;
  return false;
};

const sortNames = (names: string[]): void => {
  if (names.length > 1) names.sort(needsGoOrder(names) ? strCompare : undefined);
};

/** A list's items by FieldsV1 key, in SMD's order; duplicates are compare's TypedError. */
function keyedItems(list: ListAtom, items: unknown[]): Map<string, { pe: PathElement; item: unknown }> {
  const out = new Map<string, { pe: PathElement; item: unknown }>();
  const all = items.map((item, i) => ({ pe: listItemElement(list, i, item), item }));
  if (list.relationship === 'associative') all.sort((x, y) => comparePathElements(x.pe, y.pe));
  for (const it of all) {
    const key = serializePathElement(it.pe);
    if (out.has(key)) throw new TypedError(`duplicate entries for key ${pathString([it.pe])}`);
    out.set(key, it);
  }
  return out;
}

/**
 * FieldsV1 of the fields below a value present on the right only, all added (`dot`: the node
 * itself is a member, written first as `".": {}`); null when nothing lies below it (a leaf, an
 * empty or atomic container).
 */
function addedBelow(v: unknown, t: TypeRef, ign: FieldSet | undefined, strip: FieldSet | undefined, dot: boolean): Record<string, unknown> | null {
  const a = deduceAtom(t.atom, v);
  if (a.map && (isObj(v) || !a.scalar)) {
    const m = a.map;
    if (!isObj(v) || m.relationship === 'atomic') return null;
    const go = goFieldsOf(m);
    const rm = go.length ? entriesOf(go, v) : v;
    const names: string[] = [];
    for (const k in rm) if (present(rm[k]) && (m.fields.get(k)?.type ?? m.elementType)) names.push(k);
    sortNames(names);
    let out: Record<string, unknown> | null = null;
    for (const k of names) out = addChild(out, fieldKey(k), undefined, rm[k], m.fields.get(k)?.type ?? m.elementType!, ign, strip, dot);
    return out;
  }
  if (a.list && (Array.isArray(v) || !a.scalar)) {
    const list = a.list;
    if (!Array.isArray(v) || list.relationship === 'atomic' || v.length === 0) return null;
    let out: Record<string, unknown> | null = null;
    for (const [key, it] of keyedItems(list, v)) out = addChild(out, key, undefined, it.item, list.elementType, ign, strip, dot);
    return out;
  }
  return null;
}

/** FieldsV1 of what changed below a container present on both sides (never a member itself), or null. */
function containerBelow(c: PairContainer, ign: FieldSet | undefined, strip: FieldSet | undefined): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  if (c.map) {
    const m = c.map;
    const names: string[] = [];
    if (c.lm) for (const k in c.lm) names.push(k);
    if (c.rm) for (const k in c.rm) if (!c.lm || !Object.hasOwn(c.lm, k)) names.push(k);
    sortNames(names);
    for (const k of names) {
      const lv = c.lm?.[k];
      const rv = c.rm?.[k];
      const ft = m.fields.get(k)?.type ?? m.elementType;
      if (!ft) continue;
      // Absent on the right: removed, nothing of it is the writer's (compare still checks it).
      if (!present(rv)) {
        if (present(lv)) checkRemoved(lv, ft);
        continue;
      }
      out = addChild(out, fieldKey(k), present(lv) ? lv : undefined, rv, ft, ign, strip, false);
    }
    return out;
  }
  const list = c.list!;
  const li = keyedItems(list, c.ll ?? []);
  const ri = keyedItems(list, c.rl ?? []);
  for (const [key, it] of ri) out = addChild(out, key, li.get(key)?.item, it.item, list.elementType, ign, strip, false);
  for (const [key, it] of li) if (!ri.has(key)) checkRemoved(it.item, list.elementType);
  return out;
}

/** A value removed whole: compare walks it too, and throws TypedError for what it finds malformed. */
function checkRemoved(v: unknown, t: TypeRef): void {
  const a = deduceAtom(t.atom, v);
  if (a.map && (isObj(v) || !a.scalar)) {
    const m = a.map;
    if (!isObj(v) || m.relationship === 'atomic') return;
    const go = goFieldsOf(m);
    const lm = go.length ? entriesOf(go, v) : v;
    for (const k in lm) {
      const ft = m.fields.get(k)?.type ?? m.elementType;
      if (ft && present(lm[k])) checkRemoved(lm[k], ft);
    }
  } else if (a.list && (Array.isArray(v) || !a.scalar)) {
    if (!Array.isArray(v) || a.list.relationship === 'atomic' || v.length === 0) return;
    for (const it of keyedItems(a.list, v).values()) checkRemoved(it.item, a.list.elementType);
  }
}

interface PairContainer {
  map?: MapAtom;
  lm?: Obj;
  rm?: Obj;
  list?: ListAtom;
  ll?: unknown[];
  rl?: unknown[];
}

/** How compare walks two present values: as a map or list container (its sides), or as a leaf (null). */
function pairContainer(l: unknown, r: unknown, t: TypeRef): PairContainer | null {
  const al = deduceAtom(t.atom, l);
  const a = deduceAtom(t.atom, r);
  if (formOf(al) !== formOf(a)) return null;
  if (a.map && (isObj(l) || isObj(r) || !a.scalar)) {
    const m = a.map;
    const go = goFieldsOf(m);
    const lm = isObj(l) ? (go.length ? entriesOf(go, l) : l) : undefined;
    const rm = isObj(r) ? (go.length ? entriesOf(go, r) : r) : undefined;
    if (m.relationship === 'atomic' || (isEmptyContainer(lm) && isEmptyContainer(rm))) return null;
    return { map: m, lm, rm };
  }
  if (a.list && (Array.isArray(l) || Array.isArray(r) || !a.scalar)) {
    const ll = Array.isArray(l) ? l : undefined;
    const rl = Array.isArray(r) ? r : undefined;
    if (a.list.relationship === 'atomic' || (isEmptyContainer(ll) && isEmptyContainer(rl))) return null;
    return { list: a.list, ll, rl };
  }
  return null;
}

/** The leaf compare sees for two present values of `t` (Go's zero-filled struct, as visitMap has it). */
function leafChanged(l: unknown, r: unknown, t: TypeRef): boolean {
  const al = deduceAtom(t.atom, l);
  const a = deduceAtom(t.atom, r);
  if (formOf(al) === formOf(a) && a.map && (isObj(l) || isObj(r) || !a.scalar)) {
    const go = goFieldsOf(a.map);
    const lm = isObj(l) ? (go.length ? entriesOf(go, l) : l) : undefined;
    const rm = isObj(r) ? (go.length ? entriesOf(go, r) : r) : undefined;
    return !jsonEqual(lm ?? l, rm ?? r);
  }
  return !jsonEqual(l, r);
}

/**
 * The child `key` (right value `r`, left `l` or undefined) under `out`, created on the first:
 * left out when ignored, not a member when stripped; a member when added, or when a leaf changed.
 */
function addChild(out: Record<string, unknown> | null, key: string, l: unknown, r: unknown, t: TypeRef, ign: FieldSet | undefined, strip: FieldSet | undefined, dot: boolean): Record<string, unknown> | null {
  if (ign?.hasMemberKey(key)) {
    // Left out, but walked: compare finds a malformed list there before the fields are excluded.
    addChild(null, key, l, r, t, undefined, undefined, false);
    return out;
  }
  const ig = ign?.childByKey(key);
  const st = strip?.childByKey(key);
  let member = !strip?.hasMemberKey(key);
  let below: Record<string, unknown> | null = null;
  if (l === undefined) below = addedBelow(r, t, ig, st, member);
  else {
    // Present on both sides: a container is only a way to its fields, a leaf a member if it changed.
    const c = pairContainer(l, r, t);
    if (c) {
      below = containerBelow(c, ig, st);
      member = false;
    } else if (member) member = leafChanged(l, r, t);
  }
  if (!below && !member) return out;
  out ??= dot ? { '.': {} } : {};
  out[key] = below ?? {};
  return out;
}
