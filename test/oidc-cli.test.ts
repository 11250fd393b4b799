/**
 * The `--oidc-*` command-line flags of cmd/apiserver.ts: kube's start-up errors (each message as
 * kube-apiserver 1.24.17 prints it for the same value), and every flag given at once — repeated
 * --oidc-required-claim, a comma-separated --oidc-signing-algs, --oidc-username-prefix=- — taking
 * effect for a real provider's id_token.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { agentClient, clientFor, spawnServer, type HttpResult } from './harness.ts';
import { createTestProvider, type TestProvider } from './oidc-provider.ts';
import { ensurePki } from '../internal/auth/pki.ts';
import { nodeArgsFor } from './server-command.ts';

const tmp = mkdtempSync(join(tmpdir(), 'oidc-cli-'));
let provider: TestProvider;

test.before(async () => {
  provider = await createTestProvider(join(tmp, 'provider-pki'));
  provider.accounts.set('alice', { email: 'alice@example.com', groups: ['devs'], tenant: 'acme', region: 'eu' });
  provider.accounts.set('bob', { email: 'bob@example.com', groups: ['devs'], tenant: 'acme' });
  await provider.listen();
});

test.after(async () => {
  await provider?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Run cmd/apiserver.ts until it exits; its exit code and last stderr line. */
function runApiserver(args: string[]): Promise<{ code: number | null; last: string }> {
  const proc = spawn(process.execPath, [...nodeArgsFor('cmd/apiserver.ts'), '--data-dir', join(tmp, 'data-fail'), '--secure-port', '0', ...args], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, last: err.trim().split('\n').pop() ?? '' });
    }),
  );
}

// The other start-up errors (unsupported alg, empty username claim) are unit-tested in
// internal/auth/oidc-claims.test.ts; these run through the command line and the file reads.
test('start-up errors, in kube-apiserver 1.24 words', async () => {
  const notCa = join(tmp, 'not-a-ca.pem');
  await ensurePki(join(tmp, 'other')); // a directory with a key file that is no certificate
  const cases: [string[], string][] = [
    [['--oidc-issuer-url=http://127.0.0.1:9/x', '--oidc-client-id=kube'], `Error: 'oidc-issuer-url' ("http://127.0.0.1:9/x") has invalid scheme ("http"), require 'https'`],
    [['--oidc-issuer-url=https://127.0.0.1:9/x'], 'Error: oidc-issuer-url and oidc-client-id should be specified together'],
    [['--oidc-required-claim=tenant'], 'Error: invalid argument "tenant" for "--oidc-required-claim" flag: malformed pair, expect string=string'],
    [['--oidc-issuer-url=https://127.0.0.1:9/x', '--oidc-client-id=kube', `--oidc-ca-file=${notCa}`], `Error: open ${notCa}: no such file or directory`],
    [['--oidc-issuer-url=https://127.0.0.1:9/x', '--oidc-client-id=kube', `--oidc-ca-file=${join(tmp, 'other', 'ca.key')}`], `Error: error loading CA bundle for "oidc-authenticator::${join(tmp, 'other', 'ca.key')}": data does not contain any valid RSA or ECDSA certificates`],
  ];
  for (const [i, [args, want]] of cases.entries()) {
    const r = await runApiserver(args);
    assert.is(r.code, 1, `case ${i}`);
    assert.is(r.last, want, `case ${i}`);
  }
});

test('every --oidc-* flag on the command line takes effect', async () => {
  const dataDir = join(tmp, 'data');
  const s = await spawnServer(dataDir, 0, [
    `--oidc-issuer-url=${provider.issuer}`,
    '--oidc-client-id=kube',
    `--oidc-ca-file=${provider.caFile}`,
    '--oidc-username-claim=email',
    '--oidc-username-prefix=-',
    '--oidc-groups-claim=groups',
    '--oidc-groups-prefix=idp:',
    '--oidc-required-claim=tenant=acme',
    '--oidc-required-claim=region=eu',
    '--oidc-signing-algs=ES256,RS256',
  ]);
  const agent = new Agent({ connect: { ca: (await ensurePki(join(dataDir, 'pki'))).caCertPem } });
  try {
    const get = async (token: string): Promise<HttpResult> => {
      const c = agentClient(s.url, agent, { authorization: `Bearer ${token}` });
      return c.request('GET', '/api/v1/namespaces/default/pods');
    };
    const alice = await provider.idToken('alice');
    let r = await get(alice);
    for (let i = 0; r.status === 401 && i < 50; i++) {
      await new Promise((res) => setTimeout(res, 100)); // discovery runs in the background
      r = await get(alice);
    }
    // No username prefix ('-').
    assert.is(r.status, 403, `${r.text}\n${s.logTail().slice(-3000)}`);
    assert.is(r.json.message, 'pods is forbidden: User "alice@example.com" cannot list resource "pods" in API group "" in the namespace "default"');
    // The groups prefix: a binding to Group idp:devs grants alice the list.
    const admin = clientFor(s.url, join(dataDir, 'pki'));
    const rb = await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      body: { metadata: { name: 'idp-devs' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'idp:devs' }] },
    });
    await admin.close();
    assert.is(rb.status, 201, rb.text);
    assert.is((await get(alice)).status, 200);
    // The second required claim: bob lacks region=eu.
    const bob = await get(await provider.idToken('bob'));
    assert.is(bob.status, 401, bob.text);
    // ES256 is accepted as well (the list replaced the RS256 default).
    provider.reconfigure({ kubeAlg: 'ES256' });
    try {
      const token = await provider.idToken('alice');
      assert.is(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg, 'ES256');
      const es = await get(token);
      assert.is(es.status, 200, es.text);
    } finally {
      provider.reconfigure({ kubeAlg: 'RS256' });
    }
  } finally {
    await agent.close();
    await s.kill();
  }
});

test.run();
