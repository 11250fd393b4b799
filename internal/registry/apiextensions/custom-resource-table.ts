/**
 * The Table of a custom resource (apiextensions-apiserver's tableconvertor): a Name column, then
 * the version's `additionalPrinterColumns`, each cell found by the column's JSONPath; a CRD that
 * declares none gets kube's default, one `Age` column of type date on `.metadata.creationTimestamp`
 * (helpers.go serveDefaultColumnsIfEmpty). Date cells are human durations computed at answer
 * time; a missing value is null; a value of the wrong type for an integer/number/boolean column is
 * null; a `string` column prints any value (JSONPath's text: objects and lists as JSON).
 *
 * JSONPath: client-go's (jsonpath.ts), filters included (`.status.conditions[?(@.type=="Ready")].status`);
 * the first value found is the cell, a path that fails to evaluate gives null.
 */
import type { KubeObject } from '../../api/types.ts';
import { compileJSONPath, jsonPathText } from './jsonpath.ts';
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

/** tableconvertor cellForJSONValue (string columns print the value instead). */
function cell(type: TableColumn['type'], v: unknown, now: number): unknown {
  if (v === undefined || v === null) return null;
  switch (type) {
    case 'string':
      return jsonPathText(v) ?? null;
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
  const paths = cols.map((c) => compileJSONPath(c.jsonPath));
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
      return [obj.metadata.name ?? '', ...cols.map((c, i) => (paths[i] ? cell(c.type, paths[i](obj), now) : null))];
    },
  };
}
