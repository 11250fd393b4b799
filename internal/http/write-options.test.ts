/**
 * Unit tests of the write options (pure: query/body in, options or ApiError out). The HTTP
 * behaviour, checked against the reference kube-apiserver, is in test/fidelity/delete-options.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../api/errors.ts';
import { deleteOptions, createOptions, patchOptions } from './write-options.ts';
import { encodeProtobuf, PROTOBUF } from './protobuf.ts';

const q = (s: string): URLSearchParams => new URLSearchParams(s);
const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

test('DeleteOptions: the body wins over the query entirely; the query is used only without a body', () => {
  const fromQuery = deleteOptions(q('dryRun=All&gracePeriodSeconds=5&propagationPolicy=Orphan'), undefined, Buffer.alloc(0));
  assert.equal(fromQuery, { dryRun: true, options: { gracePeriodSeconds: 5, propagationPolicy: 'Orphan' } });
  const fromBody = deleteOptions(q('dryRun=All&propagationPolicy=bad'), 'application/json', json({ preconditions: { uid: 'u', resourceVersion: '7' }, orphanDependents: false }));
  assert.equal(fromBody, { dryRun: false, options: { preconditions: { uid: 'u', resourceVersion: '7' }, orphanDependents: false } });
  const yaml = deleteOptions(q(''), 'application/yaml', Buffer.from('dryRun: [All]\npropagationPolicy: Foreground\n'));
  assert.equal(yaml, { dryRun: true, options: { propagationPolicy: 'Foreground' } });
  const pb = encodeProtobuf({ apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', dryRun: ['All'], gracePeriodSeconds: 0, preconditions: { uid: 'u' } });
  assert.equal(deleteOptions(q(''), PROTOBUF, pb), { dryRun: true, options: { gracePeriodSeconds: 0, preconditions: { uid: 'u' } } });
});

test('DeleteOptions errors: 422 (validation), 400 (query conversion), 500 (body decoding), 415', () => {
  const cases: [URLSearchParams, string | undefined, Buffer, number, string][] = [
    [q('propagationPolicy=x'), undefined, Buffer.alloc(0), 422, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "x": supported values: "Foreground", "Background", "Orphan", "nil"'],
    [q('dryRun=x&dryRun=y'), undefined, Buffer.alloc(0), 422, 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"x", "y"}: supported values: "All"'],
    [q('gracePeriodSeconds=1.5'), undefined, Buffer.alloc(0), 400, 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    [q('gracePeriodSeconds=9223372036854775808'), undefined, Buffer.alloc(0), 400, 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    [q(''), 'application/json', json({ dryRun: 'All' }), 500, 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string'],
    [q(''), 'application/json', json({ kind: 'Secret', apiVersion: 'v1' }), 500, 'no kind "Secret" is registered for version "v1" in scheme "pkg/runtime/scheme.go:100"'],
    [q(''), 'text/plain', Buffer.from('x'), 415, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf'],
  ];
  for (const [i, [query, ct, body, code, message]] of cases.entries()) {
    const e = thrown(() => deleteOptions(query, ct, body));
    assert.equal([e.code, e.status.message], [code, message], `case ${i}`);
  }
});

test('Create/Patch options: every error at once, in kube order, on the verb kind', () => {
  const e = thrown(() => patchOptions(q('force=true&fieldManager=a%01&dryRun=x&fieldValidation=No'), false));
  assert.equal(e.status.details?.kind, 'PatchOptions');
  assert.equal(
    e.status.details?.causes?.map((c) => c.field),
    ['force', 'fieldManager', 'dryRun', 'fieldValidation'],
  );
  assert.equal(createOptions(q('dryRun=All&fieldManager=é&fieldValidation=Strict')), { dryRun: true, fieldManager: 'é', fieldValidation: 'Strict' });
  const apply = thrown(() => patchOptions(q(''), true));
  assert.equal(apply.status.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
});

test.run();
