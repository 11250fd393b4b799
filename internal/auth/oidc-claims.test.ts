/**
 * The pure OIDC rules (oidc-claims.ts), table-driven: flag defaulting and start-up errors (the
 * messages were read off kube-apiserver 1.24.17 started with each value), the unverified-issuer
 * peek, go-oidc's claim checks and kube's claims → user mapping.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addRequiredClaim, checkIdToken, effectiveUsernamePrefix, oidcConfigFromFlags, parseSigningAlgs, untrustedIssuer, userFromClaims, type OidcFlags } from './oidc-claims.ts';

const ISS = 'https://issuer.test';
const base: OidcFlags = { issuerUrl: ISS, clientId: 'kube', usernameClaim: 'sub', usernamePrefix: '', groupsClaim: '', groupsPrefix: '', signingAlgs: ['RS256'], requiredClaims: {} };

test('username prefix defaulting (kube newAuthenticatorFromOIDCIssuerURL)', () => {
  const cases: [claim: string, given: string, want: string][] = [
    ['sub', '', `${ISS}#`],
    ['name', '', `${ISS}#`],
    ['email', '', ''],
    ['sub', '-', ''],
    ['email', '-', ''],
    ['sub', 'oidc:', 'oidc:'],
    ['email', 'oidc:', 'oidc:'],
  ];
  cases.forEach(([claim, given, want], i) => assert.is(effectiveUsernamePrefix(ISS, claim, given), want, `case ${i}`));
});

test('flags → config: kube start-up errors', () => {
  const cases: [Partial<OidcFlags>, string][] = [
    [{ clientId: '' }, 'oidc-issuer-url and oidc-client-id should be specified together'],
    [{ issuerUrl: '' }, 'oidc-issuer-url and oidc-client-id should be specified together'],
    [{ issuerUrl: 'http://127.0.0.1:9/x' }, `'oidc-issuer-url' ("http://127.0.0.1:9/x") has invalid scheme ("http"), require 'https'`],
    [{ issuerUrl: 'issuer.test' }, `'oidc-issuer-url' ("issuer.test") has invalid scheme (""), require 'https'`],
    [{ issuerUrl: ':bad' }, 'parse ":bad": missing protocol scheme'],
    [{ usernameClaim: '' }, 'no username claim provided'],
    [{ signingAlgs: ['RS256', 'HS256'] }, 'oidc: unsupported signing alg: "HS256"'],
  ];
  cases.forEach(([f, msg], i) => assert.throws(() => oidcConfigFromFlags({ ...base, ...f }), (e: Error) => e.message === msg, `case ${i}`));
  assert.is(oidcConfigFromFlags({ ...base, issuerUrl: '', clientId: '' }), null);
  const cfg = oidcConfigFromFlags({ ...base, signingAlgs: [] })!;
  assert.equal(cfg.signingAlgs, ['RS256']);
  assert.is(cfg.usernamePrefix, `${ISS}#`);
});

test('repeatable flags: --oidc-signing-algs (CSV, replaces the default) and --oidc-required-claim', () => {
  assert.equal(parseSigningAlgs([]), ['RS256']);
  assert.equal(parseSigningAlgs(['ES256,RS256', 'PS256']), ['ES256', 'RS256', 'PS256']);
  const m: Record<string, string> = {};
  addRequiredClaim(m, ' tenant = acme ');
  addRequiredClaim(m, 'a=b=c');
  addRequiredClaim(m, 'tenant=other');
  assert.equal(m, { tenant: 'other', a: 'b=c' });
  assert.throws(() => addRequiredClaim(m, 'novalue'), /malformed pair, expect string=string/);
});

const seg = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

test('untrusted issuer of a token', () => {
  assert.is(untrustedIssuer(`x.${seg({ iss: ISS })}.y`), ISS);
  assert.is(untrustedIssuer(`x.${seg({ iss: 'accounts.google.com' })}.y`), 'https://accounts.google.com');
  assert.is(untrustedIssuer(`x.${seg({ sub: 'a' })}.y`), '');
  assert.is(untrustedIssuer(`x.${seg({ iss: 5 })}.y`), null);
  assert.is(untrustedIssuer(`x.${seg({ iss: ISS })}`), null);
  assert.is(untrustedIssuer(`x.${seg({ iss: ISS })}=.y`), null);
  assert.is(untrustedIssuer('abcdef'), null);
});

test('claim checks (go-oidc Verify order)', () => {
  const now = 1_700_000_000_000;
  const ok = { iss: ISS, aud: 'kube', exp: now / 1000 + 60, sub: 'a' };
  const cfg = { issuerUrl: ISS, clientId: 'kube', signingAlgs: ['RS256'] };
  const cases: [Record<string, unknown>, Record<string, unknown>, RegExp | null][] = [
    [{ alg: 'RS256' }, ok, null],
    [{ alg: 'RS256' }, { ...ok, aud: ['x', 'kube'] }, null],
    [{ alg: 'RS256' }, { ...ok, iss: 'https://other' }, /different provider, expected "https:\/\/issuer.test" got "https:\/\/other"/],
    [{ alg: 'RS256' }, { ...ok, aud: 'other' }, /expected audience "kube" got \["other"\]/],
    [{ alg: 'RS256' }, { ...ok, exp: now / 1000 - 1 }, /token is expired \(Token Expiry: 2023-11-14 22:13:19 \+0000 UTC\)/],
    [{ alg: 'RS256' }, { ...ok, exp: undefined }, /token is expired \(Token Expiry: 0001-01-01/],
    [{ alg: 'RS256' }, { ...ok, nbf: now / 1000 + 59 }, null],
    [{ alg: 'RS256' }, { ...ok, nbf: now / 1000 + 61 }, /before the nbf/],
    [{ alg: 'ES256' }, ok, /unsupported algorithm, expected \["RS256"\] got "ES256"/],
    [{ alg: 'none' }, ok, /unsupported algorithm/],
    [{ alg: 'RS256' }, { ...ok, _claim_names: { groups: 'src1' } }, /source does not exist/],
    [{ alg: 'RS256' }, { ...ok, _claim_names: { groups: '' } }, /failed to obtain source/],
    [{ alg: 'RS256' }, { ...ok, aud: 5 }, /failed to unmarshal claims/],
    // Issuer before audience before expiry: the first failing check is the one reported.
    [{ alg: 'ES256' }, { ...ok, iss: 'x', aud: 'y', exp: 1 }, /different provider/],
  ];
  cases.forEach(([h, p, want], i) => {
    const got = checkIdToken(h, p, cfg, now);
    if (want === null) assert.is(got, null, `case ${i}: ${got}`);
    else assert.match(got ?? '', want, `case ${i}: ${got}`);
  });
});

test('claims → user (kube AuthenticateToken)', () => {
  const cfg = { usernameClaim: 'email', usernamePrefix: 'oidc:', groupsClaim: 'groups', groupsPrefix: 'g:', requiredClaims: { tenant: 'acme' } };
  const cases: [Record<string, unknown>, Partial<typeof cfg>, { username: string; groups: string[] } | RegExp][] = [
    [{ email: 'a@x', groups: ['d', 'o'], tenant: 'acme' }, {}, { username: 'oidc:a@x', groups: ['g:d', 'g:o'] }],
    [{ email: 'a@x', email_verified: true, groups: 'd', tenant: 'acme' }, {}, { username: 'oidc:a@x', groups: ['g:d'] }],
    [{ email: 'a@x', tenant: 'acme' }, {}, { username: 'oidc:a@x', groups: [] }],
    [{ email: 'a@x', groups: null, tenant: 'acme' }, {}, { username: 'oidc:a@x', groups: [] }],
    [{ email: 'a@x', email_verified: false, tenant: 'acme' }, {}, /^oidc: email not verified$/],
    [{ email: 'a@x', email_verified: null, tenant: 'acme' }, {}, /^oidc: email not verified$/],
    [{ email: 'a@x', email_verified: 'true', tenant: 'acme' }, {}, /parse 'email_verified' claim: json: cannot unmarshal string into Go value of type bool/],
    // email_verified only matters when the username claim is email.
    [{ sub: 's', email_verified: false, tenant: 'acme' }, { usernameClaim: 'sub' }, { username: 'oidc:s', groups: [] }],
    [{ sub: 's', tenant: 'acme' }, {}, /parse username claims "email": claim not present/],
    [{ email: 7, tenant: 'acme' }, {}, /cannot unmarshal number into Go value of type string/],
    [{ email: 'a@x', groups: [1], tenant: 'acme' }, {}, /parse groups claim "groups"/],
    [{ email: 'a@x', groups: ['d'] }, {}, /^oidc: required claim tenant not present in ID token$/],
    [{ email: 'a@x', tenant: 'other' }, {}, /^oidc: required claim tenant value does not match. Got = other, want = acme$/],
    [{ email: 'a@x', tenant: ['acme'] }, {}, /parse claim tenant/],
    [{ email: 'a@x', groups: ['d'], tenant: 'acme' }, { usernamePrefix: '', groupsPrefix: '' }, { username: 'a@x', groups: ['d'] }],
    [{ email: 'a@x', groups: ['d'], tenant: 'acme' }, { groupsClaim: '' }, { username: 'oidc:a@x', groups: [] }],
  ];
  cases.forEach(([claims, over, want], i) => {
    const got = userFromClaims(claims, { ...cfg, ...over });
    if (want instanceof RegExp) assert.match('error' in got ? got.error : JSON.stringify(got), want, `case ${i}`);
    else assert.equal(got, want, `case ${i}`);
  });
});

test.run();
