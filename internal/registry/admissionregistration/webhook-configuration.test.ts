import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check, type Want } from '../core/testing.ts';
import { mutatingWebhookConfigurationKind as M, validatingWebhookConfigurationKind as V } from './webhook-configuration.ts';
import { parseGoURL } from './validation.ts';

const config = (kind: 'Mutating' | 'Validating', webhooks: unknown[]): KubeObject => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: `${kind}WebhookConfiguration`,
  metadata: { name: 'c', creationTimestamp: '2024-01-01T00:00:00Z' },
  webhooks: structuredClone(webhooks),
});
const GOOD = {
  name: 'a.b.c',
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  clientConfig: { url: 'https://127.0.0.1:8443/x' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'] }],
};

test('descriptors: cluster-scoped, api-extensions, generation, no unconditional updates', () => {
  for (const k of [M, V]) {
    assert.equal([k.group, k.versions, k.namespaced, k.categories, k.hasGeneration, k.deleteReturns], ['admissionregistration.k8s.io', ['v1'], false, ['api-extensions'], true, 'Status'], k.kind);
    assert.is(k.strategy.allowUnconditionalUpdate, false);
    assert.is(k.strategy.allowCreateOnUpdate, false);
  }
  assert.equal([M.resource, V.resource], ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']);
});

test('defaults: v1 SetDefaults_*Webhook, SetDefaults_Rule, SetDefaults_ServiceReference', () => {
  const m = config('Mutating', [{ ...GOOD, clientConfig: { service: { namespace: 'n', name: 's' } } }]);
  M.strategy.defaults!(m);
  const w = (m.webhooks as any[])[0];
  assert.equal([w.failurePolicy, w.matchPolicy, w.namespaceSelector, w.objectSelector, w.timeoutSeconds, w.reinvocationPolicy, w.rules[0].scope, w.clientConfig.service.port], ['Fail', 'Equivalent', {}, {}, 10, 'Never', '*', 443]);
  const v = config('Validating', [{ ...GOOD, failurePolicy: 'Ignore', timeoutSeconds: 3 }]);
  V.strategy.defaults!(v);
  const vw = (v.webhooks as any[])[0];
  assert.equal([vw.failurePolicy, vw.timeoutSeconds, vw.reinvocationPolicy], ['Ignore', 3, undefined], 'validating webhooks have no reinvocationPolicy');
});

test('validate: a good configuration; names must be unique and fully qualified', () => {
  check('good', M.strategy.validate(config('Mutating', [GOOD])), []);
  check('names', V.strategy.validate(config('Validating', [GOOD, { ...GOOD }, { ...GOOD, name: 'a.b' }, { ...GOOD, name: 'A.b.c' }])), [
    { type: 'FieldValueDuplicate', field: 'webhooks[1].name', msg: 'Duplicate value: "a.b.c"' },
    { type: 'FieldValueInvalid', field: 'webhooks[2].name', msg: 'should be a domain with at least three segments separated by dots' },
    { type: 'FieldValueInvalid', field: 'webhooks[3].name', msg: 'a lowercase RFC 1123 subdomain' },
  ]);
});

test('validate: rules, side effects, timeouts, reinvocation (mutating only), URL and service', () => {
  const cases: [string, unknown, Want[]][] = [
    ['wildcard resource with plain ones', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*', 'pods'] }] }, [{ type: 'FieldValueInvalid', field: 'webhooks[0].rules[0].resources', msg: "if '*' is present, must not specify other resources without subresources" }]],
    ['subresource wildcards', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*', '*/status', 'pods/status'] }] }, [{ type: 'FieldValueInvalid', field: 'webhooks[0].rules[0].resources[2]', msg: "if '*/status' is present, must not specify pods/status" }]],
    ['empty rule', { rules: [{}] }, [
      { type: 'FieldValueRequired', field: 'webhooks[0].rules[0].operations' },
      { type: 'FieldValueRequired', field: 'webhooks[0].rules[0].apiGroups' },
      { type: 'FieldValueRequired', field: 'webhooks[0].rules[0].apiVersions' },
      { type: 'FieldValueRequired', field: 'webhooks[0].rules[0].resources' },
    ]],
    ['side effects Unknown', { sideEffects: 'Unknown' }, [{ type: 'FieldValueNotSupported', field: 'webhooks[0].sideEffects', msg: 'Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"' }]],
    ['timeout 0', { timeoutSeconds: 0 }, [{ type: 'FieldValueInvalid', field: 'webhooks[0].timeoutSeconds', msg: 'Invalid value: 0: the timeout value must be between 1 and 30 seconds' }]],
    ['reinvocation', { reinvocationPolicy: 'Always' }, [{ type: 'FieldValueNotSupported', field: 'webhooks[0].reinvocationPolicy', msg: 'supported values: "IfNeeded", "Never"' }]],
    ['url without host', { clientConfig: { url: 'https:///x' } }, [{ type: 'FieldValueInvalid', field: 'webhooks[0].clientConfig.url', msg: 'Invalid value: "": host must be provided; desired format: https://host[/path]' }]],
    ['both url and service', { clientConfig: { url: 'https://h', service: { name: 's', namespace: 'n', port: 443 } } }, [{ type: 'FieldValueRequired', field: 'webhooks[0].clientConfig', msg: 'exactly one of url or service is required' }]],
    ['service path', { clientConfig: { service: { name: 's', namespace: 'n', port: 443, path: '/ok/fine/' } } }, []],
    ['review versions', { admissionReviewVersions: ['v1', 'V2'] }, [{ type: 'FieldValueInvalid', field: 'webhooks[0].admissionReviewVersions[1]', msg: 'Invalid value: "V2": a DNS-1035 label must consist of lower case alphanumeric characters' }]],
  ];
  for (const [i, [label, change, want]] of cases.entries()) {
    const got = M.strategy.validate(config('Mutating', [{ ...GOOD, ...(change as object) }]));
    check(`case ${i} ${label}`, got, want);
  }
  // Validating webhooks do not know reinvocationPolicy.
  check('validating ignores reinvocationPolicy', V.strategy.validate(config('Validating', [{ ...GOOD, reinvocationPolicy: 'Always' }])), []);
});

test('validateUpdate: a rule the stored object already broke is not enforced on update', () => {
  const old = config('Validating', [{ ...GOOD, sideEffects: 'Some' }, { ...GOOD, sideEffects: 'Some' }]);
  const next = config('Validating', [{ ...GOOD, sideEffects: 'Unknown' }, { ...GOOD, sideEffects: 'Some' }]);
  check('legacy side effects and duplicate names kept', V.strategy.validateUpdate(next, old), []);
  const strict = config('Validating', [GOOD]);
  check('strict once clean', V.strategy.validateUpdate(next, strict), [
    { type: 'FieldValueNotSupported', field: 'webhooks[0].sideEffects' },
    { type: 'FieldValueNotSupported', field: 'webhooks[1].sideEffects' },
    { type: 'FieldValueDuplicate', field: 'webhooks[1].name' },
  ]);
});

test('table: name, number of webhooks, age', () => {
  const t = M.table!;
  assert.equal(t.columns.map((c) => c.name), ['Name', 'Webhooks', 'Age']);
  assert.equal(t.cells(config('Mutating', [GOOD, GOOD])), ['c', 2, '2024-01-01T00:00:00Z']);
});

test("parseGoURL reads scheme, host, user, query and fragment as Go's url.Parse", () => {
  const u = parseGoURL('HTTPS://u:p@h:1/a?b=c#d');
  assert.equal(u, { scheme: 'https', host: 'h:1', user: 'u:p', query: 'b=c', fragment: 'd', path: '/a' });
  assert.is(typeof parseGoURL(':nope'), 'string');
});

test.run();
