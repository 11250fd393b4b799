/**
 * A JSON parser that resolves duplicate object keys the way Go's encoding/json (and
 * sigs.k8s.io/json, kube-apiserver's decoder) does when it decodes into a Go value: a later
 * object for the same key is decoded into the earlier one (objects merge: `"data":{"x":"1"},
 * "data":{"y":"2"}` is `{x, y}`), anything else replaces it. The duplicates are reported by path
 * (`data`, `metadata.labels.a`, `spec.ports[0].name`), as the strict decoder names them.
 *
 * Syntax errors carry encoding/json's scanner messages. About 4× JSON.parse's time on a 1 KiB
 * body (a few µs), which a write can afford.
 */
import { isObj } from '../gocompat/json.ts';

/** A parsed body and the duplicate keys it had (paths, in document order). */
export interface Parsed {
  value: unknown;
  duplicates: string[];
  /**
   * Number literals a JS number does not spell back (`1.0`, `1e3`, `9007199254740993`), by
   * path: Go decodes the literal text (`cannot unmarshal number 1.0 into … of type int64`).
   */
  literals: Map<string, string>;
}

type Obj = Record<string, unknown>;

function mergeInto(prev: unknown, next: unknown): unknown {
  if (!isObj(prev) || !isObj(next)) return next;
  const out: Obj = { ...prev };
  for (const [k, v] of Object.entries(next)) out[k] = k in out ? mergeInto(out[k], v) : v;
  return out;
}

/** A syntax error with encoding/json's message (`invalid character 'x' after object key`). */
export class GoSyntaxError extends Error {}

/** encoding/json's quoteChar. */
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c);
  return `'${q.slice(1, -1)}'`;
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

class Parser {
  i = 0;
  readonly duplicates: string[] = [];
  readonly literals = new Map<string, string>();
  constructor(private readonly s: string) {}

  /** Go's scanner error at the current character (or the end of input). */
  fail(context: string): never {
    if (this.i >= this.s.length) throw new GoSyntaxError('unexpected end of JSON input');
    throw new GoSyntaxError(`invalid character ${quoteChar(String.fromCodePoint(this.s.codePointAt(this.i)!))} ${context}`);
  }
  ws(): void {
    const s = this.s;
    while (this.i < s.length && isSpace(s.charCodeAt(this.i))) this.i++;
  }
  value(path: string): unknown {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object(path);
    if (c === '[') return this.array(path);
    if (c === '"') return this.string();
    if (c === '-' || isDigit(c)) return this.number(path);
    if (c === 't') return this.word('true', true);
    if (c === 'f') return this.word('false', false);
    if (c === 'n') return this.word('null', null);
    return this.fail('looking for beginning of value');
  }
  word(w: string, v: unknown): unknown {
    for (let k = 1; k < w.length; k++) {
      this.i++;
      if (this.s[this.i] !== w[k]) this.fail(`in literal ${w} (expecting ${quoteChar(w[k])})`);
    }
    this.i++;
    return v;
  }
  number(path: string): number {
    const s = this.s;
    const start = this.i;
    if (s[this.i] === '-') {
      this.i++;
      if (!isDigit(s[this.i])) this.fail('in numeric literal');
    }
    if (s[this.i] === '0') this.i++;
    else while (isDigit(s[this.i])) this.i++;
    if (s[this.i] === '.') {
      this.i++;
      if (!isDigit(s[this.i])) this.fail('after decimal point in numeric literal');
      while (isDigit(s[this.i])) this.i++;
    }
    if (s[this.i] === 'e' || s[this.i] === 'E') {
      this.i++;
      if (s[this.i] === '+' || s[this.i] === '-') this.i++;
      if (!isDigit(s[this.i])) this.fail('in exponent of numeric literal');
      while (isDigit(s[this.i])) this.i++;
    }
    const raw = s.slice(start, this.i);
    const n = Number(raw);
    if (String(n) !== raw) this.literals.set(path, raw);
    return n;
  }
  string(): string {
    const s = this.s;
    const start = this.i;
    this.i++;
    let escaped = false;
    for (;;) {
      if (this.i >= s.length) this.fail('');
      const ch = s.charCodeAt(this.i);
      if (ch === 0x5c) {
        escaped = true;
        this.i++;
        const e = s[this.i];
        if (e === 'u') {
          for (let k = 0; k < 4; k++) {
            this.i++;
            if (!/[0-9a-fA-F]/.test(s[this.i] ?? '')) this.fail('in \\u hexadecimal character escape');
          }
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail('in string escape code');
        this.i++;
        continue;
      }
      if (ch < 0x20) this.fail('in string literal');
      this.i++;
      if (ch === 0x22) break;
    }
    const raw = s.slice(start, this.i);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
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
      if (this.s[this.i] !== '"') this.fail('looking for beginning of object key string');
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail('after object key');
      this.i++;
      const p = path ? `${path}.${key}` : key;
      const v = this.value(p);
      if (Object.prototype.hasOwnProperty.call(out, key)) {
        this.duplicates.push(p);
        out[key] = mergeInto(out[key], v);
      } else if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
      this.ws();
      const c = this.s[this.i];
      if (c === '}') {
        this.i++;
        return out;
      }
      if (c !== ',') this.fail('after object key:value pair');
      this.i++;
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
      const c = this.s[this.i];
      if (c === ']') {
        this.i++;
        return out;
      }
      if (c !== ',') this.fail('after array element');
      this.i++;
    }
  }
}

/** encoding/json's maxNestingDepth: the scanner refuses the 10001st open array or object. */
export const MAX_JSON_DEPTH = 10_000;

/**
 * Where text first nests an array or object (a JSON or YAML flow collection) deeper than
 * MAX_JSON_DEPTH: the index of that `[` or `{`, else -1. Iterative and aware of double-quoted
 * strings, so it runs before anything recursive does.
 */
