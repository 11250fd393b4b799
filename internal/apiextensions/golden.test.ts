/**
 * The library against the answers of kube-apiserver 1.24.17 (testdata/golden.json, recorded by
 * testdata/record.ts from testdata/cases.yaml): each custom resource decoded (pruned, coerced,
 * defaulted) and validated must give the reference's Status (code, message, causes) or the object
 * it would store; each CRD schema checked must give the reference's structural-schema errors.
 *
 * kube reports the errors of sibling properties in Go map order, which varies between runs; the
 * causes are compared as sets and the message by its parts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { invalid as invalidStatus } from '../api/errors.ts';
import { FieldPath, fieldErrorMessage } from '../api/field-errors.ts';
import { CoerceError, decodeCustomResource, validateCustomResource } from './custom-resource.ts';
import { loadCases, loadGolden, type Answer } from './testdata/cases.ts';
import { validateCRDSchema } from './structural.ts';
import type { JSONSchemaProps } from './types.ts';

const cases = loadCases();
const golden = loadGolden();

/** Causes as a sorted list of texts; Go heap addresses (`(*int64)(0x…)`) are not reproducible. */
const sortedCauses = (causes: unknown[] | undefined): string[] => (causes ?? []).map((c) => JSON.stringify(c).replace(/\(0x[0-9a-f]+\)/g, '(0xADDR)')).sort();

/** The message's error list (`… is invalid: [a, b]` or `… is invalid: a`) holds exactly `parts`. */
function assertMessageParts(message: string, prefix: string, parts: string[], label: string): void {
  assert.ok(message.startsWith(prefix), `${label}: message ${message}`);
  const rest = message.slice(prefix.length);
  const unique = [...new Set(parts)];
  if (unique.length === 1) return assert.is(rest, unique[0], `${label}: message`);
  assert.ok(rest.startsWith('[') && rest.endsWith(']'), `${label}: ${rest}`);
  for (const p of unique) assert.ok(rest.includes(p), `${label}: message lacks ${p}\n  in ${rest}`);
  assert.is(rest.length, unique.join(', ').length + 2, `${label}: message length (extra parts?) ${rest}`);
}

/** Runs the library on one case; returns what kube-apiserver would answer. */
function answer(plural: string, name: string, object: Record<string, unknown>): Answer {
  const crd = cases.crds.find((c) => c.plural === plural)!;
  const obj: Record<string, unknown> = {
    apiVersion: `${cases.group}/v1`,
    kind: crd.kind,
    ...structuredClone(object),
    metadata: { name, ...(crd.scope === 'Namespaced' ? { namespace: 'default' } : {}), ...(object.metadata as object) },
  };
  const schema = crd.schema as JSONSchemaProps;
  try {
    decodeCustomResource(obj, schema);
  } catch (e) {
    if (!(e instanceof CoerceError)) throw e;
    return { code: 400, body: { message: `${crd.kind} in version "v1" cannot be handled as a ${crd.kind}: ${e.detail}` } };
  }
  if (crd.subresources?.status) delete obj.status; // PrepareForCreate drops it
  const errs = validateCustomResource(obj, schema, crd.subresources?.scale);
  if (errs.length > 0) return { code: 422, body: { ...invalidStatus(crd.kind, cases.group, name, errs).status, parts: errs.map(fieldErrorMessage) } };
  return { code: 201, body: obj };
}

for (const rc of cases.resources) {
  test(`custom resource ${rc.name} answers as kube-apiserver 1.24.17`, () => {
    const want = golden.resources[rc.name];
    assert.ok(want, `no golden answer for ${rc.name}: re-record (testdata/record.ts)`);
    const got = answer(rc.plural, rc.name, rc.object);
    assert.is(got.code, want.code, `${rc.name}: code (got ${JSON.stringify(got.body)})`);
    if (want.code === 201) {
      // generation is the strategy's (PrepareForCreate), not the schema's.
      const { generation: _g, ...wantMeta } = want.body.metadata;
      assert.equal(got.body, { ...want.body, metadata: wantMeta }, `${rc.name}: stored object`);
    } else if (want.code === 400) {
      assert.is(got.body.message, want.body.message, `${rc.name}: message`);
    } else {
      assert.equal(sortedCauses(got.body.details.causes), sortedCauses(want.body.details.causes), `${rc.name}: causes`);
      const prefix = `${want.body.details.kind}.${cases.group} "${rc.name}" is invalid: `;
      assertMessageParts(want.body.message, prefix, got.body.parts, rc.name);
    }
  });
}

// kube-apiserver 1.24 names the schema of a CRD with one version `spec.validation.openAPIV3Schema`
// (the internal version's shared schema), not `spec.versions[0].schema.openAPIV3Schema`.
const SCHEMA_PATH = new FieldPath('spec.validation.openAPIV3Schema');

for (const sc of cases.structural) {
  test(`CRD schema ${sc.name} is checked as kube-apiserver 1.24.17 checks it`, () => {
    const want = golden.structural[sc.name];
    assert.ok(want, `no golden answer for ${sc.name}: re-record (testdata/record.ts)`);
    const errs = sc.v2Schema
      ? [sc.schema, sc.v2Schema].flatMap((x, i) => validateCRDSchema(x as JSONSchemaProps, new FieldPath(`spec.versions[${i}].schema.openAPIV3Schema`)))
      : validateCRDSchema(sc.schema as JSONSchemaProps, SCHEMA_PATH, { statusSubresource: !!sc.subresources?.status });
    if (want.code === 201) return assert.equal(errs.map(fieldErrorMessage), [], `${sc.name}: no errors`);
    assert.is(want.code, 422, sc.name);
    const name = want.body.details.name;
    const got = invalidStatus('CustomResourceDefinition', 'apiextensions.k8s.io', name, errs).status;
    assert.equal(sortedCauses(got.details?.causes), sortedCauses(want.body.details.causes), `${sc.name}: causes`);
    const addr = (t: string): string => t.replace(/\(0x[0-9a-f]+\)/g, '(0xADDR)');
    assertMessageParts(addr(want.body.message), `CustomResourceDefinition.apiextensions.k8s.io "${name}" is invalid: `, errs.map((e) => addr(fieldErrorMessage(e))), sc.name);
  });
}

test.run();
