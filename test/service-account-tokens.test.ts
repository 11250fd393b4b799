/**
 * ServiceAccount token configuration through real servers: kube's --service-account-* flags with
 * keys this suite writes (ECDSA signing, several keys in one key file, a second issuer and a
 * rotated-out RSA key still accepted, --api-audiences), --service-account-max-token-expiration
 * (shortened with a Warning), the projected-token expiry extension, the pod-bound user's extra
 * (read from the audit log), --service-account-lookup=false, start-up errors of the real binary
 * with kube's messages, and two server processes sharing one PKI dir: they generate one signing
 * key between them, and a token one issues is accepted by the other (and by a restarted server).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { startTestServer, tempDir, clientFor, agentClient, spawnServer, eventually, type Client } from './harness.ts';
import { keyId } from '../internal/auth/serviceaccount/keys.ts';
import { FeatureGates } from '../internal/features/gates.ts';

const dir = tempDir('satoken-');
const pem = (k: KeyObject, type: 'pkcs8' | 'spki' | 'pkcs1' | 'sec1'): string => k.export({ type, format: 'pem' } as never) as string;

/** A bearer-token client for a server (no client certificate). */
function bearerClient(s: { url: string }, pkiDir: string, token: string): Client {
  return agentClient(s.url, new Agent({ connect: { ca: readFileSync(join(pkiDir, 'ca.crt'), 'utf8') } }), { authorization: `Bearer ${token}` });
}

async function ok(c: Client, method: string, path: string, body?: unknown): Promise<any> {
  const r = await c.request(method, path, body === undefined ? {} : { body });
  assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
}

const saBody = (name: string) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });

