import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../api/errors.ts';
import { cachedTokenAuthenticator } from './cache.ts';
import { AggregateAuthError, audienceAgnostic, bearerTokenAuthenticator, staticTokens, tokenFromRequestAuthenticator, tokenUnion, type TokenAuthenticator, type TokenContext } from './token.ts';
import { withAuthenticatedGroup } from '../authn.ts';

const user = (username: string, groups: string[] = []) => ({ username, groups });
const fixed = (answer: 'ok' | 'no' | string, name = 'u'): TokenAuthenticator & { calls: TokenContext[] } => {
  const calls: TokenContext[] = [];
  return {
    calls,
    async authenticateToken(_t, ctx) {
      calls.push(ctx);
      if (answer === 'ok') return { user: user(name), audiences: [] };
      if (answer === 'no') return null;
      throw new Error(answer);
    },
  };
};

test('tokenUnion: first success, else the errors aggregated as apimachinery words them', async () => {
  assert.is((await tokenUnion([fixed('no'), fixed('e1'), fixed('ok', 'b')]).authenticateToken('t', {}))?.user.username, 'b');
  assert.is(await tokenUnion([fixed('no'), fixed('no')]).authenticateToken('t', {}), null);
  const cases: [string[], string][] = [
    [['e1'], 'e1'],
    [['e1', 'e2'], '[e1, e2]'],
    [['e1', 'e1'], 'e1'],
    [['e1', 'e2', 'e1'], '[e1, e2]'],
  ];
  for (const [i, [errs, msg]] of cases.entries()) {
    await tokenUnion([fixed('no'), ...errs.map((e) => fixed(e))]).authenticateToken('t', {}).then(
      () => assert.unreachable(),
      (e: Error) => assert.is(e.message, msg, `case ${i}`),
    );
  }
  // Nested aggregates are flattened.
  assert.is(new AggregateAuthError([new Error('a'), new AggregateAuthError([new Error('b'), new Error('a')])]).message, '[a, b]');
});

test('audienceAgnostic: no audiences asked → as is; asked → the intersection with the implicit ones, or nothing', async () => {
  const inner = fixed('ok');
  const a = audienceAgnostic(['api', 'api2'], inner);
  assert.equal(await a.authenticateToken('t', {}), { user: user('u'), audiences: [] });
  assert.equal(await a.authenticateToken('t', { audiences: ['x', 'api2', 'api'] }), { user: user('u'), audiences: ['api2', 'api'] });
  const before = inner.calls.length;
  assert.is(await a.authenticateToken('t', { audiences: ['x'] }), null);
  assert.is(inner.calls.length, before, 'the wrapped authenticator is not asked');
  const aware: TokenAuthenticator = { authenticateToken: async () => ({ user: user('u'), audiences: ['x'] }) };
  await audienceAgnostic(['api'], aware).authenticateToken('t', { audiences: ['api'] }).then(
    () => assert.unreachable(),
    (e: Error) => assert.is(e.message, 'audience agnostic authenticator wrapped an authenticator that returned audiences: ["x"]'),
  );
});

test('withAuthenticatedGroup: kube\'s group adder', () => {
  assert.equal(withAuthenticatedGroup(user('a', ['g'])).groups, ['g', 'system:authenticated']);
  assert.equal(withAuthenticatedGroup(user('a', ['system:authenticated', 'g'])).groups, ['system:authenticated', 'g']);
  assert.equal(withAuthenticatedGroup(user('a', ['system:unauthenticated'])).groups, ['system:unauthenticated']);
  assert.equal(withAuthenticatedGroup(user('system:anonymous', [])).groups, []);
});

test('bearerTokenAuthenticator: no token → null; refused or failed → 401; audiences from the request or --api-audiences', async () => {
  const inner = fixed('ok');
  const a = bearerTokenAuthenticator(inner, ['api']);
  assert.is(await a.authenticate({ headers: {}, certAuthorized: false }), null);
  assert.is(await a.authenticate({ headers: { authorization: 'Basic eDp5' }, certAuthorized: false }), null);
  assert.equal(await a.authenticate({ headers: { authorization: 'Bearer t' }, certAuthorized: false }), user('u', ['system:authenticated']));
  assert.equal(inner.calls.at(-1), { audiences: ['api'] });
  await a.authenticate({ headers: { authorization: 'Bearer t' }, certAuthorized: false, audiences: ['x'] });
  assert.equal(inner.calls.at(-1), { audiences: ['x'] });
  await bearerTokenAuthenticator(inner).authenticate({ headers: { authorization: 'Bearer t' }, certAuthorized: false });
  assert.equal(inner.calls.at(-1), {});
  for (const [i, answer] of ['no', 'boom'].entries()) {
    await Promise.resolve(bearerTokenAuthenticator(fixed(answer)).authenticate({ headers: { authorization: 'bearer t' }, certAuthorized: false })).then(
      () => assert.unreachable(),
      (e: unknown) => assert.is(e instanceof ApiError && e.code, 401, `case ${i}`),
    );
  }
});

