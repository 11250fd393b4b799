/**
 * YAML bodies byte for byte as kube-apiserver writes them. kube turns its JSON into YAML with
 * sigs.k8s.io/yaml (JSON → map → go-yaml v2), which fixes key order (sorted), sequence indent
 * (none under a key), scalar styles (go-yaml's resolver and emitter) and line folding (column 80).
 */
import YAML from 'yaml';

/**
 * YAML as kube-apiserver writes it (sigs.k8s.io/yaml: JSON → map → go-yaml v2): keys sorted,
 * sequences not indented under their key, and go-yaml's scalar styles — a string that YAML 1.1
 * would read as something else (`"true"`, `"yes"`, `"1.5"`, `"2026-01-01"`, `""`, `"n"`) is
 * double-quoted, one that cannot be plain (`': '`, a leading `-`, `#` or space) single-quoted,
 * a multi-line one a literal block; long scalars folded as go-yaml folds them (foldLine).
 */
export function kubeYaml(value: unknown): string {
  const doc = new YAML.Document(sortKeys(value), { version: '1.2' });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && readsAsNonString(node.value)) node.type = YAML.Scalar.QUOTE_DOUBLE;
    },
  });
  // go-yaml writes a line break inside a double-quoted scalar as the escape \n, on one line (before
  // folding); the yaml package would spread a string of 40+ characters over several lines.
  const text = doc.toString({ indentSeq: false, lineWidth: 0, singleQuote: true, flowCollectionPadding: false, doubleQuotedMinMultiLineLength: Infinity });
  return text.split('\n').map(foldLine).join('\n');
}

/** go-yaml v2's best_width: a scalar is broken at the first space written past this column. */
const YAML_BEST_WIDTH = 80;

/**
 * Fold one `key: scalar` / `- scalar` line the way go-yaml's emitter does: at a single space
 * (not the scalar's first or last character, not followed by another space) written while the
 * column is past 80, the space becomes a line break indented two past the key (or the dash).
 * A double-quoted break before a space keeps it with `\`. Block scalars, flow collections and
 * keys are never folded.
 */
function foldLine(line: string): string {
  if (line.length <= YAML_BEST_WIDTH) return line;
  const lead = /^( *)((?:- )*)/.exec(line)![0];
  let rest = line.slice(lead.length);
  let valueAt = lead.length;
  const key = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^'"\s][^:]*?): /.exec(rest);
  if (key) {
    valueAt += key[0].length;
    rest = rest.slice(key[0].length);
  } else if (!lead.includes('-')) return line;
  if (!rest || '|>{[&*!'.includes(rest[0])) return line;
  const indent = ' '.repeat(lead.length + 2);
  const quote = rest[0] === "'" || rest[0] === '"' ? rest[0] : '';
  const inner = quote ? rest.slice(1, -1) : rest;
  // Units: an escape sequence (double-quoted) or an escaped quote (single-quoted) is one unit.
  const units = quote === '"' ? inner.match(/\\(?:x..|u....|U........|.)|[^]/g) ?? [] : quote === "'" ? inner.match(/''|[^]/g) ?? [] : [...inner];
  let out = line.slice(0, valueAt) + quote;
  let col = out.length;
  let spaces = false;
  units.forEach((u, i) => {
    if (u === ' ') {
      const last = i === units.length - 1;
      const nextSpace = units[i + 1] === ' ';
      const canBreak = !spaces && col > YAML_BEST_WIDTH && (quote ? i > 0 && !last : true) && (quote === '"' || !nextSpace);
      if (canBreak) {
        out += '\n' + indent;
        col = indent.length;
        if (quote === '"' && nextSpace) {
          out += '\\';
          col++;
        }
      } else {
        out += ' ';
        col++;
      }
      spaces = true;
    } else {
      out += u;
      col += u.length;
      spaces = false;
    }
  });
  return out + quote;
}

const sortKeys = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, sortKeys(o[k])]));
  }
  return v;
};

/** go-yaml v2's resolver: plain scalars that are bools, nulls, numbers or timestamps in YAML 1.1. */
const YAML11_NON_STRING = new RegExp(
  [
    '', '~', 'null', 'Null', 'NULL',
    'y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF',
    '[-+]?(?:0|[1-9][0-9_]*)', '[-+]?0b[01_]+', '[-+]?0[0-7_]+', '[-+]?0x[0-9a-fA-F_]+', '[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+',
    '[-+]?(?:[0-9][0-9_]*)?\\.[0-9_]*(?:[eE][-+]?[0-9]+)?', '[-+]?[0-9][0-9_]*(?:[eE][-+]?[0-9]+)', '[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*',
    '[-+]?\\.(?:inf|Inf|INF)', '\\.(?:nan|NaN|NAN)',
    '\\d{4}-\\d\\d?-\\d\\d?(?:(?:[Tt]|[ \\t]+)\\d\\d?:\\d\\d:\\d\\d(?:\\.\\d*)?(?:[ \\t]*(?:Z|[-+]\\d\\d?(?::\\d\\d)?))?)?',
  ].map((p) => `(?:${p})`).join('|').replace(/^/, '^(?:') + ')$',
);
// Control characters (a tab) make go-yaml double-quote too, as escapes.
const readsAsNonString = (s: string): boolean => (s !== '.' && YAML11_NON_STRING.test(s)) || /[\x00-\x09\x0b-\x1f\x7f]/.test(s);
