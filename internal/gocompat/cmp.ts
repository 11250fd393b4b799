/**
 * github.com/google/go-cmp v0.5.5 `cmp.Diff(old, new)` — the diff kube-apiserver 1.24 appends to
 * the Pod, PersistentVolume and PersistentVolumeClaim update messages ("pod updates may not change
 * fields other than …\n<diff>") — on values given in their JSON form with their Go type
 * (`GoType`; registry/core/cmpdiff.ts derives the internal core types from the schemas).
 *
 * Ported faithfully: the report layout (report_text.go: compact vs expanded lists, key and value
 * alignment, 80-column batching), struct records with two context records around each change and
 * "... // N identical fields" for the rest (report_compare.go formatDiffList), verbosity limits
 * of elided values (report_reflect.go FormatValue: four non-zero fields of a struct in a context
 * line, strings cut at 64 bytes, …), `&` pointers, `nil`. Approximated: slices are compared
 * index by index (go-cmp runs an edit script), quantities print their string.
 *
 * go-cmp randomly picks, once per process, regular or non-breaking spaces after the `-`/`+`/` `
 * markers (so that nobody depends on its output); this port always writes regular spaces, one of
 * the two forms kube-apiserver writes.
 *
 * Example (restartPolicy changed):
 *   core.PodSpec{
 *   	... // 2 identical fields
 *   	Containers:                    {{Name: "c", Image: "nginx", ...}},
 *   	EphemeralContainers:           nil,
 * - 	RestartPolicy:                 "Always",
 * + 	RestartPolicy:                 "Never",
 *   	TerminationGracePeriodSeconds: &30,
 *   	...
 */
import { jsonEqual } from './equal.ts';
import { isObj, type Obj } from './json.ts';
import { goQuote, isPrint } from './quote.ts';
import { type DiffMode, NIL, type TextNode, TextLine, TextList, TextWrap, len, render } from './cmp-text.ts';

type J = Obj;
const obj = (v: unknown): Obj | undefined => (isObj(v) ? v : undefined);

// ---------------------------------------------------------------- Go types

/** A Go type as go-cmp sees it. */
export type GoType =
  | { k: 'struct'; name: string; fields: GoField[] }
  | { k: 'ptr'; elem: GoType }
  | { k: 'slice'; name: string; elem: GoType }
  | { k: 'map'; name: string; elem: GoType; stringerKeys?: boolean }
  | { k: 'string' | 'int' | 'bool' | 'quantity' | 'quantityStruct' | 'intstr' | 'time' };

export interface GoField {
  name: string;
  /** JSON member in the parent object; undefined for an embedded struct (its fields are the parent's). */
  json?: string;
  type: () => GoType;
}

/** The value of a field in its parent JSON object (an embedded struct reads the parent itself). */
const fieldValue = (f: GoField, parent: unknown): unknown => (f.json === undefined ? parent : obj(parent)?.[f.json]);

/** reflect.Value.IsZero on the JSON form (absent = zero, as Go's omitempty wrote it). */
export function isZero(t: GoType, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  switch (t.k) {
    case 'struct':
      return t.fields.every((f) => isZero(f.type(), fieldValue(f, v)));
    case 'string':
    case 'quantity':
    case 'quantityStruct':
    case 'time':
      return v === '';
    case 'int':
      return v === 0;
    case 'bool':
      return v === false;
    default:
      return false;
  }
}

// ---------------------------------------------------------------- values (report_reflect.go)

interface Opts {
  mode: DiffMode | 'identical';
  verbosity: number;
  limit: boolean;
  typeMode: 'auto' | 'elide' | 'emit';
}

const verbosityOf = (o: Opts): number => Math.max(0, Math.min(16, o.verbosity));
const elemLimit = (o: Opts): number => ((1 << verbosityOf(o)) >> 1) << 2;

/**
 * report_reflect.go formatString(s): strconv.Quote, or a raw `…` literal when quoting would escape
 * something and the raw form can hold it (no backquote, newline or unprintable rune but tabs).
 * `partial`: bytes of a rune cut in half (Go cuts strings by bytes), always quoted as `\xNN`.
 */
