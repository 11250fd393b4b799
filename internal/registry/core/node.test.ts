import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { ApiError } from '../../api/errors.ts';
import { FieldPath, fieldErrorMessage } from '../../api/field-errors.ts';
import { addNotReadyTaint, defaultNode, nodeKind, nodeProxyLocation, nodeRoles, nodeStatusCell, splitSchemeNamePort, validateNodeTaints, validateNodeUpdate } from './node.ts';

const node = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', labels }, spec, status }) as KubeObject;

test('defaults: allocatable copies capacity (quantities rounded up to milli); podCIDR wins over podCIDRs[0] and fills podCIDRs', () => {
  const n = node({ podCIDR: '10.1.0.0/16', podCIDRs: ['10.2.0.0/16', 'fd00::/64'] }, { capacity: { cpu: '0.0001' } });
  defaultNode(n);
  assert.equal(n.spec, { podCIDR: '10.1.0.0/16', podCIDRs: ['10.1.0.0/16'] });
  assert.equal((n.status as any).allocatable, { cpu: '1m' });
  const m = node({ podCIDRs: ['10.3.0.0/16'] }, { capacity: { cpu: '1' }, allocatable: { cpu: '500m' } });
  defaultNode(m);
  assert.equal([(m.spec as any).podCIDR, (m.status as any).allocatable], ['10.3.0.0/16', { cpu: '500m' }]);
});

test('taints: kube paths and messages, duplicates by key and effect', () => {
  const errs = validateNodeTaints([{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoExecute' }, { key: 'a', effect: 'NoExecute', value: 'x' }, { key: '', effect: 'Sometimes' }], new FieldPath('metadata').child('taints'));
  assert.equal(errs.map(fieldErrorMessage), [
    'metadata.taints[2]: Duplicate value: core.Taint{Key:"a", Value:"x", Effect:"NoExecute", TimeAdded:<nil>}: taints must be unique by key and effect pair',
    'metadata.taints[3].key: Invalid value: "": name part must be non-empty',
    "metadata.taints[3].key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'metadata.taints[3].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
  ]);
});

test('update: podCIDRs may only be set once, providerID likewise, externalID never changes', () => {
  const old = node({ podCIDRs: ['10.0.0.0/16'], providerID: 'a' });
  assert.equal(validateNodeUpdate(node({ podCIDRs: ['10.0.0.0/16'], providerID: 'a' }), old), []);
  assert.equal(validateNodeUpdate(node({ podCIDRs: ['10.9.0.0/16'], providerID: 'b', externalID: 'x' }), old).map(fieldErrorMessage), [
    'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    'spec.externalID: Forbidden: may not be updated',
  ]);
  assert.equal(validateNodeUpdate(node({ podCIDRs: ['10.0.0.0/16'] }), node()), [], 'set from empty');
});

test('TaintNodesByCondition adds the not-ready NoSchedule taint once', () => {
  const n = node({ taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] });
  addNotReadyTaint(n);
  addNotReadyTaint(n);
  assert.equal((n.spec as any).taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
});

test('table cells: status from the last Ready condition, SchedulingDisabled, roles sorted and unique', () => {
  assert.is(nodeStatusCell(node({}, {})), 'Unknown');
  assert.is(nodeStatusCell(node({ unschedulable: true }, { conditions: [{ type: 'Ready', status: 'False' }] })), 'NotReady,SchedulingDisabled');
  assert.is(nodeStatusCell(node({}, { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Ready', status: 'True' }] })), 'Ready');
  assert.equal(nodeRoles({ 'node-role.kubernetes.io/worker': '', 'kubernetes.io/role': 'worker', 'node-role.kubernetes.io/': 'x', 'node-role.kubernetes.io/a': 'y' }), ['a', 'worker']);
  const cells = nodeKind.table!.cells(node({}, { nodeInfo: { kubeletVersion: 'v1', osImage: '' }, addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }] }));
  assert.equal(cells.slice(4), ['v1', '<none>', '1.2.3.4', '<unknown>', '<unknown>', '<unknown>']);
  assert.is(nodeKind.fieldSelectors!['spec.unschedulable']!(node()), 'false');
});

test('proxy location: SplitSchemeNamePort, preferred address types, port choice, refused addresses', async () => {
  assert.equal(splitSchemeNamePort('n'), { scheme: '', name: 'n', port: '' });
  assert.equal(splitSchemeNamePort('https:n:443'), { scheme: 'https', name: 'n', port: '443' });
  assert.is(splitSchemeNamePort('ftp:n:1'), undefined);
  assert.is(splitSchemeNamePort(':1'), undefined);
  const stored = (status: Record<string, unknown>) => async () => node({}, status);
  const resolve = async () => ['10.0.0.9'];
  const addresses = [{ type: 'ExternalIP', address: '1.2.3.4' }, { type: 'InternalIP', address: '10.0.0.1' }];
  assert.equal(await nodeProxyLocation('n', stored({ addresses }), resolve), { scheme: 'https', host: '10.0.0.1', port: 10250 });
  assert.equal(await nodeProxyLocation('n:8080', stored({ addresses, daemonEndpoints: { kubeletEndpoint: { Port: 8080 } } }), resolve), { scheme: 'https', host: '10.0.0.1', port: 8080 });
  assert.equal(await nodeProxyLocation('n:9000', stored({ addresses }), resolve), { scheme: 'http', host: '10.0.0.1', port: 9000 });
  assert.equal(await nodeProxyLocation('n', stored({ addresses: [{ type: 'Hostname', address: 'h' }, ...addresses] }), resolve), { scheme: 'https', host: 'h', port: 10250 });
  const fails = async (id: string, status: Record<string, unknown>): Promise<[number, string]> => {
    const e = (await nodeProxyLocation(id, stored(status), resolve).then(() => undefined, (x) => x)) as ApiError;
    assert.ok(e instanceof ApiError, String(e));
    return [e.status.code, e.status.message ?? ''];
  };
  assert.equal(await fails('n', { addresses: [{ type: 'Weird', address: '1.1.1.1' }] }), [500, 'no preferred addresses found; known addresses: [{Weird 1.1.1.1}]']);
  for (const ip of ['127.0.0.1', '169.254.1.1', '0.0.0.0', '224.0.0.1', '::1', 'fe80::1', '::ffff:127.0.0.1']) assert.equal(await fails('n', { addresses: [{ type: 'InternalIP', address: ip }] }), [400, 'address not allowed'], ip);
  assert.equal(await fails('a:b:c:d', {}), [400, 'invalid node request "a:b:c:d"']);
});

test.run();
