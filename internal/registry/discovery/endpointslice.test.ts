import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { endpointSliceKind, endpointSliceTable, endpointSliceToV1, endpointSliceToV1beta1, endpointSliceV1beta1Kind } from './endpointslice.ts';

const S = endpointSliceKind.strategy;
const es = (fields: Record<string, unknown> = {}, version = 'v1'): KubeObject => ({ apiVersion: `discovery.k8s.io/${version}`, kind: 'EndpointSlice', metadata: { name: 'e', generation: 1, creationTimestamp: '2024-01-01T00:00:00Z' }, addressType: 'IPv4', ...fields });
const HOST = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

test('descriptor: POST creates, unconditional updates; stored as v1beta1 (discovery hash); v1beta1 deprecated', () => {
  assert.equal([S.allowCreateOnUpdate, S.allowUnconditionalUpdate, endpointSliceKind.storageVersion, endpointSliceKind.hasGeneration], [false, true, 'v1beta1', 'create']);
  assert.equal(endpointSliceV1beta1Kind.versions, ['v1beta1']);
  assert.match(endpointSliceV1beta1Kind.deprecationWarning!, /^discovery\.k8s\.io\/v1beta1 EndpointSlice is deprecated in v1\.21\+/);
});

test('defaults: port name "" and protocol TCP', () => {
  const o = es({ ports: [{ port: 80 }, { name: 'x', protocol: 'UDP' }] });
  S.defaults!(o);
  assert.equal(o.ports, [{ port: 80, name: '', protocol: 'TCP' }, { name: 'x', protocol: 'UDP' }]);
});

test('validate: addresses by type, FQDN, duplicate port names, hints', () => {
  check('ok', S.validate(es({ endpoints: [{ addresses: ['10.0.0.1'] }] })), []);
  check('loopback', S.validate(es({ endpoints: [{ addresses: ['127.0.0.1'] }] })), [{ type: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', msg: 'may not be in the loopback range (127.0.0.0/8, ::1/128)' }]);
  check('v6 in v4', S.validate(es({ endpoints: [{ addresses: ['::5'] }] })), [{ type: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', msg: 'must be a valid IPv4 address' }]);
  check('fqdn', S.validate(es({ addressType: 'FQDN', endpoints: [{ addresses: ['a'] }] })), [{ type: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', msg: 'should be a domain with at least two segments separated by dots' }]);
  check('ports', S.validate(es({ ports: [{ name: 'a', protocol: 'TCP' }, { name: 'a', protocol: 'TCP' }] })), [{ type: 'FieldValueDuplicate', field: 'ports[1].name' }]);
  check('hints', S.validate(es({ endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: Array.from({ length: 9 }, (_, i) => ({ name: `z${i}` })) } }] })), [{ type: 'FieldValueTooMany', field: 'endpoints[0].hints.forZones' }]);
  check('immutable', S.validateUpdate(es({ addressType: 'FQDN' }), es()), [{ type: 'FieldValueInvalid', field: 'addressType', msg: 'field is immutable' }]);
});

test('v1 writes drop deprecatedTopology; an update keeps it when the endpoints are unchanged, else a known hostname becomes nodeName', () => {
  const created = es({ endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { [HOST]: 'n1' } }] });
  S.prepareForCreate!(created);
  assert.equal(created.endpoints, [{ addresses: ['10.0.0.1'] }]);
  const old = es({ endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { [HOST]: 'n1' } }] });
  const same = structuredClone(old);
  S.prepareForUpdate!(same, old);
  assert.equal(same.endpoints, old.endpoints);
  assert.is(same.metadata.generation, 1);
  const changed = es({ endpoints: [{ addresses: ['10.0.0.2'], deprecatedTopology: { [HOST]: 'n1' } }] });
  S.prepareForUpdate!(changed, old);
  assert.equal([changed.endpoints, changed.metadata.generation], [[{ addresses: ['10.0.0.2'], nodeName: 'n1' }], 2]);
});

test('conversion: v1beta1 topology ⇄ nodeName, zone, deprecatedTopology (kube conversion.go)', () => {
  const beta = es({ endpoints: [{ addresses: ['1.1.1.1'], nodeName: 'n1', topology: { [HOST]: 'n1', [ZONE]: 'z', rack: 'r' } }, { addresses: ['1.1.1.2'], topology: { [HOST]: 'other' }, nodeName: 'n2' }] }, 'v1beta1');
  const v1 = endpointSliceToV1(beta);
  assert.equal(v1.endpoints, [{ addresses: ['1.1.1.1'], nodeName: 'n1', zone: 'z', deprecatedTopology: { rack: 'r' } }, { addresses: ['1.1.1.2'], nodeName: 'n2', deprecatedTopology: { [HOST]: 'other' } }]);
  assert.is(v1.apiVersion, 'discovery.k8s.io/v1');
  const back = endpointSliceToV1beta1(v1);
  assert.equal(back.endpoints, [{ addresses: ['1.1.1.1'], nodeName: 'n1', topology: { rack: 'r', [ZONE]: 'z', [HOST]: 'n1' } }, { addresses: ['1.1.1.2'], nodeName: 'n2', topology: { [HOST]: 'other' } }]);
  assert.equal(endpointSliceToV1beta1(es({ endpoints: [{ addresses: ['1.1.1.1'] }] })).endpoints, [{ addresses: ['1.1.1.1'] }], 'nothing to convert');
});

test('table: at most three ports and addresses, then "+ N more...", <unset> for none', () => {
  const o = es({ ports: [{ port: 1 }, { name: 'b' }, {}, { port: 4 }], endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4', '10.0.0.5'] }] });
  assert.equal(endpointSliceTable.cells(o), ['e', 'IPv4', '1,b,* + 1 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...', '2024-01-01T00:00:00Z']);
  assert.equal(endpointSliceTable.cells(es()).slice(2, 4), ['<unset>', '<unset>']);
});

test.run();