export function goString(s: string, partial: readonly number[] = []): string {
  const qs = goQuote(s);
  if (!partial.length && Buffer.byteLength(qs) === Buffer.byteLength(s) + 2) return qs;
  if (!partial.length && ![...s].some((ch) => ch === '`' || ch === '\n' || !(isPrint(ch) || ch === '\t') || (ch.length === 1 && ch >= '\ud800' && ch <= '\udfff'))) return `\`${s}\``;
  return partial.length ? `${qs.slice(0, -1)}${partial.map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}"` : qs;
}

/** The first `max` bytes of `s` (UTF-8): whole runes, and the bytes of a rune cut in half. */
function cutBytes(s: string, max: number): [string, number[]] {
  let text = '';
  let used = 0;
  for (const ch of s) {
    const b = Buffer.from(ch);
    if (used + b.length > max) return [text, [...b.subarray(0, max - used)]];
    text += ch;
    used += b.length;
  }
  return [text, []];
}

/**
 * opts.formatString(prefix, s): cut to (1<<verbosity)<<5 bytes when verbosity is limited. (The
 * triple-quoted form go-cmp uses for removed or inserted strings of four lines or more is not
 * ported.)
 */
function formatString(s: string, o: Opts, prefix = ''): TextLine {
  const max = o.limit ? (1 << verbosityOf(o)) << 5 : Infinity;
  if (Buffer.byteLength(s) <= max + 3) return new TextLine(prefix + goString(s));
  const [text, partial] = cutBytes(s, max);
  return new TextLine(`${prefix}${goString(text, partial)}...`);
}

/** FormatType: a type label around struct/slice/map values that are not identical. */
function withType(t: GoType, s: TextNode, o: Opts): TextNode {
  if (o.typeMode === 'elide') return s;
  if (o.typeMode === 'auto') {
    if (t.k !== 'struct' && t.k !== 'slice' && t.k !== 'map') return s;
    if (s instanceof TextLine && s.s === 'nil') return s;
    if (o.mode === 'identical') return s;
  }
  const name = t.k === 'struct' ? t.name : t.k === 'slice' ? t.name || `[]${typeName(t.elem)}` : typeName(t);
  return new TextWrap(name, s);
}

function typeName(t: GoType): string {
  switch (t.k) {
    case 'struct':
      return t.name;
    case 'ptr':
      return `*${typeName(t.elem)}`;
    case 'slice':
      return `[]${typeName(t.elem)}`;
    case 'map':
      return t.name || `map[string]${typeName(t.elem)}`;
    case 'quantity':
    case 'quantityStruct':
      return 'resource.Quantity';
    case 'intstr':
      return 'intstr.IntOrString';
    case 'time':
      return 'v1.Time';
    case 'int':
      return 'int32';
    default:
      return t.k;
  }
}

/** FormatValue of one JSON value of Go type `t`. */
function formatValue(t: GoType, v: unknown, o: Opts): TextNode {
  switch (t.k) {
    case 'bool':
      return new TextLine(String(v === true));
    case 'int':
      return new TextLine(String(typeof v === 'number' ? v : 0));
    case 'string':
      return formatString(typeof v === 'string' ? v : '', o);
    case 'quantity':
    case 'time':
      return v === undefined || v === null ? new TextLine('{}') : formatString(String(v), o, 's');
    case 'quantityStruct': {
      const q = quantityStruct(v);
      return q ? formatValue(QUANTITY_STRUCT, q, o) : formatString(String(v ?? ''), o, 's');
    }
    case 'intstr':
      return new TextLine(typeof v === 'number' ? `{IntVal: ${v}}` : `{Type: 1, StrVal: ${goString(String(v))}}`);
    case 'ptr':
      if (v === undefined || v === null) return NIL;
      return new TextWrap('&', formatValue(t.elem, v, o));
    case 'struct': {
      const list = new TextList();
      const max = o.limit ? elemLimit(o) : Infinity;
      const inner = { ...o, verbosity: o.limit ? o.verbosity - 1 : o.verbosity, typeMode: 'auto' as const };
      for (const f of t.fields) {
        const fv = fieldValue(f, v);
        if (isZero(f.type(), fv)) continue;
        if (list.records.length === max) {
          list.appendEllipsis();
          break;
        }
        list.records.push({ diff: '', key: f.name, value: formatValue(f.type(), fv, inner) });
      }
      return withType(t, new TextWrap('{', list, '}'), o);
    }
    case 'slice': {
      if (!Array.isArray(v)) return NIL;
      const list = new TextList();
      const max = o.limit ? elemLimit(o) : Infinity;
      const inner = { ...o, verbosity: o.limit ? o.verbosity - 1 : o.verbosity, typeMode: 'elide' as const };
      for (const e of v) {
        if (list.records.length === max) {
          list.appendEllipsis();
          break;
        }
        list.records.push({ diff: '', key: '', value: formatValue(t.elem, e, inner) });
      }
      return withType(t, new TextWrap('{', list, '}'), o);
    }
    case 'map': {
      if (!obj(v)) return NIL;
      const list = new TextList();
      const max = o.limit ? elemLimit(o) : Infinity;
      const inner = { ...o, verbosity: o.limit ? o.verbosity - 1 : o.verbosity, typeMode: 'elide' as const };
      for (const k of Object.keys(v as J).sort()) {
        if (list.records.length === max) {
          list.appendEllipsis();
          break;
        }
        list.records.push({ diff: '', key: mapKey(t, k), value: formatValue(t.elem, (v as J)[k], inner) });
      }
      return withType(t, new TextWrap('{', list, '}'), o);
    }
  }
}

