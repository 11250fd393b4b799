/**
 * The audit log through real requests: audit.k8s.io/v1 Event lines with kube-apiserver 1.24's
 * stages, fields and shapes (taken from a reference kube-apiserver run with the same policy), the
 * policy's rules (levels, omitStages, non-resource URLs), failed authentication, the Audit-ID
 * header, deprecated-API annotations, Secrets never logged beyond Metadata, rotation by size with
 * a bounded number of backups, `-` for standard output, and start-up errors for a bad policy.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { startTestServer, tempDir, clientFor, type TestServer } from './harness.ts';
import { nodeArgsFor } from './server-command.ts';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
  verbs: ["list"]
  omitStages: ["RequestReceived"]
- level: RequestResponse
`;

const SECRET_VALUE = 'hunter2-very-secret-value';

let dir: string;
let s: TestServer;

test.before(async () => {
  dir = tempDir();
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  s = await startTestServer({ auditLogPath: join(dir, 'audit', 'audit.log'), auditPolicyFile: join(dir, 'policy.yaml') });
});
test.after(async () => {
  await s.close();
});

type Ev = Record<string, any>;
const events = (): Ev[] => readFileSync(join(dir, 'audit', 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Ev);
/** Let the writer flush (it writes once per event-loop turn). */
const settle = () => new Promise((r) => setTimeout(r, 100));
const byId = (id: string): Ev[] => events().filter((e) => e.auditID === id);
const idOf = (r: { headers: Record<string, unknown> }): string => String(r.headers['audit-id']);

