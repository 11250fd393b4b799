/**
 * Admission webhooks with two API replicas on one Kafka topic: each replica's webhook source
 * follows its own fold, so a configuration written through one replica applies on the other once
 * that replica has folded it (kube-apiserver replicas likewise follow their informers), and its
 * deletion the same way. The webhook is a real HTTPS server on loopback.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, setup, stopAll, printLogTails, cm, type Replica } from './replicas.ts';
import { ok } from '../assertions.ts';
import { startWebhookServer, deny, type WebhookServer } from '../webhook-server.ts';
import { eventually as waitFor } from '../harness.ts';

let kafka: KafkaCluster;
let replicas: Replica[] = [];
let wh: WebhookServer;
const CONFIGS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const CMS = '/api/v1/namespaces/default/configmaps';

/** `eventually`, printing the replicas' log tails when it times out. */
const eventually = (label: string, fn: () => Promise<boolean>, limitMs = 30_000): Promise<void> => waitFor(label, fn, limitMs, () => printLogTails(replicas));

test.before(() =>
  setup(async () => {
    wh = await startWebhookServer();
    kafka = await startKafka({ brokers: 1 });
    const set = replicaSet(kafka.bootstrap, 'kube-admission-webhooks');
    replicas = await Promise.all([set.start(), set.start()]);
  }),
);

test.after(async () => {
  await stopAll(replicas, kafka);
  await wh.close();
});

test('a configuration written on one replica applies on the other; its deletion too', async () => {
  wh.handle('/deny', (rv) => deny(rv, { code: 403, message: `denied by ${rv.request.name}` }));
  const config = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'deny-all-cms' },
    webhooks: [
      {
        name: 'deny.kafka.example.com',
        clientConfig: { url: `${wh.url}/deny`, caBundle: wh.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { guarded: 'yes' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  };
  await ok(replicas[0]!.client.request('POST', CONFIGS, { body: config }), 201, 'configuration on replica 0');
  const guarded = (name: string) => ({ ...cm(name), metadata: { name, labels: { guarded: 'yes' } } });
  // Replica 0 wrote it: its next request is admitted with it.
  const r0 = await replicas[0]!.client.request('POST', CMS, { body: guarded('on-0') });
  assert.is(r0.status, 403, r0.text);
  // Replica 1 applies it once folded.
  let i = 0;
  await eventually('replica 1 uses the webhook', async () => (await replicas[1]!.client.request('POST', `${CMS}?dryRun=All`, { body: guarded(`p${i++}`) })).status === 403);
  const r1 = await replicas[1]!.client.request('POST', CMS, { body: guarded('on-1') });
  assert.is(r1.status, 403, r1.text);
  assert.is(r1.json.message, 'admission webhook "deny.kafka.example.com" denied the request: denied by on-1');
  // Deleted through replica 1: replica 0 admits again once it has folded the deletion.
  await ok(replicas[1]!.client.request('DELETE', `${CONFIGS}/deny-all-cms`), 200, 'delete on replica 1');
  await eventually('replica 0 forgets the webhook', async () => (await replicas[0]!.client.request('POST', `${CMS}?dryRun=All`, { body: guarded(`q${i++}`) })).status === 201);
  await ok(replicas[0]!.client.request('POST', CMS, { body: guarded('after') }), 201, 'create after deletion');
});

test.run();