/** A map key as go-cmp prints it: quoted, with `s` for a Stringer key type (core.ResourceName). */
const mapKey = (t: GoType, k: string): string => `${t.k === 'map' && t.stringerKeys ? 's' : ''}${goString(k)}`;

/** resource.Quantity's fields as go-cmp walks them (d, the infinite-decimal form, left out). */
const QUANTITY_STRUCT: GoType = {
  k: 'struct',
  name: 'resource.Quantity',
  fields: [
    { name: 'i', json: 'i', type: () => ({ k: 'struct', name: 'resource.int64Amount', fields: [{ name: 'value', json: 'value', type: () => ({ k: 'int' }) }, { name: 'scale', json: 'scale', type: () => ({ k: 'int' }) }] }) },
    { name: 's', json: 's', type: () => ({ k: 'string' }) },
    { name: 'Format', json: 'Format', type: () => ({ k: 'string' }) },
  ],
};

/**
 * A resource.Quantity as the struct go-cmp prints when it cannot call String() (a map value):
 * `{i: resource.int64Amount{value: 500, scale: 6}, s: "500M", Format: "DecimalSI"}` — the
 * int64Amount and cached string Go's ParseQuantity leaves (resource/quantity.go). Undefined for
 * quantities Go keeps in its infinite-decimal form (printed `s"…"` instead).
 */
function quantityStruct(v: unknown): J | undefined {
  const str = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
  const parts = int64Quantity(str);
  if (!parts) return undefined;
  return { i: { value: Number(parts.value), scale: parts.scale }, s: parts.cached ? str : '', Format: parts.format };
}

/** ParseQuantity's int64 fast path: value, scale, format, and whether it caches the string. */
export function int64Quantity(str: string): { value: bigint; scale: number; format: string; cached: boolean } | undefined {
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(str);
  if (!m) return undefined;
  const positive = m[1] !== '-';
  const num = m[2] || '0';
  const denom = m[3] ?? '';
  const suffix = m[4]!;
  const DEC: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  const BIN: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
  let format: string;
  let exponent: number;
  if (suffix in DEC) [format, exponent] = ['DecimalSI', DEC[suffix]!];
  else if (suffix in BIN) [format, exponent] = ['BinarySI', BIN[suffix]!];
  else if (/^[eE][+-]?\d+$/.test(suffix)) [format, exponent] = ['DecimalExponent', Number.parseInt(suffix.slice(1), 10)];
  else return undefined;
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent < 0 || denom) return undefined;
    mantissa = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc(Math.fround(exponent * 3) / 10) - 1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision < 0) return undefined;
  scale -= denom.length;
  if (scale < -9) return undefined;
  const shifted = num + denom;
  const value = BigInt(shifted);
  const result = value * mantissa;
  if (result > 9223372036854775807n) return undefined;
  const cached = format === 'BinarySI' ? exponent % 10 === 0 && (value & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
  return { value: positive ? result : -result, scale, format, cached };
}

// ---------------------------------------------------------------- diff tree (report_compare.go)

