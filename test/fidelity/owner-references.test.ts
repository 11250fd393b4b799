/**
 * metadata.ownerReferences validation (apimachinery ValidateOwnerReferences): whole 422 bodies
 * for missing fields, an unparsable apiVersion, a banned owner kind and two controllers, and the
 * references kube accepts (a cluster-scoped object naming a namespaced owner, "/v1"). Runs on
 * both targets. Go prints pointer fields as heap addresses: those are normalized.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, normalize, type Target } from '../target.ts';
import { show } from '../assertions.ts';
import type { Client } from '../harness.ts';

let t: Target;
let c: Client;
let ns: string;

const cms = (): string => `/api/v1/namespaces/${ns}/configmaps`;
const withRefs = (name: string, ownerReferences: unknown[]) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences } });
const ref = (extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u1', ...extra });

/** The body with Go heap addresses and the run's namespace replaced. */
const norm = (v: unknown): unknown => JSON.parse(JSON.stringify(normalize(v, { [ns]: 'NS' })).replace(/0x[0-9a-f]+/g, '0xADDR'));

function invalidBody(name: string, causes: { field: string; message: string }[]): unknown {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `ConfigMap "${name}" is invalid: ${causes.length === 1 ? '' : '['}${causes.map((x) => `${x.field}: ${x.message}`).join(', ')}${causes.length === 1 ? '' : ']'}`,
    reason: 'Invalid',
    details: { name, kind: 'ConfigMap', causes: causes.map((x) => ({ reason: 'FieldValueInvalid', message: x.message, field: x.field })) },
    code: 422,
  };
}

test.before(async () => {
  t = await startTarget();
  c = t.client;
  ns = await t.createNamespace('owner-refs');
});

test.after(async () => {
  await c.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const cases: { name: string; refs: unknown[]; causes: { field: string; message: string }[] }[] = [
  {
    name: 'empty-fields',
    refs: [{ apiVersion: '', kind: '', name: '', uid: '' }],
    causes: [
      { field: 'metadata.ownerReferences.apiVersion', message: 'Invalid value: "": version must not be empty' },
      { field: 'metadata.ownerReferences.kind', message: 'Invalid value: "": kind must not be empty' },
      { field: 'metadata.ownerReferences.name', message: 'Invalid value: "": name must not be empty' },
      { field: 'metadata.ownerReferences.uid', message: 'Invalid value: "": uid must not be empty' },
    ],
  },
  { name: 'three-parts', refs: [ref({ apiVersion: 'a/b/c' })], causes: [{ field: 'metadata.ownerReferences.apiVersion', message: 'Invalid value: "a/b/c": version must not be empty' }] },
  { name: 'group-no-version', refs: [ref({ apiVersion: 'apps/' })], causes: [{ field: 'metadata.ownerReferences.apiVersion', message: 'Invalid value: "apps/": version must not be empty' }] },
  {
    name: 'banned-owner',
    refs: [ref({ kind: 'Event', controller: true })],
    causes: [
      {
        field: 'metadata.ownerReferences',
        message:
          'Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"o", UID:"u1", Controller:(*bool)(0xADDR), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
      },
    ],
  },
  {
    name: 'two-controllers',
    refs: [ref({ name: 'a', controller: true }), ref({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'b', uid: 'u2', controller: true, blockOwnerDeletion: false })],
    causes: [
      {
        field: 'metadata.ownerReferences',
        message:
          'Invalid value: []v1.OwnerReference{v1.OwnerReference{APIVersion:"v1", Kind:"ConfigMap", Name:"a", UID:"u1", Controller:(*bool)(0xADDR), BlockOwnerDeletion:(*bool)(nil)}, v1.OwnerReference{APIVersion:"apps/v1", Kind:"Deployment", Name:"b", UID:"u2", Controller:(*bool)(0xADDR), BlockOwnerDeletion:(*bool)(0xADDR)}}: Only one reference can have Controller set to true. Found "true" in references for a and b',
      },
    ],
  },
];

/**
 * The parts of a 422 this validation decides: the message and each cause's field and message
 * (without a `field: ` prefix, which the Status encoding owns), in order.
 */
function essentials(body: any): unknown {
  const causes = ((body?.details?.causes ?? []) as { field: string; message: string }[]).map((x) => ({
    field: x.field,
    message: x.message.startsWith(`${x.field}: `) ? x.message.slice(x.field.length + 2) : x.message,
  }));
  return norm({ code: body?.code, reason: body?.reason, message: body?.message, causes });
}

cases.forEach((k, i) => {
  test(`invalid case ${i}: ${k.name}`, async () => {
    const r = await c.request('POST', cms(), { body: withRefs(k.name, k.refs) });
    assert.is(r.status, 422, `case ${i}: ${show(r)}`);
    assert.equal(essentials(r.json), essentials(invalidBody(k.name, k.causes)), `case ${i}`);
    // The same rules hold on update. (kube's ConfigMap update validation runs the ObjectMeta
    // checks twice and lists each cause twice; only the distinct causes are compared here.)
    await c.request('POST', cms(), { body: withRefs(`${k.name}-u`, []) });
    const u = await c.request('PATCH', `${cms()}/${k.name}-u`, { body: { metadata: { ownerReferences: k.refs } }, contentType: 'application/merge-patch+json' });
    assert.is(u.status, 422, `case ${i} (update): ${show(u)}`);
    const distinct = (v: unknown): unknown => [...new Set(((v as any).causes as unknown[]).map((x) => JSON.stringify(x)))];
    assert.equal(distinct(essentials(u.json)), distinct(essentials(invalidBody(k.name, k.causes))), `case ${i} (update)`);
  });
});

test('accepted: "/v1", one controller among several, and a cluster-scoped object naming a namespaced owner', async () => {
  const a = await c.request('POST', cms(), { body: withRefs('ok-refs', [ref({ apiVersion: '/v1' }), ref({ name: 'p', uid: 'u2', controller: true }), ref({ name: 'q', uid: 'u3', controller: false })]) });
  assert.is(a.status, 201, show(a));
  assert.is(a.json.metadata.ownerReferences.length, 3);
  // A namespace "owned" by a ConfigMap: validation accepts it (only the GC refuses the pairing).
  const name = t.ns('owned-ns');
  const n = await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name, ownerReferences: [ref()] } } });
  assert.is(n.status, 201, show(n));
  await c.request('DELETE', `/api/v1/namespaces/${name}`);
});

test.run();
