import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdRefusal, etcdTxnBytes } from './etcd-limits.ts';

// Measured on kube-apiserver 1.24.17 + etcd: a custom resource `a` in namespace `sz-caaf35`,
// group `sz-caaf35.example.com` (key /registry/sz-caaf35.example.com/blobs/sz-caaf35/a, 49 bytes),
// 2,200,000 bytes of data, a 2,200,217-byte value: "(2200340 vs. 2097152)".
test('the Txn size of a create, as the gRPC client counts it', () => {
  assert.is(etcdTxnBytes(49, 2_200_217, null), 2_200_340);
  // An update adds the Else Get and a non-zero mod_revision.
  assert.is(etcdTxnBytes(49, 2_200_217, 300), 2_200_340 + 1 + 55);
});

test("which answer: fits, etcd's, or the gRPC client's (custom resources only)", () => {
  const key = '/registry/sz-caaf35.example.com/blobs/sz-caaf35/a';
  assert.is(etcdRefusal({ bytes: 1_500_000, rev: null, customResourceKey: key }), undefined);
  assert.is(etcdRefusal({ bytes: 1_600_000, rev: null, customResourceKey: key })?.message, 'etcdserver: request is too large');
  // Log bytes carry a 21-byte resourceVersion placeholder the etcd value has not, and lack its newline.
  assert.is(etcdRefusal({ bytes: 2_200_217 + 20, rev: null, customResourceKey: key })?.message, 'rpc error: code = ResourceExhausted desc = trying to send message larger than max (2200340 vs. 2097152)');
  assert.is(etcdRefusal({ bytes: 2_200_237, rev: null })?.message, 'etcdserver: request is too large');
});

test.run();
