/**
 * Label selectors, as k8s.io/apimachinery/pkg/labels parses and matches them. A port of one upstream
 * file, labels/selector.go (965 lines: Requirement, the selector, the lexer and the parser), plus
 * metav1's LabelSelectorAsSelector; kept whole, over ~500 lines, so it reads beside its original.
 *
 * The grammar (labels.Parse):
 *
 *   <selector>    ::= <requirement> | <requirement> "," <selector>
 *   <requirement> ::= [!] KEY [ <set-based> | <exact-match> | <numeric> ]
 *   <set-based>   ::= "" | ("in" | "notin") "(" VALUE { "," VALUE } ")"
 *   <exact-match> ::= ("=" | "==" | "!=") VALUE
 *   <numeric>     ::= (">" | "<") INTEGER
 *
 * The lexer, the parser and every error message follow Kubernetes' own (1.24) so clients see the
 * same text: `unable to parse requirement: ...` for a bad requirement and `found '...', expected:
 * ...` for bad structure. Requirements are kept sorted by key, values sorted and de-duplicated, so
 * `toString()` is canonical.
 */
import { badRequest } from '../api/errors.ts';
import { goQuote, goStringSlice } from '../gocompat/quote.ts';
import { isQualifiedName, isValidLabelValue } from '../validation/names.ts';

/** selection.Operator values, spelled as Kubernetes spells them. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** True when every requirement holds for `labels` (undefined = no labels). */
  matches(labels: Record<string, string> | undefined): boolean;
  /** True when the selector does not restrict anything (it matches everything). */
  empty(): boolean;
  /** Canonical text form, e.g. `a=b,c in (x,y),!d`. */
  toString(): string;
  /** The requirements, sorted by key. Empty for both "everything" and "nothing". */
  readonly requirements: readonly LabelRequirement[];
  /** Whether the selector pins `label` to one value (=, == or a one-value in), and that value. */
  requiresExactMatch(label: string): string | undefined;
}

/** metav1.LabelSelector as it appears in objects. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

// ---------------------------------------------------------------------------------------------
// Go formatting helpers, so messages quote values the way kube-apiserver does.
// ---------------------------------------------------------------------------------------------

/** field.Invalid(path, value, detail).Error(), with a nil path printed as Go prints it. */
const fieldInvalid = (path: string, value: string, detail: string): string =>
  `${path}: Invalid value: ${value}: ${detail}`;

/** utilerrors.NewAggregate(errs).Error(): one message alone, several de-duplicated in brackets. */
function aggregate(msgs: string[]): string {
  const seen: string[] = [];
  for (const m of msgs) if (!seen.includes(m)) seen.push(m);
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}

/** Go's strconv.ParseInt(s, 10, 64), or undefined when it fails. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return undefined;
  return n;
}

const byteCompare = (a: string, b: string): number => (a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b)));

// ---------------------------------------------------------------------------------------------
// Requirements
// ---------------------------------------------------------------------------------------------

const NIL_PATH = '<nil>';

/**
 * labels.NewRequirement with a nil field path: validates and returns the requirement, or the error
 * message Kubernetes would give. `values === null` stands for a nil Go slice (only visible in
 * messages).
 */
