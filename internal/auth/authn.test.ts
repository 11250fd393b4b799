import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PeerCertificate } from 'node:tls';
import {
  bearerToken,
  parseCsv,
  parseTokenFile,
  staticTokenAuthenticator,
  tokenFileAuthenticator,
  unionAuthenticator,
  x509Authenticator,
  type AuthRequest,
  type Authenticator,
} from './authn.ts';
import { ApiError } from '../api/errors.ts';
import type { UserInfo } from '../api/types.ts';

const TOKENS = [
  'tok-admin,admin,uid-1,"system:masters,devs"',
  'tok-plain,plain,uid-2',
  'tok-nogroups,ng,,',
  '',
  ',empty-token-skipped,uid-3,g',
  'tok-dup,first,uid-4,a',
  'tok-dup,second,uid-5,b',
  '"tok,quoted",quoted user,uid-6,"x,""y"""',
].join('\r\n');

const req = (headers: AuthRequest['headers'] = {}, extra: Partial<AuthRequest> = {}): AuthRequest => ({ headers, certAuthorized: false, ...extra });

async function rejects401(p: unknown): Promise<void> {
  // A failure is a rejected promise, never a synchronous answer (Authenticator's contract).
  assert.instance(p, Promise);
  try {
    await p;
  } catch (e) {
    assert.instance(e, ApiError);
    assert.is((e as ApiError).code, 401);
    assert.is((e as ApiError).reason, 'Unauthorized');
    return;
  }
  assert.unreachable('expected 401');
}

test('parseCsv follows encoding/csv', () => {
  assert.equal(parseCsv('a,b,c\n'), [['a', 'b', 'c']]);
  assert.equal(parseCsv('a,b,c'), [['a', 'b', 'c']]);
  assert.equal(parseCsv('\n\na,b\r\n\r\nc,,\n'), [['a', 'b'], ['c', '', '']]);
  assert.equal(parseCsv('"a,1","b ""q""",c'), [['a,1', 'b "q"', 'c']]);
  assert.equal(parseCsv('"multi\nline",x'), [['multi\nline', 'x']]);
  assert.equal(parseCsv(' a , b'), [[' a ', ' b']]);
  assert.throws(() => parseCsv('a"b,c'), /bare "/);
  assert.throws(() => parseCsv('"abc'), /quoted-field/);
  assert.throws(() => parseCsv('"a"b,c'), /quoted-field/);
});

test('parseTokenFile', () => {
  const m = parseTokenFile(TOKENS);
  assert.equal(m.get('tok-admin'), { username: 'admin', uid: 'uid-1', groups: ['system:masters', 'devs', 'system:authenticated'] });
  assert.equal(m.get('tok-plain'), { username: 'plain', uid: 'uid-2', groups: ['system:authenticated'] });
  assert.equal(m.get('tok-nogroups'), { username: 'ng', groups: ['system:authenticated'] });
  assert.equal(m.get('tok-dup'), { username: 'second', uid: 'uid-5', groups: ['b', 'system:authenticated'] });
  assert.equal(m.get('tok,quoted'), { username: 'quoted user', uid: 'uid-6', groups: ['x', '"y"', 'system:authenticated'] });
  assert.not.ok(m.has(''));
  assert.is(m.size, 5);
  assert.throws(() => parseTokenFile('tok,user\n', 'f.csv'), /must have at least 3 columns .* found 2/);
  assert.equal(parseTokenFile('').size, 0);
});

test('bearerToken extraction', () => {
  assert.is(bearerToken({}), undefined);
  assert.is(bearerToken({ authorization: 'Bearer abc' }), 'abc');
  assert.is(bearerToken({ authorization: 'bearer abc' }), 'abc');
  assert.is(bearerToken({ Authorization: 'BEARER abc' }), 'abc');
  assert.is(bearerToken({ authorization: ['Bearer first', 'Bearer second'] }), 'first');
  assert.is(bearerToken({ authorization: '  Bearer abc  ' }), 'abc');
  assert.is(bearerToken({ authorization: 'Bearer ' }), undefined);
  assert.is(bearerToken({ authorization: 'Basic dXNlcjpwYXNz' }), undefined);
  assert.is(bearerToken({ authorization: 'Bearer' }), undefined);
  const proto = `base64url.bearer.authorization.k8s.io.${Buffer.from('ws-token').toString('base64url')}`;
  assert.is(bearerToken({ 'sec-websocket-protocol': `v5.channel.k8s.io, ${proto}` }), 'ws-token');
});

test('token authenticator: none → null, bad → 401, good → user', async () => {
  const a = staticTokenAuthenticator(parseTokenFile(TOKENS));
  assert.is(await a.authenticate(req()), null);
  assert.is(await a.authenticate(req({ authorization: 'Basic dXNlcjpwYXNz' })), null);
  await rejects401(a.authenticate(req({ authorization: 'Bearer wrong' })));
  const u = await a.authenticate(req({ authorization: 'Bearer tok-admin' }));
  assert.equal(u, { username: 'admin', uid: 'uid-1', groups: ['system:masters', 'devs', 'system:authenticated'] });
  // Returned users are copies: mutating one does not change the table.
  u!.groups.push('evil');
  assert.equal((await a.authenticate(req({ authorization: 'Bearer tok-admin' })))!.groups, ['system:masters', 'devs', 'system:authenticated']);
});

test('tokenFileAuthenticator reads the file', async () => {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'authn-test-'));
  try {
    const f = path.join(dir, 'tokens.csv');
    await fsp.writeFile(f, TOKENS);
    const a = tokenFileAuthenticator(f);
    assert.is((await a.authenticate(req({ authorization: 'Bearer tok-plain' })))!.username, 'plain');
    await rejects401(a.authenticate(req({ authorization: 'Bearer nope' })));
    await fsp.writeFile(f, 'only,two\n');
    assert.throws(() => tokenFileAuthenticator(f), /at least 3 columns/);
    assert.throws(() => tokenFileAuthenticator(path.join(dir, 'missing.csv')), /ENOENT/);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
});

