import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync, createPublicKey } from 'node:crypto';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ISSUER, goUrlParseError, resolveServiceAccountConfig, type ServiceAccountFlags } from './options.ts';
import { DEFAULT_SIGNING_KEY_FILE, algorithmOf, ensureDefaultSigningKey, keyId, privateKeyFromPem, publicKeysFromPem } from './keys.ts';

const dir = mkdtempSync(join(tmpdir(), 'sa-options-'));
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const exp = (k: unknown, type: string) => (k as { export(o: object): string }).export({ type, format: 'pem' });
const f = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const rsaKey = f('rsa.key', exp(rsa.privateKey, 'pkcs1'));
const rsaPkcs8 = f('rsa8.key', exp(rsa.privateKey, 'pkcs8'));
const rsaPub = f('rsa.pub', exp(rsa.publicKey, 'spki'));
const ecSec1 = f('ec.key', exp(ec.privateKey, 'sec1'));
const ecPkcs8 = f('ec8.key', exp(ec.privateKey, 'pkcs8'));
const garbage = f('garbage.pem', 'not a key\n');
const serving = f('serving.key', exp(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, 'pkcs8'));

test('publicKeysFromPem: every block tried whatever its label; PKCS#8 EC private keys skipped as keyutil does', () => {
  const text = readFileSync(rsaPub, 'utf8') + 'junk between blocks\n' + readFileSync(ecSec1, 'utf8') + readFileSync(ecPkcs8, 'utf8') + readFileSync(rsaPkcs8, 'utf8');
  const keys = publicKeysFromPem(text, 'f');
  assert.equal(keys.map(keyId), [keyId(rsa.publicKey), keyId(ec.publicKey), keyId(rsa.publicKey)]);
  assert.throws(() => publicKeysFromPem(readFileSync(ecPkcs8, 'utf8'), 'x.pem'), /error reading public key file x\.pem: data does not contain any valid RSA or ECDSA public keys/);
  assert.throws(() => publicKeysFromPem('', 'e'), /data does not contain any valid RSA or ECDSA public keys/);
});

test('privateKeyFromPem: labelled private keys only; algorithms by key type and curve', () => {
  for (const [i, file] of [rsaKey, rsaPkcs8, ecSec1, ecPkcs8].entries()) {
    const k = privateKeyFromPem(readFileSync(file, 'utf8'), file);
    assert.is(keyId(k), keyId(createPublicKey(k)), `case ${i}`);
  }
  assert.is(algorithmOf(rsa.publicKey), 'RS256');
  assert.is(algorithmOf(ec.publicKey), 'ES384');
  assert.throws(() => privateKeyFromPem(readFileSync(rsaPub, 'utf8'), 'p.pub'), /error reading private key file p\.pub: data does not contain a valid RSA or ECDSA private key/);
});

test('ensureDefaultSigningKey: generated once, then reused (concurrent callers agree)', async () => {
  const pki = join(dir, 'pki');
  const [a, b] = await Promise.all([ensureDefaultSigningKey(pki), ensureDefaultSigningKey(pki)]);
  assert.is(a, join(pki, DEFAULT_SIGNING_KEY_FILE));
  assert.is(b, a);
  const first = readFileSync(a, 'utf8');
  assert.match(first, '-----BEGIN RSA PRIVATE KEY-----');
  await ensureDefaultSigningKey(pki);
  assert.is(readFileSync(a, 'utf8'), first);
});

test('goUrlParseError: the url.Parse failures an issuer can hit', () => {
  const cases: [string, string][] = [
    ['https://x', ''],
    ['foo:bar', ''],
    [':x', 'missing protocol scheme'],
    ['1a:b', 'first path segment in URL cannot contain colon'],
    ['a b:c', 'first path segment in URL cannot contain colon'],
    ['https://x\n', 'net/url: invalid control character in URL'],
  ];
  cases.forEach(([raw, want], i) => assert.is(goUrlParseError(raw), want, `case ${i}: ${raw}`));
});

