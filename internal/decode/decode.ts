/**
 * Decoding as kube-apiserver's Go decoder does, driven only by the kind's schema
 * (internal/schema, generated from the 1.24 OpenAPI with each field's Go shape in `x-go`).
 *
 * A body becomes what `json.Unmarshal` into the Go struct and `json.Marshal` back produce:
 * - fields the schema does not know are dropped (reported as `unknown`, by path, for
 *   fieldValidation); field names match case-sensitively (sigs.k8s.io/json);
 * - a value of the wrong JSON type is a decode error with encoding/json's message (the first one
 *   in document order; errors of custom unmarshalers — times, quantities — end decoding at once,
 *   and bad base64 is saved like a type error, as in Go);
 * - the output has Go's shape: fields in Go struct order, omitempty zero values gone, fields
 *   without omitempty present with their zero values, nulls where Go writes them, times,
 *   quantities, int-or-strings and base64 in their canonical forms.
 *
 * Schemas without `x-go` (a CRD's structural schema, later) keep present fields as written.
 */
import { scalarZero, type OpenApiSchema } from '../schema/types.ts';
import { canonicalQuantity, QuantityError } from './quantity.ts';
import { canonicalTime, canonicalMicroTime, TimeError } from './time.ts';
import { isObj } from '../gocompat/json.ts';

/** Where named definitions (`$ref` targets) come from. */
export interface DefinitionLookup {
  definition(name: string): OpenApiSchema | undefined;
}

/** A body that Go would not decode; `message` is Go's error text. */
export class GoDecodeError extends Error {}

/** What decoding produced. */
export interface Decoded {
  /** The object as the Go round trip writes it. */
  value: unknown;
  /** Paths of fields the schema does not know (`spec.foo`, `spec.ports[0].bar`), in order. */
  unknown: string[];
}

const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const FIELDS_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1';

/** The definitions decoded by hand (custom Go unmarshalers, raw JSON). */
const SPECIAL_REFS = new Map<string, 'time' | 'microTime' | 'quantity' | 'intOrString' | 'raw'>([
  [TIME, 'time'],
  [MICRO_TIME, 'microTime'],
  [QUANTITY, 'quantity'],
  [INT_OR_STRING, 'intOrString'],
  [RAW_EXTENSION, 'raw'],
  [FIELDS_V1, 'raw'],
]);

type Obj = Record<string, unknown>;

/** encoding/json's name of a JSON value's type in "cannot unmarshal X". */
function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}

/** Short Go type name of a definition: io.k8s.api.core.v1.PodSpec → v1.PodSpec. */
function goTypeOfRef(ref: string): string {
  const parts = ref.split('.');
  return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
}

/**
 * The decoding context encoding/json reports errors in (errorContext): a chain of steps from the
 * root, turned into a path or a field stack only when an error, an unknown field or a number
 * literal needs one (building both strings for every field was most of a decode's cost).
 */
interface Ctx {
  readonly parent: Ctx | null;
  /** Innermost Go struct type name ('' at the top). */
  readonly struct: string;
  /** What this step adds: a struct field's or a map entry's key, or an index. */
  readonly seg: string | number;
  readonly step: Step;
}
/** Root; a struct field (in Go's FieldStack and the path); a map key or an index (path only). */
type Step = 0 | 1 | 2 | 3;
const ROOT: Ctx = { parent: null, struct: '', seg: '', step: 0 };
const fieldCtx = (parent: Ctx, struct: string, name: string): Ctx => ({ parent, struct, seg: name, step: 1 });

/** The strict path (with map keys and [i]) of unknown-field reports and literal lookups. */
function pathOf(c: Ctx): string {
  if (c.step === 0) return '';
  const p = pathOf(c.parent!);
  if (c.step === 3) return `${p}[${c.seg}]`;
  return c.step === 1 && !p ? String(c.seg) : `${p}.${c.seg}`;
}

