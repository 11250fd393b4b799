/**
 * Field selectors, as k8s.io/apimachinery/pkg/fields.ParseSelector parses and matches them.
 *
 * A selector is comma-separated terms `field=value`, `field==value` or `field!=value` (AND).
 * The field name is taken literally up to the first operator; in the value, `\,` `\=` and `\\`
 * escape the three special characters and any other backslash sequence, or an unescaped `,`/`=`,
 * is an error. There is no whitespace trimming: `a = b` means field "a " and value " b".
 * Error messages are Kubernetes' own (1.24).
 */
import { badRequest } from '../api/errors.ts';
import { goQuote } from '../gocompat/quote.ts';

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  /** True when every requirement holds; a missing field reads as the empty string. */
  matches(fields: Record<string, string>): boolean;
  /** True when the selector does not restrict anything. */
  empty(): boolean;
  /** The terms, sorted as Kubernetes sorts them (by their raw text). */
  requirements: FieldRequirement[];
  /** Canonical text form with values escaped, e.g. `metadata.name=a\,b,status.phase!=Running`. */
  toString(): string;
  /** The value an `=` term pins `field` to, if any. */
  requiresExactMatch(field: string): string | undefined;
}

/** fields.EscapeValue: `\` → `\\`, `,` → `\,`, `=` → `\=`. */
export const escapeFieldValue = (s: string): string => s.replace(/[\\,=]/g, (c) => `\\${c}`);

/** fields.UnescapeValue; returns the error message instead of throwing. */
function unescapeValue(s: string): { value: string } | { error: string } {
  if (!/[\\,=]/.test(s)) return { value: s };
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else return { error: `invalid field selector: invalid escape sequence: \\${c}` };
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    // Go prints the rune with %v, i.e. as its number
    else if (c === ',' || c === '=') return { error: `invalid field selector: unescaped character in value: ${c.codePointAt(0)}` };
    else out += c;
  }
  if (inSlash) return { error: 'invalid field selector: invalid escape sequence: \\' };
  return { value: out };
}

/** Split on commas not preceded by a backslash escape; escapes stay in the terms. */
function splitTerms(sel: string): string[] {
  if (sel.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < sel.length; i++) {
    const c = sel[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(sel.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(sel.slice(start));
  return terms;
}

/** `!=` and `==` are tried before `=` at each position, so `a==b` is not field "a", value "=b". */
const termOperators = ['!=', '==', '='] as const;

function splitTerm(term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

const byteCompare = (a: string, b: string): number => (a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b)));

class TermsSelector implements FieldSelector {
  constructor(readonly requirements: FieldRequirement[]) {}
  matches(fields: Record<string, string>): boolean {
    for (const r of this.requirements) {
      const v = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field] ?? '' : '';
      if (r.op === '=' ? v !== r.value : v === r.value) return false;
    }
    return true;
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.op}${escapeFieldValue(r.value)}`).join(',');
  }
  requiresExactMatch(field: string): string | undefined {
    for (const r of this.requirements) if (r.op === '=' && r.field === field) return r.value;
    return undefined;
  }
}

/**
 * Parse a `fieldSelector` query parameter; the empty string selects everything. Throws a 400
 * BadRequest ApiError with Kubernetes' message on bad input.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort(byteCompare);
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const u = unescapeValue(t.rhs);
    if ('error' in u) throw badRequest(u.error);
    // Transform drops a term whose field and value are both empty (a bare "=")
    if (t.lhs === '' && u.value === '') continue;
    reqs.push({ field: t.lhs, op: t.op === '!=' ? '!=' : '=', value: u.value });
  }
  return new TermsSelector(reqs);
}

/** A selector from exact field values (fields.SelectorFromSet), e.g. for `metadata.name`. */
export function fieldSelectorFromSet(set: Record<string, string>): FieldSelector {
  return new TermsSelector(
    Object.keys(set)
      .sort(byteCompare)
      .map((field) => ({ field, op: '=' as const, value: set[field]! })),
  );
}

/**
 * Kinds whose field-label conversion is registered in kube-apiserver 1.24 and so answer an
 * unknown field with their own message; every other built-in kind goes through
 * runtime.DefaultMetaV1FieldSelectorConversion.
 */
const registeredConversions: Record<string, (field: string) => string> = {
  Pod: (f) => `field label not supported: ${f}`,
  Node: (f) => `field label not supported: ${f}`,
  ReplicationController: (f) => `field label not supported: ${f}`,
  Event: (f) => `field label not supported: ${f}`,
  Namespace: (f) => `field label not supported: ${f}`,
  Secret: (f) => `field label not supported: ${f}`,
  Service: (f) => `field label not supported: ${f}`,
  CertificateSigningRequest: (f) => `field label not supported: ${f}`,
  Job: (f) => `field label ${goQuote(f)} not supported for Job`,
};

export interface ValidateFieldSelectorOptions {
  /** The kind is a custom resource: its converter answers `field label not supported: <name>`. */
  customResource?: boolean;
  /** The served version's own field-label conversion message (batch/v1beta1 CronJob's), if any. */
  message?: (field: string) => string;
}

/** The message kube-apiserver 1.24 gives on a list/watch whose field selector names `field`. */
export function unsupportedFieldMessage(field: string, kind: string, opts: ValidateFieldSelectorOptions = {}): string {
  if (opts.customResource) return `field label not supported: ${field}`;
  if (opts.message) return opts.message(field);
  const custom = Object.prototype.hasOwnProperty.call(registeredConversions, kind) ? registeredConversions[kind] : undefined;
  if (custom) return custom(field);
  return `${goQuote(field)} is not a known field selector: only ${goQuote('metadata.name')}, ${goQuote('metadata.namespace')}`;
}

/**
 * Reject a selector naming a field outside `allowed`, the way the list handler's field-label
 * conversion does: a 400 BadRequest for the first such term, in the selector's sorted order.
 * Built-in kinds without a registered conversion say
 * `"foo" is not a known field selector: only "metadata.name", "metadata.namespace"`; Pods,
 * Nodes, Secrets, Services, Events, Namespaces, ReplicationControllers, CSRs and custom resources
 * say `field label not supported: foo`; Jobs say `field label "foo" not supported for Job`.
 */
export function validateFieldSelector(
  sel: FieldSelector,
  allowed: readonly string[],
  kindForMessage: string,
  opts: ValidateFieldSelectorOptions = {},
): void {
  for (const r of sel.requirements) {
    if (!allowed.includes(r.field)) throw badRequest(unsupportedFieldMessage(r.field, kindForMessage, opts));
  }
}