export function depthExceededAt(text: string): number {
  if (!mayNestTooDeep(text)) return -1;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** The closing quote of the string opened at `open`: the next quote not escaped by an odd run of backslashes; -1 if none. */
function stringEnd(text: string, open: number): number {
  let i = open;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(i - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return i;
  }
}

/**
 * Whether a text is long enough to nest deeper than MAX_JSON_DEPTH at all (every level takes at
 * least one character): shorter bodies, nearly all of them, skip every depth check.
 */
export function mayNestTooDeep(text: string): boolean {
  return text.length > MAX_JSON_DEPTH;
}

/** encoding/json's error for text nested deeper than MAX_JSON_DEPTH, else ''. */
export function jsonDepthError(text: string): string {
  const at = depthExceededAt(text);
  return at < 0 ? '' : `invalid character '${text[at]}' exceeded max depth`;
}

/** go-yaml's error for flow collections nested deeper than its limit (10000), else ''. */
export function yamlDepthError(text: string, withLine: boolean): string {
  const at = depthExceededAt(text);
  if (at < 0) return '';
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return `yaml: ${withLine ? `line ${line}: ` : ''}exceeded max depth of ${MAX_JSON_DEPTH}`;
}

/**
 * The same limit on a value already parsed (YAML): encoding/json's error for the first array or
 * object nested deeper than MAX_JSON_DEPTH, in document order, else ''. Iterative.
 */
export function valueDepthError(value: unknown): string {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > MAX_JSON_DEPTH) return `invalid character '${Array.isArray(v) ? '[' : '{'}' exceeded max depth`;
    const children = Array.isArray(v) ? v : Object.values(v as Obj);
    for (let k = children.length - 1; k >= 0; k--) stack.push([children[k], d + 1]);
  }
  return '';
}

/**
 * Parse JSON text with Go's duplicate-key resolution. Syntax errors throw GoSyntaxError with
 * encoding/json's message (the whole text is checked first, as json.Unmarshal does).
 */
export function parseJson(text: string): Parsed {
  const deep = jsonDepthError(text);
  if (deep) throw new GoSyntaxError(deep);
  const fast = parseCommon(text);
  if (fast) return fast;
  const p = new Parser(text);
  let value: unknown;
  try {
    value = p.value('');
  } catch (e) {
    // The parser recurses per level: past ~5,000 nested objects (V8's default stack) it overflows
    // below encoding/json's limit. Such a text is read natively when that gives the same value.
    const deep = e instanceof RangeError ? parseDeepCanonical(text) : null;
    if (deep) return deep;
    throw e;
  }
  p.ws();
  if (p.i !== text.length) p.fail('after top-level value');
  return { value, duplicates: p.duplicates, literals: p.literals };
}

/**
 * The common body, parsed natively: valid JSON without duplicate keys and with every number
 * written as JavaScript writes it back (a number's literal text, which JSON.parse does not keep,
 * may matter: `1.0`; `3` has none to keep). Null for anything else, which the parser above
 * reads. Duplicates are found by counting: every key and string value of the text is a string
 * token, and JSON.parse drops at least the earlier key of a duplicate, so the parsed value holds
 * as many strings as the text has tokens only when there is none.
 */
function parseCommon(text: string): Parsed | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null; // the parser above gives Go's message
  }
  // One walk counts the strings and notes numbers, whose text must then be canonical.
  if (stringsIn(value) !== stringTokens(text) || (sawNumber && !numbersCanonical(text))) return null;
  return { value, duplicates: [], literals: new Map() };
}

/**
 * A text nested too deep for the parser above, read by JSON.parse (iterative) when that gives
 * what the parser would: valid JSON, no duplicate key (counted as parseCommon does) and every
 * number written as JavaScript writes it back (no literal to keep: `1`, not `1.0`). Else null.
 */
function parseDeepCanonical(text: string): Parsed | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (stringsIn(value) !== stringTokens(text) || !numbersCanonical(text)) return null;
  return { value, duplicates: [], literals: new Map() };
}

/** Every number of a JSON text (outside strings) is written as String(Number(it)) writes it. */
function numbersCanonical(text: string): boolean {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i < 0) return false;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && isNumberChar(text.charCodeAt(j))) j++;
      const raw = text.slice(i, j);
      if (String(Number(raw)) !== raw) return false;
      i = j - 1;
    }
  }
  return true;
}

/** [0-9.eE+-]: a character of a JSON number. */
const isNumberChar = (c: number): boolean => (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;

/** Whether the last stringsIn met a number. */
let sawNumber = false;

/** Keys and string values in a parsed value (sawNumber: whether it holds a number). Iterative (any depth). */
function stringsIn(value: unknown): number {
  let n = 0;
  sawNumber = false;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') n++;
    else if (typeof v === 'number') sawNumber = true;
    else if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (v !== null && typeof v === 'object') {
      for (const k in v) {
        n++;
        stack.push((v as Obj)[k]);
      }
    }
  }
  return n;
}

/** String tokens of valid JSON text: its unescaped double quotes, halved. */
function stringTokens(text: string): number {
  let quotes = 0;
  for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1)) {
    let slashes = 0;
    while (text.charCodeAt(i - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) quotes++;
  }
  return quotes / 2;
}

/**
 * encoding/json's syntax error for a text JSON.parse refused (json.Unmarshal checks the whole
 * text first), e.g. `invalid character 'o' in literal null (expecting 'u')`.
 */
export function goSyntaxError(text: string): string {
  try {
    parseJson(text);
  } catch (e) {
    if (e instanceof GoSyntaxError) return e.message;
    throw e;
  }
  return '';
}
