import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../api/errors.ts';
import { applyBodyDuplicates, decodeApplyBody } from './negotiation.ts';

const dec = (s: string): unknown => decodeApplyBody(Buffer.from(s));
const err = (s: string): [number, string | undefined] => {
  try {
    dec(s);
  } catch (e) {
    if (e instanceof ApiError) return [e.code, e.status.message];
    throw e;
  }
  return [0, undefined];
};

test('decodeApplyBody: JSON, YAML 1.1 (go-yaml v2), first document, empty', () => {
  const cases: Array<[string, unknown]> = [
    ['{"apiVersion":"v1","data":{"a":"1"}}', { apiVersion: 'v1', data: { a: '1' } }],
    ['apiVersion: v1\ndata:\n  a: "1"\n  b: yes\n', { apiVersion: 'v1', data: { a: '1', b: true } }],
    ['# comment\n{"a": 1} # flow YAML with a comment', { a: 1 }],
    ['a: 1\n---\nb: 2\n', { a: 1 }],
    ['', {}],
    ['null', {}],
    ['{"a":1,"a":2}', { a: 2 }],
  ];
  for (const [body, want] of cases) assert.equal(dec(body), want, body);
});

test('decodeApplyBody: anything but a map is a 400 with encoding/json words', () => {
  assert.equal(err('[1]'), [400, 'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}']);
  assert.equal(err('"x"'), [400, 'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}']);
  assert.is(err('a: [')[0], 400);
});

test('applyBodyDuplicates: go-yaml strict messages with lines, YAML and JSON', () => {
  assert.equal(applyBodyDuplicates(Buffer.from('data:\n  a: "1"\n  a: "2"\n  "b": p\n  "b": q\n')), ['line 3: key "a" already set in map', 'line 5: key "b" already set in map']);
  assert.equal(applyBodyDuplicates(Buffer.from('{"data":{"a":"1"},"data":{"b":"2"}}')), ['line 1: key "data" already set in map']);
  assert.equal(applyBodyDuplicates(Buffer.from('a: 1\nb: 2\n')), []);
});

test.run();
