/**
 * client-go's jsonpath (k8s.io/client-go/util/jsonpath v0.24) as apiextensions' table convertor
 * uses it for `additionalPrinterColumns`: the column's path is parsed as the template
 * `{<path>}` and evaluated with missing keys allowed; the cell is the first value of the first
 * result set. Supported as client-go parses it: fields (`.a`, `.a\.b` escaped dots), `..`
 * recursive descent, `*` wildcards, `[i]`, negative indices, slices `[i:j:k]`, unions `[0,2]`,
 * dict keys `['a']` (client-go splits their dots: `['a.b']` is `.a.b`), filters
 * `[?(@.type=="Ready")]` with ==, !=, <, >, <=, >= and existence `[?(@.x)]`, comparing as Go's
 * text/template does (an int against a float is an error, which makes the cell null).
 *
 * Values are decoded JSON: an integral number is Go's int64, any other number float64.
 */
import { goJson } from '../../gocompat/json.ts';
import { goNumber } from '../../apiextensions/types.ts';

type Node =
  | { t: 'field'; name: string }
  | { t: 'wildcard' }
  | { t: 'recursive' }
  | { t: 'array'; p: [Param, Param, Param] }
  | { t: 'filter'; left: Node[]; right: Node[]; op: string }
  | { t: 'union'; lists: Node[][] }
  | { t: 'literal'; value: string | number | boolean; float?: boolean }
  | { t: 'identifier'; name: string };

interface Param {
  known: boolean;
  value: number;
  derived?: boolean;
}

class PathError extends Error {}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isTerminator = (c: string | undefined): boolean => c === undefined || isSpace(c) || '.,[]$@{}'.includes(c);
const isAlphaNumeric = (c: string | undefined): boolean => c !== undefined && /^[\p{L}\p{Nd}_]$/u.test(c);
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const DICT_KEY = /^'([^']*)'$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;

/** Parse the inside of one `{…}` action; the nodes, or a PathError. */
function parseAction(text: string): Node[] {
  const nodes: Node[] = [];
  const s = `${text}}`;
  let pos = 0;
  const next = (): string | undefined => s[pos++];
  for (;;) {
    if (s[pos] === '}') return nodes;
    if (s.startsWith('[?(', pos)) {
      pos = parseFilter(s, pos + 3, nodes);
      continue;
    }
    if (s.startsWith('..', pos)) {
      if (nodes[nodes.length - 1]?.t === 'recursive') throw new PathError('invalid multiple recursive descent');
      pos += 2;
      nodes.push({ t: 'recursive' });
      if (isAlphaNumeric(s[pos])) pos = parseField(s, pos, nodes);
      continue;
    }
    const c = next();
    if (c === undefined || c === '\n' || c === '\r') throw new PathError('unclosed action');
    if (c === ' ' || c === '@' || c === '$') continue;
    if (c === '[') pos = parseArray(s, pos, nodes);
    else if (c === '"' || c === "'") pos = parseQuote(s, pos, c, nodes);
    else if (c === '.') pos = parseField(s, pos, nodes);
    else if (c === '+' || c === '-' || /\d/.test(c)) pos = parseNumber(s, pos - 1, nodes);
    else if (isAlphaNumeric(c)) {
      let end = pos;
      while (!isTerminator(s[end])) end++;
      const word = s.slice(pos - 1, end);
      nodes.push(word === 'true' || word === 'false' ? { t: 'literal', value: word === 'true' } : { t: 'identifier', name: word });
      pos = end;
    } else throw new PathError(`unrecognized character in action: ${c}`);
  }
}

function parseField(s: string, pos: number, nodes: Node[]): number {
  let end = pos;
  while (!isTerminator(s[end])) end += s[end] === '\\' ? 2 : 1;
  const value = s.slice(pos, end);
  nodes.push(value === '*' ? { t: 'wildcard' } : { t: 'field', name: value.replace(/\\/g, '') });
  return end;
}

function parseNumber(s: string, pos: number, nodes: Node[]): number {
  let end = pos;
  if (s[end] === '+' || s[end] === '-') end++;
  while (s[end] === '.' || /\d/.test(s[end] ?? '')) end++;
  const text = s.slice(pos, end);
  if (/^[+-]?\d+$/.test(text)) nodes.push({ t: 'literal', value: Number(text) });
  else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) nodes.push({ t: 'literal', value: Number(text), float: true });
  else throw new PathError(`cannot parse number ${text}`);
  return end;
}

