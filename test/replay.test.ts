/**
 * The replay CLI against a real server's embedded log. A server (named token users) takes
 * creates, updates, a stale update (409 Conflict), racing duplicate creates (409 AlreadyExists at
 * fold time) and deletes; the list at some resourceVersion X is recorded, more writes follow, the
 * server stops. Then, as child processes:
 *   rebuild --to-offset X / --at T   a server started on the result lists exactly what was listed at X
 *   verify                           passes on the stopped data dir, fails (naming the key) on a tampered copy
 *   hash                             agrees with verify
 *   history                          verbs, users, field managers, verdicts and diffs of one object
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { ClassicLevel } from 'classic-level';
import { spawnServer, clientFor, tempDir, type ChildServer, type Client } from './harness.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const NS = 'replay';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

function replay(...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'cmd/replay.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c: Buffer) => (stdout += c));
    p.stderr.on('data', (c: Buffer) => (stderr += c));
    p.on('error', reject);
    p.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

const dirs: string[] = [];
const scratch = (p: string): string => {
  const d = tempDir(p);
  dirs.push(d);
  return d;
};
let dataDir: string;
let server: ChildServer | null = null;
const clients: Client[] = [];

/** The list at X, captured while the server ran; X itself; a time between X and later writes. */
let atX: { rv: number; items: any[] };
let cutTime: string;
const expected = { webAccepted: [] as { verb: string; user: string; manager: string }[], dupCreates: 0 };

function userClient(url: string, token: string): Client {
  const base = clientFor(url, join(dataDir, 'pki'), null);
  clients.push(base);
  return {
    request: (method, path, opts = {}) =>
      base.request(method, path, { ...opts, headers: { authorization: `Bearer ${token}`, 'user-agent': `${token.split('-')[0]}-tool/1.0`, ...opts.headers } }),
    close: () => base.close(),
  };
}

async function listAt(c: Client, rv?: number): Promise<{ rv: number; items: any[] }> {
  // Without kube-root-ca.crt: a server on a rebuilt store has a CA of its own, which the
  // root-ca-cert-publisher writes into it at start-up.
  const q = `?fieldSelector=metadata.name%21%3Dkube-root-ca.crt${rv === undefined ? '' : `&resourceVersion=${rv}&resourceVersionMatch=Exact`}`;
  const r = await c.request('GET', CM + q);
  assert.is(r.status, 200, r.text);
  return { rv: Number(r.json.metadata.resourceVersion), items: r.json.items };
}