test('explicit keys: ECDSA signing, several keys per file, two issuers, --api-audiences, max expiration, extension, pod extra', async () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const oldRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const d = join(dir, 'explicit');
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'signing.key'), pem(ec.privateKey, 'pkcs8'));
  // One file, two keys: the retired RSA key (public) and the current one (its SEC1 private key).
  writeFileSync(join(d, 'verify.pem'), pem(oldRsa.publicKey, 'spki') + pem(ec.privateKey, 'sec1'));
  writeFileSync(join(d, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  const s = await startTestServer({
    auditLogPath: join(d, 'audit.log'),
    auditPolicyFile: join(d, 'policy.yaml'),
    serviceAccounts: {
      signingKeyFile: join(d, 'signing.key'),
      keyFiles: [join(d, 'verify.pem')],
      issuers: ['https://new.example', 'https://old.example'],
      apiAudiences: ['api', 'other'],
      maxTokenExpirationMs: 2 * 3600_000,
    },
  });
  const clients: Client[] = [];
  try {
    const c = s.client;
    await ok(c, 'POST', '/api/v1/namespaces/default/serviceaccounts', saBody('svc'));
    const sa = await ok(c, 'GET', '/api/v1/namespaces/default/serviceaccounts/svc');

    const jwks = await c.request('GET', '/openid/v1/jwks', { headers: { accept: '*/*' } });
    assert.equal(jwks.json.keys.map((k: any) => [k.kty, k.alg, k.kid]), [
      ['RSA', 'RS256', keyId(oldRsa.publicKey)],
      ['EC', 'ES256', keyId(ec.publicKey)],
    ]);
    assert.equal(Object.keys(jwks.json.keys[1]), ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
    const conf = await ok(c, 'GET', '/.well-known/openid-configuration');
    assert.is(conf.issuer, 'https://new.example');
    assert.equal(conf.id_token_signing_alg_values_supported, ['ES256', 'RS256']);

    // Defaults: the API audiences; ES256 with the signing key's kid; the first issuer.
    const tr = await ok(c, 'POST', '/api/v1/namespaces/default/serviceaccounts/svc/token', {});
    assert.equal(tr.spec.audiences, ['api', 'other']);
    const token: string = tr.status.token;
    assert.equal(decodeProtectedHeader(token), { alg: 'ES256', kid: keyId(ec.publicKey) });
    assert.is(decodeJwt(token).iss, 'https://new.example');
    const tc = bearerClient(s, join(s.dataDir, 'pki'), token);
    clients.push(tc);
    assert.is((await tc.request('GET', '/api/v1/namespaces/default/configmaps')).status, 403, 'authenticated');

    // The retired key and the second issuer are still accepted; an audience outside --api-audiences is not.
    const now = Math.floor(Date.now() / 1000);
    const claims = { ...decodeJwt(token), iss: 'https://old.example', aud: ['other'], iat: now, nbf: now, exp: now + 600 };
    const old = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(oldRsa.privateKey);
    const oc = bearerClient(s, join(s.dataDir, 'pki'), old);
    const ac = bearerClient(s, join(s.dataDir, 'pki'), await new SignJWT({ ...claims, aud: ['vault'] }).setProtectedHeader({ alg: 'RS256' }).sign(oldRsa.privateKey));
    clients.push(oc, ac);
    assert.is((await oc.request('GET', '/api/v1/namespaces/default/configmaps')).status, 403, 'old key + second issuer: authenticated');
    assert.is((await ac.request('GET', '/api/v1/namespaces/default/configmaps')).status, 401, 'audience not served');

    // --service-account-max-token-expiration=2h: a 3h request is shortened, with kube's warning.
    const long = await c.request('POST', '/api/v1/namespaces/default/serviceaccounts/svc/token', { body: { spec: { expirationSeconds: 10800 } } });
    assert.is(long.status, 201);
    assert.is(long.headers.warning, '299 - "requested expiration of 10800 seconds shortened to 7200 seconds"');
    assert.is(long.json.spec.expirationSeconds, 7200);
    const lc = decodeJwt(long.json.status.token);
    assert.is(lc.exp! - lc.iat!, 7200);

    // Pod-bound, 3607 s, API audiences (what the projected volume asks for): a year, warnafter at 3607 s.
    const pod = await ok(c, 'POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { serviceAccountName: 'svc', containers: [{ name: 'c', image: 'busybox' }] } });
    const ext = await ok(c, 'POST', '/api/v1/namespaces/default/serviceaccounts/svc/token', { spec: { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } } });
    const xc = decodeJwt(ext.status.token);
    assert.is(xc.exp! - xc.iat!, 24 * 365 * 3600);
    assert.is((xc['kubernetes.io'] as any).warnafter, xc.iat! + 3607);
    assert.equal(Object.keys(xc['kubernetes.io'] as object), ['namespace', 'pod', 'serviceaccount', 'warnafter']);
    assert.is(Date.parse(ext.status.expirationTimestamp) / 1000, xc.iat! + 3607, 'the answer names the requested expiry');
    const vault = await ok(c, 'POST', '/api/v1/namespaces/default/serviceaccounts/svc/token', { spec: { expirationSeconds: 3607, audiences: ['vault'], boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } } });
    const vc = decodeJwt(vault.status.token);
    assert.is(vc.exp! - vc.iat!, 3607, 'not extended for a foreign audience');

    // The pod-bound user: name, uid, groups and the pod extra (as the audit log records the user).
    const pc = bearerClient(s, join(s.dataDir, 'pki'), ext.status.token);
    clients.push(pc);
    const r = await pc.request('GET', '/api/v1/namespaces/default/configmaps');
    assert.is(r.status, 403);
    await new Promise((res) => setTimeout(res, 100));
    const ev = readFileSync(join(d, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((e) => e.auditID === r.headers['audit-id'] && e.stage === 'ResponseComplete');
    assert.equal(ev.user, {
      username: 'system:serviceaccount:default:svc',
      uid: sa.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/pod-name': ['p'], 'authentication.kubernetes.io/pod-uid': [pod.metadata.uid] },
    });

    // Audit annotations from authentication, from RequestReceived on: a projected token past its
    // warnafter (still valid) is `stale-token`; a legacy token is `legacy-token`.
    const eventsOf = (id: unknown) => readFileSync(join(d, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.auditID === id);
    const t0 = Math.floor(Date.now() / 1000);
    const stale = await new SignJWT({ ...xc, iat: t0 - 200, nbf: t0 - 200, exp: t0 + 3600, 'kubernetes.io': { ...(xc['kubernetes.io'] as object), warnafter: t0 - 100 } })
      .setProtectedHeader({ alg: 'ES256', kid: keyId(ec.publicKey) })
      .sign(ec.privateKey);
    const sc = bearerClient(s, join(s.dataDir, 'pki'), stale);
    clients.push(sc);
    const sr = await sc.request('GET', '/api/v1/namespaces/default/configmaps');
    assert.is(sr.status, 403, 'a stale token is still valid');
    await new Promise((res) => setTimeout(res, 100));
    const staleEvents = eventsOf(sr.headers['audit-id']);
    assert.equal(staleEvents.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    for (const e of staleEvents) assert.match(e.annotations['authentication.k8s.io/stale-token'], /^subject: system:serviceaccount:default:svc, seconds after warning threshold: 10\d$/);
    assert.equal(Object.keys(staleEvents[0].annotations), ['authentication.k8s.io/stale-token'], 'only authentication\'s at RequestReceived');

    await ok(c, 'POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'svc-token', annotations: { 'kubernetes.io/service-account.name': 'svc' } }, type: 'kubernetes.io/service-account-token' });
    let legacy = '';
    await eventually('the token Secret to be filled', async () => {
      const sec = (await c.request('GET', '/api/v1/namespaces/default/secrets/svc-token')).json;
      legacy = sec.data?.token ? Buffer.from(sec.data.token, 'base64').toString() : '';
      return legacy !== '';
    });
    const legacyClient = bearerClient(s, join(s.dataDir, 'pki'), legacy);
    clients.push(legacyClient);
    const lr = await legacyClient.request('GET', '/api/v1/namespaces/default/configmaps');
    assert.is(lr.status, 403);
    await new Promise((res) => setTimeout(res, 100));
    for (const e of eventsOf(lr.headers['audit-id'])) assert.is(e.annotations['authentication.k8s.io/legacy-token'], 'system:serviceaccount:default:svc', e.stage);

    // kube's serviceaccount_*_tokens_total: one legacy, one stale and one valid projected use above.
    const metrics = (await c.request('GET', '/metrics', { headers: { accept: 'text/plain' } })).text;
    for (const [name, n] of [['serviceaccount_legacy_tokens_total', 1], ['serviceaccount_stale_tokens_total', 1], ['serviceaccount_valid_tokens_total', 1]] as const) {
      assert.match(metrics, `# TYPE ${name} counter\n${name} ${n}\n`, name);
    }
    assert.match(metrics, '# HELP serviceaccount_stale_tokens_total [ALPHA] Cumulative stale projected service account tokens used\n');
  } finally {
    for (const x of clients) await x.close();
    await s.close();
  }
});

test('discovery: --service-account-jwks-uri in the document; an issuer that is not an https URL leaves the routes uninstalled (404) while tokens work', async () => {
  const d = join(dir, 'issuers');
  mkdirSync(d, { recursive: true });
  const k = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(d, 'sa.key'), pem(k.privateKey, 'pkcs1'));
  const flags = { signingKeyFile: join(d, 'sa.key'), keyFiles: [join(d, 'sa.key')] };
  const withUri = await startTestServer({ serviceAccounts: { ...flags, issuers: ['https://issuer.example/cluster'], jwksUri: 'https://cdn.example/jwks.json' } });
  try {
    const conf = await ok(withUri.client, 'GET', '/.well-known/openid-configuration');
    assert.equal([conf.issuer, conf.jwks_uri], ['https://issuer.example/cluster', 'https://cdn.example/jwks.json']);
  } finally {
    await withUri.close();
  }
  const plain = await startTestServer({ serviceAccounts: { ...flags, issuers: ['kubernetes-issuer'] } });
  try {
    for (const p of ['/.well-known/openid-configuration', '/openid/v1/jwks']) {
      const r = await plain.client.request('GET', p);
      assert.is(r.status, 404, p);
      assert.is(r.text, '404 page not found\n', p);
    }
    await ok(plain.client, 'POST', '/api/v1/namespaces/default/serviceaccounts', saBody('svc'));
    const token = (await ok(plain.client, 'POST', '/api/v1/namespaces/default/serviceaccounts/svc/token', {})).status.token;
    assert.is(decodeJwt(token).iss, 'kubernetes-issuer');
    const tc = bearerClient(plain, join(plain.dataDir, 'pki'), token);
    assert.is((await tc.request('GET', '/api/v1/namespaces/default/configmaps')).status, 403, 'authenticated');
    await tc.close();
  } finally {
    await plain.close();
  }
});

test('--service-account-lookup=false: a legacy token outlives its Secret; bound tokens are always looked up', async () => {
  const s = await startTestServer({ serviceAccounts: { lookup: false } });
  try {
    const c = s.client;
    await ok(c, 'POST', '/api/v1/namespaces/default/serviceaccounts', saBody('legacy'));
    await ok(c, 'POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'legacy-token', annotations: { 'kubernetes.io/service-account.name': 'legacy' } }, type: 'kubernetes.io/service-account-token' });
    let token = '';
    await eventually('the token Secret to be filled', async () => {
      const sec = (await c.request('GET', '/api/v1/namespaces/default/secrets/legacy-token')).json;
      token = sec.data?.token ? Buffer.from(sec.data.token, 'base64').toString() : '';
      return token !== '';
    });
    const bound = (await ok(c, 'POST', '/api/v1/namespaces/default/serviceaccounts/legacy/token', {})).status.token;
    const lc = bearerClient(s, join(s.dataDir, 'pki'), token);
    const bc = bearerClient(s, join(s.dataDir, 'pki'), bound);
    try {
      await ok(c, 'DELETE', '/api/v1/namespaces/default/secrets/legacy-token');
      assert.is((await lc.request('GET', '/api/v1/namespaces/default/configmaps')).status, 403, 'without lookup the legacy token still authenticates');
      await ok(c, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/legacy');
      assert.is((await lc.request('GET', '/api/v1/namespaces/default/configmaps')).status, 403, 'even with the account gone');
      assert.is((await bc.request('GET', '/api/v1/namespaces/default/configmaps')).status, 401, 'a bound token of a deleted account is refused');
    } finally {
      await lc.close();
      await bc.close();
    }
  } finally {
    await s.close();
  }
});

test('LegacyServiceAccountTokenNoAutoGeneration=false: every account gets a referenced token Secret, replaced when deleted, deleted with its account', async () => {
  const s = await startTestServer({ featureGates: new FeatureGates('LegacyServiceAccountTokenNoAutoGeneration=false') });
  try {
    const c = s.client;
    const referenced = async (name: string): Promise<string> => {
      let ref = '';
      await eventually(`a token Secret referenced by ${name}`, async () => {
        const sa = (await c.request('GET', `/api/v1/namespaces/default/serviceaccounts/${name}`)).json;
        ref = sa.secrets?.[0]?.name ?? '';
        return ref !== '' && (await c.request('GET', `/api/v1/namespaces/default/secrets/${ref}`)).status === 200;
      });
      return ref;
    };
    assert.match(await referenced('default'), /^default-token-[bcdfghjklmnpqrstvwxz2456789]{5}$/, 'the default account too');
    await ok(c, 'POST', '/api/v1/namespaces/default/serviceaccounts', saBody('auto'));
    const first = await referenced('auto');
    const secret = await ok(c, 'GET', `/api/v1/namespaces/default/secrets/${first}`);
    assert.is(secret.type, 'kubernetes.io/service-account-token');
    assert.equal(Object.keys(secret.data).sort(), ['ca.crt', 'namespace', 'token']);
    const token = Buffer.from(secret.data.token, 'base64').toString();
    assert.is(decodeJwt(token)['kubernetes.io/serviceaccount/secret.name'], first);
    const tc = bearerClient(s, join(s.dataDir, 'pki'), token);
    try {
      assert.is((await tc.request('GET', '/api/v1/namespaces/default/configmaps')).status, 403, 'authenticated');
      const sas = (await ok(c, 'GET', '/api/v1/namespaces/default/secrets?fieldSelector=type%3Dkubernetes.io%2Fservice-account-token')).items.filter((x: any) => x.metadata.annotations['kubernetes.io/service-account.name'] === 'auto');
      assert.is(sas.length, 1, 'exactly one token Secret');
      await ok(c, 'DELETE', `/api/v1/namespaces/default/secrets/${first}`);
      let second = '';
      await eventually('a new referenced token Secret', async () => {
        second = (await c.request('GET', '/api/v1/namespaces/default/serviceaccounts/auto')).json.secrets?.[0]?.name ?? '';
        return second !== '' && second !== first;
      });
      // Refused once kube's 10 s success cache of the token union has let the token go.
      await eventually('the deleted Secret\'s token is dead', async () => (await tc.request('GET', '/api/v1/namespaces/default/configmaps')).status === 401, 20_000);
      await ok(c, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/auto');
      await eventually('the token Secret deleted with its account', async () => (await c.request('GET', `/api/v1/namespaces/default/secrets/${second}`)).status === 404);
    } finally {
      await tc.close();
    }
  } finally {
    await s.close();
  }
});

/** Start the real binary with these flags and return what it printed when it exited. */
async function startupError(args: string[]): Promise<string> {
  const d = tempDir('satoken-bad-');
  try {
    await spawnServer(d, 0, args);
    assert.unreachable(`started with ${args.join(' ')}`);
  } catch (e) {
    return (e as Error).message;
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
  return '';
}

test('start-up errors of cmd/apiserver.ts: kube-apiserver 1.24\'s messages', async () => {
  const d = join(dir, 'bad');
  mkdirSync(d, { recursive: true });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(d, 'sa.key'), pem(rsa.privateKey, 'pkcs1'));
  writeFileSync(join(d, 'garbage.pem'), 'garbage\n');
  const cases: [string[], string][] = [
    [['--service-account-issuer', 'https://x'], 'Error: --service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together'],
    [['--service-account-signing-key-file', join(d, 'sa.key')], 'Error: [service-account-issuer is a required flag, service-account-key-file is a required flag, --service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together]'],
    [['--service-account-issuer', 'https://x', '--service-account-key-file', join(d, 'sa.key'), '--service-account-signing-key-file', join(d, 'sa.key'), '--service-account-max-token-expiration', '10m'], 'Error: the service-account-max-token-expiration must be between 1 hour and 2^32 seconds'],
    [['--service-account-issuer', 'https://x', '--service-account-key-file', join(d, 'garbage.pem'), '--service-account-signing-key-file', join(d, 'sa.key')], `Error: error reading public key file ${join(d, 'garbage.pem')}: data does not contain any valid RSA or ECDSA public keys`],
  ];
  for (const [i, [args, want]] of cases.entries()) {
    const out = await startupError(args);
    assert.ok(out.includes(want), `case ${i}: want ${want}\ngot: ${out}`);
  }
});

test('two processes sharing a PKI dir: one generated key; a token issued by one is accepted by the other and after a restart', async () => {
  const pki = join(dir, 'shared-pki');
  const [a, b] = await Promise.all([spawnServer(join(dir, 'a'), 0, ['--pki-dir', pki]), spawnServer(join(dir, 'b'), 0, ['--pki-dir', pki, '--service-account-lookup=false'])]);
  const ca = clientFor(a.url, pki);
  const cb = clientFor(b.url, pki);
  let a2: Awaited<ReturnType<typeof spawnServer>> | undefined;
  try {
    const kidA = (await ca.request('GET', '/openid/v1/jwks', { headers: { accept: '*/*' } })).json.keys[0].kid;
    const kidB = (await cb.request('GET', '/openid/v1/jwks', { headers: { accept: '*/*' } })).json.keys.map((k: any) => k.kid);
    assert.equal(kidB, [kidA], 'both processes use the one key generated in the shared PKI dir');
    assert.match(readFileSync(join(pki, 'sa.key'), 'utf8'), '-----BEGIN RSA PRIVATE KEY-----');

    // A legacy token written by A's tokens controller, accepted by B (which has no such account:
    // B runs with --service-account-lookup=false, so only the signature and claims count).
    await ok(ca, 'POST', '/api/v1/namespaces/default/serviceaccounts', saBody('shared'));
    await ok(ca, 'POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'shared-token', annotations: { 'kubernetes.io/service-account.name': 'shared' } }, type: 'kubernetes.io/service-account-token' });
    let legacy = '';
    await eventually('the token Secret to be filled on A', async () => {
      const sec = (await ca.request('GET', '/api/v1/namespaces/default/secrets/shared-token')).json;
      legacy = sec.data?.token ? Buffer.from(sec.data.token, 'base64').toString() : '';
      return legacy !== '';
    });
    const onB = bearerClient(b, pki, legacy);
    const r = await onB.request('GET', '/api/v1/namespaces/default/configmaps');
    await onB.close();
    assert.is(r.status, 403, r.text);
    assert.is(r.json.message, 'configmaps is forbidden: User "system:serviceaccount:default:shared" cannot list resource "configmaps" in API group "" in the namespace "default"');

    // A bound token issued by A, accepted by A after A restarts on its data dir (the key persisted).
    const bound = (await ok(ca, 'POST', '/api/v1/namespaces/default/serviceaccounts/shared/token', {})).status.token;
    await ca.close();
    await a.kill();
    a2 = await spawnServer(join(dir, 'a'), 0, ['--pki-dir', pki]);
    const onA2 = bearerClient(a2, pki, bound);
    const r2 = await onA2.request('GET', '/api/v1/namespaces/default/configmaps');
    await onA2.close();
    assert.is(r2.status, 403, r2.text);
    assert.match(r2.json.message, 'User "system:serviceaccount:default:shared"');
  } finally {
    await cb.close();
    await b.kill();
    if (a.proc.exitCode === null) await a.kill();
    await a2?.kill();
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
