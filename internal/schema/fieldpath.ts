/**
 * Field paths and field sets, as structured-merge-diff (fieldpath package) defines them, and their
 * FieldsV1 wire form (the `fieldsV1` of a managedFields entry).
 *
 * A path element is a struct field or map key (`f:name`), an associative-list item by its key
 * fields (`k:{"name":"a"}`), a set item by value (`v:"x"`) or an atomic-list index (`i:0`). A set
 * holds paths; a path can be a member and also have member descendants (FieldsV1 writes that as
 * `".": {}` inside the node). Sets are immutable: operations return new sets.
 *
 * Example: the paths {data, data.a, metadata.labels.x} are written as
 *
 *   {"f:data": {".": {}, "f:a": {}}, "f:metadata": {"f:labels": {"f:x": {}}}}
 *
 * `data` is a member with a member below it (hence "."); `metadata` and `metadata.labels` are
 * only on the way to `metadata.labels.x`. Removing the path `data.a` leaves `{"f:data": {}}`;
 * removing `data` leaves `{"f:data": {"f:a": {}}, …}` (exact paths) unless done recursively.
 */

/** One step of a path. `key` entries are sorted by name. */
export type PathElement =
  | { field: string }
  | { key: Array<[string, unknown]> }
  | { value: unknown }
  | { index: number };

export type Path = PathElement[];

/** A FieldsV1 document that cannot be decoded (kube: "error decoding set"). */
export class FieldsV1Error extends Error {}

// ------------------------------------------------------------------ values (SMD value.Compare)

function rank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5; // null
}

/**
 * Go's string order: bytewise UTF-8, i.e. code point order. UTF-16 code unit order differs only
 * where a surrogate (a code point above U+FFFF) meets U+E000..U+FFFF.
 */
export function strCompare(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y : x) >= 0xe000) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** Total order over JSON values (numbers < strings < booleans < lists < maps < null). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return strCompare(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c) return c;
      }
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
    case 4: {
      const x = Object.keys(a as object).sort(strCompare);
      const y = Object.keys(b as object).sort(strCompare);
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = strCompare(x[i], y[i]) || compareValues((a as Record<string, unknown>)[x[i]], (b as Record<string, unknown>)[y[i]]);
        if (c) return c;
      }
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
    default:
      return 0;
  }
}

