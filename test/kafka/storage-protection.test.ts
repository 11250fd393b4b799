/**
 * The pv-protection / pvc-protection controllers with two API replicas on one Kafka topic, both
 * running them: every decision follows a consistent read and every finalizer write carries the
 * object's uid and resourceVersion, so the racing controllers release each deleted PV/PVC exactly
 * once and re-add a removed finalizer exactly once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, openWatch, sleep, setup, stopAll, printLogTails, type Replica, type ReplicaSet } from './replicas.ts';
import { ok } from '../assertions.ts';

let kafka: KafkaCluster;
let set: ReplicaSet;
let replicas: Replica[] = [];
const NS = 'kafka-pvc';
const C = `/api/v1/namespaces/${NS}/persistentvolumeclaims`;
const PV = '/api/v1/persistentvolumes';
const N = 12;
const MERGE = 'application/merge-patch+json';

async function eventually(label: string, fn: () => Promise<boolean>, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await fn())) {
    if (Date.now() > deadline) {
      printLogTails(replicas);
      throw new Error(`${label}: not reached within ${limitMs} ms`);
    }
    await sleep(50);
  }
}

test.before(() =>
  setup(async () => {
    kafka = await startKafka({ brokers: 1 });
    set = replicaSet(kafka.bootstrap, 'kube-storage-protection');
    replicas = await Promise.all([set.start(), set.start()]);
    await ok(replicas[0].client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
  }),
);

test.after(() => stopAll(replicas, kafka));

test('deleted claims and released volumes are let go exactly once', async () => {
  const w = await openWatch(replicas[0].server.url, set.pkiDir, `${C}?watch=1`);
  const wv = await openWatch(replicas[1].server.url, set.pkiDir, `${PV}?watch=1`);
  try {
    for (let i = 0; i < N; i++) {
      const r = replicas[i % 2];
      await ok(r.client.request('POST', C, { body: { metadata: { name: `c${i}` }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' } } }), 201, `claim ${i}`);
      await ok(
        r.client.request('POST', PV, {
          body: { metadata: { name: `kafka-pv-${i}` }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/d${i}` } }, status: { phase: 'Bound' } },
        }),
        201,
        `pv ${i}`,
      );
    }
    for (let i = 0; i < N; i++) {
      await ok(replicas[(i + 1) % 2].client.request('DELETE', `${C}/c${i}`), 200, `delete claim ${i}`);
      await ok(replicas[i % 2].client.request('DELETE', `${PV}/kafka-pv-${i}`), 200, `delete pv ${i}`);
    }
    await eventually('claims gone', async () => (await ok(replicas[1].client.request('GET', C), 200, 'list')).items.length === 0);
    // Bound volumes stay until they are not Bound.
    await sleep(300);
    const pvs = (await ok(replicas[0].client.request('GET', PV), 200, 'list pvs')).items.filter((o: any) => o.metadata.name.startsWith('kafka-pv-'));
    assert.is(pvs.length, N, 'Bound volumes keep their finalizer');
    for (let i = 0; i < N; i++) {
      await ok(replicas[i % 2].client.request('PATCH', `${PV}/kafka-pv-${i}/status`, { body: { status: { phase: 'Released' } }, contentType: MERGE }), 200, `release ${i}`);
    }
    await eventually('volumes gone', async () => (await ok(replicas[0].client.request('GET', PV), 200, 'list')).items.every((o: any) => !o.metadata.name.startsWith('kafka-pv-')));
    await sleep(200);
    const deletedClaims = w.events.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name);
    assert.is(deletedClaims.length, N, deletedClaims.join(' '));
    assert.is(new Set(deletedClaims).size, N);
    const deletedPvs = wv.events.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name);
    assert.is(new Set(deletedPvs).size, N);
    assert.is(deletedPvs.length, N, deletedPvs.join(' '));
  } finally {
    await w.close();
    await wv.close();
  }
});

test('a finalizer removed from a live claim comes back once', async () => {
  await ok(replicas[0].client.request('POST', C, { body: { metadata: { name: 'live' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' } } }), 201, 'claim');
  await ok(replicas[1].client.request('PATCH', `${C}/live`, { body: { metadata: { finalizers: null } }, contentType: MERGE }), 200, 'drop finalizer');
  let fin: unknown;
  await eventually('finalizer back', async () => {
    fin = (await ok(replicas[0].client.request('GET', `${C}/live`), 200, 'get')).metadata.finalizers;
    return Array.isArray(fin);
  });
  await sleep(300);
  fin = (await ok(replicas[1].client.request('GET', `${C}/live`), 200, 'get')).metadata.finalizers;
  assert.equal(fin, ['kubernetes.io/pvc-protection']);
});

test.run();