test.before(async () => {
  dataDir = scratch('apiserver-replay-');
  const tokens = join(dataDir, 'tokens.csv');
  writeFileSync(tokens, 'alice-token,alice,u-alice\nbob-token,bob,u-bob,"devs"\n');
  // The suite is about what the log records of named users; which of them may write is not its
  // subject, so every authenticated user is allowed (kube's AlwaysAllow mode).
  server = await spawnServer(dataDir, 0, ['--token-auth-file', tokens, '--authorization-mode', 'AlwaysAllow']);
  const admin = clientFor(server.url, join(dataDir, 'pki'));
  clients.push(admin);
  const alice = userClient(server.url, 'alice-token');
  const bob = userClient(server.url, 'bob-token');

  assert.is((await admin.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
  const cm = (name: string, data: Record<string, string>, rv?: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(rv ? { resourceVersion: rv } : {}) }, data });

  const c1 = await alice.request('POST', `${CM}?fieldManager=alice-mgr`, { body: cm('web', { color: 'red' }) });
  assert.is(c1.status, 201, c1.text);
  expected.webAccepted.push({ verb: 'create', user: 'alice', manager: 'alice-mgr' });
  const u1 = await bob.request('PUT', `${CM}/web?fieldManager=bob-mgr`, { body: cm('web', { color: 'blue', size: 'L' }, c1.json.metadata.resourceVersion) });
  assert.is(u1.status, 200, u1.text);
  expected.webAccepted.push({ verb: 'update', user: 'bob', manager: 'bob-mgr' });
  // Stale resourceVersion: the store sees the mismatch before appending, so no event is logged.
  const stale = await alice.request('PUT', `${CM}/web?fieldManager=alice-mgr`, { body: cm('web', { color: 'green' }, c1.json.metadata.resourceVersion) });
  assert.is(stale.status, 409, stale.text);
  assert.is(stale.json.reason, 'Conflict');
  // Racing creates of one name: all are appended, the fold accepts the first and rejects the rest.
  const racers = await Promise.all([alice, bob, alice, bob].map((c, i) => c.request('POST', `${CM}?fieldManager=racer-${i}`, { body: cm('dup', { racer: String(i) }) })));
  const statuses = racers.map((r) => r.status).sort();
  assert.equal(statuses, [201, 409, 409, 409], JSON.stringify(racers.map((r) => r.json?.reason)));
  for (const r of racers) if (r.status === 409) assert.is(r.json.reason, 'AlreadyExists');
  expected.dupCreates = racers.length;
  assert.is((await alice.request('POST', CM, { body: cm('gone', { x: '1' }) })).status, 201);
  assert.is((await bob.request('DELETE', `${CM}/gone`)).status, 200);

  // The cut: the list at X as the server serves it, latest and at the exact version.
  const latest = await listAt(admin);
  atX = await listAt(admin, latest.rv);
  assert.is(atX.rv, latest.rv);
  assert.equal(atX.items, latest.items);
  await sleep(30);
  cutTime = new Date().toISOString();
  await sleep(30);

  // After X: a merge patch, a delete, more objects.
  const p = await alice.request('PATCH', `${CM}/web?fieldManager=alice-patch`, { raw: JSON.stringify({ data: { color: 'black' } }), contentType: 'application/merge-patch+json' });
  assert.is(p.status, 200, p.text);
  expected.webAccepted.push({ verb: 'patch', user: 'alice', manager: 'alice-patch' });
  assert.is((await bob.request('DELETE', `${CM}/dup`)).status, 200);
  for (let i = 0; i < 5; i++) assert.is((await alice.request('POST', CM, { body: cm(`late-${i}`, { i: String(i) }) })).status, 201);
  const del = await bob.request('DELETE', `${CM}/web?fieldManager=bob-mgr`);
  assert.is(del.status, 200, del.text);
  expected.webAccepted.push({ verb: 'delete', user: 'bob', manager: 'bob-mgr' });

  for (const c of clients.splice(0)) await c.close();
  await server.kill('SIGTERM');
  server = null;
});

test.after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  if (server) await server.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Start a server on `dir`, list the suite's namespace, stop it. */
async function serveAndList(dir: string): Promise<{ rv: number; items: any[] }> {
  const s = await spawnServer(dir, 0);
  server = s;
  const c = clientFor(s.url, join(dir, 'pki'));
  try {
    return await listAt(c);
  } finally {
    await c.close();
    await s.kill('SIGTERM');
    server = null;
  }
}

test('rebuild --to-offset X: a server on the result lists exactly what was listed at X', async () => {
  const out = scratch('replay-rebuild-');
  const r = await replay('rebuild', '--log', `embedded:${dataDir}`, '--out', out, '--to-offset', String(atX.rv), '--output', 'json');
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.lastOffset, atX.rv);
  assert.is(r.json.events, atX.rv + 1);
  assert.ok(r.json.rejected.AlreadyExists >= 3, `racing creates were rejected at fold time: ${JSON.stringify(r.json.rejected)}`);
  assert.ok(r.json.eventsPerSecond > 0);
  assert.is(r.json.copiedLog, true);
  const served = await serveAndList(out);
  // At start-up the server may write once more (its kubernetes Service follows the new port, as
  // kube-apiserver's does), so the latest version is X or just after it; the suite's objects are X's.
  assert.ok(served.rv >= atX.rv, 'the rebuilt store is at X');
  assert.equal(served.items, atX.items);
});

test('rebuild --at T stops at the last event before T; text output names the rate', async () => {
  const out = scratch('replay-rebuild-at-');
  const r = await replay('rebuild', '--log', `embedded:${dataDir}`, '--out', out, '--at', cutTime);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`offsets 0\\.\\.${atX.rv} \\(${atX.rv + 1} events`));
  assert.match(r.stdout, /\d+ events\/s/);
  assert.match(r.stdout, /cut at /);
  const served = await serveAndList(out);
  assert.equal(served.items, atX.items);
});

