/**
 * CustomResourceDefinitions with two API replicas on one Kafka topic (a real KRaft broker): a
 * replica serves a custom kind once it folds the CRD's Established event, so a client that saw the
 * CRD Established on replica A and writes to replica B at once may reach B before B folded that
 * event. B then waits for its fold to reach the log's end and looks again (http/server.ts
 * unknownKindOrGroup): the write works, and both replicas serve the kind from the same offset on
 * (a watch on B sees the custom resources created through A, in log order). Runs here only (a
 * property of this server's replication).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, openWatch, setup, stopAll, sleep, printLogTails, type Replica, type ReplicaSet } from './replicas.ts';
import { ok } from '../assertions.ts';

let kafka: KafkaCluster;
let set: ReplicaSet;
let replicas: Replica[] = [];
const NS = 'kafka-crd';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GROUP = 'kafka.example.com';

const crd = (plural: string, kind: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${GROUP}` },
  spec: {
    group: GROUP,
    names: { plural, kind },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } } } }],
  },
});
const established = (o: any): boolean => (o?.status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True');

test.before(() =>
  setup(async () => {
    kafka = await startKafka({ brokers: 1 });
    set = replicaSet(kafka.bootstrap, 'kube-crd');
    replicas = await Promise.all([set.start(), set.start()]);
    await ok(replicas[0].client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
  }),
);

test.after(() => stopAll(replicas, kafka));

/**
 * Run `during` with replica B stopped (SIGSTOP), then start `request` on B and let B go on
 * (SIGCONT) a moment later: B then has the request and A's events to fold at once, and takes the
 * request first (its fold needs a LevelDB write), so its kind lookup misses as it would for a
 * client faster than B's fold.
 */
async function whileBLags<T>(during: () => Promise<void>, request: () => Promise<T>): Promise<T> {
  const b = replicas[1].server.proc;
  b.kill('SIGSTOP');
  try {
    await during();
    const answer = request();
    await sleep(100);
    b.kill('SIGCONT');
    return await answer;
  } finally {
    b.kill('SIGCONT');
  }
}

async function establishedOnA(name: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!established((await replicas[0].client.request('GET', `${CRDS}/${name}`)).json)) {
    if (Date.now() > deadline) {
      printLogTails(replicas);
      throw new Error(`${name} not Established on A`);
    }
    await sleep(20);
  }
}

test('a custom resource written on replica B right after its CRD is Established on replica A', async () => {
  const [a, b] = replicas;
  for (let i = 0; i < 3; i++) {
    const plural = `quicks${i}`;
    const base = `/apis/${GROUP}/v1/namespaces/${NS}/${plural}`;
    const body = { apiVersion: `${GROUP}/v1`, kind: `Quick${i}`, metadata: { name: 'first' }, spec: { n: i } };
    const r = await whileBLags(
      async () => {
        await ok(a.client.request('POST', CRDS, { body: crd(plural, `Quick${i}`) }), 201, `CRD ${i}`);
        await establishedOnA(`${plural}.${GROUP}`);
      },
      () => b.client.request('POST', base, { body }),
    );
    assert.is(r.status, 201, `create on B after CRD ${i}: HTTP ${r.status} ${r.text}`);
    assert.is(r.json.spec.n, i);
    const got = await ok(a.client.request('GET', `${base}/first`), 200, `read on A ${i}`);
    assert.is(got.metadata.uid, r.json.metadata.uid);
  }
  // Discovery of a group B never served, just as fast.
  const other = 'later.example.com';
  const d = await whileBLags(
    async () => {
      await ok(a.client.request('POST', CRDS, { body: { ...crd('lates', 'Late'), metadata: { name: `lates.${other}` }, spec: { ...crd('lates', 'Late').spec, group: other } } }), 201, 'CRD lates');
      await establishedOnA(`lates.${other}`);
    },
    () => b.client.request('GET', `/apis/${other}/v1`),
  );
  assert.is(d.status, 200, `discovery on B: HTTP ${d.status} ${d.text}`);
  assert.equal(d.json.resources.map((x: any) => x.name), ['lates']);
  // A kind that exists nowhere is still 404 (after the catch-up).
  const missing = await b.client.request('GET', `/apis/${GROUP}/v1/namespaces/${NS}/nothings`);
  assert.is(missing.status, 404, missing.text);
});

test('both replicas serve the kind from the same offset on: a watch on B sees the CRs created through A', async () => {
  const [a, b] = replicas;
  await ok(a.client.request('POST', CRDS, { body: crd('watched', 'Watched') }), 201, 'CRD');
  const base = `/apis/${GROUP}/v1/namespaces/${NS}/watched`;
  // The list on B (consistent read, after the catch-up) gives the resourceVersion to watch from.
  let rv = '';
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await b.client.request('GET', base);
    if (r.status === 200) {
      rv = r.json.metadata.resourceVersion;
      break;
    }
    assert.ok(Date.now() < deadline, `never served on B: ${r.status}`);
    await sleep(20);
  }
  const w = await openWatch(b.server.url, set.pkiDir, `${base}?watch=1&resourceVersion=${rv}`);
  try {
    const made: string[] = [];
    for (let i = 0; i < 10; i++) {
      const o = await ok(a.client.request('POST', base, { body: { apiVersion: `${GROUP}/v1`, kind: 'Watched', metadata: { name: `w${i}` }, spec: { n: i } } }), 201, `create ${i} on A`);
      made.push(`${o.metadata.name}@${o.metadata.resourceVersion}`);
    }
    const events = await w.waitFor(10, 10_000);
    assert.equal(events.map((e) => `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`), made.map((m) => `ADDED ${m}`));
  } finally {
    await w.close();
  }
  // Same list on both replicas.
  const onA = await ok(a.client.request('GET', base), 200, 'list A');
  const onB = await ok(b.client.request('GET', `${base}?resourceVersion=${onA.metadata.resourceVersion}&resourceVersionMatch=Exact`), 200, 'list B');
  assert.equal(onB.items.map((o: any) => o.metadata.name), onA.items.map((o: any) => o.metadata.name));
});

test.run();
