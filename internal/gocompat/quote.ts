/**
 * Go's strconv.Quote (what `%q` and `%#v` print for a string), the one port of the project:
 * `"` and `\` escaped, printable runes (unicode.IsPrint: letters, marks, numbers, punctuation,
 * symbols, the ASCII space) as they are, the C escapes `\a \b \f \n \r \t \v`, other ASCII as
 * `\xNN`, other runes as `\uNNNN` / `\UNNNNNNNN`. A lone UTF-16 surrogate (no Go rune) prints as
 * `\ufffd`.
 *
 *   goQuote('a"b\n') → "a\"b\n" (quoted)    goQuote('\x7f') → "\x7f"    goQuote('é') → "é"
 */

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** unicode.IsPrint of one rune: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export const isPrint = (ch: string): boolean => printable.test(ch);

const ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** strconv.Quote(s). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (cp < 0x80 && cp >= 0x20 && cp !== 0x7f) out += ch;
    else if (cp >= 0x80 && printable.test(ch) && !(cp >= 0xd800 && cp <= 0xdfff)) out += ch;
    else if (ESCAPES[ch]) out += ESCAPES[ch];
    else if (cp < 0x80) out += `\\x${hex(cp, 2)}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return `${out}"`;
}

/** `%#v` of a []string: `[]string{"a", "b"}`; `null` is a nil slice, `[]string(nil)`. */
export const goStringSlice = (v: readonly string[] | null): string => (v === null ? '[]string(nil)' : `[]string{${v.map(goQuote).join(', ')}}`);