/** JSON field names from the root (no map keys or indexes), as Go's FieldStack. */
function fieldsOf(c: Ctx): string[] {
  const out: string[] = [];
  for (let x: Ctx | null = c; x; x = x.parent) if (x.step === 1) out.push(x.seg as string);
  return out.reverse();
}

/** A compiled struct: its fields in Go order. */
interface StructPlan {
  name: string;
  props: Map<string, FieldPlan>;
  order: FieldPlan[];
}

interface FieldPlan {
  name: string;
  /** Position in `order`. */
  at: number;
  schema: OpenApiSchema;
  /** The field's Go shape (`x-go`). */
  go: string | undefined;
  /** The field's Go type as reflect prints it (constructor's `goTypes`), for messages. */
  goType: string | undefined;
}

/** What a `$ref` names, decided once per name: one map lookup instead of string compares. */
type RefPlan =
  | { is: 'time' | 'microTime' | 'quantity' | 'intOrString' | 'missing' }
  /** RawExtension, FieldsV1: decoded as written; their zero value is their definition's. */
  | { is: 'raw'; def: OpenApiSchema | undefined }
  | { is: 'struct' | 'other'; def: OpenApiSchema };

/**
 * A decoder over a set of definitions; compiled struct plans are cached, so one instance should
 * live as long as its definitions (the process, for generated kinds).
 */
export class SchemaDecoder {
  private readonly plans = new Map<string, StructPlan>();
  /** Plans of structs given inline (`properties` without a `$ref`), by their schema node. */
  private readonly inlinePlans = new WeakMap<OpenApiSchema, StructPlan>();
  private readonly refs = new Map<string, RefPlan>();
  /** The first saved (non-fatal) error of the current decode, as encoding/json's savedError. */
  private saved: string | undefined;
  private unknown: string[] = [];
  /** Encoding (omitempty applies) rather than decoding (empty slices and maps are kept). */
  private encoding = true;
  /** Number literals by path (json-parse.ts), for Go's literal-based integer decoding. */
  private literals: Map<string, string> | undefined;

  /**
   * `goTypes`: definition → field → the Go type as reflect prints it (generated/go/types.json),
   * for messages naming Go's own types (`v1.ServiceType`); without it, names are derived from the
   * schema (`string`, `[]v1.Container`).
   */
  constructor(private readonly defs: DefinitionLookup, private readonly goTypes: Record<string, Record<string, string>> = {}) {}

  /**
   * Decode `value` (parsed JSON) as the definition `root`; throws GoDecodeError with Go's message.
   */
  decode(value: unknown, root: string, mode: 'decode' | 'roundtrip' = 'roundtrip', literals?: Map<string, string>): Decoded {
    this.literals = literals;
    // A decoded Go value still tells an empty slice from nil (the field manager resets
    // managedFields on `[]`); only encoding omits it. 'roundtrip' is decode + encode.
    this.encoding = mode === 'roundtrip';
    this.saved = undefined;
    this.unknown = [];
    const out = this.node(value, { $ref: root }, ROOT);
    if (this.saved !== undefined) throw new GoDecodeError(this.saved);
    return { value: out, unknown: this.unknown };
  }

  private plan(name: string, def: OpenApiSchema): StructPlan {
    let p = name ? this.plans.get(name) : this.inlinePlans.get(def);
    if (!p) {
      const goTypes = name ? this.goTypes[name] : undefined;
      const order = Object.entries(def.properties ?? {}).map(([field, schema], at): FieldPlan => ({ name: field, at, schema, go: schema['x-go'], goType: goTypes?.[field] }));
      p = { name: name.slice(name.lastIndexOf('.') + 1), props: new Map(order.map((f) => [f.name, f])), order };
      if (name) this.plans.set(name, p);
      else this.inlinePlans.set(def, p);
    }
    return p;
  }