function newRequirement(key: string, op: LabelOperator, values: string[] | null): LabelRequirement | string {
  const vals = values ?? [];
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(fieldInvalid('key', goQuote(key), keyErrs.join('; ')));
  switch (op) {
    case 'in':
    case 'notin':
      if (vals.length === 0) errs.push(fieldInvalid('values', goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errs.push(fieldInvalid('values', goStringSlice(values), 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) errs.push(fieldInvalid('values', goStringSlice(values), 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) errs.push(fieldInvalid('values', goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(fieldInvalid(`values[${i}]`, goQuote(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  vals.forEach((v, i) => {
    const verrs = isValidLabelValue(v);
    if (verrs.length) errs.push(fieldInvalid(`values[${i}][${key}]`, goQuote(v), verrs.join('; ')));
  });
  if (errs.length) return aggregate(errs);
  return { key, operator: op, values: vals };
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(v as string);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(v as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const lv = parseInt64(String(v));
      const rv = parseInt64(r.values[0]!);
      if (lv === undefined || rv === undefined) return false;
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  let s = r.operator === '!' ? `!${r.key}` : r.key;
  switch (r.operator) {
    case 'exists':
    case '!':
      return s;
    case 'in':
      s += ' in ';
      break;
    case 'notin':
      s += ' notin ';
      break;
    case 'gt':
      s += '>';
      break;
    case 'lt':
      s += '<';
      break;
    default:
      s += r.operator;
  }
  const vals = r.values.length === 1 ? r.values[0]! : [...r.values].sort(byteCompare).join(',');
  return r.operator === 'in' || r.operator === 'notin' ? `${s}(${vals})` : s + vals;
}

class RequirementsSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  constructor(reqs: LabelRequirement[]) {
    // stable sort by key, as labels.ByKey does for the small lists selectors hold
    this.requirements = [...reqs].sort((a, b) => byteCompare(a.key, b.key));
  }
  matches(labels: Record<string, string> | undefined): boolean {
    const ls = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, ls));
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
  requiresExactMatch(label: string): string | undefined {
    for (const r of this.requirements) {
      if (r.key !== label) continue;
      if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
      return undefined;
    }
    return undefined;
  }
}

const NOTHING: LabelSelector = Object.freeze({
  requirements: [] as readonly LabelRequirement[],
  matches: () => false,
  empty: () => false,
  toString: () => '',
  requiresExactMatch: () => undefined,
});

/** A selector that matches every label set. */
export const everything = (): LabelSelector => new RequirementsSelector([]);
/** A selector that matches nothing (what a nil metav1.LabelSelector means). */
export const nothing = (): LabelSelector => NOTHING;

/** labels.SelectorFromSet: equality on every pair (not validated, like Kubernetes). */
export function labelSelectorFromSet(set: Record<string, string> | undefined | null): LabelSelector {
  return new RequirementsSelector(Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=' as const, values: [v] })));
}

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

const enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const string2token: Record<string, Tok> = {
  ')': Tok.ClosedPar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};
const lookupToken = (s: string): Tok | undefined => (Object.prototype.hasOwnProperty.call(string2token, s) ? string2token[s] : undefined);

interface Item {
  tok: Tok;
  lit: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean =>
  ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<';

/** The end of input reads as NUL, exactly as the Go lexer's read() returns 0 (so a NUL ends it too). */
const EOF = '\0';

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  private read(): string {
    if (this.pos < this.s.length) return this.s[this.pos++]!;
    return EOF;
  }
  private unread(): void {
    this.pos--;
  }

  private scanIDOrKeyword(): Item {
    let buf = '';
    for (;;) {
      const ch = this.read();
      if (ch === EOF) break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buf += ch;
    }
    const t = lookupToken(buf);
    return t !== undefined ? { tok: t, lit: buf } : { tok: Tok.Identifier, lit: buf };
  }

  private scanSpecialSymbol(): Item {
    let last: Item | undefined;
    let buf = '';
    for (;;) {
      const ch = this.read();
      if (ch === EOF) break;
      if (isSpecialSymbol(ch)) {
        buf += ch;
        const t = lookupToken(buf);
        if (t !== undefined) last = { tok: t, lit: buf };
        else if (last) {
          this.unread();
          break;
        }
      } else {
        this.unread();
        break;
      }
    }
    return last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buf}'` };
  }

  lex(): Item {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === EOF) return { tok: Tok.EndOfString, lit: '' };
    this.unread();
    return isSpecialSymbol(ch) ? this.scanSpecialSymbol() : this.scanIDOrKeyword();
  }
}

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

const enum Ctx {
  KeyAndOperator,
  Values,
}

const binaryOperators = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'].join(', ');

/** Thrown inside the parser; the message is exactly what labels.Parse returns. */
class ParseError extends Error {}

class Parser {
  private items: Item[] = [];
  private position = 0;

  constructor(text: string) {
    const l = new Lexer(text);
    for (;;) {
      const it = l.lex();
      this.items.push(it);
      if (it.tok === Tok.EndOfString) break;
    }
  }

  private lookahead(ctx: Ctx): Item {
    const it = this.items[this.position]!;
    if (ctx === Ctx.Values && (it.tok === Tok.In || it.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: it.lit };
    return it;
  }

  private consume(ctx: Ctx): Item {
    const it = this.lookahead(ctx);
    this.position++;
    return it;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(Ctx.Values);
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          let r: LabelRequirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            if (e instanceof ParseError) throw new ParseError(`unable to parse requirement: ${e.message}`);
            throw e;
          }
          reqs.push(r);
          const next = this.consume(Ctx.Values);
          if (next.tok === Tok.EndOfString) return reqs;
          if (next.tok === Tok.Comma) {
            const after = this.lookahead(Ctx.Values);
            if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) {
              throw new ParseError(`found '${after.lit}', expected: identifier after ','`);
            }
            break;
          }
          throw new ParseError(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
        case Tok.EndOfString:
          return reqs;
        default:
          throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, op } = this.parseKeyAndInferOperator();
    let r: LabelRequirement | string;
    if (op === 'exists' || op === '!') {
      r = newRequirement(key, op, []);
    } else {
      const operator = this.parseOperator();
      const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
      r = newRequirement(key, operator, [...values].sort(byteCompare));
    }
    if (typeof r === 'string') throw new ParseError(r);
    return r;
  }

  /** Key, and the operator when it is implied: `!key` (does not exist) or a bare `key` (exists). */
  private parseKeyAndInferOperator(): { key: string; op: LabelOperator | '' } {
    let op: LabelOperator | '' = '';
    let { tok, lit } = this.consume(Ctx.Values);
    if (tok === Tok.DoesNotExist) {
      op = '!';
      ({ tok, lit } = this.consume(Ctx.Values));
    }
    if (tok !== Tok.Identifier) throw new ParseError(`found '${lit}', expected: identifier`);
    const errs = isQualifiedName(lit);
    if (errs.length) throw new ParseError(fieldInvalid(NIL_PATH, goQuote(lit), errs.join('; ')));
    const t = this.lookahead(Ctx.Values).tok;
    if ((t === Tok.EndOfString || t === Tok.Comma) && op !== '!') op = 'exists';
    return { key: lit, op };
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume(Ctx.KeyAndOperator);
    switch (tok) {
      case Tok.In:
        return 'in';
      case Tok.Equals:
        return '=';
      case Tok.DoubleEquals:
        return '==';
      case Tok.GreaterThan:
        return 'gt';
      case Tok.LessThan:
        return 'lt';
      case Tok.NotIn:
        return 'notin';
      case Tok.NotEquals:
        return '!=';
      default:
        throw new ParseError(`found '${lit}', expected: ${binaryOperators}`);
    }
  }

  /** `(a,b,c)`; empty members are the empty value: `()`, `(,a)`, `(a,,b)`, `(a,)`. */
  private parseValues(): Set<string> {
    const open = this.consume(Ctx.Values);
    if (open.tok !== Tok.OpenPar) throw new ParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(Ctx.Values);
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const s = this.parseIdentifiersList();
        // parseIdentifiersList only returns in front of ')'; Kubernetes reports the first value's literal here
        if (this.consume(Ctx.Values).tok !== Tok.ClosedPar) throw new ParseError(`found '${lit}', expected: ')'`);
        return s;
      }
      case Tok.ClosedPar:
        this.consume(Ctx.Values);
        return new Set(['']);
      default:
        throw new ParseError(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(Ctx.Values);
      switch (tok) {
        case Tok.Identifier: {
          s.add(lit);
          const next = this.lookahead(Ctx.Values);
          if (next.tok === Tok.Comma) continue;
          if (next.tok === Tok.ClosedPar) return s;
          throw new ParseError(`found '${next.lit}', expected: ',' or ')'`);
        }
        case Tok.Comma: {
          if (s.size === 0) s.add('');
          const next = this.lookahead(Ctx.Values);
          if (next.tok === Tok.ClosedPar) {
            s.add('');
            return s;
          }
          if (next.tok === Tok.Comma) {
            this.consume(Ctx.Values);
            s.add('');
          }
          break;
        }
        default:
          throw new ParseError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  /** The single value after =, ==, !=, > or <; nothing before ',' or the end means "". */
  private parseExactValue(): Set<string> {
    const ahead = this.lookahead(Ctx.Values);
    if (ahead.tok === Tok.EndOfString || ahead.tok === Tok.Comma) return new Set(['']);
    const { tok, lit } = this.consume(Ctx.Values);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new ParseError(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parse a `labelSelector` query parameter. The empty string (or only whitespace) selects
 * everything. Throws a 400 BadRequest ApiError with Kubernetes' message on bad input.
 */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    return new RequirementsSelector(new Parser(text).parse());
  } catch (e) {
    if (e instanceof ParseError) throw badRequest(e.message);
    throw e;
  }
}

/**
 * metav1.LabelSelectorAsSelector: a nil selector matches nothing, an empty one everything;
 * matchLabels become `=` requirements and matchExpressions use In, NotIn, Exists, DoesNotExist.
 * Throws a 400 BadRequest ApiError with Kubernetes' message when a key, value or operator is bad.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return NOTHING;
  const matchLabels = sel.matchLabels ?? {};
  const exprs = sel.matchExpressions ?? [];
  const labelKeys = Object.keys(matchLabels).sort(byteCompare);
  if (labelKeys.length + exprs.length === 0) return everything();
  const reqs: LabelRequirement[] = [];
  const add = (r: LabelRequirement | string): void => {
    if (typeof r === 'string') throw badRequest(r);
    reqs.push(r);
  };
  for (const k of labelKeys) add(newRequirement(k, '=', [String(matchLabels[k])]));
  for (const expr of exprs) {
    let op: LabelOperator;
    switch (expr?.operator) {
      case 'In':
        op = 'in';
        break;
      case 'NotIn':
        op = 'notin';
        break;
      case 'Exists':
        op = 'exists';
        break;
      case 'DoesNotExist':
        op = '!';
        break;
      default:
        throw badRequest(`${goQuote(String(expr?.operator ?? ''))} is not a valid label selector operator`);
    }
    const values = expr.values && expr.values.length > 0 ? expr.values.map(String) : null;
    add(newRequirement(String(expr.key ?? ''), op, values));
  }
  return new RequirementsSelector(reqs);
}
