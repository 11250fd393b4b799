/**
 * Deeply nested bodies answered as kube-apiserver answers them: encoding/json's depth limit (an
 * array or object nested deeper than 10000 levels) is a 400 with its message for every body kind
 * (JSON and YAML objects, merge, strategic-merge and JSON patches, apply; a DeleteOptions body
 * gets kube's plain 500 for it), never a 500 `Maximum call stack size exceeded`; 10000 levels are
 * still accepted; the object and the server are unaffected. Runs against the reference with
 * TEST_KUBECONFIG.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from './target.ts';
import { show } from './assertions.ts';
import type { HttpResult } from './harness.ts';

let t: Target;
let base: string;

/** `levels` nested arrays (`[[…]]`) or objects (`{"a":{"a":…1}}`). */
const nested = (levels: number, kind: '[' | '{'): string => (kind === '[' ? '['.repeat(levels) + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels));
const cmJson = (name: string, field: string, value: string): string => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"${field}":${value}}`;

function expect400(r: HttpResult, message: string, label: string): void {
  assert.is(r.status, 400, `${label}: ${show(r)}`);
  assert.is(r.json?.kind, 'Status', `${label}: ${show(r)}`);
  assert.is(r.json.reason, 'BadRequest', `${label}: ${show(r)}`);
  assert.is(r.json.message, message, `${label}: ${show(r)}`);
}

test.before(async () => {
  t = await startTarget();
  const ns = await t.createNamespace('depth');
  base = `/api/v1/namespaces/${ns}/configmaps`;
  const r = await t.client.request('POST', base, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'live' }, data: { k: 'v' } } });
  assert.is(r.status, 201, r.text);
});

test.after(async () => {
  await t?.close();
});

const unrecognized = (c: string, summary: string): string =>
  `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '${c}' exceeded max depth (${summary} ...)`;

test('objects nested deeper than 10000 levels: 400 with encoding/json\'s message (JSON and YAML)', async () => {
  // The object itself is level 1: 10000 more levels of arrays make 10001.
  const arrays = await t.client.request('POST', base, { raw: cmJson('deep-a', 'x', nested(10_000, '[')) });
  expect400(arrays, unrecognized('[', '{"apiVersion":"v1","kind":"Con'), 'JSON arrays');
  const objects = await t.client.request('POST', base, { raw: cmJson('deep-o', 'data', `{"k":${nested(9_999, '{')}}`) });
  expect400(objects, unrecognized('{', '{"apiVersion":"v1","kind":"Con'), 'JSON objects');
  const yaml = await t.client.request('POST', base, { raw: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep-y\nx: ${nested(10_000, '[')}\n`, contentType: 'application/yaml' });
  expect400(yaml, unrecognized('[', Buffer.from('apiVersion: v1\nkind: ConfigMap').toString('hex')), 'YAML');
  const yamlFlow = await t.client.request('POST', base, { raw: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep-f\nx: ${nested(10_001, '[')}\n`, contentType: 'application/yaml' });
  const hex = Buffer.from('apiVersion: v1\nkind: ConfigMap').toString('hex');
  expect400(yamlFlow, `the object provided is unrecognized (must be of type ConfigMap): yaml: line 5: exceeded max depth of 10000 (${hex} ...)`, "YAML beyond go-yaml's own limit");
  for (const name of ['deep-a', 'deep-o', 'deep-y', 'deep-f']) assert.is((await t.client.request('GET', `${base}/${name}`)).status, 404, `${name} not created`);
});

test('YAML nested 1,000–9,999 levels (deeper than a recursive parser gets on V8\'s default stack) is accepted as kube accepts it', async () => {
  const blockMap = (levels: number): string => Array.from({ length: levels }, (_, i) => `${' '.repeat(2 * (i + 1))}a:`).join('\n') + ' 1';
  const bodies: Array<[string, string]> = [
    ['yaml-flow-1k', `x: ${nested(1_000, '[')}`],
    ['yaml-flow-4k', `x: ${nested(4_000, '[')}`],
    ['yaml-flow-9999', `x: ${nested(9_999, '[')}`],
    ['yaml-flow-objects-9999', `x: ${nested(9_999, '{')}`],
    ['yaml-block-1k', `x:\n${blockMap(1_000)}`],
  ];
  for (const [name, x] of bodies) {
    const r = await t.client.request('POST', base, { raw: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${x}\n`, contentType: 'application/yaml' });
    assert.is(r.status, 201, `${name}: ${show(r)}`);
    assert.is(r.json.x, undefined, `${name}: the unknown field is dropped`);
  }
});

