import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync } from 'node:crypto';
import type { KubeObject } from '../../api/types.ts';
import { serviceAccountTokenAuthenticators, TokenRejected, type ServiceAccountTokenGetter } from './authenticator.ts';
import { boundClaims, jwtTokenGenerator, legacyClaims } from './tokens.ts';
import { algorithmOf, keyId } from './keys.ts';

// The validators' rules, table-driven over an in-memory account/Pod/Secret table (the HTTP suites
// drive the same code through real servers; these reach the corners they cannot, such as a
// deletionTimestamp a minute old).
const NOW = 1_800_000_000;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signing = { key: privateKey, alg: algorithmOf(privateKey), kid: keyId(privateKey) };
const ISSUER = 'https://issuer.example';
const bound = jwtTokenGenerator(ISSUER, signing);
const legacy = jwtTokenGenerator('kubernetes/serviceaccount', signing);
const iso = (s: number) => new Date(s * 1000).toISOString().replace(/\.000Z$/, 'Z');

type Objects = Record<string, KubeObject | undefined>;
const obj = (name: string, uid: string, extra: Partial<KubeObject['metadata']> = {}, more: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, namespace: 'ns', uid, ...extra }, ...more });
const getter = (o: Objects): ServiceAccountTokenGetter => ({
  serviceAccount: async (_ns, n) => o[`sa/${n}`] ?? null,
  pod: async (_ns, n) => o[`pod/${n}`] ?? null,
  secret: async (_ns, n) => o[`secret/${n}`] ?? null,
});
const sa = { namespace: 'ns', name: 'bot', uid: 'u-sa' };
const base: Objects = { 'sa/bot': obj('bot', 'u-sa'), 'pod/p': obj('p', 'u-pod'), 'secret/s': obj('s', 'u-sec') };

interface Case {
  name: string;
  token: () => Promise<string>;
  objects?: Objects;
  lookup?: boolean;
  /** Expected username, or the rejection message, or null (not a service-account token). */
  want: string | { rejected: RegExp } | null;
  extra?: Record<string, string[]>;
}

const b = (over: { exp?: number; nbf?: number; aud?: string[]; pod?: boolean; secret?: boolean } = {}) => () =>
  bound.generate({ ...boundClaims(sa, { ...(over.pod ? { pod: { name: 'p', uid: 'u-pod' } } : {}), ...(over.secret ? { secret: { name: 's', uid: 'u-sec' } } : {}) }, NOW - 10, 3600, 0, over.aud ?? ['api']), ...(over.exp !== undefined ? { exp: over.exp } : {}), ...(over.nbf !== undefined ? { nbf: over.nbf } : {}) });
const legacyToken = (secretName = 's') => () => legacy.generate(legacyClaims(sa, secretName));
const withData = (token: string): Objects => ({ ...base, 'secret/s': obj('s', 'u-sec', {}, { data: { token: Buffer.from(token).toString('base64') } }) });

