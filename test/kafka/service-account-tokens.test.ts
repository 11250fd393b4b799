/**
 * ServiceAccount tokens with two API replicas on one Kafka topic sharing a PKI dir: the replicas,
 * started together, generate one signing key between them; a token one replica issues
 * authenticates on the other at once (an account the other has not folded yet is looked up after
 * catching up with the log); both replicas' tokens controllers race to fill a legacy token Secret
 * and it is written exactly once; deleting the account revokes its tokens on both and deletes its
 * token Secret exactly once. The replicas run with LegacyServiceAccountTokenNoAutoGeneration=false,
 * so both also race to give each new account a token Secret: it ends up with exactly one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, openWatch, sleep, setup, stopAll, printLogTails, type Replica, type ReplicaSet } from './replicas.ts';
import { ok } from '../assertions.ts';
import { agentClient, eventually as waitFor, type Client } from '../harness.ts';

let kafka: KafkaCluster;
let set: ReplicaSet;
let replicas: Replica[] = [];
const NS = 'kafka-satoken';
const clients: Client[] = [];

/** `eventually`, printing the replicas' log tails when it times out. */
const eventually = (label: string, fn: () => Promise<boolean>, limitMs = 30_000): Promise<void> => waitFor(label, fn, limitMs, () => printLogTails(replicas));

function bearer(r: Replica, token: string): Client {
  const c = agentClient(r.server.url, new Agent({ connect: { ca: readFileSync(join(set.pkiDir, 'ca.crt'), 'utf8') } }), { authorization: `Bearer ${token}` });
  clients.push(c);
  return c;
}

const listStatus = async (r: Replica, token: string): Promise<number> => (await bearer(r, token).request('GET', `/api/v1/namespaces/${NS}/configmaps`)).status;

test.before(() =>
  setup(async () => {
    kafka = await startKafka({ brokers: 1 });
    set = replicaSet(kafka.bootstrap, 'kube-satoken', ['--feature-gates', 'LegacyServiceAccountTokenNoAutoGeneration=false']);
    replicas = await Promise.all([set.start(), set.start()]);
    await ok(replicas[0]!.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
  }),
);

test.after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await stopAll(replicas, kafka);
});

test('one signing key for replicas started together', async () => {
  const kids = await Promise.all(replicas.map(async (r) => (await r.client.request('GET', '/openid/v1/jwks', { headers: { accept: '*/*' } })).json.keys.map((k: any) => k.kid)));
  assert.equal(kids[0], kids[1]);
  assert.is(kids[0].length, 1);
});

test('a bound token issued by one replica authenticates on the other at once; revoked on both with its account', async () => {
  const [a, b] = replicas as [Replica, Replica];
  await ok(a.client.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { metadata: { name: 'bot' } } }), 201, 'account');
  const token = (await ok(a.client.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts/bot/token`, { body: {} }), 201, 'token request')).status.token;
  const denied = await bearer(b, token).request('GET', `/api/v1/namespaces/${NS}/configmaps`);
  assert.is(denied.status, 403, denied.text);
  assert.match(denied.json.message, `User "system:serviceaccount:${NS}:bot"`);
  await ok(b.client.request('DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/bot`), 200, 'delete account');
  for (const r of replicas) await eventually('token refused', async () => (await listStatus(r, token)) === 401);
});

test('a legacy token Secret is filled exactly once by the racing controllers, and deleted once with its account', async () => {
  const [a, b] = replicas as [Replica, Replica];
  const w = await openWatch(a.server.url, set.pkiDir, `/api/v1/namespaces/${NS}/secrets?watch=1`);
  try {
    await ok(b.client.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { metadata: { name: 'legacy' } } }), 201, 'account');
    await ok(
      a.client.request('POST', `/api/v1/namespaces/${NS}/secrets`, { body: { metadata: { name: 'legacy-token', annotations: { 'kubernetes.io/service-account.name': 'legacy' } }, type: 'kubernetes.io/service-account-token' } }),
      201,
      'secret',
    );
    let token = '';
    await eventually('filled', async () => {
      const s = (await ok(b.client.request('GET', `/api/v1/namespaces/${NS}/secrets/legacy-token`), 200, 'get')).data;
      token = s?.token ? Buffer.from(s.token, 'base64').toString() : '';
      return token !== '';
    });
    await sleep(500); // let a losing replica's attempt, if any, land
    const mine = (type: string) => w.events.filter((e) => e.type === type && e.object.metadata.name === 'legacy-token');
    assert.is(mine('MODIFIED').length, 1, 'one write filled it');
    for (const r of replicas) assert.is(await listStatus(r, token), 403, 'authenticated on both replicas');

    await ok(a.client.request('DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/legacy`), 200, 'delete account');
    await eventually('token Secret deleted', async () => (await b.client.request('GET', `/api/v1/namespaces/${NS}/secrets/legacy-token`)).status === 404);
    await sleep(500);
    assert.is(mine('DELETED').length, 1, 'deleted once');
    for (const r of replicas) await eventually('legacy token refused', async () => (await listStatus(r, token)) === 401);
  } finally {
    await w.close();
  }
});

test('auto-generated token Secrets: racing replicas leave each account exactly one, referenced', async () => {
  const [a, b] = replicas as [Replica, Replica];
  const names = ['auto-0', 'auto-1', 'auto-2', 'auto-3'];
  await Promise.all(names.map((n, i) => ok((i % 2 ? a : b).client.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { metadata: { name: n } } }), 201, n)));
  const tokensOf = async (n: string): Promise<string[]> =>
    (await ok(a.client.request('GET', `/api/v1/namespaces/${NS}/secrets?fieldSelector=type%3Dkubernetes.io%2Fservice-account-token`), 200, 'list')).items
      .filter((x: any) => x.metadata.annotations?.['kubernetes.io/service-account.name'] === n)
      .map((x: any) => x.metadata.name);
  for (const n of names) {
    await eventually(`${n}: one referenced token Secret`, async () => {
      const sa = await ok(b.client.request('GET', `/api/v1/namespaces/${NS}/serviceaccounts/${n}`), 200, 'get');
      const refs = (sa.secrets ?? []).map((r: any) => r.name);
      const tokens = await tokensOf(n);
      return refs.length === 1 && tokens.length === 1 && refs[0] === tokens[0];
    });
  }
  await sleep(1000);
  for (const n of names) assert.is((await tokensOf(n)).length, 1, `${n}: still one`);
});

test.run();
