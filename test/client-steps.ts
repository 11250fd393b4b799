/**
 * Comparison of the per-step JSON lines that the real-client programs print (test/go/kinds-client,
 * test/python/kinds_client.py) with the lines the reference kube-apiserver gave: which steps differ,
 * and in which fields, so that a failure names what to fix (`Pod create: data.tolerations: …`).
 */

/**
 * The kinds both real-client programs exercise, in the order they print them (each program has
 * typed code per kind; a new kind joins both programs, their expected lines and this list).
 */
export const CLIENT_PROGRAM_KINDS = ['ServiceAccount', 'PersistentVolume', 'PersistentVolumeClaim', 'Pod', 'StorageClass', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'CSIStorageCapacity'];

/** One printed step: its kind and name, and whatever it observed. */
export interface StepLine {
  kind: string;
  step: string;
  [field: string]: unknown;
}

const show = (v: unknown): string => (v === undefined ? 'missing' : JSON.stringify(v));

/** Field-level differences of one step (`data.x` for the fields of its data). */
export function fieldDiffs(want: StepLine | undefined, got: StepLine | undefined): string[] {
  if (!want || !got) return [`expected ${show(want)}, got ${show(got)}`];
  const out: string[] = [];
  const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])];
  for (const k of keys) {
    const w = want[k];
    const g = got[k];
    if (JSON.stringify(w) === JSON.stringify(g)) continue;
    if (k === 'data' && w && g && typeof w === 'object' && typeof g === 'object') {
      const wd = w as Record<string, unknown>;
      const gd = g as Record<string, unknown>;
      for (const dk of [...new Set([...Object.keys(wd), ...Object.keys(gd)])]) {
        if (JSON.stringify(wd[dk]) !== JSON.stringify(gd[dk])) out.push(`data.${dk}: expected ${show(wd[dk])}, got ${show(gd[dk])}`);
      }
    } else out.push(`${k}: expected ${show(w)}, got ${show(g)}`);
  }
  return out;
}

/** Every differing step of one kind, as `step: field: expected …, got …` lines (empty when all equal). */
export function kindDiffs(want: StepLine[], got: StepLine[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const w = want[i];
    const g = got[i];
    const name = w?.step ?? g?.step ?? `#${i}`;
    if (w && g && w.step !== g.step) {
      out.push(`${name}: step order differs (expected step "${w.step}", got "${g.step}")`);
      continue;
    }
    for (const d of fieldDiffs(w, g)) out.push(`${name}: ${d}`);
  }
  return out;
}
