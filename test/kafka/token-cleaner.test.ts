/**
 * Bootstrap tokens with two API replicas on one Kafka topic, both with
 * --enable-bootstrap-token-auth (so both run the tokencleaner): a token whose Secret was written
 * on one replica authenticates on the other at once (a missing Secret makes the replica catch up
 * with the log before refusing), and every expired token Secret is deleted exactly once (uid +
 * resourceVersion preconditions make the slower replica's DELETE a 404/409), while one whose
 * expiration was extended on the other replica stays.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, openWatch, sleep, setup, stopAll, printLogTails, type Replica, type ReplicaSet } from './replicas.ts';
import { ok } from '../assertions.ts';
import { agentClient } from '../harness.ts';

const N = 10;
const EXPIRE_MS = 3000;
const SECRETS = '/api/v1/namespaces/kube-system/secrets';
let kafka: KafkaCluster;
let set: ReplicaSet;
let replicas: Replica[] = [];

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const randomId = (n: number): string => Array.from(randomBytes(n), (b) => ALNUM[b % ALNUM.length]).join('');
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

const tokenSecret = (id: string, secret: string, expiration: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `bootstrap-token-${id}` },
  type: 'bootstrap.kubernetes.io/token',
  stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', expiration },
});

test.before(() =>
  setup(async () => {
    kafka = await startKafka({ brokers: 1 });
    set = replicaSet(kafka.bootstrap, 'kube-bootstrap-tokens', ['--enable-bootstrap-token-auth']);
    replicas = await Promise.all([set.start(), set.start()]);
  }),
);

test.after(() => stopAll(replicas, kafka));

test('a token written on one replica authenticates on the other', async () => {
  const id = randomId(6);
  const secret = randomId(16);
  await ok(replicas[0]!.client.request('POST', SECRETS, { body: tokenSecret(id, secret, rfc3339(Date.now() + 3600_000)) }), 201, 'secret');
  const c = agentClient(replicas[1]!.server.url, new Agent({ connect: { ca: readFileSync(join(set.pkiDir, 'ca.crt'), 'utf8') } }), { authorization: `Bearer ${id}.${secret}` });
  try {
    const r = await c.request('GET', '/api/v1/namespaces');
    assert.is(r.status, 403, r.text);
    assert.match(r.json.message, `User "system:bootstrap:${id}"`);
  } finally {
    await c.close();
  }
});

test('each expired token Secret is deleted once; one extended on the other replica stays', async () => {
  const watch = await openWatch(replicas[1]!.server.url, set.pkiDir, `${SECRETS}?watch=1&resourceVersion=0`);
  try {
    const expiration = rfc3339(Date.now() + EXPIRE_MS);
    const names: string[] = [];
    for (let i = 0; i < N; i++) {
      const id = randomId(6);
      names.push(`bootstrap-token-${id}`);
      await ok(replicas[i % 2]!.client.request('POST', SECRETS, { body: tokenSecret(id, randomId(16), expiration) }), 201, `secret ${i}`);
    }
    const keptId = randomId(6);
    await ok(replicas[0]!.client.request('POST', SECRETS, { body: tokenSecret(keptId, randomId(16), expiration) }), 201, 'kept');
    await ok(
      replicas[1]!.client.request('PATCH', `${SECRETS}/bootstrap-token-${keptId}`, { raw: JSON.stringify({ stringData: { expiration: rfc3339(Date.now() + 3600_000) } }), contentType: 'application/merge-patch+json' }),
      200,
      'extend',
    );
    const deleted = (): string[] => watch.events.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name);
    const deadline = Date.now() + EXPIRE_MS + 15_000;
    while (deleted().length < N && Date.now() < deadline) await sleep(100);
    if (deleted().length < N) printLogTails(replicas);
    await sleep(1000);
    assert.equal([...deleted()].sort(), [...names].sort(), 'each expired Secret deleted exactly once');
    assert.is((await replicas[0]!.client.request('GET', `${SECRETS}/bootstrap-token-${keptId}`)).status, 200, 'the extended token stays');
  } finally {
    await watch.close();
  }
});

test.run();