interface Node {
  t: GoType;
  x: unknown;
  y: unknown;
  numDiff: number;
  /** Children for structs, slices, maps; the element for a non-nil pointer pair. */
  records?: { key: string; node: Node; removed?: boolean; inserted?: boolean }[];
  ptrElem?: Node;
  maxDepth: number;
  numChildren: number;
}

function build(t: GoType, x: unknown, y: unknown): Node {
  const leaf = (): Node => ({ t, x, y, numDiff: jsonEqual(x ?? null, y ?? null) || (isZero(t, x) && isZero(t, y) && t.k !== 'slice' && t.k !== 'map') ? 0 : 1, maxDepth: 0, numChildren: 0 });
  const parent = (n: Node, kids: Node[]): Node => {
    n.numDiff = kids.reduce((a, k) => a + k.numDiff, 0);
    n.maxDepth = kids.length ? Math.max(...kids.map((k) => k.maxDepth + 1)) : 0;
    n.numChildren = kids.reduce((a, k) => a + k.numChildren + 1, 0);
    return n;
  };
  switch (t.k) {
    case 'ptr': {
      if (x === undefined || x === null || y === undefined || y === null) return leaf();
      const elem = build(t.elem, x, y);
      return parent({ t, x, y, numDiff: 0, ptrElem: elem, maxDepth: 0, numChildren: 0 }, [elem]);
    }
    case 'struct': {
      if (!t.fields.length) return leaf();
      const records = t.fields.map((f) => ({ key: f.name, node: build(f.type(), fieldValue(f, x), fieldValue(f, y)) }));
      return parent({ t, x, y, numDiff: 0, records, maxDepth: 0, numChildren: 0 }, records.map((r) => r.node));
    }
    case 'slice': {
      if (!Array.isArray(x) || !Array.isArray(y)) return leaf();
      const records: NonNullable<Node['records']> = [];
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        if (i >= x.length) records.push({ key: '', node: { t: t.elem, x: undefined, y: y[i], numDiff: 1, maxDepth: 0, numChildren: 0 }, inserted: true });
        else if (i >= y.length) records.push({ key: '', node: { t: t.elem, x: x[i], y: undefined, numDiff: 1, maxDepth: 0, numChildren: 0 }, removed: true });
        else records.push({ key: '', node: build(t.elem, x[i], y[i]) });
      }
      return parent({ t, x, y, numDiff: 0, records, maxDepth: 0, numChildren: 0 }, records.map((r) => r.node));
    }
    case 'map': {
      if (!obj(x) || !obj(y)) return leaf();
      const keys = [...new Set([...Object.keys(x as J), ...Object.keys(y as J)])].sort();
      const records = keys.map((k) => {
        const inX = k in (x as J);
        const inY = k in (y as J);
        if (!inY) return { key: mapKey(t, k), node: { ...build(t.elem, (x as J)[k], undefined), numDiff: 1 }, removed: true };
        if (!inX) return { key: mapKey(t, k), node: { ...build(t.elem, undefined, (y as J)[k]), numDiff: 1 }, inserted: true };
        return { key: mapKey(t, k), node: build(t.elem, (x as J)[k], (y as J)[k]) };
      });
      return parent({ t, x, y, numDiff: 0, records, maxDepth: 0, numChildren: 0 }, records.map((r) => r.node));
    }
    default:
      return leaf();
  }
}

/** FormatDiff. */
function formatDiff(n: Node, o: Opts): TextNode {
  if (o.mode === 'identical') o = { ...o, verbosity: 1, limit: true };
  else if (verbosityOf(o) < 3) o = { ...o, verbosity: 3, limit: true };
  if (n.maxDepth === 0) {
    if (o.mode === 'identical' || o.mode === '') {
      if (n.numDiff === 0) {
        const ox = formatValue(n.t, n.x, o);
        const oy = formatValue(n.t, n.y, o);
        return len(ox) < len(oy) ? ox : oy;
      }
      const list = new TextList([
        { diff: '-', key: '', value: formatValue(n.t, n.x, { ...o, typeMode: 'elide' }) },
        { diff: '+', key: '', value: formatValue(n.t, n.y, { ...o, typeMode: 'elide' }) },
      ]);
      return withType(n.t, list, { ...o, typeMode: 'emit' });
    }
    return formatValue(n.t, o.mode === '-' ? n.x : n.y, o);
  }
  if (n.t.k === 'ptr') return new TextWrap('&', formatDiff(n.ptrElem!, o));
  return withType(n.t, formatDiffList(n, o), o);
}

