/**
 * Conversions a client asks for with `Accept: …;as=<Kind>;g=meta.k8s.io;v=<v1|v1beta1>`, after
 * apiserver's endpoints/handlers/response.go:
 *
 * - Table: the kind's printer columns (or the default Name / Created At), one row per object;
 *   each row's `object` follows `includeObject` (Metadata, the default: a PartialObjectMetadata;
 *   Object: the object; None: null). A watch sends the column definitions with its first event
 *   only (`columnDefinitions: null` afterwards).
 * - PartialObjectMetadata (one object) / PartialObjectMetadataList (a list): metadata only. Asking
 *   for the one on the other is 406, as kube answers.
 */
import type { KubeObject, ObjectMeta } from '../api/types.ts';
import { badRequest, partialMetadataMismatch } from '../api/errors.ts';
import type { KindDescriptor, TableColumn } from '../registry/rest/strategy.ts';
import { DEFAULT_COLUMNS } from '../registry/rest/table-columns.ts';
import { humanDuration } from '../registry/rest/human-duration.ts';
import type { Conversion } from './negotiation.ts';

/**
 * Age columns hold creationTimestamp and are rendered as human durations (translateTimestampSince).
 * A custom resource's date columns (type `date`) are rendered by its own table convertor.
 */
const isAge = (c: TableColumn): boolean => c.name === 'Age' && c.type !== 'date';

/** The metav1.TableOptions of a request. */
export interface TableOptions {
  includeObject: 'None' | 'Metadata' | 'Object';
  /** Omit the column definitions (every watch event after the first). */
  noHeaders?: boolean;
}

/**
 * Parse and validate `includeObject` (ValidateTableOptions): 400 for any value but Metadata,
 * Object, None or empty, with kube's message.
 */
export function tableOptions(q: URLSearchParams): TableOptions {
  const v = q.get('includeObject') ?? '';
  if (v === '' || v === 'Metadata') return { includeObject: 'Metadata' };
  if (v === 'Object' || v === 'None') return { includeObject: v };
  throw badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`);
}

/** ObjectMeta's fields in Go struct order, so metadata we re-serialize reads as kube's does. */
const OBJECT_META_ORDER: (keyof ObjectMeta | string)[] = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'zzzDeprecatedClusterName',
  'managedFields',
];

/** A copy of `meta` with its fields in ObjectMeta order (unknown fields last, as found). */
export function orderedMetadata(meta: ObjectMeta): ObjectMeta {
  const out: Record<string, unknown> = {};
  const src = meta as Record<string, unknown>;
  for (const k of OBJECT_META_ORDER) if (src[k] !== undefined) out[k] = src[k];
  for (const [k, v] of Object.entries(src)) if (!(k in out) && v !== undefined) out[k] = v;
  return out as ObjectMeta;
}

/** meta.AsPartialObjectMetadata: the (internal) object's metadata under meta.k8s.io/<version>. */
export function partialObjectMetadata(obj: KubeObject, version: Conversion['version'], kind?: KindDescriptor): KubeObject {
  const internal = kind?.internalForm ? kind.internalForm(obj) : obj;
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: orderedMetadata(internal.metadata ?? {}) };
}

/**
 * The Table of `objects` (one for a get, all for a list or a watch event). `listMeta` is the list's
 * metadata, or for a single object its resourceVersion. `now` is the reference time of Age cells.
 */
export function toTable(
  kind: KindDescriptor,
  objects: KubeObject[],
  listMeta: Record<string, unknown>,
  opts: TableOptions,
  version: Conversion['version'] = 'v1',
  now = Date.now(),
): unknown {
  const columns = kind.table?.columns ?? DEFAULT_COLUMNS;
  const cells = kind.table ? kind.table.cells : (o: KubeObject) => [o.metadata.name ?? '', o.metadata.creationTimestamp ?? ''];
  const age = (v: unknown): unknown => (typeof v !== 'string' ? v : v === '' ? '<unknown>' : humanDuration(now - Date.parse(v)));
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMeta,
    columnDefinitions: opts.noHeaders ? null : columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority })),
    rows: (kind.table?.sortRows?.(objects) ?? objects).map((o) => {
      const conditions = kind.table?.rowConditions?.(o);
      return {
        cells: cells(o).map((v, i) => (isAge(columns[i]) ? age(v) : v)),
        // TableRow.conditions is omitempty, between cells and object.
        ...(conditions?.length ? { conditions } : {}),
        object: opts.includeObject === 'Object' ? o : opts.includeObject === 'None' ? null : partialObjectMetadata(o, version, kind),
      };
    }),
  };
}

/**
 * A single object's Table metadata: its resourceVersion, left out when empty (a dry-run create
 * has none; ListMeta's fields are omitempty).
 */
export function objectTableMeta(obj: KubeObject | undefined): Record<string, unknown> {
  const rv = obj?.metadata?.resourceVersion;
  return rv ? { resourceVersion: rv } : {};
}

/** Go's name for the internal type of a kind (`*core.ConfigMap`), as kube's 406 messages print it. */
function goTypeName(kind: KindDescriptor, list: boolean): string {
  const pkg = kind.group === '' ? 'core' : kind.group.split('.')[0];
  return `*${pkg}.${list ? kind.listKind : kind.kind}`;
}

/**
 * Apply a conversion to what a get (`listMeta` null, one object) or a list returned
 * (transformObject). Throws 406 when a list is asked for as PartialObjectMetadata or a single
 * object as PartialObjectMetadataList; `table` carries validated TableOptions.
 */
export function convertObjects(kind: KindDescriptor, convert: Conversion, objects: KubeObject[], listMeta: Record<string, unknown> | null, table: TableOptions): unknown {
  const isList = listMeta !== null;
  switch (convert.as) {
    case 'Table':
      return toTable(kind, objects, listMeta ?? objectTableMeta(objects[0]), table, convert.version);
    case 'PartialObjectMetadata':
      if (isList) throw partialMetadataMismatch('PartialObjectMetadata', true, goTypeName(kind, true));
      return partialObjectMetadata(objects[0], convert.version, kind);
    case 'PartialObjectMetadataList':
      if (!isList) throw partialMetadataMismatch('PartialObjectMetadataList', false, goTypeName(kind, false));
      return { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${convert.version}`, metadata: listMeta, items: objects.map((o) => partialObjectMetadata(o, convert.version, kind)) };
  }
}