  private refPlan(ref: string): RefPlan {
    let r = this.refs.get(ref);
    if (!r) {
      const special = SPECIAL_REFS.get(ref);
      const def = special && special !== 'raw' ? undefined : this.defs.definition(ref);
      if (special === 'raw') r = { is: special, def };
      else if (special) r = { is: special };
      else if (!def) r = { is: 'missing' };
      else r = { is: def.properties || (def.type === 'object' && !def.additionalProperties) ? 'struct' : 'other', def };
      this.refs.set(ref, r);
    }
    return r;
  }

  private typeError(v: unknown, goType: string, ctx: Ctx, literal?: string): void {
    if (this.saved !== undefined) return;
    const what = literal !== undefined ? `number ${literal}` : jsonType(v);
    const fields = fieldsOf(ctx);
    this.saved = ctx.struct || fields.length
      ? `json: cannot unmarshal ${what} into Go struct field ${ctx.struct}.${fields.join('.')} of type ${goType}`
      : `json: cannot unmarshal ${what} into Go value of type ${goType}`;
  }

  /** The Go type name of a schema node (for messages). */
  private goType(s: OpenApiSchema): string {
    if (s.$ref) {
      if (s.$ref === TIME || s.$ref === MICRO_TIME) return goTypeOfRef(s.$ref);
      const d = this.defs.definition(s.$ref);
      if (d && d.type !== 'object' && !d.properties && s.$ref !== QUANTITY && s.$ref !== INT_OR_STRING) return this.goType(d);
      return goTypeOfRef(s.$ref);
    }
    switch (s.type) {
      case 'string':
        return s.format === 'byte' ? '[]uint8' : 'string';
      case 'integer':
        return s.format === 'int32' ? 'int32' : s.format === 'int64' ? 'int64' : 'int';
      case 'number':
        return 'float64';
      case 'boolean':
        return 'bool';
      case 'array':
        return `[]${this.goType(s.items ?? {})}`;
      case 'object':
        if (s.additionalProperties && typeof s.additionalProperties === 'object') return `map[string]${this.goType(s.additionalProperties)}`;
        return 'map[string]interface {}';
      default:
        return 'interface {}';
    }
  }

  /** Decode one value; `undefined` in the result means "absent" (nil). */
  private node(v: unknown, s: OpenApiSchema, ctx: Ctx, hint?: string): unknown {
    if (hint?.startsWith('*')) hint = hint.slice(1);
    if (s.$ref) return this.named(v, s.$ref, ctx, hint);
    if (s.type === 'object' || s.properties) {
      if (s.properties) return this.struct(v, s, '', ctx);
      if (v === null) return null;
      if (!isObj(v)) {
        this.typeError(v, hint ?? this.goType(s), ctx);
        return undefined;
      }
      const addl = s.additionalProperties;
      const valueHint = hint?.startsWith('map[') ? mapValueType(hint) : undefined;
      if (!addl || typeof addl !== 'object') return s['x-kubernetes-preserve-unknown-fields'] ? v : {};
      const out: Obj = {};
      // json.Marshal writes map keys sorted.
      const keys = this.encoding ? Object.keys(v).sort() : Object.keys(v);
      for (const k of keys) {
        const item = v[k];
        const d = this.node(item, addl, { parent: ctx, struct: ctx.struct, seg: k, step: 2 }, valueHint);
        // A null entry stays an entry: the element's zero value (encoding/json).
        out[k] = d === undefined || d === null ? this.zero(addl) : d;
      }
      return out;
    }
    if (s.type === 'array') {
      if (v === null) return null;
      if (!Array.isArray(v)) {
        this.typeError(v, hint ?? this.goType(s), ctx);
        return undefined;
      }
      const items = s.items ?? {};
      const itemHint = hint?.startsWith('[]') ? hint.slice(2) : undefined;
      return v.map((item, i) => {
        const d = this.node(item, items, { parent: ctx, struct: ctx.struct, seg: i, step: 3 }, itemHint);
        return d === undefined || d === null ? this.zero(items) : d;
      });
    }
    return this.scalar(v, s, ctx, hint);
  }