test('verify passes on the stopped data dir and agrees with hash', async () => {
  const r = await replay('verify', '--data-dir', dataDir, '--output', 'json');
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.is(r.json.equal, true);
  assert.is(r.json.expected.hash, r.json.actual.hash);
  const h = await replay('hash', '--data-dir', dataDir, '--output', 'json');
  assert.is(h.code, 0, h.stderr);
  assert.is(h.json.hash, r.json.actual.hash);
  assert.is(h.json.folded, r.json.folded);
  const text = await replay('hash', '--data-dir', dataDir);
  assert.match(text.stdout, new RegExp(`^sha256:[0-9a-f]{64}  offset ${h.json.folded}  ${h.json.objects} objects\\n$`));
});

test('verify fails with exit 1 and names the key after a value is tampered with', async () => {
  const copy = scratch('replay-tampered-');
  for (const store of ['db', 'log']) cpSync(join(dataDir, store), join(copy, store), { recursive: true });
  const db = new ClassicLevel<string, Buffer>(join(copy, 'db'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  await db.open();
  const key = `o/core/configmaps/${NS}/late-2`;
  const obj = JSON.parse((await db.get(key))!.toString());
  obj.data.i = 'tampered';
  await db.put(key, Buffer.from(JSON.stringify(obj)));
  await db.close();
  const r = await replay('verify', '--data-dir', copy);
  assert.is(r.code, 1, r.stderr + r.stdout);
  assert.match(r.stdout, /^MISMATCH/);
  assert.match(r.stdout, new RegExp(`${key.replace(/\//g, '\\/')}  \\(value differs\\)`));
});

test('history: verbs, users, managers, verdicts and diffs of one object', async () => {
  const r = await replay('history', '--log', `embedded:${dataDir}`, 'configmaps', `${NS}/web`, '--output', 'json');
  assert.is(r.code, 0, r.stderr);
  const entries = r.json.entries as any[];
  // The stale PUT never reached the log (its 409 came from the store's own check).
  assert.equal(entries.map((e) => ({ verb: e.verb, user: e.user, manager: e.fieldManager })), expected.webAccepted);
  assert.ok(entries.every((e) => e.accepted), 'every logged write of web was accepted');
  assert.is(entries[0].userAgent, 'alice-tool/1.0');
  assert.ok(entries[1].groups.includes('devs'));
  assert.ok(entries[0].diff.some((op: any) => op.op === 'add' && op.path === '/data'), 'create adds its data');
  const diff1 = entries[1].diff.filter((op: any) => op.path.startsWith('/data'));
  assert.equal(diff1.sort((a: any, b: any) => (a.path < b.path ? -1 : 1)), [
    { op: 'replace', path: '/data/color', value: 'blue' },
    { op: 'add', path: '/data/size', value: 'L' },
  ]);
  assert.ok(entries[2].diff.some((op: any) => op.path === '/data/color' && op.value === 'black'), 'the patch changed the color');
  assert.ok(entries.every((e, i) => i === 0 || e.offset > entries[i - 1].offset));
  assert.ok(entries.every((e) => !Number.isNaN(Date.parse(e.time))));

  const dup = await replay('history', '--log', `embedded:${dataDir}`, 'configmaps', `${NS}/dup`, '--output', 'json');
  assert.is(dup.code, 0, dup.stderr);
  const creates = (dup.json.entries as any[]).filter((e) => e.op === 'CREATE');
  assert.is(creates.length, expected.dupCreates);
  assert.is(creates.filter((e) => e.accepted).length, 1);
  for (const e of creates.filter((x) => !x.accepted)) {
    assert.is(e.reason, 'AlreadyExists');
    assert.ok(['alice', 'bob'].includes(e.user));
  }
  const text = await replay('history', '--log', `embedded:${dataDir}`, 'configmaps', `${NS}/dup`);
  assert.match(text.stdout, /REJECTED AlreadyExists/);
  assert.match(text.stdout, /user=(alice|bob)/);
});

test('usage errors exit 2 with a message', async () => {
  const cases: [string[], RegExp][] = [
    [['rebuild', '--log', `embedded:${dataDir}`], /--out is required/],
    [['rebuild', '--log', `embedded:${dataDir}`, '--out', '/tmp/x', '--to-offset', '1', '--at', cutTime], /not both/],
    [['nope'], /unknown command/],
    [['hash', '--data-dir', dataDir, '--group', 'x'], /--group does not apply/],
  ];
  for (const [args, want] of cases) {
    const r = await replay(...args);
    assert.is(r.code, 2, args.join(' '));
    assert.match(r.stderr, want, args.join(' '));
  }
});

test.run();
