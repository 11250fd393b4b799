import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { ApiError } from '../../api/errors.ts';
import type { TokenAuthenticator, TokenContext } from '../../auth/token/token.ts';
import { tokenReviewer } from './tokenreview.ts';

const ctx = { user: { username: 'admin', groups: ['system:masters'] }, namespace: '', dryRun: false };
const reviewOf = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject =>
  ({ kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: {}, spec, ...extra }) as KubeObject;

function answering(f: (token: string, c: TokenContext) => ReturnType<TokenAuthenticator['authenticateToken']>): TokenAuthenticator & { seen: TokenContext[] } {
  const seen: TokenContext[] = [];
  return {
    seen,
    authenticateToken(token, c) {
      seen.push(c);
      return f(token, c);
    },
  };
}

test('the audiences asked for: the spec\'s, else --api-audiences, else none', async () => {
  const a = answering(async (_t, c) => ({ user: { username: 'u', groups: [] }, audiences: c.audiences ?? [] }));
  const r = tokenReviewer({ tokenAuthenticator: a, apiAudiences: ['api'] });
  await r.create(ctx, reviewOf({ token: 't' }));
  await r.create(ctx, reviewOf({ token: 't', audiences: ['x'] }));
  await tokenReviewer({ tokenAuthenticator: a }).create(ctx, reviewOf({ token: 't' }));
  assert.equal(a.seen, [{ audiences: ['api'] }, { audiences: ['x'] }, {}]);
});

test('status: user with system:authenticated and audiences; refusals and errors as kube words them', async () => {
  const ok = tokenReviewer({ tokenAuthenticator: answering(async () => ({ user: { username: 'u', uid: '1', groups: ['g'], extra: { k: ['v'] } }, audiences: ['api'] })), apiAudiences: ['api'] });
  assert.equal((await ok.create(ctx, reviewOf({ token: 't' }))).status, { authenticated: true, user: { username: 'u', uid: '1', groups: ['g', 'system:authenticated'], extra: { k: ['v'] } }, audiences: ['api'] });
  const no = tokenReviewer({ tokenAuthenticator: answering(async () => null) });
  assert.equal((await no.create(ctx, reviewOf({ token: 't' }))).status, { user: {}, error: 'invalid bearer token' });
  const err = tokenReviewer({ tokenAuthenticator: answering(async () => Promise.reject(new Error('revoked'))) });
  assert.equal((await err.create(ctx, reviewOf({ token: 't' }))).status, { user: {}, error: '[invalid bearer token, revoked]' });
  // Nobody to ask: not authenticated, and nothing to say.
  assert.equal((await tokenReviewer({}).create(ctx, reviewOf({ token: 't' }))).status, { user: {} });
});

test('an authenticator answering for none of the audiences asked is a 500; no token is a 400', async () => {
  const wrong = tokenReviewer({ tokenAuthenticator: answering(async () => ({ user: { username: 'u', groups: [] }, audiences: ['elsewhere'] })) });
  await wrong.create(ctx, reviewOf({ token: 't', audiences: ['x'] })).then(
    () => assert.unreachable(),
    (e: unknown) => assert.equal([e instanceof ApiError && e.code, (e as Error).message], [500, 'Internal error occurred: error validating audiences']),
  );
  await wrong.create(ctx, reviewOf({})).then(
    () => assert.unreachable(),
    (e: unknown) => assert.equal([e instanceof ApiError && e.code, (e as Error).message], [400, 'token is required for TokenReview in authentication']),
  );
});

test.run();