/** diffStats.String's pluralization ("entrys" → "entries"). */
const plural = (name: string, count: number): string => (count > 1 ? (name === 'entry' ? 'entries' : `${name}s`) : name);

/** formatDiffList: records with context and "... // N identical <name>s". */
function formatDiffList(n: Node, o: Opts): TextNode {
  const kind = n.t.k;
  const name = kind === 'struct' ? 'field' : kind === 'map' ? 'entry' : 'element';
  const typeMode = kind === 'struct' ? ('auto' as const) : ('elide' as const);
  let maxLen = -1;
  if (o.limit) maxLen = o.mode === 'identical' ? elemLimit(o) : (1 << verbosityOf(o)) << 1;
  const inner: Opts = { ...o, typeMode, verbosity: o.limit ? o.verbosity - 1 : o.verbosity };
  const recs = n.records ?? [];
  if (o.mode !== '') {
    const list = new TextList();
    let deferred = false;
    for (const r of recs) {
      if (list.records.length === maxLen) {
        deferred = true;
        break;
      }
      if (kind === 'struct') {
        const zero = o.mode === 'identical' ? isZero(r.node.t, r.node.x) || isZero(r.node.t, r.node.y) : isZero(r.node.t, o.mode === '-' ? r.node.x : r.node.y);
        if (zero) continue;
      }
      list.records.push({ diff: '', key: r.key, value: formatDiff(r.node, inner) });
    }
    if (deferred) list.appendEllipsis();
    return new TextWrap('{', list, '}');
  }
  // Group adjacent equal / unequal records (coalesceAdjacentRecords).
  const groups: { diff: boolean; count: number }[] = [];
  for (const r of recs) {
    const d = r.node.numDiff > 0;
    const last = groups[groups.length - 1];
    if (last && last.diff === d) last.count++;
    else groups.push({ diff: d, count: 1 });
  }
  const list = new TextList();
  let i0 = 0;
  let numDiffs = 0;
  let hidden = 0;
  groups.forEach((g, gi) => {
    const slice = recs.slice(i0, i0 + g.count);
    i0 += g.count;
    if (maxLen >= 0 && numDiffs >= maxLen) {
      hidden += g.count;
      return;
    }
    if (!g.diff) {
      let lo = 0;
      let hi = 0;
      while (lo < 2 && lo + hi < g.count && gi !== 0) lo++;
      while (hi < 2 && lo + hi < g.count && gi !== groups.length - 1) hi++;
      if (g.count - (lo + hi) === 1) hi++;
      for (const r of slice.slice(0, lo)) list.records.push({ diff: '', key: r.key, value: formatDiff(r.node, { ...inner, mode: 'identical' }) });
      const elided = g.count - lo - hi;
      if (elided > 0) list.appendEllipsis(`${elided} identical ${plural(name, elided)}`);
      for (const r of slice.slice(g.count - hi)) list.records.push({ diff: '', key: r.key, value: formatDiff(r.node, { ...inner, mode: 'identical' }) });
      return;
    }
    for (const r of slice) {
      const node = r.node;
      if (node.numChildren === node.maxDepth || r.removed || r.inserted) {
        if (!r.inserted) list.records.push({ diff: '-', key: r.key, value: formatDiff(node, { ...inner, mode: '-' }) });
        if (!r.removed) list.records.push({ diff: '+', key: r.key, value: formatDiff(node, { ...inner, mode: '+' }) });
      } else {
        list.records.push({ diff: '', key: r.key, value: formatDiff(node, inner) });
      }
    }
    numDiffs += g.count;
  });
  if (hidden) list.appendEllipsis(`${hidden} ${plural(name, hidden)}`);
  return new TextWrap('{', list, '}');
}

/** cmp.Diff(x, y) of two values of Go type `t`, given in their JSON form: '' when they are equal. */
export function cmpDiff(t: GoType, x: unknown, y: unknown): string {
  const root = build(t, x, y);
  if (root.numDiff === 0) return '';
  return render(formatDiff(root, { mode: '', verbosity: 0, limit: false, typeMode: 'auto' }));
}
