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

export function toTable(kind: KindDescriptor, objects: KubeObject[], listMeta: Record<string, unknown>, includeObject: string | null): unknown {
  const columns = kind.table?.columns ?? DEFAULT_COLUMNS;
  const cells = kind.table ? kind.table.cells : (o: KubeObject) => [o.metadata.name, o.metadata.creationTimestamp];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority })),
    rows: objects.map((o) => {
      const row: Record<string, unknown> = { cells: cells(o) };
      if (includeObject === 'Object') row.object = o;
      else if (includeObject !== 'None') {
        row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
      }
      return row;
    }),
  };
}
