/**
 * Secrets at rest (`--encryption-provider-config`, kube's EncryptionConfiguration), over HTTPS:
 *
 *   per provider (aescbc, aesgcm, secretbox): a Secret with a distinctive value is created, updated,
 *     another created and deleted; get / list / list at an exact version / watch (from the ring, and
 *     after a restart from the log) all answer the value; then every byte of every file of the data
 *     dir (LevelDB .log and .ldb files, before and after the reopen that compacts the write-ahead
 *     log) is searched for the value, in clear and base64 — absent — while a ConfigMap's value
 *     (not configured) is found, so the search does see what is stored.
 *   migration and rotation as kube documents them: plain Secrets → [aescbc key1, identity] →
 *     `kubectl get secrets -o json | kubectl replace -f -` encrypts them → [key2, key1] → replace
 *     again (no-op content, yet re-written because stale) → [key2] only: all readable, and the
 *     snapshot holds only key2 values.
 *   a missing key: kube-apiserver 1.24's 500 Status for get and list (checked against the reference
 *     started with such a file, see the report), and a bad file stops the start with kube's message.
 *   replay tools: rebuild holds ciphertext with and without the file; hash/verify agree; history
 *     shows the diff only with the file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { ClassicLevel } from 'classic-level';
import { startTestServer, tempDir, type TestServer } from './harness.ts';
import { kubectlFor } from './kubectl-run.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const NS = 'enc';
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
const dirs: string[] = [];
test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const scratch = (): string => {
  const d = tempDir('apiserver-enc-');
  dirs.push(d);
  return d;
};
const distinctive = (): string => randomBytes(30).toString('base64url');
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const key = (n: number): string => randomBytes(n).toString('base64');

function configFile(dir: string, name: string, providers: string): string {
  const p = join(dir, `${name}.yaml`);
  writeFileSync(p, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n${providers}`);
  return p;
}
const keyed = (provider: string, ...keys: Array<[string, string]>): string =>
  `  - ${provider}:\n      keys:\n${keys.map(([n, s]) => `      - name: ${n}\n        secret: ${s}\n`).join('')}`;

/** Every regular file under `dir`, recursively. */
function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    const s = statSync(p);
    if (s.isDirectory()) out.push(...files(p));
    else if (s.isFile()) out.push(p);
  }
  return out;
}

/**
 * Whether `bytes` hold `needle` in clear, even inside a compressed LevelDB table: snappy may replace
 * any 4+ bytes of it with a back-reference, so any 12-character window of it counts (for a random
 * needle, 12 characters of base64 turning up by chance is ~2^-72 per position).
 */
function holds(bytes: Buffer, needle: string): boolean {
  for (let i = 0; i + 12 <= needle.length; i += 4) if (bytes.includes(needle.slice(i, i + 12))) return true;
  return needle.length < 12 && bytes.includes(needle);
}

/** The files whose raw bytes hold any of `needles`. */
function grep(dir: string, needles: string[]): string[] {
  const hits: string[] = [];
  for (const f of files(dir)) {
    const bytes = readFileSync(f);
    for (const n of needles) if (holds(bytes, n)) hits.push(`${f.slice(dir.length + 1)}: ${n}`);
  }
  return hits;
}

const secret = (name: string, value: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name, ...extra }, type: 'Opaque', data: { password: b64(value) },
});

async function start(dataDir: string, config?: string): Promise<TestServer> {
  return startTestServer({ dataDir, encryptionProviderConfig: config, namespaceDefaults: false });
}