test('create: RequestReceived then ResponseComplete, kube field order, objects at RequestResponse', async () => {
  const r = await s.client.request('POST', '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'aud1' }, data: { a: 'b' } }, headers: { 'user-agent': 'audit-test/1.0' } });
  assert.is(r.status, 201);
  await settle();
  const [rr, rc] = byId(idOf(r));
  assert.ok(rr && rc, 'two events');
  assert.equal(Object.keys(rr), ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'objectRef', 'requestReceivedTimestamp', 'stageTimestamp']);
  assert.equal(Object.keys(rc), ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', 'requestObject', 'responseObject', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']);
  assert.is(rr.kind, 'Event');
  assert.is(rr.apiVersion, 'audit.k8s.io/v1');
  assert.is(rr.level, 'RequestResponse');
  assert.is(rr.stage, 'RequestReceived');
  assert.is(rc.stage, 'ResponseComplete');
  assert.is(rr.requestURI, '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create');
  assert.is(rr.verb, 'create');
  assert.equal(rr.user, { username: 'admin', groups: ['system:masters', 'system:authenticated'] });
  assert.equal(rr.sourceIPs, ['127.0.0.1']);
  assert.is(rr.userAgent, 'audit-test/1.0');
  assert.equal(rr.objectRef, { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' });
  assert.equal(rc.objectRef, { resource: 'configmaps', namespace: 'default', name: 'aud1', apiVersion: 'v1' });
  assert.equal(rc.responseStatus, { metadata: {}, code: 201 });
  assert.equal(rc.requestObject.data, { a: 'b' });
  assert.is(rc.responseObject.kind, 'ConfigMap');
  assert.is(rc.responseObject.metadata.uid, r.json.metadata.uid);
  assert.equal(rc.annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
  assert.match(rr.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.is(rr.stageTimestamp, rr.requestReceivedTimestamp);
  assert.ok(rc.stageTimestamp >= rc.requestReceivedTimestamp);
});

test('errors carry the Status as responseStatus; a client Audit-ID is kept', async () => {
  const r = await s.client.request('GET', '/api/v1/namespaces/default/configmaps/nope', { headers: { 'audit-id': 'my-audit-id-1' } });
  assert.is(r.status, 404);
  assert.is(r.headers['audit-id'], 'my-audit-id-1');
  await settle();
  const rc = byId('my-audit-id-1').find((e) => e.stage === 'ResponseComplete')!;
  assert.equal(rc.responseStatus, { metadata: {}, status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404 });
  assert.equal(rc.responseObject, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404 });
});

test('watch: RequestReceived, ResponseStarted, ResponseComplete; omitStages and None rules', async () => {
  const w = await s.client.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1');
  assert.is(w.status, 200);
  const l = await s.client.request('GET', '/api/v1/namespaces/default/configmaps');
  const h = await s.client.request('GET', '/healthz');
  assert.is(h.status, 200);
  await settle();
  assert.equal(byId(idOf(w)).map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
  const started = byId(idOf(w))[1]!;
  assert.equal(started.responseStatus, { metadata: {}, code: 200 });
  assert.not.ok('responseObject' in byId(idOf(w))[2]!, 'watch bodies are not logged');
  assert.equal(byId(idOf(l)).map((e) => e.stage), ['ResponseComplete'], 'omitStages: RequestReceived');
  assert.is(byId(idOf(l))[0]!.responseObject.kind, 'ConfigMapList');
  assert.equal(byId(idOf(h)), [], '/healthz matches a None rule');
});

test('Secrets are logged at Metadata at most: no value in any event, whatever the policy says', async () => {
  const P = '/api/v1/namespaces/default/secrets';
  const c = await s.client.request('POST', P, { body: { metadata: { name: 'aud-secret' }, stringData: { pw: SECRET_VALUE } } });
  assert.is(c.status, 201);
  assert.is((await s.client.request('PATCH', `${P}/aud-secret`, { raw: JSON.stringify({ stringData: { pw2: SECRET_VALUE } }), contentType: 'application/merge-patch+json' })).status, 200);
  assert.is((await s.client.request('GET', `${P}/aud-secret`)).status, 200);
  assert.is((await s.client.request('GET', P)).status, 200);
  assert.is((await s.client.request('GET', `/api/v1/secrets?watch=1&timeoutSeconds=1`)).status, 200);
  assert.is((await s.client.request('PUT', `${P}/aud-secret`, { body: { metadata: { name: 'aud-secret' }, data: { pw: Buffer.from(SECRET_VALUE).toString('base64') } } })).status, 200);
  assert.is((await s.client.request('DELETE', `${P}/aud-secret`)).status, 200);
  await settle();
  const text = readFileSync(join(dir, 'audit', 'audit.log'), 'utf8');
  assert.not.ok(text.includes(SECRET_VALUE), 'secret value in the audit log');
  assert.not.ok(text.includes(Buffer.from(SECRET_VALUE).toString('base64')), 'base64 secret value in the audit log');
  const ev = byId(idOf(c));
  assert.equal(ev.map((e) => e.level), ['Metadata', 'Metadata']);
  assert.equal(ev[1]!.objectRef, { resource: 'secrets', namespace: 'default', name: 'aud-secret', apiVersion: 'v1' });
  assert.equal(ev[1]!.responseStatus, { metadata: {}, code: 201 });
});

test('failed authentication: one ResponseStarted event with an empty user and 401', async () => {
  const anon = clientFor(s.url, join(s.dataDir, 'pki'), null);
  try {
    const r = await anon.request('GET', '/api/v1/namespaces/default/secrets', { headers: { authorization: 'Bearer bogus', 'audit-id': 'failed-authn-1' } });
    assert.is(r.status, 401);
  } finally {
    await anon.close();
  }
  await settle();
  const ev = byId('failed-authn-1');
  assert.is(ev.length, 1);
  assert.is(ev[0]!.stage, 'ResponseStarted');
  assert.is(ev[0]!.level, 'Metadata', 'secrets are capped at Metadata');
  assert.equal(ev[0]!.user, {});
  assert.is(ev[0]!.verb, 'list');
  assert.equal(ev[0]!.responseStatus, { metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
});

test('a deprecated version is annotated k8s.io/deprecated and k8s.io/removed-release', async () => {
  const r = await s.client.request('GET', '/apis/events.k8s.io/v1beta1/namespaces/default/events');
  assert.is(r.status, 200);
  await settle();
  const rc = byId(idOf(r)).find((e) => e.stage === 'ResponseComplete')!;
  assert.equal(rc.annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '', 'k8s.io/deprecated': 'true', 'k8s.io/removed-release': '1.25' });
  assert.equal(rc.objectRef, { resource: 'events', namespace: 'default', apiGroup: 'events.k8s.io', apiVersion: 'v1beta1' });
});

test('rotation: --audit-log-maxsize 1 MB, --audit-log-maxbackup 2: backups named as lumberjack, at most 2 kept', async () => {
  const d = tempDir();
  writeFileSync(join(d, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n');
  const r = await startTestServer({ auditLogPath: join(d, 'a.log'), auditPolicyFile: join(d, 'policy.yaml'), auditLogMaxSize: 1, auditLogMaxBackup: 2 });
  try {
    const big = 'x'.repeat(200 * 1024);
    for (let i = 0; i < 24; i++) assert.is((await r.client.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `big-${i}` }, data: { v: big } } })).status, 201);
    await settle();
    const files = readdirSync(d).filter((f) => f.startsWith('a'));
    const backups = files.filter((f) => f !== 'a.log');
    assert.is(backups.length, 2, files.join(' '));
    for (const b of backups) assert.match(b, /^a-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
    for (const f of files) {
      assert.ok(statSync(join(d, f)).size <= 1024 * 1024 + 512 * 1024, `${f} is near 1 MB`);
      for (const line of readFileSync(join(d, f), 'utf8').trim().split('\n')) JSON.parse(line);
    }
    assert.is((statSync(join(d, 'a.log')).mode & 0o777).toString(8), '600');
  } finally {
    await r.close();
  }
});

test('--audit-log-path - writes events to standard output; a bad policy fails start-up', async () => {
  const d = tempDir();
  writeFileSync(join(d, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  const proc = spawn(process.execPath, [...nodeArgsFor('cmd/apiserver.ts'), '--data-dir', d, '--secure-port', '0', '--log-level', 'info', '--audit-log-path', '-', '--audit-policy-file', join(d, 'policy.yaml')], { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(err)), 30_000);
    proc.stderr!.on('data', (c: Buffer) => {
      err += c;
      const m = /"url":"([^"]+)"[^\n]*API server ready/.exec(err);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    });
  });
  const c = clientFor(url, join(d, 'pki'));
  try {
    const r = await c.request('GET', '/api/v1/namespaces', { headers: { 'audit-id': 'stdout-1' } });
    assert.is(r.status, 200);
    await new Promise((r2) => setTimeout(r2, 300));
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as Ev).filter((e) => e.auditID === 'stdout-1');
    assert.equal(lines.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
  } finally {
    await c.close();
    proc.kill('SIGTERM');
    await new Promise((r) => proc.on('exit', r));
  }

  writeFileSync(join(d, 'bad.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n');
  const bad = spawn(process.execPath, [...nodeArgsFor('cmd/apiserver.ts'), '--data-dir', d, '--secure-port', '0', '--audit-log-path', join(d, 'x.log'), '--audit-policy-file', join(d, 'bad.yaml')], { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'ignore', 'pipe'] });
  let badErr = '';
  bad.stderr!.on('data', (c: Buffer) => (badErr += c));
  const code = await new Promise<number | null>((r) => bad.on('exit', r));
  assert.is(code, 1);
  assert.match(badErr, 'Error: loading audit policy file: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"');
});

test.run();
