import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { bootstrapGroups, bootstrapTokenAuthenticator, evaluateBootstrapSecret, parseBootstrapToken, parseRfc3339, timeToExpiry, tokenIdOfSecretName } from './bootstrap.ts';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function secret(data: Record<string, string>, extra: Partial<KubeObject> & { type?: string } = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token', data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])), ...extra } as KubeObject;
}

const GOOD = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };
const NOW = Date.parse('2030-01-01T00:00:00Z');

test('parseBootstrapToken: [a-z0-9]{6}.[a-z0-9]{16} only', () => {
  const cases: [string, boolean][] = [
    ['abcdef.0123456789abcdef', true],
    ['ABCDEF.0123456789abcdef', false],
    ['abcde.0123456789abcdef', false],
    ['abcdef.0123456789abcdefg', false],
    ['abcdef0123456789abcdef', false],
    ['abcdef.0123456789abcdef\n', false],
    [' abcdef.0123456789abcdef', false],
    ['', false],
  ];
  for (const [i, [token, ok]] of cases.entries()) assert.is(parseBootstrapToken(token) !== null, ok, `case ${i}: ${JSON.stringify(token)}`);
  assert.equal(parseBootstrapToken('abcdef.0123456789abcdef'), { id: 'abcdef', secret: '0123456789abcdef' });
  assert.is(tokenIdOfSecretName('bootstrap-token-abc123'), 'abc123');
  assert.is(tokenIdOfSecretName('bootstrap-token-abc12'), null);
});

test('parseRfc3339 agrees with Go 1.26 time.Parse(time.RFC3339, …)', () => {
  // Outputs of Go's time.Parse(time.RFC3339, s).UnixMilli() (null: error), run once by hand.
  const cases: [string, number | null][] = [
    ['2030-01-02T03:04:05Z', 1893553445000],
    ['2030-01-02T03:04:05.123456789Z', 1893553445123],
    ['2030-01-02T03:04:05+02:00', 1893546245000],
    ['2030-01-02T03:04:05-07:30', 1893580445000],
    ['2030-01-02t03:04:05Z', null],
    ['2030-01-02T03:04:05z', null],
    ['2030-01-02 03:04:05Z', null],
    ['2030-02-29T00:00:00Z', null],
    ['2028-02-29T00:00:00Z', 1835395200000],
    ['2030-13-01T00:00:00Z', null],
    ['2030-01-32T00:00:00Z', null],
    ['2030-01-01T24:00:00Z', null],
    ['2030-01-01T00:60:00Z', null],
    ['2030-01-01T00:00:60Z', null],
    ['2030-01-01T00:00:00+24:00', 1893369600000],
    ['2030-01-01T00:00:00+23:59', 1893369660000],
    ['2030-01-01T00:00:00,5Z', 1893456000500],
    ['2030-01-01T00:00:00.Z', null],
    ['30-01-01T00:00:00Z', null],
    ['2030-01-01T00:00:00', null],
    ['0000-01-01T00:00:00Z', -62167219200000],
    ['2030-1-01T00:00:00Z', null],
    ['2030-01-01T00:00:00+0100', null],
    ['tomorrow', null],
    ['', null],
    ['2030-01-01T00:00:00+25:00', null],
    ['2030-01-01T00:00:00+00:61', null],
    ['2030-01-01T00:00:00.1234567891234Z', 1893456000123],
    ['2030-01-01T00:00:00-24:00', 1893542400000],
  ];
  for (const [i, [s, want]] of cases.entries()) assert.is(parseRfc3339(s), want, `case ${i}: ${JSON.stringify(s)}`);
});

test('timeToExpiry: none, left, passed, unparseable (= expired)', () => {
  assert.is(timeToExpiry(secret(GOOD), NOW), null);
  assert.is(timeToExpiry(secret({ ...GOOD, expiration: '2030-01-01T00:00:10Z' }), NOW), 10_000);
  assert.is(timeToExpiry(secret({ ...GOOD, expiration: '2030-01-01T00:00:00Z' }), NOW), 'expired');
  assert.is(timeToExpiry(secret({ ...GOOD, expiration: 'soon' }), NOW), 'expired');
});