const fakeCert = (subject: Record<string, string | string[]>): PeerCertificate =>
  ({ subject, issuer: { CN: 'ca' }, raw: Buffer.from('not really DER'), fingerprint256: 'AA:BB' }) as unknown as PeerCertificate;

test('x509Authenticator', async () => {
  const a = x509Authenticator();
  assert.is(await a.authenticate(req()), null);
  assert.is(await a.authenticate(req({}, { peerCertificate: null })), null);
  assert.is(await a.authenticate(req({}, { peerCertificate: {} as PeerCertificate })), null);
  const one = await a.authenticate(req({}, { peerCertificate: fakeCert({ CN: 'bob', O: 'devs' }), certAuthorized: true }));
  assert.is(one!.username, 'bob');
  assert.equal(one!.groups, ['devs', 'system:authenticated']);
  // kube 1.24: name and groups only, no extra (credential-id is a later release's).
  assert.equal(one, { username: 'bob', groups: ['devs', 'system:authenticated'] });
  const many = await a.authenticate(req({}, { peerCertificate: fakeCert({ CN: 'admin', O: ['system:masters', 'ops'] }), certAuthorized: true }));
  assert.equal(many!.groups, ['system:masters', 'ops', 'system:authenticated']);
  const none = await a.authenticate(req({}, { peerCertificate: fakeCert({ CN: 'x' }), certAuthorized: true }));
  assert.equal(none!.groups, ['system:authenticated']);
  // Verification failed at the TLS layer: credentials presented but invalid.
  await rejects401(a.authenticate(req({}, { peerCertificate: fakeCert({ CN: 'mallory' }), certAuthorized: false })));
  // Verified certificate without a CN: no user (as kube-apiserver).
  assert.is(await a.authenticate(req({}, { peerCertificate: fakeCert({ O: 'g' }), certAuthorized: true })), null);
});

test('unionAuthenticator', async () => {
  const tokens = staticTokenAuthenticator(parseTokenFile(TOKENS));
  const x509 = x509Authenticator();
  const u = unionAuthenticator([x509, tokens]);
  const cert = { peerCertificate: fakeCert({ CN: 'bob', O: 'devs' }), certAuthorized: true };
  // Nothing presented → anonymous (null).
  assert.is(await u.authenticate(req()), null);
  // Cert wins first.
  assert.is((await u.authenticate(req({ authorization: 'Bearer tok-plain' }, cert)))!.username, 'bob');
  // Token alone.
  assert.is((await u.authenticate(req({ authorization: 'Bearer tok-plain' })))!.username, 'plain');
  // A bad token but a good certificate: success wins.
  assert.is((await u.authenticate(req({ authorization: 'Bearer bad' }, cert)))!.username, 'bob');
  // A bad certificate but a good token: success wins.
  assert.is((await u.authenticate(req({ authorization: 'Bearer tok-plain' }, { peerCertificate: fakeCert({ CN: 'm' }), certAuthorized: false })))!.username, 'plain');
  // Only invalid credentials → 401.
  await rejects401(u.authenticate(req({ authorization: 'Bearer bad' })));
  // Non-ApiError failures become 401 as well.
  const boom: Authenticator = { authenticate: async () => { throw new Error('backend down'); } };
  await rejects401(unionAuthenticator([boom]).authenticate(req()));
  const fixed: UserInfo = { username: 'z', groups: [] };
  assert.is(await unionAuthenticator([boom, { authenticate: async () => fixed }]).authenticate(req()), fixed);
  assert.is(await unionAuthenticator([]).authenticate(req()), null);
});

test.run();
