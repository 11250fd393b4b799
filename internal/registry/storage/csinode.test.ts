import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { csiNodeKind, csiNodeTable } from './csinode.ts';

const S = csiNodeKind.strategy;
const node = (drivers?: unknown[]): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSINode',
  metadata: { name: 'n', creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: drivers === undefined ? {} : { drivers: structuredClone(drivers) },
});
const D1 = { name: 'a.example.com', nodeID: 'n1', topologyKeys: ['zone'], allocatable: { count: 3 } };
const KEY_MSG = "name part must consist of alphanumeric characters";

test('descriptor', () => {
  assert.equal([csiNodeKind.resource, csiNodeKind.kind, csiNodeKind.namespaced, csiNodeKind.deleteReturns], ['csinodes', 'CSINode', false, 'Object']);
  assert.is(S.allowUnconditionalUpdate, false);
  assert.is(S.defaults, undefined, 'no defaults');
});

test('validate', () => {
  check('no drivers', S.validate(node()), []);
  check('empty drivers', S.validate(node([])), []);
  check('valid', S.validate(node([D1, { name: 'b.example.com', nodeID: 'x'.repeat(256) }])), []);
  check('driver errors', S.validate(node([{ name: '', nodeID: '', allocatable: { count: -1 }, topologyKeys: ['k', 'k', '', 'a b'] }, { name: 'UPPER.example.com', nodeID: 'x'.repeat(257) }, { name: '', nodeID: 'n' }])), [
    { type: 'FieldValueRequired', field: 'spec.drivers[0].name' },
    { type: 'FieldValueInvalid', field: 'spec.drivers[0].name', msg: 'a lowercase RFC 1123 subdomain' },
    { type: 'FieldValueRequired', field: 'spec.drivers[0].nodeID', msg: 'spec.drivers[0].nodeID: Required value' },
    { type: 'FieldValueInvalid', field: 'spec.drivers[0].allocatable.count', msg: 'Invalid value: -1: must be greater than or equal to 0' },
    { type: 'FieldValueDuplicate', field: 'spec.drivers[0]', msg: 'spec.drivers[0]: Duplicate value: "k"' },
    { type: 'FieldValueRequired', field: 'spec.drivers[0]' },
    { type: 'FieldValueInvalid', field: 'spec.drivers[0]', msg: 'Invalid value: "": name part must be non-empty' },
    { type: 'FieldValueInvalid', field: 'spec.drivers[0]', msg: `Invalid value: "": ${KEY_MSG}` },
    { type: 'FieldValueInvalid', field: 'spec.drivers[0]', msg: `Invalid value: "a b": ${KEY_MSG}` },
    { type: 'FieldValueInvalid', field: 'spec.drivers[1].nodeID', msg: 'must be 256 characters or less' },
    { type: 'FieldValueRequired', field: 'spec.drivers[2].name' },
    { type: 'FieldValueInvalid', field: 'spec.drivers[2].name' },
    { type: 'FieldValueDuplicate', field: 'spec.drivers[2].name', msg: 'Duplicate value: ""' },
  ]);
  check('count 0 is fine', S.validate(node([{ ...D1, allocatable: { count: 0 } }])), []);
});

test('validateUpdate: entries of a driver both have are immutable; errors twice', () => {
  const old = node([D1]);
  check('same', S.validateUpdate(node([D1]), old), []);
  check('added and removed drivers', S.validateUpdate(node([{ name: 'b.example.com', nodeID: 'n' }]), old), []);
  check('[] topology keys equal absent ones', S.validateUpdate(node([{ name: 'b.example.com', nodeID: 'n', topologyKeys: [] }]), node([{ name: 'b.example.com', nodeID: 'n' }])), []);
  check('changed', S.validateUpdate(node([{ ...D1, nodeID: 'n2' }]), old), [
    {
      type: 'FieldValueInvalid',
      field: 'CSINodeDriver',
      msg: 'CSINodeDriver: Invalid value: storage.CSINodeDriver{Name:"a.example.com", NodeID:"n2", TopologyKeys:[]string{"zone"}, Allocatable:(*storage.VolumeNodeResources)(0xc000000000)}: field is immutable',
    },
  ]);
  check('allocatable dropped', S.validateUpdate(node([{ name: 'a.example.com', nodeID: 'n1', topologyKeys: ['zone'] }]), old), [
    { type: 'FieldValueInvalid', field: 'CSINodeDriver', msg: 'Allocatable:(*storage.VolumeNodeResources)(nil)}' },
  ]);
  check('errors twice', S.validateUpdate(node([D1, { name: 'b.example.com', nodeID: '' }]), old), [
    { type: 'FieldValueRequired', field: 'spec.drivers[1].nodeID' },
    { type: 'FieldValueRequired', field: 'spec.drivers[1].nodeID' },
  ]);
});

test('Table: printCSINode counts drivers', () => {
  assert.equal(csiNodeTable.columns.map((c) => [c.name, c.type]), [
    ['Name', 'string'],
    ['Drivers', 'integer'],
    ['Age', 'string'],
  ]);
  assert.equal(csiNodeTable.cells(node([D1, D1])), ['n', 2, '2024-01-01T00:00:00Z']);
  assert.equal(csiNodeTable.cells(node()), ['n', 0, '2024-01-01T00:00:00Z']);
});

test.run();