test('bootstrapGroups: default group, extras validated, sorted and de-duplicated', () => {
  assert.equal(bootstrapGroups(secret(GOOD)), ['system:bootstrappers']);
  assert.equal(bootstrapGroups(secret({ ...GOOD, 'auth-extra-groups': 'system:bootstrappers:b,system:bootstrappers:a-1:x,system:bootstrappers:b' })), ['system:bootstrappers', 'system:bootstrappers:a-1:x', 'system:bootstrappers:b']);
  const bad = ['system:masters', 'system:bootstrappers:', 'system:bootstrappers:a-', 'system:bootstrappers:A', 'system:bootstrappers:a,', ` system:bootstrappers:a`, `system:bootstrappers:${'a'.repeat(257)}`];
  for (const [i, g] of bad.entries()) assert.throws(() => bootstrapGroups(secret({ ...GOOD, 'auth-extra-groups': g })), /bootstrap group .* is invalid/, `case ${i}`);
  assert.equal(bootstrapGroups(secret({ ...GOOD, 'auth-extra-groups': `system:bootstrappers:${'a'.repeat(256)}` })).length, 2);
});

test('evaluateBootstrapSecret: each refusal, in kube\'s order', () => {
  const tok = { id: 'abcdef', secret: '0123456789abcdef' };
  const cases: [string, KubeObject, string | null][] = [
    ['valid', secret(GOOD), null],
    ['deleting', secret(GOOD, { metadata: { name: 'bootstrap-token-abcdef', deletionTimestamp: '2029-01-01T00:00:00Z' } }), 'deleted'],
    ['type', secret(GOOD, { type: 'Opaque' }), 'type'],
    ['no data', { ...secret(GOOD), data: undefined } as KubeObject, 'type'],
    ['secret', secret({ ...GOOD, 'token-secret': '0123456789abcdeX' }), 'secret'],
    ['short secret', secret({ ...GOOD, 'token-secret': '0123' }), 'secret'],
    ['id', secret({ ...GOOD, 'token-id': 'zzzzzz' }), 'id'],
    ['expired', secret({ ...GOOD, expiration: '2029-12-31T23:59:59Z' }), 'expired'],
    ['usage', secret({ ...GOOD, 'usage-bootstrap-authentication': 'True' }), 'usage'],
    ['groups', secret({ ...GOOD, 'auth-extra-groups': 'system:masters' }), 'groups'],
  ];
  for (const [i, [what, s, want]] of cases.entries()) {
    const r = evaluateBootstrapSecret(s, tok, NOW);
    assert.is('rejected' in r ? r.rejected : null, want, `case ${i}: ${what}`);
  }
  assert.equal(evaluateBootstrapSecret(secret(GOOD), tok, NOW), { user: { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] } });
});

test('bootstrapTokenAuthenticator: looks up bootstrap-token-<id>; a missing Secret is no error', async () => {
  const asked: string[] = [];
  const rejected: string[] = [];
  const a = bootstrapTokenAuthenticator({
    getSecret: async (name) => {
      asked.push(name);
      return name === 'bootstrap-token-abcdef' ? secret(GOOD) : null;
    },
    onRejected: (_n, why) => rejected.push(why),
    now: () => NOW,
  });
  assert.equal(await a.authenticateToken('abcdef.0123456789abcdef', {}), { user: { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] }, audiences: [] });
  assert.is(await a.authenticateToken('abcdef.0123456789abcdex', {}), null);
  assert.is(await a.authenticateToken('zzzzzz.0123456789abcdef', {}), null);
  assert.is(await a.authenticateToken('not-a-token', {}), null);
  assert.equal(asked, ['bootstrap-token-abcdef', 'bootstrap-token-abcdef', 'bootstrap-token-zzzzzz']);
  assert.equal(rejected, ['secret']);
  const failing = bootstrapTokenAuthenticator({ getSecret: async () => Promise.reject(new Error('storage down')) });
  await a.authenticateToken('abcdef.0123456789abcdef', {});
  await failing.authenticateToken('abcdef.0123456789abcdef', {}).then(
    () => assert.unreachable(),
    (e: Error) => assert.is(e.message, 'storage down'),
  );
});

test.run();