/** JSON as Go's encoding/json (and SMD's jsoniter) writes it: sorted map keys, HTML-safe strings. */
export function goJson(v: unknown): string {
  if (typeof v === 'string') {
    return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort(strCompare);
    return `{${keys.map((k) => `${goJson(k)}:${goJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

// ------------------------------------------------------------------ path elements

const kindRank = (pe: PathElement): number => ('field' in pe ? 0 : 'key' in pe ? 1 : 'value' in pe ? 2 : 3);

/** SMD PathElement.Compare: fields < keys < values < indexes, then by content. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ka = kindRank(a);
  const kb = kindRank(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  if ('field' in a) return strCompare(a.field, (b as { field: string }).field);
  if ('key' in a) {
    const x = a.key;
    const y = (b as { key: Array<[string, unknown]> }).key;
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const c = strCompare(x[i][0], y[i][0]) || compareValues(x[i][1], y[i][1]);
      if (c) return c;
    }
    return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
  }
  if ('value' in a) return compareValues(a.value, (b as { value: unknown }).value);
  const i = a.index;
  const j = (b as { index: number }).index;
  return i < j ? -1 : i > j ? 1 : 0;
}

/**
 * `f:<name>`, one string per name: a key built anew for every use would be hashed (and, as an
 * object key in FieldsV1, interned) every time; most names recur on every write of a kind.
 * Bounded: names are also map keys of objects (labels, data), which need not recur.
 */
const fieldKeys = new Map<string, string>();
export function fieldKey(name: string): string {
  let k = fieldKeys.get(name);
  if (k === undefined) {
    if (fieldKeys.size >= 10_000) fieldKeys.clear();
    fieldKeys.set(name, (k = `f:${name}`));
  }
  return k;
}

/**
 * The path element of a field, one frozen object per name (as fieldKey), so that the paths a
 * walk builds share their elements. Bounded as fieldKey.
 */
const fieldElements = new Map<string, PathElement>();
export function fieldElement(name: string): PathElement {
  let pe = fieldElements.get(name);
  if (pe === undefined) {
    if (fieldElements.size >= 10_000) fieldElements.clear();
    fieldElements.set(name, (pe = Object.freeze({ field: name })));
  }
  return pe;
}

/** The FieldsV1 key of a path element (`f:…`, `k:{…}`, `v:…`, `i:…`). */
export function serializePathElement(pe: PathElement): string {
  if ('field' in pe) return fieldKey(pe.field);
  if ('key' in pe) return `k:{${pe.key.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(',')}}`;
  if ('value' in pe) return `v:${goJson(pe.value)}`;
  return `i:${pe.index}`;
}

/** Parse a FieldsV1 key; undefined for an unknown element type (kube skips those). */
export function parsePathElement(s: string): PathElement | undefined {
  if (s.length < 2 || s[1] !== ':') throw new FieldsV1Error(`invalid path element ${JSON.stringify(s)}`);
  const body = s.slice(2);
  try {
    switch (s[0]) {
      case 'f':
        return { field: body };
      case 'v':
        return { value: JSON.parse(body) };
      case 'k': {
        const obj = JSON.parse(body) as unknown;
        if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new FieldsV1Error(`invalid key ${JSON.stringify(s)}`);
        return { key: Object.entries(obj).sort((x, y) => strCompare(x[0], y[0])) };
      }
      case 'i': {
        if (!/^-?\d+$/.test(body)) throw new FieldsV1Error(`invalid index ${JSON.stringify(s)}`);
        return { index: Number(body) };
      }
      default:
        return undefined;
    }
  } catch (e) {
    if (e instanceof FieldsV1Error) throw e;
    throw new FieldsV1Error(`invalid path element ${JSON.stringify(s)}: ${(e as Error).message}`);
  }
}

/** A path in SMD's text form (`.metadata.labels.a`, `[name="x"]`, `[=v]`, `[0]`), for messages. */
export function pathString(path: Path): string {
  return path
    .map((pe) => {
      if ('field' in pe) return `.${pe.field}`;
      if ('key' in pe) return `[${pe.key.map(([n, v]) => `${n}=${goJson(v)}`).join(',')}]`;
      if ('value' in pe) return `[=${goJson(pe.value)}]`;
      return `[${pe.index}]`;
    })
    .join('');
}

// ------------------------------------------------------------------ sets

/** The first character of a field element's key (`f:`). */
const F = 'f'.charCodeAt(0);
const COLON = ':'.charCodeAt(0);

interface Child {
  pe: PathElement;
  set: FieldSet;
}

/** A set of field paths (SMD fieldpath.Set). */
export class FieldSet {
  private constructor(
    /** Paths of length one that are members, by serialized element. */
    private readonly members: ReadonlyMap<string, PathElement>,
    /** Descendant sets (never empty), by serialized element. */
    private readonly children: ReadonlyMap<string, Child>,
  ) {}

  static empty(): FieldSet {
    return new FieldSet(new Map(), new Map());
  }

  /** A set holding exactly these paths. */
  static of(...paths: Path[]): FieldSet {
    return FieldSet.fromPaths(paths);
  }

  /** A set holding exactly these paths, built in one pass (linear in the number of paths). */
  static fromPaths(paths: Iterable<Path>): FieldSet {
    const root = new FieldSet(new Map(), new Map());
    // The nodes along the previous path: a path that starts with the same element objects (the
    // paths of one walk share their prefixes) resumes below them instead of at the root.
    let prev: Path = [];
    const nodes: FieldSet[] = [root];
    for (const path of paths) {
      const n = path.length;
      let i = 0;
      while (i < n - 1 && i < prev.length - 1 && path[i] === prev[i]) i++;
      let node = nodes[i];
      for (; i < n; i++) {
        const k = serializePathElement(path[i]);
        if (i === n - 1) {
          (node.members as Map<string, PathElement>).set(k, path[i]);
          break;
        }
        let child = node.children.get(k);
        if (!child) {
          child = { pe: path[i], set: new FieldSet(new Map(), new Map()) };
          (node.children as Map<string, Child>).set(k, child);
        }
        node = child.set;
        nodes[i + 1] = node;
      }
      prev = path;
    }
    return root;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  /** This set plus one path (the empty path is not a field and is ignored). */
  insert(path: Path): FieldSet {
    if (path.length === 0) return this;
    const k = serializePathElement(path[0]);
    if (path.length === 1) {
      if (this.members.has(k)) return this;
      return new FieldSet(new Map(this.members).set(k, path[0]), this.children);
    }
    const child = this.children.get(k);
    const sub = (child?.set ?? FieldSet.empty()).insert(path.slice(1));
    return new FieldSet(this.members, new Map(this.children).set(k, { pe: path[0], set: sub }));
  }

  /**
   * This set with members added along its paths: at every level, `step(ctx, pe)` says whether the
   * child element `pe` (a node with member descendants) becomes a member too, and the context its
   * subset is walked with. Subsets left as they are (no children) are shared, not copied.
   */
  withMembersAdded<C>(ctx: C, step: (ctx: C, pe: PathElement) => { member: boolean; ctx: C }): FieldSet {
    if (this.children.size === 0) return this;
    let members = this.members;
    const children = new Map<string, Child>();
    for (const [k, c] of this.children) {
      const r = step(ctx, c.pe);
      if (r.member && !members.has(k)) {
        if (members === this.members) members = new Map(members);
        (members as Map<string, PathElement>).set(k, c.pe);
      }
      children.set(k, { pe: c.pe, set: c.set.withMembersAdded(r.ctx, step) });
    }
    return new FieldSet(members, children);
  }

  /**
   * Does a member of `o` lie on, above or below a member of this set (is one path a prefix of, or
   * equal to, the other)? False when the two sets' members are apart in the tree.
   */
  overlapsTree(o: FieldSet): boolean {
    for (const k of this.members.keys()) if (o.members.has(k) || o.children.has(k)) return true;
    for (const [k, c] of this.children) {
      if (o.members.has(k)) return true;
      const theirs = o.children.get(k);
      if (theirs && c.set.overlapsTree(theirs.set)) return true;
    }
    return false;
  }

  /** Is the path a member? */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    const k = serializePathElement(path[0]);
    if (path.length === 1) return this.members.has(k);
    return this.children.get(k)?.set.has(path.slice(1)) ?? false;
  }

  /** The elements that are members at this level (paths of length one), in SMD's order. */
  memberElements(): PathElement[] {
    return sortedValues(this.members);
  }

  /** The non-empty subsets below this level, by their first element, in SMD's order. */
  childEntries(): Array<{ pe: PathElement; set: FieldSet }> {
    return sortedChildren(this.children);
  }

  /** Is the path of one element with this FieldsV1 key (`f:name`, …) a member? */
  hasMemberKey(key: string): boolean {
    return this.members.has(key);
  }

  /** The subset under the element with this FieldsV1 key, without the prefix; undefined when empty. */
  childByKey(key: string): FieldSet | undefined {
    return this.children.get(key)?.set;
  }

  /** The subset under one element, without the prefix (SMD WithPrefix). */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(serializePathElement(pe))?.set ?? FieldSet.empty();
  }

  union(o: FieldSet): FieldSet {
    if (o.isEmpty()) return this;
    if (this.isEmpty()) return o;
    const members = new Map(this.members);
    for (const [k, pe] of o.members) members.set(k, pe);
    const children = new Map(this.children);
    for (const [k, c] of o.children) {
      const mine = children.get(k);
      children.set(k, mine ? { pe: mine.pe, set: mine.set.union(c.set) } : c);
    }
    return new FieldSet(members, children);
  }

  intersection(o: FieldSet): FieldSet {
    const members = new Map<string, PathElement>();
    for (const [k, pe] of this.members) if (o.members.has(k)) members.set(k, pe);
    const children = new Map<string, Child>();
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (!theirs) continue;
      const s = c.set.intersection(theirs.set);
      if (!s.isEmpty()) children.set(k, { pe: c.pe, set: s });
    }
    return new FieldSet(members, children);
  }

  /** Paths of this set that are not paths of `o` (exact paths: descendants stay). */
  difference(o: FieldSet): FieldSet {
    if (o.isEmpty() || this.isEmpty() || this.disjointAtTop(o)) return this;
    const members = new Map<string, PathElement>();
    for (const [k, pe] of this.members) if (!o.members.has(k)) members.set(k, pe);
    const children = new Map<string, Child>();
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (!theirs) {
        children.set(k, c);
        continue;
      }
      const s = c.set.difference(theirs.set);
      if (!s.isEmpty()) children.set(k, { pe: c.pe, set: s });
    }
    return new FieldSet(members, children);
  }

  /** No element of this level is an element of `o`'s: nothing of this set is in `o`. */
  private disjointAtTop(o: FieldSet): boolean {
    for (const k of this.members.keys()) if (o.members.has(k)) return false;
    for (const k of this.children.keys()) if (o.children.has(k)) return false;
    return true;
  }

  /** Like difference, but a member of `o` also removes everything below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    if (o.isEmpty() || this.isEmpty()) return this;
    const members = new Map<string, PathElement>();
    for (const [k, pe] of this.members) if (!o.members.has(k)) members.set(k, pe);
    const children = new Map<string, Child>();
    for (const [k, c] of this.children) {
      if (o.members.has(k)) continue;
      const theirs = o.children.get(k);
      if (!theirs) {
        children.set(k, c);
        continue;
      }
      const s = c.set.recursiveDifference(theirs.set);
      if (!s.isEmpty()) children.set(k, { pe: c.pe, set: s });
    }
    return new FieldSet(members, children);
  }

  equals(o: FieldSet): boolean {
    if (this.members.size !== o.members.size || this.children.size !== o.children.size) return false;
    for (const k of this.members.keys()) if (!o.members.has(k)) return false;
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (!theirs || !c.set.equals(theirs.set)) return false;
    }
    return true;
  }

  /** Every member path, depth first, members of a node before its children (SMD Iterate). */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: Path): void => {
      for (const pe of sortedValues(s.members)) out.push([...prefix, pe]);
      for (const c of sortedChildren(s.children)) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  /** The FieldsV1 document: keys in SMD's order, `".": {}` marking a member with descendants. */
  toFieldsV1(): Record<string, unknown> {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (includeSelf && !this.isEmpty()) out['.'] = {};
    const keys: string[] = [];
    let fieldsOnly = true;
    for (const key of this.members.keys()) {
      keys.push(key);
      if (key.charCodeAt(0) !== F) fieldsOnly = false;
    }
    for (const key of this.children.keys()) {
      if (this.members.has(key)) continue;
      keys.push(key);
      if (key.charCodeAt(0) !== F) fieldsOnly = false;
    }
    // Fields only (most levels): their keys `f:<name>` sort as the names do.
    if (keys.length > 1) keys.sort(fieldsOnly ? strCompare : (a, b) => comparePathElements(this.elementOf(a), this.elementOf(b)));
    for (const key of keys) {
      const c = this.children.get(key);
      out[key] = c ? c.set.emit(this.members.has(key)) : {};
    }
    return out;
  }

  /** The element of a key of this level (a member's or a child's). */
  private elementOf(key: string): PathElement {
    return this.members.get(key) ?? this.children.get(key)!.pe;
  }

  /** Parse a FieldsV1 document (unknown element types are skipped, as kube does). */
  static fromFieldsV1(doc: unknown): FieldSet {
    if (doc === undefined || doc === null) return FieldSet.empty();
    if (typeof doc !== 'object' || Array.isArray(doc)) throw new FieldsV1Error('fieldsV1 must be an object');
    return FieldSet.read(doc as Record<string, unknown>).children ?? FieldSet.empty();
  }

  private static read(node: Record<string, unknown>): { children: FieldSet | undefined; isMember: boolean } {
    let isMember = false;
    const members = new Map<string, PathElement>();
    const children = new Map<string, Child>();
    for (const [key, v] of Object.entries(node)) {
      if (key === '.') {
        isMember = true;
        continue;
      }
      // A field (`f:<name>`, nearly every key) is its own canonical key; its element is shared.
      const isField = key.length >= 2 && key.charCodeAt(0) === F && key.charCodeAt(1) === COLON;
      const pe = isField ? fieldElement(key.slice(2)) : parsePathElement(key);
      if (!pe) continue;
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new FieldsV1Error(`value of ${JSON.stringify(key)} must be an object`);
      const canonical = isField ? key : serializePathElement(pe);
      const sub = FieldSet.read(v as Record<string, unknown>);
      if (sub.isMember) members.set(canonical, pe);
      if (sub.children) children.set(canonical, { pe, set: sub.children });
    }
    const set = members.size || children.size ? new FieldSet(members, children) : undefined;
    return { children: set, isMember: isMember || !set };
  }

  /** Text form, one path per line (SMD Set.String), for messages and tests. */
  toString(): string {
    return this.paths().map(pathString).join('\n');
  }
}

function sortedValues(m: ReadonlyMap<string, PathElement>): PathElement[] {
  return [...m.values()].sort(comparePathElements);
}

function sortedChildren(m: ReadonlyMap<string, Child>): Child[] {
  return [...m.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
}
