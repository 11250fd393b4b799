/**
 * An approximation of the github.com/google/go-cmp `cmp.Diff` report kube appends to two
 * immutability messages ("spec.persistentvolumesource is immutable after creation\n<diff>",
 * "spec is immutable after creation except resources.requests for bound claims\n<diff>").
 * go-cmp's output is deliberately unstable (each process picks at random between a space and a
 * non-breaking space after the -/+ markers), so no client can depend on its bytes; this renders
 * the same layout — the struct, two unchanged fields of context, `... // N identical fields`,
 * -/+ lines for changed fields with Go-syntax values — without promising byte equality.
 */

/** One field of the compared struct: its Go name and the old/new JSON values (undefined = nil/zero). */
export interface DiffField {
  name: string;
  old: unknown;
  new: unknown;
  /**
   * The Go type, for how values print: `*core.NFSVolumeSource` (pointer to struct: `&{…}`, with
   * the type name when changed), `[]core.PersistentVolumeAccessMode` (slice), `*string` (`&"x"`),
   * `core.ResourceRequirements` (struct). Absent: a plain value.
   */
  type?: string;
}

const CONTEXT = 2;

const cap = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** A JSON value in Go's %v-like syntax, as go-cmp prints leaf values. */
function goValue(v: unknown, pointer = true): string {
  if (v === undefined || v === null) return 'nil';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `{${v.map((x) => goValue(x, false)).join(', ')}}`;
  const o = v as Record<string, unknown>;
  const body = Object.keys(o)
    .map((k) => `${cap(k)}: ${goValue(o[k], false)}`)
    .join(', ');
  return `${pointer ? '&' : ''}{${body}}`;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** One field's value as go-cmp prints it (type names on changed values, elided on context lines). */
function fieldValue(v: unknown, type: string | undefined, changed: boolean): string {
  if (v === undefined || v === null) return 'nil';
  if (!type) return goValue(v);
  if (type.startsWith('*') && (typeof v !== 'object' || v === null)) return `&${goValue(v)}`;
  if (type.startsWith('*')) return `&${changed ? type.slice(1) : ''}${goValue(v, false)}`;
  if (type.startsWith('[]')) return `${changed ? type : ''}${goValue(v, false)}`;
  return `${changed ? type : ''}${goValue(v, false)}`;
}

/** The cmp.Diff-like report of `type` (e.g. `core.PersistentVolumeSource`) whose fields are `fields`. */
export function goStructDiff(type: string, fields: DiffField[]): string {
  const changed = fields.map((f) => !same(f.old, f.new));
  const show = fields.map((_, i) => changed.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((c) => c));
  const lines: string[] = [`  ${type}{`];
  let skipped = 0;
  const flush = (): void => {
    if (skipped > 0) lines.push(`  \t... // ${skipped} identical field${skipped === 1 ? '' : 's'}`);
    skipped = 0;
  };
  const width = Math.max(0, ...fields.filter((_, i) => show[i]).map((f) => f.name.length + 1));
  fields.forEach((f, i) => {
    if (!show[i]) {
      skipped++;
      return;
    }
    flush();
    const label = `${f.name}:`.padEnd(width);
    if (changed[i]) {
      lines.push(`- \t${label} ${fieldValue(f.old, f.type, true)},`);
      lines.push(`+ \t${label} ${fieldValue(f.new, f.type, true)},`);
    } else lines.push(`  \t${label} ${fieldValue(f.old, f.type, false)},`);
  });
  flush();
  lines.push('  }');
  return `${lines.join('\n')}\n`;
}

/** Go field name of a JSON member (the few that differ from capitalizing). */
export function goFieldName(json: string, overrides: Record<string, string> = {}): string {
  return overrides[json] ?? cap(json);
}