test('staticTokens and tokenFromRequestAuthenticator', async () => {
  const s = staticTokens(new Map([['tok', user('alice', ['g'])]]));
  assert.equal(await s.authenticateToken('tok', {}), { user: user('alice', ['g']), audiences: [] });
  assert.is(await s.authenticateToken('other', {}), null);
  const adapted = tokenFromRequestAuthenticator(bearerTokenAuthenticator(s));
  assert.equal(await adapted.authenticateToken('tok', {}), { user: user('alice', ['g', 'system:authenticated']), audiences: [] });
  await adapted.authenticateToken('nope', {}).then(
    () => assert.unreachable(),
    (e: Error) => assert.is(e.message, 'Unauthorized'),
  );
});

test('cachedTokenAuthenticator: TTLs, errors, audiences in the key, one call for concurrent lookups', async () => {
  let now = 0;
  let answer = 'ok';
  let calls = 0;
  const inner: TokenAuthenticator = {
    async authenticateToken(t) {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      if (answer === 'ok') return { user: user(t), audiences: [] };
      if (answer === 'no') return null;
      throw new Error(answer);
    },
  };
  const c = cachedTokenAuthenticator(inner, { cacheErrors: false, successTtlMs: 100, failureTtlMs: 50, now: () => now });
  // Concurrent lookups of one key share one call.
  const rs = await Promise.all([1, 2, 3].map(() => c.authenticateToken('a', {})));
  assert.is(calls, 1);
  assert.equal(rs.map((r) => r?.user.username), ['a', 'a', 'a']);
  // The answer is a copy: a caller mutating it does not change the cache.
  rs[0]!.user.groups.push('x');
  assert.equal((await c.authenticateToken('a', {}))?.user.groups, []);
  assert.is(calls, 1);
  now = 99;
  await c.authenticateToken('a', {});
  assert.is(calls, 1);
  now = 100;
  await c.authenticateToken('a', {});
  assert.is(calls, 2, 'success expired');
  await c.authenticateToken('a', { audiences: ['x'] });
  assert.is(calls, 3, 'other audiences, other key');
  answer = 'no';
  assert.is(await c.authenticateToken('b', {}), null);
  assert.is(await c.authenticateToken('b', {}), null);
  assert.is(calls, 4, 'rejection cached');
  now += 50;
  await c.authenticateToken('b', {});
  assert.is(calls, 5, 'rejection expired');
  answer = 'boom';
  for (let i = 0; i < 2; i++) await c.authenticateToken('e', {}).catch((e: Error) => assert.is(e.message, 'boom'));
  assert.is(calls, 7, 'errors not cached');
  const withErrors = cachedTokenAuthenticator(inner, { cacheErrors: true, successTtlMs: 100, failureTtlMs: 50, now: () => now });
  for (let i = 0; i < 2; i++) await withErrors.authenticateToken('e', {}).catch((e: Error) => assert.is(e.message, 'boom'));
  assert.is(calls, 8, 'errors cached for the failure TTL when asked');
  const noFailures = cachedTokenAuthenticator(inner, { cacheErrors: true, successTtlMs: 100, failureTtlMs: 0, now: () => now });
  for (let i = 0; i < 2; i++) await noFailures.authenticateToken('e', {}).catch(() => undefined);
  assert.is(calls, 10, 'a zero failure TTL caches no error');
  // Bounded: the oldest entries go first.
  answer = 'ok';
  const small = cachedTokenAuthenticator(inner, { cacheErrors: false, successTtlMs: 1000, failureTtlMs: 0, now: () => now, maxEntries: 2 });
  for (const t of ['p', 'q', 'r']) await small.authenticateToken(t, {});
  const n = calls;
  await small.authenticateToken('r', {});
  await small.authenticateToken('q', {});
  assert.is(calls, n);
  await small.authenticateToken('p', {});
  assert.is(calls, n + 1, 'the oldest entry was evicted');
});

test.run();
