/**
 * A JSON parser that resolves duplicate object keys the way Go's encoding/json (and
 * sigs.k8s.io/json, kube-apiserver's decoder) does when it decodes into a Go value: a later
 * object for the same key is decoded into the earlier one (objects merge: `"data":{"x":"1"},
 * "data":{"y":"2"}` is `{x, y}`), anything else replaces it. The duplicates are reported by path
 * (`data`, `metadata.labels.a`, `spec.ports[0].name`), as the strict decoder names them.
 *
 * JSON.parse is used when the text has no duplicates (it is much faster); this parser runs only
 * for bodies where a cheap pre-check cannot rule them out.
 */

/** A parsed body and the duplicate keys it had (paths, in document order). */
export interface Parsed {
  value: unknown;
  duplicates: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function mergeInto(prev: unknown, next: unknown): unknown {
  if (!isObj(prev) || !isObj(next)) return next;
  const out: Obj = { ...prev };
  for (const [k, v] of Object.entries(next)) out[k] = k in out ? mergeInto(out[k], v) : v;
  return out;
}

class Parser {
  i = 0;
  readonly duplicates: string[] = [];
  constructor(private readonly s: string) {}

  fail(): never {
    throw new SyntaxError(`invalid JSON at offset ${this.i}`);
  }
  ws(): void {
    const s = this.s;
    let c: number;
    while (this.i < s.length && ((c = s.charCodeAt(this.i)) === 32 || c === 9 || c === 10 || c === 13)) this.i++;
  }
  value(path: string): unknown {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object(path);
    if (c === '[') return this.array(path);
    if (c === '"') return this.string();
    return this.literal();
  }
  string(): string {
    const s = this.s;
    const start = this.i;
    this.i++;
    let escaped = false;
    for (;;) {
      const ch = s.charCodeAt(this.i);
      if (Number.isNaN(ch)) this.fail();
      if (ch === 0x5c) {
        escaped = true;
        this.i += 2;
        continue;
      }
      this.i++;
      if (ch === 0x22) break;
    }
    const raw = s.slice(start, this.i);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }
  literal(): unknown {
    const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.s.slice(this.i, this.i + 400));
    if (!m) this.fail();
    this.i += m[0].length;
    return JSON.parse(m[0]);
  }
  object(path: string): Obj {
    this.i++;
    const out: Obj = {};
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail();
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail();
      this.i++;
      const p = path ? `${path}.${key}` : key;
      const v = this.value(p);
      if (Object.prototype.hasOwnProperty.call(out, key)) {
        this.duplicates.push(p);
        out[key] = mergeInto(out[key], v);
      } else if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail();
    }
  }
  array(path: string): unknown[] {
    this.i++;
    const out: unknown[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(`${path}[${out.length}]`));
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail();
    }
  }
}

/**
 * Parse JSON text with Go's duplicate-key resolution. Syntax errors throw JSON.parse's own
 * SyntaxError (the message the server already reports for malformed bodies).
 */
export function parseJson(text: string, findDuplicates: boolean): Parsed {
  if (!findDuplicates) {
    // Fast path: JSON.parse keeps the last duplicate; only a merge of two objects differs from Go,
    // and that needs the slow parser, which runs when a key could repeat an object.
    return { value: JSON.parse(text), duplicates: [] };
  }
  const p = new Parser(text);
  let value: unknown;
  try {
    value = p.value('');
    p.ws();
    if (p.i !== text.length) p.fail();
  } catch {
    return { value: JSON.parse(text), duplicates: [] }; // throws JSON.parse's message
  }
  return { value, duplicates: p.duplicates };
}
