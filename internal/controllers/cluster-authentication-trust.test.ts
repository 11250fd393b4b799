/** The pure half of kube-apiserver's cluster-authentication-trust controller (the published ConfigMap's data). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority } from '../auth/pki.ts';
import { parseCaBundle } from '../auth/client-ca.ts';
import { combineInfo, dataFor, infoFromData } from './cluster-authentication-trust.ts';

const x = (pem: string): X509Certificate => new X509Certificate(pem);

test('extension-apiserver-authentication data merges what is published with what is required', async () => {
  const a = await createCertificateAuthority('a');
  const b = await createCertificateAuthority('b');
  const p = await createCertificateAuthority('proxy');
  const published = dataFor({ clientCA: [x(a.certPem)], requestHeaderCA: [x(p.certPem)], requestHeaderAllowedNames: ['old'], requestHeaderUsernameHeaders: ['X-Remote-User'] });
  const merged = dataFor(combineInfo(infoFromData(published), { clientCA: [x(b.certPem), x(a.certPem)], requestHeaderCA: [x(p.certPem)], requestHeaderAllowedNames: ['front-proxy'], requestHeaderUsernameHeaders: ['X-Remote-User'], requestHeaderGroupHeaders: ['X-Remote-Group'], requestHeaderExtraHeaderPrefixes: [] }));
  assert.equal(Object.keys(merged), ['client-ca-file', 'requestheader-allowed-names', 'requestheader-client-ca-file', 'requestheader-extra-headers-prefix', 'requestheader-group-headers', 'requestheader-username-headers']);
  assert.equal(parseCaBundle(merged['client-ca-file']!, 't').map((c) => c.subject), ['CN=a', 'CN=b']);
  assert.is(merged['requestheader-allowed-names'], '["old","front-proxy"]');
  assert.is(merged['requestheader-extra-headers-prefix'], '[]');
  // No requestheader CA: only the client CA is published.
  assert.equal(Object.keys(dataFor({ clientCA: [x(a.certPem)] })), ['client-ca-file']);
});

test.run();
