import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage, type CollectionRead, type ObjectKey } from './storage.ts';
import { StorageError } from './errors.ts';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'storage-list-test-'));
  dirs.push(d);
  return d;
}
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const cm = (namespace: string, name: string): ObjectKey => ({ group: '', resource: 'configmaps', namespace, name });
const body = (k: ObjectKey, x: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: k.name, namespace: k.namespace }, data: { x } });
const sizes = { first: 2, then: 2, ahead: false };

/** Names and data.x of every object of `read` after `after`. */
async function contents(read: CollectionRead, after?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of read.objects(after, sizes)) {
    for (const [, v] of batch) {
      const o = JSON.parse(v.toString());
      out.push(`${o.metadata.namespace}/${o.metadata.name}=${o.data.x}`);
    }
  }
  return out;
}

test('a collection read: latest or at a version, continue positions relative to the collection, counts', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000, scrubIntervalMs: 0 });
  // System writes fill the rest of the intent: the created objects are readable as written.
  for (const [ns, name] of [['a', 'x'], ['a', 'x-1'], ['b', 'y']]) {
    const v = await s.writeSystem({ op: 'CREATE', key: cm(ns, name), object: body(cm(ns, name), '1'), verb: 'create' });
    assert.ok(v.accepted);
  }
  const before = s.folded;
  const u = await s.writeSystem({ op: 'UPDATE', key: cm('a', 'x'), object: body(cm('a', 'x'), '2'), expectRv: 1, verb: 'update' });
  assert.ok(u.accepted);
  const stale = await s.writeSystem({ op: 'DELETE', key: cm('b', 'y'), object: body(cm('b', 'y'), '1'), expectRv: 1, verb: 'delete' });
  assert.is(!stale.accepted && stale.reason, 'Conflict', 'the precondition is kept');

  const all = { group: '', resource: 'configmaps' };
  const latest = await s.collection(all, undefined, true);
  assert.is(latest.rv, s.folded);
  assert.is(latest.liveCount, 3);
  assert.equal(await contents(latest), ['a/x=2', 'a/x-1=1', 'b/y=1']);
  assert.is(latest.position('core/configmaps/a/x'), 'a/x', 'positions are relative to the collection');
  assert.equal(await contents(latest, 'a/x'), ['a/x-1=1', 'b/y=1']);
  assert.is(await latest.countAfter('core/configmaps/a/x'), 2);
  await latest.close();
  await latest.close(); // idempotent

  const at = await s.collection(all, before);
  assert.is(at.rv, before);
  assert.is(at.liveCount, undefined);
  assert.equal(await contents(at), ['a/x=1', 'a/x-1=1', 'b/y=1'], 'history at the version before the update');
  assert.equal(await contents(at, 'a/x'), ['a/x-1=1', 'b/y=1'], 'a position from a latest read resumes a read at a version');
  assert.is(await at.countAfter('core/configmaps/a/x-1'), 1);
  await at.close();

  const one = await s.collection({ ...all, namespace: 'a' });
  assert.equal(await contents(one), ['a/x=2', 'a/x-1=1']);
  assert.is(one.position('core/configmaps/a/x'), 'x');
  await one.close();
  await s.close();
});

test('a collection read below the compaction point is refused as expired', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000, scrubIntervalMs: 0 });
  await s.writeSystem({ op: 'CREATE', key: cm('a', 'x'), object: body(cm('a', 'x'), '1'), verb: 'create' });
  // As if the compactor had removed history below offset 2 (its floor is published first).
  (s as unknown as { compactor: { compacted: number } }).compactor.compacted = 2;
  try {
    await s.collection({ group: '', resource: 'configmaps' }, 1);
    assert.unreachable('expected a StorageError');
  } catch (e) {
    assert.instance(e, StorageError);
    assert.is((e as StorageError).code, 'expired');
  }
  await s.close();
});

test.run();