  /** Zero value of an element (list item or map entry) that was null. */
  private zero(s: OpenApiSchema): unknown {
    if (s.$ref) {
      const r = this.refPlan(s.$ref);
      if (r.is === 'quantity') return '0';
      if (r.is === 'intOrString') return 0;
      if (!('def' in r) || !r.def) return null; // times, and a definition that does not exist
      return r.def.properties ? this.struct(undefined, r.def, s.$ref, ROOT) : this.zero(r.def);
    }
    return scalarZero(s) ?? null;
  }

  private named(v: unknown, ref: string, ctx: Ctx, hint?: string): unknown {
    const r = this.refPlan(ref);
    switch (r.is) {
      case 'time':
      case 'microTime':
        if (v === null || v === undefined) return null;
        if (typeof v !== 'string') {
          this.typeError(v, 'string', ctx);
          throw new GoDecodeError(this.saved!);
        }
        try {
          return r.is === 'time' ? canonicalTime(v) : canonicalMicroTime(v);
        } catch (e) {
          if (e instanceof TimeError) throw new GoDecodeError(e.message);
          throw e;
        }
      case 'quantity':
        if (v === null || v === undefined) return undefined;
        try {
          return canonicalQuantity(typeof v === 'string' ? v : this.literal(ctx) ?? JSON.stringify(v));
        } catch (e) {
          if (e instanceof QuantityError) throw new GoDecodeError(e.message);
          throw e;
        }
      case 'intOrString':
        if (v === null || v === undefined || typeof v === 'string') return v ?? undefined;
        if (typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) return v;
        this.typeError(v, 'int32', ctx, typeof v === 'number' ? String(v) : undefined);
        throw new GoDecodeError(this.saved!);
      case 'raw':
        return v === null ? undefined : v;
      case 'missing':
        return v;
      case 'struct':
        return this.struct(v, r.def, ref, ctx, hint);
      default:
        return this.node(v, r.def, ctx, hint);
    }
  }

  /** The literal text of the number at `ctx` when JSON.parse's value does not spell it back. */
  private literal(ctx: Ctx): string | undefined {
    return this.literals?.size ? this.literals.get(pathOf(ctx)) : undefined;
  }

  /** A Go struct: known fields decoded in Go order, unknown ones reported and dropped. */
  private struct(v: unknown, def: OpenApiSchema, ref: string, ctx: Ctx, hint?: string): unknown {
    const plan = this.plan(ref, def);
    if (v === null) return null;
    if (v !== undefined && !isObj(v)) {
      this.typeError(v, hint ?? (ref ? goTypeOfRef(ref) : 'struct'), ctx);
      return undefined;
    }
    const input = (v ?? {}) as Obj;
    if (v !== undefined && !def.properties && def['x-kubernetes-preserve-unknown-fields']) return v;
    // Fields are decoded in document order (errors and unknown fields are reported in the order
    // Go meets them), then written in Go order.
    const decoded: unknown[] = new Array(plan.order.length);
    for (const k of Object.keys(input)) {
      const f = plan.props.get(k);
      if (!f) {
        const p = pathOf(ctx);
        this.unknown.push(p ? `${p}.${k}` : k);
        continue;
      }
      const raw = input[k];
      if (raw !== undefined) decoded[f.at] = this.node(raw, f.schema, fieldCtx(ctx, plan.name, k), f.goType);
    }
    const out: Obj = {};
    for (const f of plan.order) {
      const value = this.goField(f.go, decoded[f.at], f.schema);
      if (value !== undefined) out[f.name] = value;
    }
    return out;
  }

