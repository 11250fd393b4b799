/**
 * The column alignment of Go's text/tabwriter as kube's debug dumps use it
 * (`tabwriter.NewWriter(w, 8, 0, 1, ' ', 0)`): every tab-terminated cell is padded with spaces to
 * its column's width, the widest cell of the column plus one and at least 8; the last cell of a line
 * (not tab-terminated) is written as it is. A column spans the consecutive lines that have it.
 */
const MIN_WIDTH = 8;
const PADDING = 1;

export function tabwrite(text: string): string {
  const lines = text.split('\n');
  const trailingNewline = lines[lines.length - 1] === '';
  if (trailingNewline) lines.pop();
  const cells = lines.map((l) => l.split('\t'));
  const out = cells.map(() => '');
  // Column by column over blocks of consecutive lines that have a terminated cell there.
  const widths = cells.map(() => [] as number[]);
  const columns = Math.max(0, ...cells.map((c) => c.length - 1));
  for (let col = 0; col < columns; col++) {
    let start = 0;
    while (start < cells.length) {
      if (cells[start]!.length - 1 <= col) {
        start++;
        continue;
      }
      let end = start;
      let width = MIN_WIDTH;
      while (end < cells.length && cells[end]!.length - 1 > col) {
        width = Math.max(width, [...cells[end]![col]!].length + PADDING);
        end++;
      }
      for (let i = start; i < end; i++) widths[i]![col] = width;
      start = end;
    }
  }
  for (let i = 0; i < cells.length; i++) {
    const row = cells[i]!;
    for (let col = 0; col < row.length - 1; col++) out[i] += row[col]!.padEnd(widths[i]![col]!, ' ');
    out[i] += row[row.length - 1];
  }
  return out.join('\n') + (trailingNewline ? '\n' : '');
}