const resolveCases: { name: string; flags: ServiceAccountFlags; error?: string; check?: (c: Awaited<ReturnType<typeof resolveServiceAccountConfig>>) => void }[] = [
  {
    name: 'no flags: generated key, kubeadm issuer, audiences = issuers, kube defaults',
    flags: {},
    check: (c) => {
      assert.equal(c.issuers, [DEFAULT_ISSUER]);
      assert.equal(c.apiAudiences, [DEFAULT_ISSUER]);
      assert.is(c.signing.alg, 'RS256');
      assert.equal(c.publicKeys.map(keyId), [c.signing.kid]);
      assert.is(c.lookup, true);
      assert.is(c.extendExpiration, true);
      assert.is(c.maxExpirationSeconds, 0);
    },
  },
  { name: '--api-audiences alone keeps the defaults', flags: { apiAudiences: ['a', 'b'] }, check: (c) => assert.equal([c.issuers, c.apiAudiences], [[DEFAULT_ISSUER], ['a', 'b']]) },
  {
    name: 'full flags, several issuers',
    flags: { signingKeyFile: ecSec1, keyFiles: [rsaPub, ecSec1], issuers: ['https://a', 'https://b'], maxTokenExpirationMs: 7_200_000, lookup: false },
    check: (c) => {
      assert.equal(c.issuers, ['https://a', 'https://b']);
      assert.equal(c.apiAudiences, ['https://a', 'https://b']);
      assert.is(c.signing.alg, 'ES384');
      assert.equal(c.publicKeys.map(keyId), [keyId(rsa.publicKey), keyId(ec.publicKey)]);
      assert.is(c.maxExpirationSeconds, 7200);
      assert.is(c.lookup, false);
    },
  },
  { name: 'issuer only', flags: { issuers: ['https://x'] }, error: '--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together' },
  { name: 'issuer and key file, no signing key', flags: { issuers: ['https://x'], keyFiles: [rsaPub] }, error: '--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together' },
  {
    name: 'signing key only',
    flags: { signingKeyFile: rsaKey },
    error: '[service-account-issuer is a required flag, service-account-key-file is a required flag, --service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together]',
  },
  { name: 'signing key and key file, no issuer', flags: { signingKeyFile: rsaKey, keyFiles: [rsaPub] }, error: '[service-account-issuer is a required flag, --service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together]' },
  { name: 'duplicate issuer', flags: { signingKeyFile: rsaKey, keyFiles: [rsaPub], issuers: ['https://x', 'https://x'] }, error: 'service-account-issuer "https://x" is already specified' },
  { name: 'empty issuer', flags: { signingKeyFile: rsaKey, keyFiles: [rsaPub], issuers: [''] }, error: '[service-account-issuer should not be an empty string, --service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together]' },
  { name: 'bad issuer URL', flags: { signingKeyFile: rsaKey, keyFiles: [rsaPub], issuers: [':x'] }, error: 'service-account-issuer ":x" contained a \':\' but was not a valid URL: parse ":x": missing protocol scheme' },
  { name: 'signing key not a private key', flags: { signingKeyFile: rsaPub, keyFiles: [rsaPub], issuers: ['https://x'] }, error: `failed to parse service-account-issuer-key-file: error reading private key file ${rsaPub}: data does not contain a valid RSA or ECDSA private key` },
  { name: 'signing key missing', flags: { signingKeyFile: join(dir, 'nope'), keyFiles: [rsaPub], issuers: ['https://x'] }, error: `failed to parse service-account-issuer-key-file: open ${join(dir, 'nope')}: no such file or directory` },
  { name: 'max expiration below an hour', flags: { signingKeyFile: rsaKey, keyFiles: [rsaPub], issuers: ['https://x'], maxTokenExpirationMs: 600_000 }, error: 'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds' },
  { name: 'max expiration above 2^32 s', flags: { signingKeyFile: rsaKey, keyFiles: [rsaPub], issuers: ['https://x'], maxTokenExpirationMs: 2 ** 33 * 1000 }, error: 'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds' },
  { name: 'jwks uri not https', flags: { signingKeyFile: rsaKey, keyFiles: [rsaPub], issuers: ['https://x'], jwksUri: 'http://x/jwks' }, error: 'service-account-jwks-uri requires https scheme, parsed as: http://x/jwks' },
  { name: 'jwks uri', flags: { signingKeyFile: rsaKey, keyFiles: [rsaPub], issuers: ['https://x'], jwksUri: 'https://cdn.example/jwks' }, check: (c) => assert.is(c.jwksUri, 'https://cdn.example/jwks') },
  { name: 'garbage key file', flags: { signingKeyFile: rsaKey, keyFiles: [garbage], issuers: ['https://x'] }, error: `error reading public key file ${garbage}: data does not contain any valid RSA or ECDSA public keys` },
  { name: 'missing key file', flags: { signingKeyFile: rsaKey, keyFiles: [join(dir, 'absent')], issuers: ['https://x'] }, error: `open ${join(dir, 'absent')}: no such file or directory` },
];

resolveCases.forEach((c, i) => {
  test(`resolveServiceAccountConfig ${i}: ${c.name}`, async () => {
    const pki = mkdtempSync(join(dir, 'pki-'));
    try {
      const got = await resolveServiceAccountConfig(c.flags, pki, serving);
      assert.ok(!c.error, `case ${i}: expected error ${c.error}`);
      c.check?.(got);
    } catch (e) {
      if (!c.error) throw e;
      assert.is((e as Error).message, c.error, `case ${i}`);
    }
  });
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