/** Raw o/ values of the namespace's Secrets (server stopped). */
async function storedSecrets(dataDir: string): Promise<Map<string, Buffer>> {
  const db = new ClassicLevel<string, Buffer>(join(dataDir, 'db'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  await db.open();
  const out = new Map<string, Buffer>();
  try {
    for await (const [k, v] of db.iterator({ gte: `o/core/secrets/${NS}/`, lt: `o/core/secrets/${NS}0` })) out.set(k.split('/').pop()!, v);
  } finally {
    await db.close();
  }
  return out;
}

/** Watch events from `rv` until the server ends the watch (timeoutSeconds=1). */
async function watchFrom(s: TestServer, rv: string): Promise<any[]> {
  const r = await s.client.request('GET', `${SECRETS}?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
  assert.is(r.status, 200, r.text);
  return r.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

for (const provider of ['aescbc', 'aesgcm', 'secretbox']) {
  test(`${provider}: the value never reaches the disk in clear; every read path decrypts it`, async () => {
    const dir = scratch();
    const dataDir = join(dir, 'data');
    const config = configFile(dir, provider, keyed(provider, ['key1', key(32)]));
    // Random letters only: a common word in a needle could be compressed (snappy) against the
    // same word elsewhere in a table file and hide it from the search.
    const VALUE = distinctive();
    const GONE = distinctive();
    const CONTROL = distinctive();
    let s = await start(dataDir, config);
    let createdRv: string;
    try {
      assert.is((await s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
      const c = await s.client.request('POST', SECRETS, { body: secret('s1', VALUE) });
      assert.is(c.status, 201, c.text);
      assert.is(c.json.data.password, b64(VALUE), 'the create answers the plain object');
      createdRv = c.json.metadata.resourceVersion;
      const u = await s.client.request('PUT', `${SECRETS}/s1`, { body: secret('s1', VALUE, { labels: { v: '2' }, resourceVersion: createdRv }) });
      assert.is(u.status, 200, u.text);
      assert.is(u.json.data.password, b64(VALUE));
      assert.is((await s.client.request('POST', SECRETS, { body: secret('s2', GONE) })).status, 201);
      const d = await s.client.request('DELETE', `${SECRETS}/s2`);
      assert.is(d.status, 200, d.text);
      assert.is(d.json.status, 'Success', d.text);
      const cm = await s.client.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'control' }, data: { v: CONTROL } } });
      assert.is(cm.status, 201, cm.text);

      const g = await s.client.request('GET', `${SECRETS}/s1`);
      assert.is(g.status, 200, g.text);
      assert.is(g.json.data.password, b64(VALUE));
      assert.is(g.json.metadata.labels.v, '2');
      assert.is(g.json.metadata.resourceVersion, u.json.metadata.resourceVersion);
      const l = await s.client.request('GET', SECRETS);
      assert.equal(l.json.items.map((i: any) => [i.metadata.name, i.data.password]), [['s1', b64(VALUE)]]);
      const paged = await s.client.request('GET', `${SECRETS}?limit=1&resourceVersion=${createdRv}&resourceVersionMatch=Exact`);
      assert.is(paged.status, 200, paged.text);
      assert.is(paged.json.items[0].metadata.resourceVersion, createdRv, 'the exact read comes from history (h/)');
      assert.is(paged.json.items[0].data.password, b64(VALUE));
      assert.not.ok(paged.json.items[0].metadata.labels);
      const events = await watchFrom(s, createdRv);
      assert.equal(events.map((e) => [e.type, e.object.metadata.name, e.object.data.password]), [
        ['MODIFIED', 's1', b64(VALUE)], ['ADDED', 's2', b64(GONE)], ['DELETED', 's2', b64(GONE)],
      ]);
    } finally {
      await s.close();
    }

    // Closed: LevelDB's write-ahead log holds every record written (uncompressed).
    assert.equal(grep(dataDir, [VALUE, b64(VALUE), GONE, b64(GONE)]), []);
    assert.ok(grep(dataDir, [CONTROL]).length > 0, 'the search sees stored values (the ConfigMap is not encrypted)');
    const stored = await storedSecrets(dataDir);
    assert.match(stored.get('s1')!.subarray(0, 48).toString('latin1'), new RegExp(`^k8s:rv:\\d+:k8s:enc:${provider}:v1:key1:`));

    // Reopened (LevelDB turns its log into a table file) and read again: watch from the log.
    s = await start(dataDir, config);
    try {
      const events = await watchFrom(s, createdRv);
      assert.equal(events.map((e) => [e.type, e.object.metadata.name, e.object.data.password]), [
        ['MODIFIED', 's1', b64(VALUE)], ['ADDED', 's2', b64(GONE)], ['DELETED', 's2', b64(GONE)],
      ], 'replayed from the log after a restart');
      assert.is((await s.client.request('GET', `${SECRETS}/s1`)).json.data.password, b64(VALUE));
    } finally {
      await s.close();
    }
    assert.equal(grep(dataDir, [VALUE, b64(VALUE), GONE, b64(GONE)]), []);
    assert.ok(grep(dataDir, [CONTROL]).length > 0);
  });
}

test('migration and key rotation (kube docs): identity → aescbc key1 → key2 via replace; old key removed', async () => {
  const dir = scratch();
  const dataDir = join(dir, 'data');
  const k1 = key(32);
  const k2 = key(24);
  const values = [distinctive(), distinctive()];
  // 1. No config: stored plain.
  let s = await start(dataDir);
  try {
    assert.is((await s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
    for (const [i, v] of values.entries()) assert.is((await s.client.request('POST', SECRETS, { body: secret(`r${i}`, v) })).status, 201);
  } finally {
    await s.close();
  }
  assert.ok(grep(dataDir, [b64(values[0])]).length > 0, 'before encryption the value is on disk');
  for (const v of (await storedSecrets(dataDir)).values()) assert.is(v[0], 0x7b); // '{'

  const replaceAll = async (srv: TestServer): Promise<void> => {
    const k = kubectlFor(srv.server.kubeconfigPath);
    const json = await k.ok('get', 'secrets', '-n', NS, '-o', 'json');
    const listed = JSON.parse(json);
    assert.is(listed.items.length, 2);
    const p = join(dir, 'all.json');
    writeFileSync(p, json);
    const out = await k.ok('replace', '-f', p);
    assert.match(out, `secret/r0 replaced`);
    rmSync(p);
  };
  const readAll = async (srv: TestServer): Promise<void> => {
    for (const [i, v] of values.entries()) {
      const g = await srv.client.request('GET', `${SECRETS}/r${i}`);
      assert.is(g.status, 200, g.text);
      assert.is(g.json.data.password, b64(v));
    }
  };

  // 2. [aescbc key1, identity]: plain values still read (identity listed); replace encrypts them.
  s = await start(dataDir, configFile(dir, 'step2', keyed('aescbc', ['key1', k1]) + '  - identity: {}\n'));
  let before: string;
  try {
    await readAll(s);
    before = (await s.client.request('GET', `${SECRETS}/r0`)).json.metadata.resourceVersion;
    await replaceAll(s);
    const after = (await s.client.request('GET', `${SECRETS}/r0`)).json.metadata.resourceVersion;
    assert.ok(Number(after) > Number(before), 'an unchanged object read with a later provider is re-written');
    await readAll(s);
    // Up to date now: replacing again writes nothing (kube's no-op update).
    await replaceAll(s);
    assert.is((await s.client.request('GET', `${SECRETS}/r0`)).json.metadata.resourceVersion, after);
  } finally {
    await s.close();
  }
  for (const v of (await storedSecrets(dataDir)).values()) assert.match(v.subarray(0, 40).toString('latin1'), /^k8s:rv:\d+:k8s:enc:aescbc:v1:key1:/);

  // 3. Without identity, a leftover plain value would not read; all are encrypted by now.
  // New key first, old key still read; replace re-writes with key2.
  s = await start(dataDir, configFile(dir, 'step3', keyed('aescbc', ['key2', k2], ['key1', k1])));
  try {
    await readAll(s);
    await replaceAll(s);
    await readAll(s);
  } finally {
    await s.close();
  }
  for (const v of (await storedSecrets(dataDir)).values()) assert.match(v.subarray(0, 40).toString('latin1'), /^k8s:rv:\d+:k8s:enc:aescbc:v1:key2:/);

  // 4. Old key removed: everything still reads.
  s = await start(dataDir, configFile(dir, 'step4', keyed('aescbc', ['key2', k2])));
  try {
    await readAll(s);
  } finally {
    await s.close();
  }
  // The history window still holds the plain versions written in step 1 (h/), as etcd keeps old
  // revisions until compaction; the current values are never plain again.
  // 5. A key nobody has: kube-apiserver 1.24's 500s (get: the transformer's text; list: with the key).
  s = await start(dataDir, configFile(dir, 'step5', keyed('aescbc', ['key3', key(32)])));
  try {
    const g = await s.client.request('GET', `${SECRETS}/r0`);
    assert.is(g.status, 500);
    assert.equal(g.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Internal error occurred: no matching key was found for the provided AES transformer',
      reason: 'InternalError', details: { causes: [{ message: 'no matching key was found for the provided AES transformer' }] }, code: 500,
    });
    for (const q of ['', '?limit=5']) {
      const l = await s.client.request('GET', SECRETS + q);
      assert.is(l.status, 500);
      const msg = `unable to transform key "/registry/secrets/${NS}/r0": no matching key was found for the provided AES transformer`;
      assert.is(l.json.message, `Internal error occurred: ${msg}`);
      assert.equal(l.json.details, { causes: [{ message: msg }] });
    }
  } finally {
    await s.close();
  }
  // 6. Only identity: an encrypted value matches no provider.
  s = await start(dataDir, configFile(dir, 'step6', '  - identity: {}\n'));
  try {
    const g = await s.client.request('GET', `${SECRETS}/r0`);
    assert.is(g.status, 500);
    assert.is(g.json.message, 'Internal error occurred: no matching prefix found');
  } finally {
    await s.close();
  }
});

test('any resource the file names: configmaps and roles.rbac.authorization.k8s.io (read by the RBAC cache too)', async () => {
  const dir = scratch();
  const dataDir = join(dir, 'data');
  const config = join(dir, 'multi.yaml');
  writeFileSync(config, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [configmaps, roles.rbac.authorization.k8s.io]\n  providers:\n${keyed('aesgcm', ['k', key(16)])}`);
  const CM_VALUE = distinctive();
  const ROLE_VALUE = distinctive();
  const SECRET_VALUE = distinctive();
  const s = await start(dataDir, config);
  try {
    assert.is((await s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
    assert.is((await s.client.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'c' }, data: { v: CM_VALUE } } })).status, 201);
    const role = { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: [ROLE_VALUE] }] };
    assert.is((await s.client.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, { body: role })).status, 201);
    assert.is((await s.client.request('POST', SECRETS, { body: secret('plain', SECRET_VALUE) })).status, 201);
    assert.is((await s.client.request('GET', `/api/v1/namespaces/${NS}/configmaps/c`)).json.data.v, CM_VALUE);
    assert.equal((await s.client.request('GET', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`)).json.items[0].rules[0].resourceNames, [ROLE_VALUE]);
    // The authorizer's cache reads Roles from storage and from the change fan-out, decrypted:
    // once bound, the encrypted Role's rule allows.
    const review = await s.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { spec: { user: 'nobody', resourceAttributes: { namespace: NS, verb: 'get', resource: 'configmaps', name: ROLE_VALUE } } },
    });
    assert.is(review.status, 201, review.text);
    assert.is(review.json.status.allowed, false, 'not bound yet');
    const bind = { metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'nobody', apiGroup: 'rbac.authorization.k8s.io' }] };
    assert.is((await s.client.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, { body: bind })).status, 201);
    const allowed = await s.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { spec: { user: 'nobody', resourceAttributes: { namespace: NS, verb: 'get', resource: 'configmaps', name: ROLE_VALUE } } },
    });
    assert.is(allowed.json.status.allowed, true, allowed.text);
  } finally {
    await s.close();
  }
  assert.equal(grep(dataDir, [CM_VALUE, ROLE_VALUE]), []);
  assert.ok(grep(dataDir, [b64(SECRET_VALUE)]).length > 0, 'Secrets are not named by this file: stored plain');
});

test('a bad file stops the start with kube-apiserver\'s message', async () => {
  const dir = scratch();
  const bad = configFile(dir, 'bad', keyed('aescbc', ['key1', key(10)]));
  const err = await start(join(dir, 'data'), bad).then(
    async (s) => {
      await s.close();
      return null;
    },
    (e: Error) => e.message,
  );
  assert.is(err, `error while parsing encryption provider configuration file "${bad}": error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 10, expected one of [16 24 32]`);
});

interface Cli {
  code: number | null;
  stdout: string;
  stderr: string;
}
function replay(...args: string[]): Promise<Cli> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'cmd/replay.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c: Buffer) => (stdout += c));
    p.stderr.on('data', (c: Buffer) => (stderr += c));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('replay: rebuild keeps ciphertext with or without the file; hash, verify and history read it with the file', async () => {
  const dir = scratch();
  const dataDir = join(dir, 'data');
  const config = configFile(dir, 'replay', keyed('secretbox', ['sb', key(32)]));
  const VALUE = distinctive();
  const s = await start(dataDir, config);
  try {
    assert.is((await s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
    assert.is((await s.client.request('POST', SECRETS, { body: secret('h', 'first') })).status, 201);
    const r = await s.client.request('PATCH', `${SECRETS}/h`, { raw: JSON.stringify({ data: { password: b64(VALUE) } }), contentType: 'application/merge-patch+json' });
    assert.is(r.status, 200, r.text);
  } finally {
    await s.close();
  }
  const log = `embedded:${dataDir}`;
  const plainOut = join(dir, 'rebuilt-plain');
  const keyedOut = join(dir, 'rebuilt-keyed');
  const a = await replay('rebuild', '--log', log, '--out', plainOut, '--hash', '--output', 'json');
  assert.is(a.code, 0, a.stderr);
  const b = await replay('rebuild', '--log', log, '--out', keyedOut, '--hash', '--output', 'json', '--encryption-provider-config', config);
  assert.is(b.code, 0, b.stderr);
  for (const out of [plainOut, keyedOut]) assert.equal(grep(out, [VALUE, b64(VALUE)]), [], `${out} holds only ciphertext`);
  const ha = JSON.parse(a.stdout).stateHash;
  const hb = JSON.parse(b.stdout).stateHash;
  assert.is.not(ha, hb, 'with the file the hash names the decrypted objects');
  const hashPlain = await replay('hash', '--data-dir', dataDir, '--output', 'json');
  const hashKeyed = await replay('hash', '--data-dir', dataDir, '--output', 'json', '--encryption-provider-config', config);
  assert.is(JSON.parse(hashPlain.stdout).hash, ha);
  assert.is(JSON.parse(hashKeyed.stdout).hash, hb);
  for (const extra of [[], ['--encryption-provider-config', config]]) {
    const v = await replay('verify', '--data-dir', dataDir, ...extra);
    assert.is(v.code, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /^OK:/);
  }
  const hidden = await replay('history', '--log', log, 'secrets', `${NS}/h`);
  assert.is(hidden.code, 0, hidden.stderr);
  assert.match(hidden.stdout, 'encrypted at rest: give --encryption-provider-config');
  assert.not.match(hidden.stdout, b64(VALUE));
  const shown = await replay('history', '--log', log, 'secrets', `${NS}/h`, '--encryption-provider-config', config);
  assert.is(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, `{"op":"replace","path":"/data/password","value":"${b64(VALUE)}"}`);
  const wrong = await replay('history', '--log', log, 'secrets', `${NS}/h`, '--encryption-provider-config', configFile(dir, 'other', keyed('secretbox', ['other', key(32)])));
  assert.is(wrong.code, 2);
  assert.match(wrong.stderr, 'no matching key was found for the provided Secretbox transformer');
});

test.run();
