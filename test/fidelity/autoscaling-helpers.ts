/**
 * What the HorizontalPodAutoscaler suites share: an answer as comparable bytes (run-dependent
 * values masked) and the golden-file check (recorded from the reference with UPDATE_GOLDEN=1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import type { HttpResult } from '../harness.ts';

/** An answer as bytes with what differs between runs and servers masked. */
export function masked(r: HttpResult, ns: string): string {
  const warning = r.headers.warning ? ` warning=${String(r.headers.warning)}` : '';
  const text = r.text
    .split(ns)
    .join('<ns>')
    .replace(/"uid":"[^"]*"/g, '"uid":"<uid>"')
    .replace(/"resourceVersion":"[^"]*"/g, '"resourceVersion":"<rv>"')
    .replace(/"(creationTimestamp|time|lastTransitionTime|lastScaleTime)":"[^"]*"/g, '"$1":"<time>"')
    .replace(/\\"lastTransitionTime\\":\\"[^\\]*\\"/g, '\\"lastTransitionTime\\":\\"<time>\\"')
    .replace(/"(?:\d+[smhd])+"\]/g, '"<age>"]');
  return `${r.status}${warning} ${sortedManagedFields(text.trim())}`;
}

/**
 * The text with each managedFields list's entries in one order: kube sorts them by operation,
 * then by the second they were written, so two entries written in the same second or not change
 * places between runs.
 */
function sortedManagedFields(text: string): string {
  const key = '"managedFields":[';
  let out = '';
  let from = 0;
  for (let at = text.indexOf(key); at >= 0; at = text.indexOf(key, from)) {
    const start = at + key.length;
    const entries: string[] = [];
    let depth = 0;
    let inString = false;
    let entryStart = start;
    let i = start;
    for (; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
        if (depth === 0) entries.push(text.slice(entryStart, i + 1));
      } else if (c === ',' && depth === 0) entryStart = i + 1;
    }
    out += text.slice(from, start) + entries.sort().join(',');
    from = i;
  }
  return out + text.slice(from);
}

/**
 * `got` equals the golden file (the reference's answers); with UPDATE_GOLDEN=1 on the reference
 * the file is written first. HPA_DUMP=<file> writes `got` there to compare by hand.
 */
export function checkGolden(file: URL, got: Record<string, string>, reference: boolean): void {
  if (process.env.UPDATE_GOLDEN && reference) writeFileSync(file, `${JSON.stringify(got, null, 1)}\n`);
  if (process.env.HPA_DUMP) writeFileSync(process.env.HPA_DUMP, JSON.stringify(got, null, 1));
  const want = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  assert.equal(Object.keys(got), Object.keys(want), 'the same cases');
  const differ = Object.keys(want).filter((label) => got[label] !== want[label]);
  if (differ.length) assert.fixture(got[differ[0]!]!, want[differ[0]!]!, `${differ.length} differ: ${differ.join(' | ')}`);
}
