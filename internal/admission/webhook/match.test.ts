import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AdmissionAttributes } from '../chain.ts';
import type { KindDescriptor } from '../../registry/rest/strategy.ts';
import type { KubeObject } from '../../api/types.ts';
import { configMapKind, namespaceKind } from '../../registry/core/index.ts';
import { ruleMatches, shouldCallHook, isWebhookConfigurationResource } from './match.ts';
import { webhooksOfConfiguration, type RuleWithOperations } from './source.ts';
import { mutatingWebhookConfigurationKind } from '../../registry/admissionregistration/index.ts';

const cm = (labels?: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', labels } });

function attrs(over: Partial<AdmissionAttributes> & { kind?: KindDescriptor } = {}): AdmissionAttributes {
  return { operation: 'CREATE', kind: configMapKind, subresource: '', namespace: 'ns', name: 'c', object: cm(), oldObject: null, user: { username: 'u', groups: [] }, dryRun: false, ...over };
}

const rule = (r: Partial<RuleWithOperations>): RuleWithOperations => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*', ...r });

test('rules: operations, groups, versions, resources with subresources, scope', () => {
  const gvr = { group: '', version: 'v1', resource: 'configmaps' };
  const nsGvr = { group: '', version: 'v1', resource: 'namespaces' };
  const cases: [string, RuleWithOperations, Partial<AdmissionAttributes>, boolean, typeof gvr?][] = [
    ['wildcards', rule({}), {}, true],
    ['operation', rule({ operations: ['UPDATE'] }), {}, false],
    ['group', rule({ apiGroups: ['apps'] }), {}, false],
    ['version', rule({ apiVersions: ['v2'] }), {}, false],
    ['resource', rule({ resources: ['secrets'] }), {}, false],
    ['plain resource does not match a subresource', rule({ resources: ['configmaps'] }), { subresource: 'status' }, false],
    ['resource/sub', rule({ resources: ['configmaps/status'] }), { subresource: 'status' }, true],
    ['*/sub', rule({ resources: ['*/status'] }), { subresource: 'status' }, true],
    ['res/*', rule({ resources: ['configmaps/*'] }), { subresource: 'status' }, true],
    ['res/* matches the main resource too', rule({ resources: ['configmaps/*'] }), {}, true],
    ['*/* matches everything', rule({ resources: ['*/*'] }), { subresource: 'status' }, true],
    ['* alone skips subresources', rule({ resources: ['*'] }), { subresource: 'status' }, false],
    ['Namespaced scope, namespaced object', rule({ scope: 'Namespaced' }), {}, true],
    ['Cluster scope, namespaced object', rule({ scope: 'Cluster' }), {}, false],
    ['Cluster scope, cluster object', rule({ scope: 'Cluster' }), { namespace: '' }, true],
    ['a Namespace is cluster-scoped even with its namespace set', rule({ scope: 'Cluster' }), { namespace: 'x', kind: namespaceKind }, true, nsGvr],
    ['a Namespace is never Namespaced', rule({ scope: 'Namespaced' }), { namespace: 'x', kind: namespaceKind }, false, nsGvr],
  ];
  for (const [i, [label, r, over, want, g]] of cases.entries()) assert.is(ruleMatches(r, attrs(over), g ?? gvr), want, `case ${i}: ${label}`);
});

const hooks = (w: Record<string, unknown>) =>
  webhooksOfConfiguration({ metadata: { name: 'cfg' }, webhooks: [{ name: 'a.b.c', rules: [rule({})], matchPolicy: 'Equivalent', ...w }] } as unknown as KubeObject);

test('selectors: namespace labels (cluster-scoped objects always match; a missing namespace is a 404), object labels new or old', () => {
  const labels: Record<string, Record<string, string>> = { ns: { team: 'blue' }, other: {} };
  const nsl = (n: string) => labels[n];
  const [byNs] = hooks({ namespaceSelector: { matchLabels: { team: 'blue' } } });
  assert.ok(shouldCallHook(byNs!, attrs(), nsl), 'labelled namespace');
  assert.is(shouldCallHook(byNs!, attrs({ namespace: 'other' }), nsl), null, 'other namespace');
  assert.ok(shouldCallHook(byNs!, attrs({ namespace: '' }), nsl), 'cluster-scoped');
  assert.throws(() => shouldCallHook(byNs!, attrs({ namespace: 'gone' }), nsl), (e: Error) => e.message === 'namespaces "gone" not found');
  const nsObj: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new', labels: { team: 'blue' } } };
  assert.ok(shouldCallHook(byNs!, attrs({ kind: namespaceKind, namespace: '', name: 'new', object: nsObj }), nsl), 'a Namespace by its own labels');
  const [byObj] = hooks({ objectSelector: { matchLabels: { a: 'b' } } });
  assert.is(shouldCallHook(byObj!, attrs(), nsl), null);
  assert.ok(shouldCallHook(byObj!, attrs({ object: cm({ a: 'b' }) }), nsl));
  assert.ok(shouldCallHook(byObj!, attrs({ operation: 'UPDATE', object: cm(), oldObject: cm({ a: 'b' }) }), nsl), 'old object');
  assert.is(shouldCallHook(byObj!, attrs({ operation: 'DELETE', object: null, oldObject: null }), nsl), null, 'no object');
});

test('matchPolicy Equivalent: another version of the same resource is invoked in the version the rule names', () => {
  const eq = {
    equivalents: () => [
      { group: 'g', version: 'v2', resource: 'rs' },
      { group: 'g', version: 'v1', resource: 'rs' },
    ],
    kindFor: (g: { version: string }) => ({ group: 'g', version: g.version, kind: 'R' }),
  };
  const kind = { ...configMapKind, group: 'g', versions: ['v2', 'v1'], resource: 'rs', kind: 'R' };
  const a = attrs({ kind, version: 'v2' });
  const [equivalent] = hooks({ rules: [rule({ apiGroups: ['g'], apiVersions: ['v1'], resources: ['rs'] })] });
  const inv = shouldCallHook(equivalent!, a, () => ({}), eq);
  assert.equal(inv?.kind, { group: 'g', version: 'v1', kind: 'R' });
  assert.equal(inv?.resource, { group: 'g', version: 'v1', resource: 'rs' });
  const [exact] = hooks({ matchPolicy: 'Exact', rules: [rule({ apiGroups: ['g'], apiVersions: ['v1'], resources: ['rs'] })] });
  assert.is(shouldCallHook(exact!, a, () => ({}), eq), null);
});

test('webhook configurations are never sent to webhooks', () => {
  assert.ok(isWebhookConfigurationResource(attrs({ kind: mutatingWebhookConfigurationKind })));
  assert.not.ok(isWebhookConfigurationResource(attrs()));
});

test.run();
