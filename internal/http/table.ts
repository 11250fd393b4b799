/**
 * meta.k8s.io/v1 Table rendering: the kind's columns, or the default Name / Created At columns
 * (seed: default Table). Each row carries the object's metadata (includeObject=Metadata default)
 * so kubectl can show namespaces and labels.
 */
import type { KubeObject } from '../api/types.ts';
import type { KindDescriptor, TableColumn } from '../registry/rest/strategy.ts';

const DEFAULT_COLUMNS: TableColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
  { name: 'Created At', type: 'date', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 },
];

/**
 * Kubernetes' duration.HumanDuration, which server-side printers use for the Age column
 * ("45s", "5m3s", "3h20m", "12d").
 */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${Math.floor(h / 24)}d` : `${Math.floor(h / 24)}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24)}d`;
  if (h < 24 * 365 * 8) {
    const dy = Math.floor(h / 24) % 365;
    return dy === 0 ? `${Math.floor(h / 24 / 365)}y` : `${Math.floor(h / 24 / 365)}y${dy}d`;
  }
  return `${Math.floor(h / 24 / 365)}y`;
}

/** Age columns are rendered as human durations (type string), as kube-apiserver's printers do. */
const isAge = (c: TableColumn): boolean => c.name === 'Age';

export function toTable(kind: KindDescriptor, objects: KubeObject[], listMeta: Record<string, unknown>, includeObject: string | null): unknown {
  const columns = kind.table?.columns ?? DEFAULT_COLUMNS;
  const cells = kind.table ? kind.table.cells : (o: KubeObject) => [o.metadata.name, o.metadata.creationTimestamp];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: columns.map((c) => ({ name: c.name, type: isAge(c) ? 'string' : c.type, format: c.format ?? '', description: c.description, priority: c.priority })),
    rows: objects.map((o) => {
      const now = Date.now();
      const values = cells(o).map((v, i) => (isAge(columns[i]) && typeof v === 'string' ? humanDuration(now - Date.parse(v)) : v));
      const row: Record<string, unknown> = { cells: values };
      if (includeObject === 'Object') row.object = o;
      else if (includeObject !== 'None') {
        row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
      }
      return row;
    }),
  };
}