function parseQuote(s: string, pos: number, quote: string, nodes: Node[]): number {
  let end = pos;
  for (;;) {
    const c = s[end++];
    if (c === undefined || c === '\n') throw new PathError('unterminated quoted string');
    if (c === quote && s[end - 2] !== '\\') break;
  }
  const body = s.slice(pos, end - 1);
  // UnquoteExtend: strconv.Unquote, single quotes taken as double.
  let value: unknown;
  try {
    value = JSON.parse(`"${quote === "'" ? body.replace(/\\'/g, "'").replace(/"/g, '\\"') : body}"`);
  } catch {
    throw new PathError(`unquote string ${quote}${body}${quote} error`);
  }
  nodes.push({ t: 'literal', value: String(value) });
  return end;
}

function parseArray(s: string, pos: number, nodes: Node[]): number {
  const close = s.indexOf(']', pos);
  const nl = s.indexOf('\n', pos);
  if (close < 0 || (nl >= 0 && nl < close)) throw new PathError('unterminated array');
  let text = s.slice(pos, close);
  if (text === '*') text = ':';
  const parts = text.split(',');
  if (parts.length > 1) {
    nodes.push({ t: 'union', lists: parts.map((p) => parseAction(`[${p.trim()}]`)) });
    return close + 1;
  }
  const dict = DICT_KEY.exec(text);
  if (dict) {
    nodes.push(...parseAction(`.${dict[1]}`));
    return close + 1;
  }
  const m = SLICE.exec(text);
  if (!m) throw new PathError(`invalid array index ${text}`);
  const p: [Param, Param, Param] = [
    { known: false, value: 0 },
    { known: false, value: 0 },
    { known: false, value: 0 },
  ];
  for (let i = 0; i < 3; i++) {
    let v = m[i + 1] ?? '';
    if (v !== '') {
      if (i > 0) v = v.slice(1);
      if (i > 0 && v === '') p[i] = { known: false, value: 0 };
      else if (v === '-' || !/^-?\d+$/.test(v)) throw new PathError(`array index ${v} is not a number`);
      else p[i] = { known: true, value: Number(v) };
    } else if (i === 1) p[i] = { known: true, value: p[0].value + 1, derived: true };
  }
  nodes.push({ t: 'array', p });
  return close + 1;
}

function parseFilter(s: string, pos: number, nodes: Node[]): number {
  let end = pos;
  let begin = false;
  let ended = false;
  let pair = '';
  for (;;) {
    const c = s[end++];
    if (c === undefined || c === '\n') throw new PathError('unterminated filter');
    if (c === '"' || c === "'") {
      if (!begin) {
        begin = true;
        pair = c;
        continue;
      }
      if (s[end - 2] !== '\\' && c === pair) ended = true;
    } else if (c === ')' && begin === ended) break;
  }
  if (s[end++] !== ']') throw new PathError('unclosed array expect ]');
  const text = s.slice(pos, end - 2);
  const m = FILTER.exec(text);
  if (!m) nodes.push({ t: 'filter', left: parseAction(text), right: [], op: 'exists' });
  else nodes.push({ t: 'filter', left: parseAction(m[1]), right: parseAction(m[3]), op: m[2] });
  return end;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNil = (v: unknown): boolean => v === null || v === undefined;

/** The children a wildcard or recursive descent visits (a string's bytes, as Go indexes it). */
function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isMap(v)) return Object.values(v);
  if (typeof v === 'string') return [...Buffer.from(v, 'utf8')];
  return [];
}

function walkList(input: unknown[], nodes: Node[]): unknown[] {
  let cur = input;
  for (const n of nodes) cur = walk(cur, n);
  return cur;
}

function walk(input: unknown[], node: Node): unknown[] {
  switch (node.t) {
    case 'literal':
      return typeof node.value === 'string' ? [node.value] : input.map(() => node);
    case 'identifier':
      throw new PathError(`unrecognized identifier ${node.name}`);
    case 'field': {
      const out: unknown[] = [];
      for (const v of input) if (isMap(v) && Object.prototype.hasOwnProperty.call(v, node.name)) out.push(v[node.name]);
      return out;
    }
    case 'wildcard':
      return input.flatMap((v) => (isNil(v) ? [] : children(v)));
    case 'recursive': {
      const out: unknown[] = [];
      for (const v of input) {
        if (isNil(v)) continue;
        const kids = children(v);
        if (kids.length) out.push(v, ...walk(kids, node));
      }
      return out;
    }
    case 'union':
      return node.lists.flatMap((l) => walkList(input, l));
    case 'array':
      return evalArray(input, node.p);
    case 'filter':
      return evalFilter(input, node);
  }
}

