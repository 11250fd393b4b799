/**
 * The registry of served kinds as a changing set: add/remove keep lookups and the derived views
 * (kinds, storageKinds, groups, inGroupVersion) consistent, listeners hear each change
 * synchronously after it, a refused add changes nothing, and lists handed out earlier stay as
 * they were. Kinds over HTTP (discovery, OpenAPI, GC, …): test/kinds-runtime.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry, type KindChange } from './registry.ts';
import { configMapKind } from './core/configmap.ts';
import { eventsKinds } from './events/index.ts';
import type { KindDescriptor } from './rest/strategy.ts';

const widget = (group: string, versions = ['v1']): KindDescriptor => ({ ...configMapKind, group, versions, resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', shortNames: [] });
const registry = (kinds: KindDescriptor[], filter?: (k: KindDescriptor) => string[]) => new Registry(kinds, null as never, null as never, {}, undefined, filter);

test('add and remove: lookups, views and synchronous notifications', () => {
  const r = registry([configMapKind]);
  const heard: string[] = [];
  const unsubscribe = r.subscribe((c: KindChange) => heard.push(`${c.type} ${c.served.kind.group}/${c.served.kind.resource} served=${Boolean(r.lookup(c.served.kind.group, 'v1', c.served.kind.resource))}`));
  const before = r.kinds;
  const groupsBefore = r.groups();
  assert.equal([...groupsBefore.keys()], ['']);

  const w = r.add(widget('a.example.test', ['v1', 'v2']))!;
  assert.ok(w);
  assert.is(r.lookup('a.example.test', 'v2', 'widgets'), w);
  assert.equal(heard, ['added a.example.test/widgets served=true']);
  assert.is(before.length, 1, 'a list handed out earlier is not changed');
  assert.is(r.kinds.length, 2);
  assert.equal(r.groups().get('a.example.test'), ['v1', 'v2']);
  assert.equal(r.inGroupVersion('a.example.test', 'v2'), [w]);
  assert.is(r.storageKinds().length, 2);

  // A path served already: refused, nothing changes, nobody hears of it.
  assert.throws(() => r.add(widget('a.example.test', ['v3', 'v2'])), /a\.example\.test\/v2\/widgets registered twice/);
  assert.is(r.lookup('a.example.test', 'v3', 'widgets'), undefined);
  assert.is(r.kinds.length, 2);
  assert.is(heard.length, 1);

  // Removed by any of its paths: every version goes.
  assert.is(r.remove('a.example.test', 'v1', 'widgets'), w);
  assert.equal(heard[1], 'removed a.example.test/widgets served=false');
  assert.is(r.lookup('a.example.test', 'v2', 'widgets'), undefined);
  assert.not.ok(r.groups().has('a.example.test'));
  assert.equal(r.inGroupVersion('a.example.test', 'v1'), []);
  assert.is(r.remove('a.example.test', 'v1', 'widgets'), undefined);
  assert.is(heard.length, 2);

  unsubscribe();
  r.add(widget('b.example.test'));
  assert.is(heard.length, 2, 'an unsubscribed listener hears nothing');
});

test('views: a storage view and two descriptors of one group/resource', () => {
  const r = registry([configMapKind, ...eventsKinds]);
  assert.equal(r.storageKinds().map((k) => k.kind.resource), ['configmaps'], 'events.k8s.io Events are a view of core Events');
  assert.equal(r.groups().get('events.k8s.io'), ['v1', 'v1beta1']);
  r.remove('events.k8s.io', 'v1beta1', 'events');
  assert.equal(r.groups().get('events.k8s.io'), ['v1'], 'the other descriptor of events.k8s.io/events stays');
  assert.ok(r.lookup('events.k8s.io', 'v1', 'events'));
});

test('the version filter (--runtime-config) applies to kinds added later', () => {
  const r = registry([], (k) => k.versions.filter((v) => v !== 'v1beta1'));
  assert.is(r.add(widget('c.example.test', ['v1beta1'])), undefined, 'no version left: not served');
  assert.equal(r.kinds, []);
  const w = r.add(widget('c.example.test', ['v1', 'v1beta1']))!;
  assert.equal(w.kind.versions, ['v1']);
  assert.is(r.lookup('c.example.test', 'v1beta1', 'widgets'), undefined);
});

test.run();
