/**
 * Client-certificate chain verification per CA bundle (client-ca.ts), the header helpers and the
 * pure half of impersonation (which parts a request asks for, kube's 500 wording).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority, issueCertificate } from './pki.ts';
import { parseCaBundle, verifyChain } from './client-ca.ts';
import { headerLines, unescapeExtraKey, removeHeaders } from './headers.ts';
import { ImpersonationRequestError, impersonationRequests, splitServiceAccountUsername } from './impersonation.ts';

const x = (pem: string): X509Certificate => new X509Certificate(pem);
const HOUR = 3600_000;

test('a leaf verifies against its CA, not against another CA; bundles hold several CAs', async () => {
  const a = await createCertificateAuthority('ca-a');
  const b = await createCertificateAuthority('ca-b');
  const leaf = await issueCertificate(a, { cn: 'alice', orgs: ['devs'] });
  assert.equal(verifyChain(x(leaf.certPem), [], [x(a.certPem)]), { ok: true });
  assert.equal(verifyChain(x(leaf.certPem), [], [x(b.certPem)]), { ok: false, error: 'x509: certificate signed by unknown authority' });
  const bundle = parseCaBundle(b.certPem + a.certPem, 'test');
  assert.is(bundle.length, 2);
  assert.equal(verifyChain(x(leaf.certPem), [], bundle), { ok: true });
});

test('intermediates the client sends complete the chain; a non-CA issuer does not', async () => {
  const root = await createCertificateAuthority('root');
  const mid = await issueCertificate(root, { cn: 'intermediate', ca: true, usages: [] });
  const leaf = await issueCertificate(mid, { cn: 'bob' });
  assert.equal(verifyChain(x(leaf.certPem), [x(mid.certPem)], [x(root.certPem)]), { ok: true });
  assert.is(verifyChain(x(leaf.certPem), [], [x(root.certPem)]).ok, false);
  const notCa = await issueCertificate(root, { cn: 'not-a-ca', usages: [] });
  const forged = await issueCertificate(notCa, { cn: 'mallory' });
  assert.is(verifyChain(x(forged.certPem), [x(notCa.certPem)], [x(root.certPem)]).ok, false);
});

test('expired, not yet valid and server-only certificates fail', async () => {
  const ca = await createCertificateAuthority('ca');
  const now = Date.now();
  const expired = await issueCertificate(ca, { cn: 'old', notBefore: new Date(now - 3 * HOUR), notAfter: new Date(now - HOUR) });
  const future = await issueCertificate(ca, { cn: 'new', notBefore: new Date(now + HOUR), notAfter: new Date(now + 3 * HOUR) });
  const server = await issueCertificate(ca, { cn: 'srv', usages: ['serverAuth'] });
  const noEku = await issueCertificate(ca, { cn: 'any', usages: [] });
  const roots = [x(ca.certPem)];
  assert.match((verifyChain(x(expired.certPem), [], roots) as { error: string }).error, /expired or is not yet valid/);
  assert.match((verifyChain(x(future.certPem), [], roots) as { error: string }).error, /expired or is not yet valid/);
  assert.equal(verifyChain(x(server.certPem), [], roots), { ok: false, error: 'x509: certificate specifies an incompatible key usage' });
  // Go accepts a certificate without ExtKeyUsage for any usage.
  assert.equal(verifyChain(x(noEku.certPem), [], roots), { ok: true });
});

test('a bundle without certificates is kube\'s start-up error', () => {
  assert.throws(() => parseCaBundle('garbage\n', 'client-ca-bundle::/tmp/x'), (e: Error) => e.message === 'error loading CA bundle for "client-ca-bundle::/tmp/x": data does not contain any valid RSA or ECDSA certificates');
});

test('header lines keep repeated headers apart; extra keys unescape as Go url.PathUnescape', () => {
  const lines = headerLines({}, ['X-Remote-Group', 'a, b', 'x-remote-group', 'c', ':path', '/']);
  assert.equal(lines, [['x-remote-group', 'a, b'], ['x-remote-group', 'c']]);
  const cases: Array<[string, string]> = [
    ['foo%2fbar', 'foo/bar'],
    ['bad%zz', 'bad%zz'],
    ['trailing%2', 'trailing%2'],
    ['a+b', 'a+b'],
    ['%e2%9c%93', '✓'],
    ['plain', 'plain'],
  ];
  cases.forEach(([input, want], i) => assert.is(unescapeExtraKey(input), want, `case ${i}: ${input}`));
  const headers: Record<string, string | string[] | undefined> = { 'x-remote-user': 'u', 'x-remote-extra-a': 'v', accept: '*/*' };
  const raw = ['X-Remote-User', 'u', 'Accept', '*/*', 'X-Remote-Extra-A', 'v'];
  removeHeaders(headers, raw, (n) => n === 'x-remote-user' || n.startsWith('x-remote-extra-'));
  assert.equal(headers, { accept: '*/*' });
  assert.equal(raw, ['Accept', '*/*']);
});

test('impersonation requests: kube\'s order, service-account users, and the 500 without a user', () => {
  const lines = headerLines({}, ['Impersonate-Uid', 'u1', 'Impersonate-Group', 'g1', 'Impersonate-User', 'system:serviceaccount:ns1:robot', 'Impersonate-Extra-Scopes%2fa', 's1', 'Impersonate-Group', 'g2']);
  assert.equal(impersonationRequests(lines), [
    { kind: 'ServiceAccount', namespace: 'ns1', name: 'robot' },
    { kind: 'Group', name: 'g1' },
    { kind: 'Group', name: 'g2' },
    { kind: 'UserExtra', apiVersion: 'authentication.k8s.io/v1', name: 's1', fieldPath: 'scopes/a' },
    { kind: 'UID', name: 'u1', apiVersion: 'authentication.k8s.io/v1' },
  ]);
  assert.throws(
    () => impersonationRequests(headerLines({}, ['Impersonate-Extra-Scopes', 's1', 'Impersonate-Uid', 'u1'])),
    (e: Error) => e instanceof ImpersonationRequestError && e.message === 'requested [{UserExtra  s1  authentication.k8s.io/v1  scopes} {UID  u1  authentication.k8s.io/v1  }] without impersonating a user',
  );
  const sa: Array<[string, { namespace: string; name: string } | null]> = [
    ['system:serviceaccount:ns:name', { namespace: 'ns', name: 'name' }],
    ['system:serviceaccount:ns', null],
    ['system:serviceaccount:ns:a:b', null],
    ['system:serviceaccount:NS:name', null],
    ['system:serviceaccount:ns:a.b', { namespace: 'ns', name: 'a.b' }],
    ['bob', null],
  ];
  sa.forEach(([u, want], i) => assert.equal(splitServiceAccountUsername(u), want, `case ${i}: ${u}`));
});

test.run();
