import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyWebhookPatch } from './json-patch.ts';

const doc = { metadata: { name: 'c', labels: { a: 'b' } }, list: [1, 2] };

test("patches apply in order; failures carry evanphx/json-patch's messages", () => {
  assert.equal(applyWebhookPatch(doc, [{ op: 'add', path: '/metadata/labels/x', value: 'y' }, { op: 'remove', path: '/list/0' }]), { metadata: { name: 'c', labels: { a: 'b', x: 'y' } }, list: [2] });
  assert.equal(doc.metadata.labels, { a: 'b' }, 'the input is not changed');
  const cases: [unknown, string][] = [
    [{ op: 'add', path: '/data/x', value: 'y' }, 'add operation does not apply: doc is missing path: "/data/x": missing value'],
    [{ op: 'remove', path: '/metadata/labels/zz' }, 'Unable to remove nonexistent key: zz: missing value'],
    [{ op: 'remove', path: '/nope/x' }, 'remove operation does not apply: doc is missing path: "/nope/x": missing value'],
    [{ op: 'replace', path: '/metadata/zz', value: 1 }, 'replace operation does not apply: doc is missing key: /metadata/zz: missing value'],
    [{ op: 'replace', path: '/nope/zz', value: 1 }, 'replace operation does not apply: doc is missing path: /nope/zz: missing value'],
    [{ op: 'move', from: '/nope', path: '/x' }, 'move operation does not apply: doc is missing from path: /nope: missing value'],
    [{ op: 'test', path: '/metadata/name', value: 'other' }, 'testing value /metadata/name failed: test failed'],
    [{ op: 'frob', path: '/x' }, 'Unexpected kind: frob'],
  ];
  for (const [i, [op, msg]] of cases.entries()) assert.throws(() => applyWebhookPatch(doc, [op]), (e: Error) => e.message === msg, `case ${i}: ${msg}`);
});

test.run();
