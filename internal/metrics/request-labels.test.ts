import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanScope, dryRunLabel, reportedVerb, requestKind } from './request-labels.ts';
import { annotatedHelp, isHidden, validateShowHiddenMetricsVersion } from './lifecycle.ts';

const q = (s = '') => new URLSearchParams(s);
const r = (method: string, verb: string, o: { ns?: string; name?: string; query?: string; ct?: string; legacyWatch?: boolean; resource?: boolean } = {}) => ({
  method,
  verb,
  isResourceRequest: o.resource ?? true,
  namespace: o.ns ?? '',
  name: o.name ?? '',
  query: q(o.query),
  contentType: o.ct,
  legacyWatch: o.legacyWatch,
});

test('reportedVerb and cleanScope as kube (CanonicalVerb, cleanVerb, CleanScope)', () => {
  const cases: [ReturnType<typeof r>, string, string][] = [
    [r('GET', 'get', { ns: 'a', name: 'x' }), 'GET', 'resource'],
    [r('GET', 'list', { ns: 'a' }), 'LIST', 'namespace'],
    [r('GET', 'list'), 'LIST', 'cluster'],
    [r('HEAD', 'list'), 'LIST', 'cluster'],
    [r('GET', 'watch', { ns: 'a', query: 'watch=true' }), 'WATCH', 'namespace'],
    [r('GET', 'list', { query: 'watch=false' }), 'LIST', 'cluster'],
    [r('GET', 'watch', { query: 'watch=0' }), 'LIST', 'cluster'],
    [r('GET', 'watch', { name: 'x', legacyWatch: true }), 'WATCH', 'resource'],
    [r('POST', 'create', { ns: 'a' }), 'POST', 'resource'],
    [r('PUT', 'update', { name: 'x' }), 'PUT', 'resource'],
    [r('PATCH', 'patch', { name: 'x', ct: 'application/merge-patch+json' }), 'PATCH', 'resource'],
    [r('PATCH', 'patch', { name: 'x', ct: 'application/apply-patch+yaml' }), 'APPLY', 'resource'],
    [r('DELETE', 'deletecollection', { ns: 'a' }), 'DELETE', 'namespace'],
    [r('OPTIONS', 'options'), 'other', 'cluster'],
    [r('GET', 'get', { resource: false }), 'GET', ''],
  ];
  cases.forEach(([input, verb, scope], i) => {
    assert.is(reportedVerb(input), verb, `case ${i} verb`);
    assert.is(cleanScope(input), scope, `case ${i} scope`);
  });
});

test('dryRunLabel: sorted unique values, invalid for anything but All', () => {
  assert.is(dryRunLabel(q('')), '');
  assert.is(dryRunLabel(q('dryRun=All')), 'All');
  assert.is(dryRunLabel(q('dryRun=All&dryRun=All')), 'All');
  assert.is(dryRunLabel(q('dryRun=')), 'invalid');
  assert.is(dryRunLabel(q('dryRun=Bogus')), 'invalid');
});

test('requestKind: get/list/watch are read-only', () => {
  assert.is(requestKind('list', true, 'GET'), 'readOnly');
  assert.is(requestKind('create', true, 'POST'), 'mutating');
  assert.is(requestKind('get', false, 'GET'), 'readOnly');
  assert.is(requestKind('post', false, 'POST'), 'mutating');
});

test('metric lifecycle: help annotation, hiding, the flag', () => {
  assert.is(annotatedHelp({ name: 'a', help: 'h', stabilityLevel: 'STABLE' }), '[STABLE] h');
  assert.is(annotatedHelp({ name: 'a', help: 'h', stabilityLevel: 'ALPHA', deprecatedVersion: '1.24.0' }), '[ALPHA] (Deprecated since 1.24.0) h');
  assert.not.ok(isHidden({ name: 'a', help: 'h', stabilityLevel: 'ALPHA', deprecatedVersion: '1.24.0' }));
  assert.ok(isHidden({ name: 'a', help: 'h', stabilityLevel: 'ALPHA', deprecatedVersion: '1.23.0' }));
  assert.ok(isHidden({ name: 'a', help: 'h', stabilityLevel: 'STABLE', deprecatedVersion: '1.20.3' }));
  assert.is(validateShowHiddenMetricsVersion(''), undefined);
  assert.is(validateShowHiddenMetricsVersion('1.23'), undefined);
  assert.is(validateShowHiddenMetricsVersion('1.24'), "--show-hidden-metrics-for-version must be omitted or have the value '1.23'. Only the previous minor version is allowed");
});

test.run();
