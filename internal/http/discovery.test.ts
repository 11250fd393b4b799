/**
 * Discovery documents without a server: group order and version order as kube-apiserver 1.24
 * lists them, and the storage version hash (values read from the reference cluster).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiGroupList, apiGroup, storageVersionHash } from './discovery.ts';

const source = (groups: [string, string[]][]) => ({ groups: () => new Map(groups) });

test('groups in kube order, unknown groups after by name; versions in kube order', () => {
  const cases: { served: [string, string[]][]; want: [string, string[]][] }[] = [
    { served: [['', ['v1']], ['coordination.k8s.io', ['v1']], ['apps', ['v1']]], want: [['apps', ['v1']], ['coordination.k8s.io', ['v1']]] },
    { served: [['zz.example.com', ['v1']], ['aa.example.com', ['v1']], ['batch', ['v1beta1', 'v1']]], want: [['batch', ['v1', 'v1beta1']], ['aa.example.com', ['v1']], ['zz.example.com', ['v1']]] },
    { served: [['autoscaling', ['v1', 'v2', 'v9']]], want: [['autoscaling', ['v2', 'v1', 'v9']]] },
  ];
  cases.forEach((tc, i) => {
    const doc = apiGroupList(source(tc.served));
    assert.equal(doc.groups.map((g) => [g.name, g.versions.map((v) => v.version)]), tc.want, `case ${i}`);
    for (const g of doc.groups) assert.equal(g.preferredVersion, g.versions[0], `case ${i}: ${g.name} preferred`);
  });
  assert.is(apiGroup(source([['', ['v1']]]), ''), null, 'the core group is not an APIGroup');
  assert.equal(apiGroup(source([['batch', ['v1beta1', 'v1']]]), 'batch')?.preferredVersion, { groupVersion: 'batch/v1', version: 'v1' });
});

test('storageVersionHash: base64 of sha256(<group>/<version>/<kind>)[:8]', () => {
  const cases: [string, string, string, string][] = [
    ['', 'v1', 'ConfigMap', 'qFsyl6wFWjQ='],
    ['', 'v1', 'Namespace', 'Q3oi5N2YM8M='],
    ['', 'v1', 'Secret', 'S6u1pOWzb84='],
    ['apps', 'v1', 'ControllerRevision', '85nkx63pcBU='],
  ];
  cases.forEach(([g, v, k, want], i) => assert.is(storageVersionHash(g, v, k), want, `case ${i}: ${g}/${v}/${k}`));
});

test.run();
