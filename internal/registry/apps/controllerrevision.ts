/**
 * ControllerRevision (apps/v1, namespaced), after Kubernetes 1.24.17: ValidateControllerRevision /
 * ValidateControllerRevisionUpdate (data required and immutable, revision not negative),
 * pkg/registry/apps/controllerrevision (no defaults, no status, no generation, no short names or
 * categories) and printControllerRevision (the controller as `<kind>.<group>/<name>`).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, invalid, required } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import { jsonEqual } from '../../gocompat/equal.ts';
import { list, nonNegative, num, s } from './workload.ts';

type Revision = KubeObject & { data?: unknown; revision?: number };

/** ValidateControllerRevision (ObjectMeta aside). */
export function validateControllerRevision(o: KubeObject): FieldError[] {
  const r = o as Revision;
  const errs: FieldError[] = [];
  if (r.data === undefined || r.data === null) errs.push(required(new FieldPath('data'), 'data is mandatory'));
  return [...errs, ...nonNegative(r.revision, new FieldPath('revision'))];
}

/** %#v of the runtime.Unknown a RawExtension's JSON decodes to (Raw: the bytes). */
function goUnknown(data: unknown): GoValue {
  const raw = [...Buffer.from(JSON.stringify(data) ?? 'null')].map((b) => `0x${b.toString(16)}`).join(', ');
  return new GoValue(`runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, Raw:[]uint8{${raw}}, ContentEncoding:"", ContentType:"application/json"}`);
}

export const controllerRevisionStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  validate: validateControllerRevision,
  validateUpdate(o, old) {
    const errs = validateControllerRevision(o);
    const data = (o as Revision).data;
    if (!jsonEqual(data ?? null, (old as Revision).data ?? null)) errs.push(invalid(new FieldPath('data'), goUnknown(data), FIELD_IMMUTABLE));
    return errs;
  },
};

/** printControllerRevision. */
export const controllerRevisionTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Controller', type: 'string', description: 'Controller of the object', priority: 0 },
    { name: 'Revision', type: 'string', description: 'Revision indicates the revision of the state represented by Data.', priority: 0 },
    AGE_COLUMN,
  ],
  cells(o) {
    const ref = list(o.metadata.ownerReferences).find((r) => r.controller === true);
    let controller = '<none>';
    if (ref) {
      const av = s(ref.apiVersion);
      const group = av.includes('/') ? av.slice(0, av.indexOf('/')) : '';
      const gk = group ? `${s(ref.kind)}.${group}` : s(ref.kind);
      controller = gk ? `${gk.toLowerCase()}/${s(ref.name)}` : s(ref.name);
    }
    return [o.metadata.name ?? '', controller, num((o as Revision).revision), creationTimestampCell(o)];
  },
};

export const controllerRevisionKind: KindDescriptor = {
  group: 'apps',
  versions: ['v1'],
  resource: 'controllerrevisions',
  singular: 'controllerrevision',
  kind: 'ControllerRevision',
  listKind: 'ControllerRevisionList',
  namespaced: true,
  shortNames: [],
  strategy: controllerRevisionStrategy,
  table: controllerRevisionTable,
  deleteReturns: 'Status',
};
