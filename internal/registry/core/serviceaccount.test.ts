import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from './testing.ts';
import { serviceAccountKind, cleanSecretReferences } from './serviceaccount.ts';

const sa = (fields: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 's', namespace: 'default', resourceVersion: '1', creationTimestamp: '2026-01-01T00:00:00Z' },
  ...fields,
});
const S = serviceAccountKind.strategy;

test('descriptor', () => {
  assert.is(serviceAccountKind.resource, 'serviceaccounts');
  assert.is(serviceAccountKind.singular, 'serviceaccount');
  assert.is(serviceAccountKind.kind, 'ServiceAccount');
  assert.is(serviceAccountKind.listKind, 'ServiceAccountList');
  assert.is(serviceAccountKind.group, '');
  assert.equal(serviceAccountKind.versions, ['v1']);
  assert.ok(serviceAccountKind.namespaced);
  assert.equal(serviceAccountKind.shortNames, ['sa']);
  assert.is(serviceAccountKind.categories, undefined);
  assert.is(serviceAccountKind.deleteReturns, 'Object');
  assert.is(S.allowCreateOnUpdate, false);
  assert.is(S.allowUnconditionalUpdate, true);
});

const cleanCases: { name: string; secrets: unknown; want: unknown }[] = [
  { name: 'absent', secrets: undefined, want: undefined },
  { name: 'empty', secrets: [], want: [] },
  { name: 'name only', secrets: [{ name: 'a' }], want: [{ name: 'a' }] },
  {
    name: 'every ObjectReference field but name dropped',
    secrets: [{ kind: 'Secret', namespace: 'other', name: 'a', uid: 'u', apiVersion: 'v1', resourceVersion: '5', fieldPath: 'x' }],
    want: [{ name: 'a' }],
  },
  { name: 'no name → {}', secrets: [{ kind: 'Secret' }, {}], want: [{}, {}] },
  { name: 'empty name → {}', secrets: [{ name: '' }], want: [{}] },
  { name: 'order kept', secrets: [{ name: 'b' }, { name: 'a', kind: 'Secret' }], want: [{ name: 'b' }, { name: 'a' }] },
];

cleanCases.forEach((c, i) => {
  test(`cleanSecretReferences ${i}: ${c.name}`, () => {
    const o = sa(c.secrets === undefined ? {} : { secrets: structuredClone(c.secrets) });
    cleanSecretReferences(o);
    assert.equal(o.secrets, c.want);
  });
});

test('prepareForCreate and prepareForUpdate clean secret references; other fields untouched', () => {
  const o = sa({ secrets: [{ name: 'a', kind: 'Secret' }], imagePullSecrets: [{ name: 'p' }], automountServiceAccountToken: false });
  S.prepareForCreate!(o);
  assert.equal(o.secrets, [{ name: 'a' }]);
  assert.equal(o.imagePullSecrets, [{ name: 'p' }]);
  assert.is(o.automountServiceAccountToken, false);
  const n = sa({ secrets: [{ name: 'b', namespace: 'x' }] });
  S.prepareForUpdate!(n, o);
  assert.equal(n.secrets, [{ name: 'b' }]);
});

test('validation: nothing beyond ObjectMeta (create and update)', () => {
  check('create', S.validate(sa({ secrets: [{}], imagePullSecrets: [{}], automountServiceAccountToken: true })), []);
  check('update', S.validateUpdate(sa({ automountServiceAccountToken: false }), sa({ automountServiceAccountToken: true })), []);
});

test('table: NAME SECRETS AGE, secrets counted', () => {
  const t = serviceAccountKind.table!;
  assert.equal(
    t.columns.map((c) => [c.name, c.type, c.format ?? '', c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Secrets', 'string', '', 0],
      ['Age', 'string', '', 0],
    ],
  );
  assert.equal(t.cells(sa({ secrets: [{ name: 'a' }, {}] })), ['s', 2, '2026-01-01T00:00:00Z']);
  assert.equal(t.cells(sa()), ['s', 0, '2026-01-01T00:00:00Z']);
});

test.run();
