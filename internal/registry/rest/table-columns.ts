/**
 * Table columns shared by every kind, as kube-apiserver's printers declare them
 * (k8s.io/kubernetes pkg/printers/internalversion/printers.go): the descriptions are the
 * ObjectMeta swagger docs, and every "Age" column is declared `type: string` because its cells are
 * human durations ("5m3s"), not dates.
 */
import type { KubeObject } from '../../api/types.ts';
import type { TableColumn } from './strategy.ts';

/** metav1.ObjectMeta{}.SwaggerDoc()["name"]. */
export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names';

/** metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]. */
export const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The Name column every printer starts with (`format: name` lets kubectl print `kind/name`). */
export const NAME_COLUMN: TableColumn = { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 };

/**
 * The Age column. Its cell is the object's creationTimestamp (RFC3339), which the Table
 * renderer turns into a human duration at answer time (translateTimestampSince).
 */
export const AGE_COLUMN: TableColumn = { name: 'Age', type: 'string', description: CREATION_TIMESTAMP_DESCRIPTION, priority: 0 };

/** The creationTimestamp cell of an Age column ('' when unset: rendered "<unknown>"). */
export const creationTimestampCell = (obj: KubeObject): string => obj.metadata.creationTimestamp ?? '';

/**
 * Columns of kinds that declare none (apiserver's rest.NewDefaultTableConvertor): the name and the
 * creation time as an RFC3339 `date`.
 */
export const DEFAULT_COLUMNS: TableColumn[] = [NAME_COLUMN, { name: 'Created At', type: 'date', description: CREATION_TIMESTAMP_DESCRIPTION, priority: 0 }];