function evalArray(input: unknown[], params: [Param, Param, Param]): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    if (isNil(v)) continue;
    if (!Array.isArray(v)) throw new PathError('not array or slice');
    const len = v.length;
    let start = params[0].known ? params[0].value : 0;
    if (start < 0) start += len;
    let end = params[1].known ? params[1].value : len;
    if (end < 0 || (end === 0 && params[1].derived)) end += len;
    if (end === start) return out;
    if (start >= len || start < 0 || end > len || end < 0 || start > end) throw new PathError('array index out of bounds');
    let step = 1;
    if (params[2].known) {
      if (params[2].value <= 0) throw new PathError('step must be > 0');
      step = params[2].value;
    }
    for (let i = start; i < end; i += step) out.push(v[i]);
  }
  return out;
}

type Basic = { kind: 'bool' | 'int' | 'float' | 'string'; v: boolean | number | string };

/** text/template's basicKind of a value (a literal node keeps its int/float kind). */
function basic(v: unknown): Basic {
  if (isMap(v) && (v as { t?: string }).t === 'literal') {
    const n = v as unknown as { value: number | boolean; float?: boolean };
    return typeof n.value === 'boolean' ? { kind: 'bool', v: n.value } : { kind: n.float ? 'float' : 'int', v: n.value };
  }
  if (typeof v === 'boolean') return { kind: 'bool', v };
  if (typeof v === 'string') return { kind: 'string', v };
  if (typeof v === 'number') return { kind: Number.isInteger(v) ? 'int' : 'float', v };
  throw new PathError('invalid type for comparison');
}

function compare(op: string, a: Basic, b: Basic): boolean {
  if (a.kind !== b.kind) throw new PathError('incompatible types for comparison');
  switch (op) {
    case '==':
      return a.v === b.v;
    case '!=':
      return a.v !== b.v;
  }
  if (a.kind === 'bool') throw new PathError('invalid type for comparison');
  switch (op) {
    case '<':
      return a.v < b.v;
    case '>':
      return a.v > b.v;
    case '<=':
      return a.v <= b.v;
    case '>=':
      return a.v >= b.v;
    default:
      throw new PathError(`unrecognized filter operator ${op}`);
  }
}

function evalFilter(input: unknown[], node: { left: Node[]; right: Node[]; op: string }): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    if (!Array.isArray(v)) throw new PathError('not array or slice and cannot be filtered');
    for (const item of v) {
      if (node.op === 'exists') {
        let lefts: unknown[] = [];
        try {
          lefts = walkList([item], node.left);
        } catch {
          // client-go ignores the error of an existence test
        }
        if (lefts.length) out.push(item);
        continue;
      }
      const lefts = walkList([item], node.left);
      if (!lefts.length) continue;
      if (lefts.length > 1) throw new PathError('can only compare one element at a time');
      const rights = walkList([item], node.right);
      if (!rights.length) continue;
      if (rights.length > 1) throw new PathError('can only compare one element at a time');
      if (compare(node.op, basic(lefts[0]), basic(rights[0]))) out.push(item);
    }
  }
  return out;
}

/** A compiled column path: the first value it finds in an object, or undefined. */
export type JSONPathFinder = (obj: unknown) => unknown;

/** Compile a column's JSONPath (`{<path>}`); null when client-go cannot parse it. */
export function compileJSONPath(path: string): JSONPathFinder | null {
  let nodes: Node[];
  try {
    const close = path.indexOf('}');
    nodes = parseAction(close >= 0 ? path.slice(0, close) : path);
  } catch (e) {
    if (e instanceof PathError) return null;
    throw e;
  }
  return (obj) => {
    try {
      const found = walkList([obj], nodes);
      return found.length ? found[0] : undefined;
    } catch (e) {
      if (e instanceof PathError) return undefined;
      throw e;
    }
  };
}

/** jsonpath PrintResults of one value: maps and lists as JSON (sorted keys), scalars as fmt.Fprint. */
export function jsonPathText(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  return goJson(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isMap(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}