test('JSON objects nested 9,999 levels with a number inside (deeper than a recursive parser gets on V8\'s default stack): 201 as kube', async () => {
  const r = await t.client.request('POST', base, { raw: cmJson('deep-objects', 'x', nested(9_999, '{')) });
  assert.is(r.status, 201, show(r));
  assert.is(r.json.x, undefined);
});

test('10000 levels are within the limit (an unknown field, dropped)', async () => {
  const r = await t.client.request('POST', base, { raw: cmJson('limit', 'x', nested(9_999, '[')) });
  assert.is(r.status, 201, show(r));
  assert.is(r.json.x, undefined);
});

test('patches nested deeper than the limit: 400 for every patch type, the object unchanged', async () => {
  const before = await t.client.request('GET', `${base}/live`);
  const deepAnnotations = `{"metadata":{"annotations":${nested(10_000, '{')}}}`;
  const merge = await t.client.request('PATCH', `${base}/live`, { raw: deepAnnotations, contentType: 'application/merge-patch+json' });
  expect400(merge, 'Invalid JSON Patch', 'merge patch');
  const strategic = await t.client.request('PATCH', `${base}/live`, { raw: deepAnnotations, contentType: 'application/strategic-merge-patch+json' });
  expect400(strategic, "invalid character '{' exceeded max depth", 'strategic merge patch');
  const jsonPatch = await t.client.request('PATCH', `${base}/live`, { raw: `[{"op":"add","path":"/data","value":${nested(10_000, '{')}}]`, contentType: 'application/json-patch+json' });
  expect400(jsonPatch, "invalid character '{' exceeded max depth", 'JSON patch');
  const applyYaml = await t.client.request('PATCH', `${base}/live?fieldManager=deep`, { raw: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: live\nx: ${nested(10_000, '[')}\n`, contentType: 'application/apply-patch+yaml' });
  expect400(applyYaml, "error decoding YAML: error unmarshaling JSON: while decoding JSON: invalid character '[' exceeded max depth", 'apply (YAML)');
  const applyJson = await t.client.request('PATCH', `${base}/live?fieldManager=deep`, { raw: cmJson('live', 'x', nested(10_000, '[')), contentType: 'application/apply-patch+yaml' });
  // JSON is YAML to apply: go-yaml's own limit (flow collections, 10000) answers first.
  expect400(applyJson, 'error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 10000', 'apply (JSON)');
  // A DeleteOptions body: kube's decoder error there is a plain 500 (no reason), nothing deleted.
  const del = await t.client.request('DELETE', `${base}/live`, { raw: `{"kind":"DeleteOptions","apiVersion":"v1","x":${nested(10_000, '[')}}` });
  assert.is(del.status, 500, show(del));
  assert.is(del.json?.reason, undefined, show(del));
  assert.is(del.json.message, "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth", show(del));
  // The same as YAML: go-yaml's limit (found by the fuzzer: a stack overflow here before).
  const delYaml = await t.client.request('DELETE', `${base}/live`, { raw: nested(20_000, '['), contentType: 'application/yaml' });
  assert.is(delYaml.status, 500, show(delYaml));
  assert.is(delYaml.json?.reason, undefined, show(delYaml));
  assert.is(delYaml.json.message, 'yaml: exceeded max depth of 10000', show(delYaml));
  const after = await t.client.request('GET', `${base}/live`);
  assert.is(after.json.metadata.resourceVersion, before.json.metadata.resourceVersion, 'not written');
  const ready = await t.client.request('GET', '/readyz');
  assert.is(ready.status, 200, ready.text);
});

test.run();
