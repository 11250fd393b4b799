/**
 * The text layer of go-cmp v0.5.5's reporter (cmp/report_text.go), used by cmp.ts: text
 * nodes (lines, wrappers, lists of records), their one-line length, and the layout that decides
 * between a compact single line and an expanded, aligned multi-line list (80 columns).
 */

/** A record's marker: none, removed or inserted. */
export type DiffMode = '' | '-' | '+';
/** textNode. */
export type TextNode = TextLine | TextWrap | TextList;

/** textLine: one line of text. */
export class TextLine {
  constructor(readonly s: string) {}
}
/** textWrap: a prefix and a suffix around a node. */
export class TextWrap {
  constructor(
    readonly prefix: string,
    public value: TextNode,
    readonly suffix = '',
  ) {}
}
/** textRecord: one list entry. */
export interface TextRecord {
  diff: DiffMode;
  key: string;
  value: TextNode;
  elideComma?: boolean;
  comment?: string;
}
/** textList: records written on one line or one per line. */
export class TextList {
  constructor(readonly records: TextRecord[] = []) {}
  /** AppendEllipsis: one trailing "..." (with its statistics comment). */
  appendEllipsis(comment?: string): void {
    const last = this.records[this.records.length - 1];
    if (last && last.value instanceof TextLine && last.value.s === '...') {
      if (comment) last.comment = comment;
      return;
    }
    this.records.push({ diff: '', key: '', value: ELLIPSIS, elideComma: true, comment });
  }
}

/** textEllipsis. */
export const ELLIPSIS = new TextLine('...');
/** textNil. */
export const NIL = new TextLine('nil');
const MAX_COLUMN = 80;

/** Len: the length of the node written on one line. */
export function len(n: TextNode): number {
  if (n instanceof TextLine) return n.s.length;
  if (n instanceof TextWrap) return n.prefix.length + len(n.value) + n.suffix.length;
  return n.records.reduce((acc, r, i) => acc + r.key.length + (r.key ? 2 : 0) + len(r.value) + (i < n.records.length - 1 ? 2 : 0), 0);
}

/** Equal: structural equality (markers and comments included). */
export function equal(a: TextNode, b: TextNode): boolean {
  if (a instanceof TextLine) return b instanceof TextLine && a.s === b.s;
  if (a instanceof TextWrap) return b instanceof TextWrap && a.prefix === b.prefix && a.suffix === b.suffix && equal(a.value, b.value);
  return (
    b instanceof TextList &&
    a.records.length === b.records.length &&
    a.records.every((r, i) => r.diff === b.records[i]!.diff && r.key === b.records[i]!.key && r.comment === b.records[i]!.comment && equal(r.value, b.records[i]!.value))
  );
}

/** formatCompactTo: the one-line text, and the node with collapsible parts replaced by lines. */
function compact(n: TextNode, d: DiffMode): [string, TextNode] {
  if (n instanceof TextLine) return [n.s, n];
  if (n instanceof TextWrap) {
    const [inner, v] = compact(n.value, d);
    const text = n.prefix + inner + n.suffix;
    return [text, v instanceof TextLine ? new TextLine(text) : new TextWrap(n.prefix, v, n.suffix)];
  }
  let multiLine = false;
  let text = '';
  const recs = n.records.map((r, i) => {
    if (r.diff === '-' || r.diff === '+') multiLine = true;
    text += r.key + (r.key ? ': ' : '');
    const [t, v] = compact(r.value, (d || r.diff) as DiffMode);
    text += t;
    if (!(v instanceof TextLine)) multiLine = true;
    if (r.comment) multiLine = true;
    if (i < n.records.length - 1) text += ', ';
    return { ...r, value: v };
  });
  if ((d === '-' || d === '+') && text.length > MAX_COLUMN) multiLine = true;
  return multiLine ? [text, new TextList(recs)] : [text, new TextLine(text)];
}

const indent = (n: number, d: DiffMode): string => (d === '-' ? '- ' : d === '+' ? '+ ' : '  ') + '\t'.repeat(n);

function alignLens(recs: TextRecord[], skip: (r: TextRecord) => boolean, lenOf: (r: TextRecord) => number): number[] {
  const lens = recs.map(() => 0);
  let start = 0;
  let end = 0;
  let max = 0;
  recs.forEach((r, i) => {
    if (skip(r)) {
      for (let j = start; j < end && j < recs.length; j++) lens[j] = max - lenOf(recs[j]!);
      start = end = i + 1;
      max = 0;
    } else {
      max = Math.max(max, lenOf(r));
      end = i + 1;
    }
  });
  for (let j = start; j < end && j < recs.length; j++) lens[j] = max - lenOf(recs[j]!);
  return lens;
}

/** formatExpandedTo. */
function expand(n: TextNode, d: DiffMode, level: number): string {
  if (n instanceof TextLine) return n.s;
  if (n instanceof TextWrap) return n.prefix + expand(n.value, d, level) + n.suffix;
  const recs = n.records;
  const keyLens = alignLens(recs, (r) => r.key === '' || !(r.value instanceof TextLine), (r) => [...r.key].length);
  const valueLens = alignLens(recs, (r) => !(r.value instanceof TextLine) || equal(r.value, ELLIPSIS) || !r.comment, (r) => [...(r.value as TextLine).s].length);
  const simple = recs.length > 0 && recs.every((r) => r.diff === '' && r.key === '' && r.value instanceof TextLine && !r.comment);
  let out = '';
  if (simple) {
    let batch = '';
    const emit = (): void => {
      if (batch) out += `\n${indent(level + 1, d)}${batch.trimEnd()}`;
      batch = '';
    };
    for (const r of recs) {
      const line = (r.value as TextLine).s;
      if (batch.length + line.length + 2 > MAX_COLUMN) emit();
      batch += `${line}, `;
    }
    emit();
    return `${out}\n${indent(level, d)}`;
  }
  recs.forEach((r, i) => {
    const rd = (d || r.diff) as DiffMode;
    out += `\n${indent(level + 1, rd)}`;
    if (r.key) out += `${r.key}: `;
    out += ' '.repeat(keyLens[i]!);
    out += expand(r.value, rd, level + 1);
    if (!r.elideComma) out += ',';
    out += ' '.repeat(valueLens[i]!);
    if (r.comment) out += ` // ${r.comment}`;
  });
  return `${out}\n${indent(level, d)}`;
}

/** textWrap.String(): compact, then expanded at indent 0. */
export function render(n: TextNode): string {
  const [, c] = compact(n, '');
  return `${indent(0, '')}${expand(c, '', 0)}\n`;
}
