/**
 * The server bundle's non-ASCII characters (`→`, `—`, `≥` in the doc comments esbuild keeps)
 * rewritten as `\uXXXX` text (issue 14). V8 holds a script's source for the script's lifetime, one
 * byte per character only when every character is Latin-1: one arrow in a comment made the 2 MB
 * bundle a two-byte string, and the server's idle RSS ~6 MiB larger. esbuild already escapes
 * strings, template literals and regular expressions (its default `charset: 'ascii'`), so what is
 * left is in comments; a non-ASCII character on a line that is not a comment line is an error
 * (the build fails rather than change code). Line numbers stay, so the source map still holds: a
 * column moves only after the character, inside the comment.
 */

const NON_ASCII = /[^\x00-\x7f]/;
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*)/;

export class NonAsciiCodeError extends Error {}

/** `text` with every non-ASCII character of its comment lines escaped; `name` labels errors. */
export function asciiComments(text: string, name: string): string {
  if (!NON_ASCII.test(text)) return text;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!NON_ASCII.test(line)) return;
    if (!COMMENT_LINE.test(line)) throw new NonAsciiCodeError(`${name}:${i + 1}: a non-ASCII character outside a comment line: ${line.trim().slice(0, 120)}`);
    lines[i] = line.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  });
  return lines.join('\n');
}
