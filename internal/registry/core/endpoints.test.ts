import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check, type Want } from './testing.ts';
import { endpointsKind, defaultEndpoints, formatEndpoints, validateEndpoints } from './endpoints.ts';

const ep = (subsets: unknown): KubeObject => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e', namespace: 'default' }, subsets });

test('descriptor', () => {
  assert.is(endpointsKind.resource, 'endpoints');
  assert.equal(endpointsKind.shortNames, ['ep']);
  assert.is(endpointsKind.deleteReturns, 'Status');
  assert.ok(endpointsKind.strategy.allowCreateOnUpdate);
});

test('SetDefaults_Endpoints: port protocol TCP', () => {
  const o = ep([{ addresses: [{ ip: '1.2.3.4' }], ports: [{ port: 1 }, { port: 2, protocol: 'UDP' }] }]);
  defaultEndpoints(o);
  assert.equal((o.subsets as any)[0].ports, [{ port: 1, protocol: 'TCP' }, { port: 2, protocol: 'UDP' }]);
});

test('ValidateEndpoints', () => {
  const cases: [string, unknown, Want[]][] = [
    ['none', undefined, []],
    ['ok', [{ addresses: [{ ip: '10.1.2.3', hostname: 'a', nodeName: 'n.example' }], ports: [{ port: 1, protocol: 'TCP' }] }], []],
    ['ipv6', [{ notReadyAddresses: [{ ip: '2001:db8::1' }] }], []],
    ['empty subset', [{}], [{ type: 'FieldValueRequired', field: 'subsets[0]', msg: 'must specify `addresses` or `notReadyAddresses`' }]],
    ['unspecified', [{ addresses: [{ ip: '0.0.0.0' }] }], [{ type: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', msg: 'may not be unspecified (0.0.0.0)' }]],
    ['link-local', [{ addresses: [{ ip: '169.254.1.1' }] }], [{ type: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', msg: 'link-local range' }]],
    ['link-local multicast v6', [{ addresses: [{ ip: 'ff02::1' }] }], [{ type: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', msg: 'link-local multicast range' }]],
    ['loopback v6', [{ addresses: [{ ip: '::1' }] }], [{ type: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', msg: 'loopback range' }]],
    ['hostname', [{ addresses: [{ ip: '10.0.0.1', hostname: 'A.b' }] }], [{ type: 'FieldValueInvalid', field: 'subsets[0].addresses[0].hostname' }]],
    ['port name', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 1, protocol: 'TCP', name: 'Bad' }] }], [{ type: 'FieldValueInvalid', field: 'subsets[0].ports[0].name' }]],
    ['no protocol', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 1 }] }], [{ type: 'FieldValueRequired', field: 'subsets[0].ports[0].protocol' }]],
  ];
  for (const [label, subsets, want] of cases) check(label, validateEndpoints(ep(subsets)), want);
});

test('formatEndpoints: host:port pairs, at most three, then "+ N more..."', () => {
  assert.is(formatEndpoints(ep(undefined)), '<none>');
  assert.is(formatEndpoints(ep([{ addresses: [{ ip: '1.1.1.1' }, { ip: 'fd00::1' }], ports: [{ port: 80 }] }])), '1.1.1.1:80,[fd00::1]:80');
  const many = ep([{ addresses: [{ ip: '1.1.1.1' }, { ip: '1.1.1.2' }], ports: [{ port: 80 }, { port: 443 }] }]);
  assert.is(formatEndpoints(many), '1.1.1.1:80,1.1.1.2:80,1.1.1.1:443 + 1 more...');
});

test.run();
