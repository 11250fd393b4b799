/**
 * KeyIndex.countUnder: the live objects under a resource's or a namespace's path prefix, counted
 * once and then kept by apply() through creates, updates (no change), rejected writes and deletes
 * (a list page's remainingItemCount is computed from it).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyIndex } from './key-index.ts';
import type { LogEvent, Op } from '../log/event.ts';

const event = (op: Op, namespace: string, name: string, resource = 'configmaps'): LogEvent => ({
  op, id: `${op}-${namespace}-${name}`, group: '', resource, namespace, name, expectRv: null, expectUid: null,
  requireActiveNamespace: false, uid: `uid-${name}`, deleting: false,
  object: Buffer.from(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"${name}","resourceVersion":""}}`),
  time: 0, verb: op.toLowerCase(), user: 'u', groups: [], fieldManager: null, userAgent: null, requestId: null,
});

/** What countUnder must say: a scan of every path applied and not deleted since. */
function expected(live: Set<string>, prefix: string): number {
  return [...live].filter((p) => p.startsWith(prefix)).length;
}

test('counts follow creates and deletes once a prefix has been counted', () => {
  const ix = new KeyIndex();
  const live = new Set<string>();
  let offset = 1;
  const apply = (op: Op, ns: string, name: string, resource = 'configmaps'): void => {
    const f = ix.apply(offset++, event(op, ns, name, resource));
    if (!f?.verdict.accepted) return;
    if (op === 'DELETE') live.delete(f.path);
    else live.add(f.path);
  };
  for (let i = 0; i < 20; i++) apply('CREATE', i % 2 ? 'a' : 'a-b', `cm-${i}`);
  apply('CREATE', 'a', 'x', 'secrets');
  const prefixes = ['core/configmaps/', 'core/configmaps/a/', 'core/configmaps/a-b/', 'core/secrets/', 'core/secrets/a/', 'core/configmaps/zz/'];
  for (const p of prefixes) assert.is(ix.countUnder(p), expected(live, p), `first count of ${p}`);
  apply('CREATE', 'a', 'cm-1'); // AlreadyExists: rejected, nothing changes
  apply('UPDATE', 'a', 'cm-1'); // an update adds nothing
  apply('DELETE', 'a', 'cm-3');
  apply('DELETE', 'a', 'cm-3'); // NotFound: rejected
  apply('DELETE', 'a-b', 'cm-0');
  apply('CREATE', 'zz', 'new');
  apply('CREATE', 'a', 'y', 'secrets');
  for (const p of prefixes) assert.is(ix.countUnder(p), expected(live, p), `kept count of ${p}`);
  assert.is(ix.countUnder('core/configmaps/a/'), 9);
  assert.is(ix.countUnder('core/configmaps/zz/'), 1);
  ix.clear();
  assert.is(ix.countUnder('core/configmaps/'), 0, 'cleared with the index');
});

test('cluster-scoped paths (empty namespace) count under their resource', () => {
  const ix = new KeyIndex();
  assert.is(ix.countUnder('core/namespaces/'), 0);
  ix.apply(1, event('CREATE', '', 'ns1', 'namespaces'));
  ix.apply(2, event('CREATE', '', 'ns2', 'namespaces'));
  ix.apply(3, event('DELETE', '', 'ns1', 'namespaces'));
  assert.is(ix.countUnder('core/namespaces/'), 1);
});

test.run();
