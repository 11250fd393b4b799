/**
 * CSINode (storage.k8s.io/v1, cluster-scoped), after Kubernetes 1.24.17: ValidateCSINode /
 * ValidateCSINodeUpdate (pkg/apis/storage/validation, with the strategy's AllowLongNodeID),
 * pkg/registry/storage/csinode/strategy.go and printCSINode.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, invalid, required } from '../../api/field-errors.ts';
import { FIELD_IMMUTABLE, IS_NEGATIVE_ERROR_MSG } from '../../validation/objectmeta.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { arr, byteLen, goPtr, goStrings, obj, str, validateCSIDriverName, validateQualifiedName } from './helpers.ts';
import { isObj } from '../../gocompat/json.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { goQuote } from '../../gocompat/quote.ts';

/** csiNodeIDLongerMaxLength: the strategy always allows the longer node IDs. */
const CSI_NODE_ID_MAX_LENGTH = 256;

const drivers = (o: KubeObject): Record<string, unknown>[] => arr(obj(o.spec).drivers).map(obj);

/** validateCSINodeDriver for each driver of spec.drivers (names unique across them). */
export function validateCSINodeSpec(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  drivers(o).forEach((d, i) => {
    const p = new FieldPath('spec').child('drivers').index(i);
    const name = str(d.name);
    errs.push(...validateCSIDriverName(name, p.child('name')));
    const nodeID = str(d.nodeID);
    if (nodeID.length === 0) errs.push(required(p.child('nodeID'), ''));
    if (byteLen(nodeID) > CSI_NODE_ID_MAX_LENGTH) errs.push(invalid(p.child('nodeID'), nodeID, `must be ${CSI_NODE_ID_MAX_LENGTH} characters or less`));
    const count = obj(d.allocatable).count;
    if (typeof count === 'number' && count < 0) errs.push(invalid(p.child('allocatable').child('count'), count, IS_NEGATIVE_ERROR_MSG));
    if (names.has(name)) errs.push(duplicate(p.child('name'), name));
    names.add(name);
    // Topology keys: errors name the driver itself, as kube reports them.
    const keys = new Set<string>();
    for (const k of arr(d.topologyKeys).map(str)) {
      if (k.length === 0) errs.push(required(p, ''));
      if (keys.has(k)) errs.push(duplicate(p, k));
      keys.add(k);
      errs.push(...validateQualifiedName(k, p));
    }
  });
  return errs;
}

/** Go's %#v of an internal storage.CSINodeDriver. */
export function goCSINodeDriver(d: Record<string, unknown>): GoValue {
  return new GoValue(
    `storage.CSINodeDriver{Name:${goQuote(str(d.name))}, NodeID:${goQuote(str(d.nodeID))}, TopologyKeys:${goStrings(d.topologyKeys)}, Allocatable:${goPtr(isObj(d.allocatable), 'storage.VolumeNodeResources')}}`,
  );
}

/**
 * The strategy's ValidateUpdate: ValidateCSINode(new), then ValidateCSINodeUpdate (which
 * validates the new object again, so each error is listed twice as in kube) and refuses any
 * change inside a driver entry that both versions have.
 */
export function validateCSINodeUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const errs = [...validateCSINodeSpec(n), ...validateCSINodeSpec(n)];
  for (const od of drivers(o)) {
    for (const nd of drivers(n)) {
      if (str(od.name) === str(nd.name) && !semanticEqual(od, nd)) errs.push(invalid(new FieldPath('CSINodeDriver'), goCSINodeDriver(nd), FIELD_IMMUTABLE));
    }
  }
  return errs;
}

/** pkg/registry/storage/csinode: validation only; updates need a resourceVersion. */
export const csiNodeStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  validate: validateCSINodeSpec,
  validateUpdate: validateCSINodeUpdate,
};

/** printCSINode: the number of drivers. */
export const csiNodeTable: TableConvertor = {
  columns: [NAME_COLUMN, { name: 'Drivers', type: 'integer', description: 'Drivers indicates the number of CSI drivers registered on the node', priority: 0 }, AGE_COLUMN],
  cells: (o) => [o.metadata.name ?? '', drivers(o).length, creationTimestampCell(o)],
};

/** storage.k8s.io/v1 csinodes; delete answers the object. */
export const csiNodeKind: KindDescriptor = {
  group: 'storage.k8s.io',
  versions: ['v1'],
  resource: 'csinodes',
  singular: 'csinode',
  kind: 'CSINode',
  listKind: 'CSINodeList',
  namespaced: false,
  shortNames: [],
  strategy: csiNodeStrategy,
  table: csiNodeTable,
  deleteReturns: 'Object',
};