  /** What json.Marshal writes for a Go field of shape `go` holding decoded value `d`. */
  private goField(go: string | undefined, d: unknown, fs: OpenApiSchema): unknown {
    if (!go) return d === null ? undefined : d;
    const omit = go.length > 1 && go[1] === 'o';
    switch (go[0]) {
      case 'p':
        // A nil pointer is omitted with omitempty and written `null` without it
        // (TypedLocalObjectReference.apiGroup, ScaleIO secretRef, AzureFile PV secretNamespace).
        return d === undefined || d === null ? (omit ? undefined : null) : d;
      case 's':
        // A value struct is always written, its zero value when absent.
        return d === undefined || d === null ? this.zero(fs) : d;
      case 't':
        return d === undefined ? null : d;
      case 'q':
        return d === undefined || d === null ? '0' : d;
      case 'i':
        return d === undefined || d === null ? 0 : d;
      case 'l':
        if (d === undefined || d === null) return omit ? undefined : null;
        if (this.encoding && (Array.isArray(d) ? d.length === 0 : isObj(d) ? Object.keys(d).length === 0 : d === '')) {
          // kube stores built-in kinds as Protobuf, which has no empty-but-present list or map:
          // read back, an empty one is nil, written `null` where there is no omitempty
          // (CSINodeSpec.drivers: [] comes back null).
          return omit ? undefined : d === '' ? d : null;
        }
        return d;
      default: {
        const z = d === undefined || d === null ? this.zero(fs) : d;
        if (omit && (z === '' || z === 0 || z === false || z === null)) return undefined;
        return z;
      }
    }
  }

  private scalar(v: unknown, s: OpenApiSchema, ctx: Ctx, hint?: string): unknown {
    if (v === null) return null;
    const goType = (): string => hint ?? this.goType(s);
    switch (s.type) {
      case 'string':
        if (typeof v !== 'string') {
          this.typeError(v, goType(), ctx);
          return undefined;
        }
        if (s.format === 'byte') {
          const err = base64Error(v);
          if (err !== undefined) {
            this.saved ??= `illegal base64 data at input byte ${err}`;
            return undefined;
          }
          return Buffer.from(v.replace(/[\r\n]/g, ''), 'base64').toString('base64');
        }
        return v;
      case 'integer': {
        if (typeof v !== 'number') {
          this.typeError(v, goType(), ctx);
          return undefined;
        }
        // Go parses the literal's text (strconv.ParseInt): `1.0` and `1e3` are not integers.
        const bits = s.format === 'int32' ? 31n : 63n;
        const raw = this.literal(ctx) ?? String(v);
        if (!/^-?\d+$/.test(raw) || BigInt(raw) < -(2n ** bits) || BigInt(raw) >= 2n ** bits) {
          this.typeError(v, goType(), ctx, raw);
          return undefined;
        }
        return v;
      }
      case 'number':
        if (typeof v !== 'number') {
          this.typeError(v, goType(), ctx);
          return undefined;
        }
        return v;
      case 'boolean':
        if (typeof v !== 'boolean') {
          this.typeError(v, goType(), ctx);
          return undefined;
        }
        return v;
      default:
        return v;
    }
  }
}

/** The value type of a reflect map type name: map[string][]uint8 → []uint8. */
function mapValueType(t: string): string | undefined {
  let depth = 0;
  for (let i = 3; i < t.length; i++) {
    if (t[i] === '[') depth++;
    else if (t[i] === ']' && --depth === 0) return t.slice(i + 1);
  }
  return undefined;
}

/** Position Go's base64.StdEncoding reports for a malformed string, or undefined when valid. */
export function base64Error(s: string): number | undefined {
  const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
  let si = 0;
  const n = s.length;
  const skip = (): void => {
    while (si < n && (s.charCodeAt(si) === 10 || s.charCodeAt(si) === 13)) si++;
  };
  for (;;) {
    for (let j = 0; j < 4; j++) {
      skip();
      if (si === n) {
        if (j === 0) return undefined;
        return si - j;
      }
      const c = s.charCodeAt(si);
      si++;
      if (isAlpha(c)) continue;
      if (c !== 61) return si - 1; // not '='
      // Padding: only at the third or fourth place of the last quantum.
      if (j < 2) return si - 1;
      if (j === 2) {
        skip();
        if (si === n) return n;
        if (s.charCodeAt(si) !== 61) return si - 1;
        si++;
      }
      skip();
      return si < n ? si : undefined;
    }
  }
}
