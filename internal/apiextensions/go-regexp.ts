/**
 * Go's regexp (RE2) as CRD schemas use it (`pattern`), on JavaScript's RegExp: Go's leading
 * flag group `(?i)`/`(?s)`/`(?m)` becomes a flag, and the syntax RE2 refuses but JavaScript
 * accepts (lookaround, backreferences) is refused with Go's `error parsing regexp: …` text, as
 * are the common syntax errors (the rest keep JavaScript's text).
 */

/** Go's text for a pattern it refuses, or undefined when it compiles. */
export function goRegexpError(pattern: string): string | undefined {
  const perl = /\(\?(<?[=!])/.exec(pattern);
  if (perl) return `error parsing regexp: invalid or unsupported Perl syntax: \`${perl[0]}\``;
  const backref = /\\[1-9]/.exec(pattern);
  if (backref) return `error parsing regexp: invalid escape sequence: \`${backref[0]}\``;
  try {
    goRegExp(pattern);
    return undefined;
  } catch (e) {
    const msg = (e as Error).message;
    if (/Unterminated group/.test(msg)) return `error parsing regexp: missing closing ): \`${pattern}\``;
    if (/Unmatched '\)'/.test(msg)) return `error parsing regexp: unexpected ): \`${pattern}\``;
    if (/Unterminated character class/.test(msg)) return `error parsing regexp: missing closing ]: \`${pattern.slice(pattern.lastIndexOf('['))}\``;
    if (/Nothing to repeat/.test(msg)) {
      const op = /(?:^|[(|])([*+?])/.exec(pattern);
      return `error parsing regexp: missing argument to repetition operator: \`${op ? op[1] : '*'}\``;
    }
    return `error parsing regexp: ${msg}`;
  }
}

const cache = new Map<string, RegExp>();

/** The RegExp of a Go pattern (unanchored, like regexp.MatchString). Throws when it does not compile. */
export function goRegExp(pattern: string): RegExp {
  let rx = cache.get(pattern);
  if (!rx) {
    let flags = 'u';
    let source = pattern;
    const lead = /^\(\?([ims]+)\)/.exec(source);
    if (lead) {
      flags += lead[1];
      source = source.slice(lead[0].length);
    }
    rx = new RegExp(source, flags);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, rx);
  }
  return rx;
}
