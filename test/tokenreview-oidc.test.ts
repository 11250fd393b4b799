/**
 * TokenReview asks every token authenticator the server has, in kube's order — here OIDC, with a
 * REAL provider (test/oidc-provider.ts, oidc-provider over TLS) issuing real id_tokens — next to a
 * static token file: the OIDC user (prefixes, groups), its audience-agnostic handling of
 * spec.audiences, and go-oidc's reason in status.error for a token it refuses (kube's words, e.g.
 * a token for another client), while the request with that token is a plain 401.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { createTestProvider, type TestProvider } from './oidc-provider.ts';
import { agentClient, startTestServer, type TestServer } from './harness.ts';
import { oidcConfigFromFlags } from '../internal/auth/oidc-claims.ts';

const API_AUDIENCE = 'https://kubernetes.default.svc';
const tmp = mkdtempSync(join(tmpdir(), 'tokenreview-oidc-'));
let provider: TestProvider;
let s: TestServer;

async function review(spec: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await s.client.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec } });
  assert.is(r.status, 201, r.text);
  return r.json.status;
}

test.before(async () => {
  provider = await createTestProvider(join(tmp, 'provider-pki'));
  provider.accounts.set('alice', { email: 'alice@example.com', email_verified: true, groups: ['devs', 'ops'] });
  await provider.listen();
  const tokens = join(tmp, 'tokens.csv');
  writeFileSync(tokens, 'static-token,static-user,static-uid,"g1,g2"\n');
  s = await startTestServer({
    tokenAuthFile: tokens,
    oidc: oidcConfigFromFlags({ issuerUrl: provider.issuer, clientId: 'kube', caFile: provider.caFile, usernameClaim: 'email', usernamePrefix: 'oidc:', groupsClaim: 'groups', groupsPrefix: 'oidc:', signingAlgs: ['RS256'], requiredClaims: {} })!,
    tokenAuth: { apiAudiences: [API_AUDIENCE] },
  });
});

test.after(async () => {
  await s?.close();
  await provider?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('an OIDC id_token and a token-file token, reviewed', async () => {
  const token = await provider.idToken('alice');
  // Discovery runs in the background from start-up: wait until the provider is known.
  let st: Record<string, unknown> = {};
  for (let i = 0; i < 100 && st.authenticated !== true; i++) {
    st = await review({ token });
    if (st.authenticated !== true) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(st, { authenticated: true, user: { username: 'oidc:alice@example.com', groups: ['oidc:devs', 'oidc:ops', 'system:authenticated'] }, audiences: [API_AUDIENCE] });
  assert.equal(await review({ token, audiences: ['other'] }), { user: {}, error: 'invalid bearer token' });
  assert.equal(await review({ token: 'static-token' }), { authenticated: true, user: { username: 'static-user', uid: 'static-uid', groups: ['g1', 'g2', 'system:authenticated'] }, audiences: [API_AUDIENCE] });
});

test('a token OIDC refuses: its reason in status.error, a plain 401 on a request', async () => {
  const other = await provider.idToken('alice', 'other');
  const st = await review({ token: other });
  assert.is(st.authenticated, undefined);
  assert.match(String(st.error), /^\[invalid bearer token, oidc: verify token: oidc: expected audience "kube" got \["other"\]\]$/);
  const c = agentClient(s.url, new Agent({ connect: { ca: s.server.pki.caCertPem } }), { authorization: `Bearer ${other}` });
  try {
    const r = await c.request('GET', '/version');
    assert.is(r.status, 401);
    assert.is(r.json.message, 'Unauthorized');
  } finally {
    await c.close();
  }
});

test.run();
