/**
 * The Table of a custom resource (apiextensions-apiserver's tableconvertor): a Name column, then
 * the version's `additionalPrinterColumns`, each cell found by the column's JSONPath; a CRD that
 * declares none gets kube's default, one `Age` column of type date on `.metadata.creationTimestamp`
 * (helpers.go serveDefaultColumnsIfEmpty). Date cells are human durations computed at answer
 * time; a missing value is null; a value of the wrong type for an integer/number/boolean column is
 * null; a `string` column prints any value (JSONPath's text: objects and lists as JSON).
 *
 * JSONPath: the simple paths a CRD column takes (`.spec.size`, `.status.conditions[0].type`,
 * `.metadata.labels['app.kubernetes.io/name']`); a path with anything else finds nothing.
 */
import type { KubeObject } from '../../api/types.ts';
import { goNumber } from '../../apiextensions/types.ts';
import { humanDuration } from '../rest/human-duration.ts';
import { CREATION_TIMESTAMP_DESCRIPTION, NAME_COLUMN } from '../rest/table-columns.ts';
import type { TableColumn, TableConvertor } from '../rest/strategy.ts';

/** spec.versions[i].additionalPrinterColumns[j] of a CRD (v1). */
export interface PrinterColumn {
  name: string;
  type: TableColumn['type'];
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

const DEFAULT_PRINTER_COLUMNS: PrinterColumn[] = [{ name: 'Age', type: 'date', description: CREATION_TIMESTAMP_DESCRIPTION, jsonPath: '.metadata.creationTimestamp' }];

/** The steps of a simple JSONPath (field names and list indices), or null when it is not one. */
export function parseSimpleJSONPath(path: string): (string | number)[] | null {
  const steps: (string | number)[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\[(?:'([^']*)'|"([^"]*)")\]/y;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < path.length) {
    re.lastIndex = at;
    if (!(m = re.exec(path))) return null;
    steps.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3] ?? m[4]));
    at = re.lastIndex;
  }
  return steps;
}

function find(obj: unknown, steps: (string | number)[]): unknown {
  let v = obj;
  for (const s of steps) {
    if (typeof s === 'number') v = Array.isArray(v) ? v[s] : undefined;
    else v = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[s] : undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

/** client-go jsonpath's text of a value: strings bare, numbers as Go prints them, objects as JSON. */
function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (v === null || typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** tableconvertor cellForJSONValue (string columns print the value instead). */
function cell(type: TableColumn['type'], v: unknown, now: number): unknown {
  if (v === undefined || v === null) return null;
  switch (type) {
    case 'string':
      return text(v);
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date': {
      if (typeof v !== 'string') return null;
      const t = Date.parse(v);
      return Number.isNaN(t) || !/^\d{4}-\d\d-\d\dT/.test(v) ? '<invalid>' : humanDuration(now - t);
    }
    default:
      return null;
  }
}

export function customResourceTable(declared: PrinterColumn[]): TableConvertor {
  const cols = declared.length ? declared : DEFAULT_PRINTER_COLUMNS;
  const paths = cols.map((c) => parseSimpleJSONPath(c.jsonPath));
  return {
    columns: [
      NAME_COLUMN,
      ...cols.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority ?? 0,
      })),
    ],
    cells: (obj: KubeObject) => {
      const now = Date.now();
      return [obj.metadata.name ?? '', ...cols.map((c, i) => (paths[i] ? cell(c.type, find(obj, paths[i]), now) : null))];
    },
  };
}
