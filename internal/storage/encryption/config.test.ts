/**
 * The EncryptionConfiguration file and the transformers it builds. Start-up messages are the ones
 * kube-apiserver 1.24.17 printed for the same files (started with --encryption-provider-config);
 * the wire format is checked on values real kube-apiserver wrote to etcd (testdata/).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildTransformers, loadEncryptionConfig, parseEncryptionConfiguration, parseGroupResource } from './config.ts';
import { AtRest } from './at-rest.ts';
import { stampResourceVersion } from '../mvcc/fold.ts';

const dir = mkdtempSync(join(tmpdir(), 'enc-config-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const b64 = (n: number): string => randomBytes(n).toString('base64');
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const loadError = (path: string): string => {
  try {
    loadEncryptionConfig(path);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${path} loaded`);
};
const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';
const one = (provider: string): string => `${head}resources:\n- resources: [secrets]\n  providers:\n${provider}`;

test('start-up errors: kube-apiserver 1.24 messages', () => {
  const cases: Array<[string, string, string]> = [
    ['bad-len', one(`  - aescbc:\n      keys:\n      - name: key1\n        secret: ${b64(10)}\n`),
      'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 10, expected one of [16 24 32]'],
    ['sb16', one(`  - secretbox:\n      keys:\n      - name: key1\n        secret: ${b64(16)}\n`),
      'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]'],
    ['notb64', one('  - aesgcm:\n      keys:\n      - name: key1\n        secret: "not base64!!"\n'),
      'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded'],
    ['wrongkind', 'apiVersion: apiserver.config.k8s.io/v1\nkind: Foo\nresources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n',
      'no kind "Foo" is registered for version "apiserver.config.k8s.io/v1" in scheme "pkg/runtime/scheme.go:100"'],
    ['empty', `${head}resources: []\n`, 'resources: Required value: at least one resources is required'],
    ['two', one(`  - identity: {}\n    aescbc:\n      keys:\n      - name: key1\n        secret: ${b64(32)}\n`),
      'resources[0].providers[0]: Invalid value: config.ProviderConfiguration{AESGCM:(*config.AESConfiguration)(nil), AESCBC:(*config.AESConfiguration)(0xc000010000), Secretbox:(*config.SecretboxConfiguration)(nil), Identity:(*config.IdentityConfiguration)(0xc000010000), KMS:(*config.KMSConfiguration)(nil)}: more than one provider specified in a single element, should split into different list elements'],
    ['noname', `${head}resources:\n- resources: []\n  providers:\n  - aescbc:\n      keys:\n      - secret: ${b64(32)}\n      - name: k2\n  - {}\n`,
      '[resources[0].resources: Required value: at least one resources[0].resources is required, resources[0].providers[0].aescbc.keys[0].name: Required value: name is a mandatory field for a key, resources[0].providers[0].aescbc.keys[1].secret: Required value: secret is a mandatory field for a key, resources[0].providers[1]: Invalid value: config.ProviderConfiguration{AESGCM:(*config.AESConfiguration)(nil), AESCBC:(*config.AESConfiguration)(nil), Secretbox:(*config.SecretboxConfiguration)(nil), Identity:(*config.IdentityConfiguration)(nil), KMS:(*config.KMSConfiguration)(nil)}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity]'],
  ];
  for (const [name, text, want] of cases) {
    const p = file(`${name}.yaml`, text);
    assert.is(loadError(p), `error while parsing encryption provider configuration file "${p}": error while parsing file: ${want}`, name);
  }
  const noApi = 'kind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n';
  const p = file('noapiversion.yaml', noApi);
  assert.is(loadError(p), `error while parsing encryption provider configuration file "${p}": error while parsing file: Object 'apiVersion' is missing in '${noApi}'`);
  // kube echoes the file; here its keys are redacted.
  const k = b64(32);
  const noKind = `apiVersion: apiserver.config.k8s.io/v1\nresources:\n- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n      - name: key1\n        secret: ${k}\n`;
  const q = file('nokind.yaml', noKind);
  const msg = loadError(q);
  assert.is(msg, `error while parsing encryption provider configuration file "${q}": error while parsing file: Object 'Kind' is missing in '${noKind.replace(k, 'REDACTED')}'`);
  const noKindJson = JSON.stringify({ apiVersion: 'v1', resources: [{ resources: ['secrets'], providers: [{ aesgcm: { keys: [{ name: 'a', secret: k }] } }] }] });
  assert.not.match(loadError(file('nokind.json', noKindJson)), k);
  assert.not.match(loadError(file('nokind-quoted.yaml', noKind.replace(`secret: ${k}`, `secret: "${k}"`))), k);
  assert.not.match(loadError(file('nokind-flow.yaml', noKind.replace(`- name: key1\n        secret: ${k}`, `- {name: key1, secret: '${k}'}`))), k);
  const missing = join(dir, 'nope.yaml');
  assert.is(loadError(missing), `error opening encryption provider configuration file "${missing}": open ${missing}: no such file or directory`);
});

test('kms: valid for kube, refused here with a clear message', () => {
  const p = file('kms.yaml', one('  - kms:\n      name: k\n      endpoint: unix:///tmp/kms.sock\n'));
  assert.match(loadError(p), `encryption provider configuration file "${p}": kms provider "k" is not supported by this server`);
});

test('accepted as by 1.24: legacy v1 EncryptionConfig, JSON, duplicate key names, unknown fields', () => {
  const legacy = parseEncryptionConfiguration('apiVersion: v1\nkind: EncryptionConfig\nresources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n');
  assert.equal(legacy, [{ resources: ['secrets'], providers: [{ type: 'identity' }] }]);
  const json = parseEncryptionConfiguration(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', extra: 1, resources: [{ resources: ['deployments.apps'], providers: [{ secretbox: { keys: [{ name: 'a', secret: b64(32) }] } }] }] }));
  assert.is(json[0].providers[0].type, 'secretbox');
  const dup = parseEncryptionConfiguration(one(`  - aescbc:\n      keys:\n      - name: key1\n        secret: ${b64(32)}\n      - name: key1\n        secret: ${b64(16)}\n`));
  assert.is((dup[0].providers[0] as { keys: unknown[] }).keys.length, 2);
  assert.throws(() => parseEncryptionConfiguration('apiVersion: v1\nkind: EncryptionConfiguration\nresources: []\n'), /no kind "EncryptionConfiguration" is registered for version "v1"/);
});

test('resource names: <resource>[.<group>] (schema.ParseGroupResource)', () => {
  assert.equal(parseGroupResource('secrets'), { group: '', resource: 'secrets' });
  assert.equal(parseGroupResource('deployments.apps'), { group: 'apps', resource: 'deployments' });
  assert.equal(parseGroupResource('events.events.k8s.io'), { group: 'events.k8s.io', resource: 'events' });
});

const kube = JSON.parse(readFileSync(new URL('./testdata/kube-1.24-values.json', import.meta.url), 'utf8')) as {
  config: string;
  values: { etcdKey: string; stored: string; contains: string }[];
};

test('wire format: values written by kube-apiserver 1.24 (aescbc, aesgcm with the key as AAD, secretbox) decrypt', () => {
  const transformers = buildTransformers(parseEncryptionConfiguration(kube.config));
  for (const v of kube.values) {
    const resource = v.etcdKey.split('/')[2];
    const t = transformers.get(`/${resource}`)!;
    const stored = Buffer.from(v.stored, 'base64');
    const r = t.fromStorage(stored, Buffer.from(v.etcdKey));
    assert.ok(r.data.subarray(0, 4).equals(Buffer.from('k8s\0')), `${v.etcdKey}: kube's protobuf envelope`);
    assert.ok(r.data.includes(v.contains), `${v.etcdKey} holds ${v.contains}`);
    assert.not.ok(stored.includes(v.contains));
    assert.is(r.stale, false);
    if (resource === 'configmaps') {
      // aesgcm authenticates the key: the same bytes under another key do not open.
      assert.throws(() => t.fromStorage(stored, Buffer.from('/registry/configmaps/default/other')), /cipher: message authentication failed/);
    }
  }
});

const rotation = (first: string, second: string): string => `${head}resources:\n- resources: [secrets]\n  providers:\n${first}${second}`;
const keyed = (provider: string, name: string, secret: string): string => `  - ${provider}:\n      keys:\n      - name: ${name}\n        secret: ${secret}\n`;

test('round trip per provider; reads by prefix; stale when not written by the first; kube messages on failure', () => {
  const k1 = b64(32);
  const k2 = b64(32);
  const key = { group: '', resource: 'secrets', namespace: 'ns', name: 's' };
  const plain = Buffer.from('{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","namespace":"ns","uid":"u","resourceVersion":""},"data":{"k":"dmFsdWU="}}');
  for (const p of ['aescbc', 'aesgcm', 'secretbox']) {
    const a = new AtRest(buildTransformers(parseEncryptionConfiguration(rotation(keyed(p, 'key1', k1), ''))));
    const wire = a.encode(key, plain);
    assert.ok(wire.subarray(0, 40).toString('latin1').startsWith(`k8s:enc:${p}:v1:key1:`), p);
    assert.not.ok(wire.includes('dmFsdWU='));
    const stored = stampResourceVersion(wire, 42)!;
    assert.is(a.decode(key, stored).toString(), plain.toString().replace('"resourceVersion":""', '"resourceVersion":"42"'), p);
    assert.is(a.stale(key, stored), false);
    // Rotation, step 1: a new first key, the old one still read → stale.
    const b = new AtRest(buildTransformers(parseEncryptionConfiguration(rotation(keyed(p, 'key2', k2), keyed(p, 'key1', k1)))));
    assert.ok(b.decode(key, stored).includes('"resourceVersion":"42"'));
    assert.is(b.stale(key, stored), true, `${p}: read with a second provider entry`);
    // Old key removed.
    const c = new AtRest(buildTransformers(parseEncryptionConfiguration(rotation(keyed(p, 'key2', k2), ''))));
    const want = p === 'secretbox' ? 'no matching key was found for the provided Secretbox transformer' : 'no matching key was found for the provided AES transformer';
    assert.throws(() => c.decode(key, stored), (e: Error) => e.message === want);
    // Only identity left: no provider claims the prefix.
    const d = new AtRest(buildTransformers(parseEncryptionConfiguration(rotation('  - identity: {}\n', ''))));
    assert.throws(() => d.decode(key, stored), (e: Error) => e.message === 'no matching prefix found');
    // Unprefixed (plain) data is read only when identity is listed.
    const plainStored = stampResourceVersion(plain, 7)!;
    assert.throws(() => a.decode(key, plainStored), (e: Error) => e.message === 'no matching prefix found');
    const withIdentity = new AtRest(buildTransformers(parseEncryptionConfiguration(rotation(keyed(p, 'key1', k1), '  - identity: {}\n'))));
    assert.ok(withIdentity.decode(key, plainStored).equals(plainStored));
    assert.is(withIdentity.stale(key, plainStored), true);
  }
  // aesgcm: another object's path as AAD fails.
  const g = new AtRest(buildTransformers(parseEncryptionConfiguration(rotation(keyed('aesgcm', 'key1', k1), ''))));
  const moved = stampResourceVersion(g.encode(key, plain), 3)!;
  assert.throws(() => g.decode({ ...key, name: 'other' }, moved), (e: Error) => e.message === 'cipher: message authentication failed');
});

test('no config: plain values pass through; an encrypted one is a clear error, not a JSON failure', () => {
  const a = new AtRest();
  const key = { group: '', resource: 'secrets', namespace: 'ns', name: 's' };
  const plain = Buffer.from('{"metadata":{}}');
  assert.is(a.decode(key, plain), plain);
  assert.is(a.encode(key, plain), plain);
  assert.throws(() => a.decode(key, Buffer.from('k8s:rv:5:k8s:enc:aescbc:v1:key1:xxxx')), /encrypted at rest, but no --encryption-provider-config provider is configured/);
});

test.run();