const cases: Case[] = [
  { name: 'bound: valid', token: b(), want: 'system:serviceaccount:ns:bot' },
  { name: 'bound: pod extra', token: b({ pod: true }), want: 'system:serviceaccount:ns:bot', extra: { 'authentication.kubernetes.io/pod-name': ['p'], 'authentication.kubernetes.io/pod-uid': ['u-pod'] } },
  { name: 'bound: expired within the leeway', token: b({ exp: NOW - 59 }), want: 'system:serviceaccount:ns:bot' },
  { name: 'bound: expired beyond the leeway', token: b({ exp: NOW - 61 }), want: { rejected: /has expired/ } },
  { name: 'bound: not yet valid beyond the leeway', token: b({ nbf: NOW + 61 }), want: { rejected: /not valid yet/ } },
  { name: 'bound: audience not served', token: b({ aud: ['vault'] }), want: { rejected: /token audiences \["vault"\] is invalid for the target audiences \["api"\]/ } },
  { name: 'bound: account gone', token: b(), objects: { ...base, 'sa/bot': undefined }, want: { rejected: /not found/ } },
  { name: 'bound: account re-created', token: b(), objects: { ...base, 'sa/bot': obj('bot', 'other') }, want: { rejected: /does not match claim/ } },
  { name: 'bound: account deleted 30 s ago', token: b(), objects: { ...base, 'sa/bot': obj('bot', 'u-sa', { deletionTimestamp: iso(NOW - 30) }) }, want: 'system:serviceaccount:ns:bot' },
  { name: 'bound: account deleted 2 min ago', token: b(), objects: { ...base, 'sa/bot': obj('bot', 'u-sa', { deletionTimestamp: iso(NOW - 120) }) }, want: { rejected: /has been deleted/ } },
  { name: 'bound: pod gone', token: b({ pod: true }), objects: { ...base, 'pod/p': undefined }, want: { rejected: /invalidated/ } },
  { name: 'bound: pod terminating (deletion in the future)', token: b({ pod: true }), objects: { ...base, 'pod/p': obj('p', 'u-pod', { deletionTimestamp: iso(NOW + 30) }) }, want: 'system:serviceaccount:ns:bot' },
  { name: 'bound: pod marked deleted 2 min ago', token: b({ pod: true }), objects: { ...base, 'pod/p': obj('p', 'u-pod', { deletionTimestamp: iso(NOW - 120) }) }, want: { rejected: /invalidated/ } },
  { name: 'bound: pod re-created', token: b({ pod: true }), objects: { ...base, 'pod/p': obj('p', 'other') }, want: { rejected: /pod UID/ } },
  { name: 'bound: secret gone', token: b({ secret: true }), objects: { ...base, 'secret/s': undefined }, want: { rejected: /invalidated/ } },
  { name: 'bound: secret re-created', token: b({ secret: true }), objects: { ...base, 'secret/s': obj('s', 'other') }, want: { rejected: /secret UID/ } },
  { name: 'not a JWT', token: async () => 'abcdef', want: null },
  { name: 'another issuer', token: () => jwtTokenGenerator('https://oidc.example', signing).generate({ sub: 'x' }), want: null },
  { name: 'legacy: valid', token: legacyToken(), objects: undefined, want: 'system:serviceaccount:ns:bot' },
  { name: 'legacy: secret gone', token: legacyToken(), objects: { ...base, 'secret/s': undefined }, want: { rejected: /Token has been invalidated/ } },
  { name: 'legacy: secret holds another token', token: legacyToken(), objects: withData('other'), want: { rejected: /does not match server's copy/ } },
  { name: 'legacy: without lookup nothing is read', token: legacyToken(), objects: {}, lookup: false, want: 'system:serviceaccount:ns:bot' },
  { name: 'legacy: sub of another account', token: () => legacy.generate({ ...legacyClaims(sa, 's'), sub: 'system:serviceaccount:ns:admin' }), want: { rejected: /sub claim is invalid/ } },
  { name: 'legacy: claim missing', token: () => legacy.generate({ ...legacyClaims(sa, 's'), 'kubernetes.io/serviceaccount/secret.name': '' }), want: { rejected: /secretName claim is missing/ } },
];

cases.forEach((c, i) => {
  test(`validators ${i}: ${c.name}`, async () => {
    const token = await c.token();
    const objects = c.objects ?? withData(token);
    const [leg, bnd] = serviceAccountTokenAuthenticators({ issuers: [ISSUER], keys: [privateKey], apiAudiences: ['api'], lookup: c.lookup ?? true, getter: getter(objects), now: () => NOW });
    let got: string | null | { rejected: string } = null;
    try {
      const r = (await leg!.authenticateToken(token)) ?? (await bnd!.authenticateToken(token));
      got = r ? r.user.username : null;
      if (r && c.extra) assert.equal(r.user.extra, c.extra, `case ${i}`);
      if (r) assert.equal(r.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'], `case ${i}`);
    } catch (e) {
      assert.instance(e, TokenRejected, `case ${i}: ${(e as Error).message}`);
      got = { rejected: (e as Error).message };
    }
    if (c.want === null || typeof c.want === 'string') assert.equal(got, c.want, `case ${i}`);
    else {
      assert.ok(got && typeof got === 'object', `case ${i}: expected a rejection, got ${JSON.stringify(got)}`);
      assert.match(got.rejected, c.want.rejected, `case ${i}`);
    }
  });
});

test.run();
