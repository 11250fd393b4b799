/**
 * Services on two API replicas sharing one Kafka topic: the `kubernetes` Service is created once,
 * its Endpoints list every live replica (lease reconciler) and drop one that stops cleanly, and
 * ClusterIP/NodePort allocation never hands one value to two Services, whichever replica they
 * were created on (allocation records are claimed by CREATE, decided by the fold in log order).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, setup, sleep, stopAll, printLogTails, type Replica, type ReplicaSet } from './replicas.ts';
import { ok, show } from '../assertions.ts';

let kafka: KafkaCluster;
let set: ReplicaSet;
let replicas: Replica[] = [];
const ADDRS = ['192.0.2.11', '192.0.2.12'];
const SVC = '/api/v1/namespaces/default/services';
const EP = '/api/v1/namespaces/default/endpoints/kubernetes';

test.before(() => setup(async () => {
  kafka = await startKafka({ brokers: 1 });
  set = replicaSet(kafka.bootstrap, 'kube-services');
  // Started together: both race to create the kubernetes Service and claim 10.0.0.1.
  replicas = await Promise.all(ADDRS.map((a) => set.start(undefined, 0, ['--advertise-address', a])));
}));

test.after(() => stopAll(replicas, kafka));

const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });

/** Poll until `f` holds (the lease reconciler runs every 10 s). */
async function eventually(label: string, f: () => Promise<boolean>, ms = 25_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) {
      printLogTails(replicas);
      assert.unreachable(`${label}: not within ${ms} ms`);
    }
    await sleep(250);
  }
}

const addressesOn = async (r: Replica): Promise<string[]> => {
  const e = await r.client.request('GET', EP);
  return e.status === 200 ? (e.json.subsets?.[0]?.addresses ?? []).map((a: any) => a.ip) : [];
};

test('one kubernetes Service; its Endpoints list both replicas', async () => {
  const [a, b] = await Promise.all(replicas.map((r) => ok(r.client.request('GET', `${SVC}/kubernetes`), 200, 'get')));
  assert.is(a.metadata.uid, b.metadata.uid);
  assert.is(a.spec.clusterIP, '10.0.0.1');
  await eventually('both addresses', async () => JSON.stringify(await addressesOn(replicas[0])) === JSON.stringify(ADDRS));
});

test('concurrent creates on both replicas never share an address or a node port', async () => {
  const rs = await Promise.all(
    Array.from({ length: 30 }, (_, i) => replicas[i % 2].client.request('POST', SVC, { body: svc(`k-${i}`, { type: 'NodePort', ports: [{ port: 80 }] }) })),
  );
  for (const r of rs) assert.is(r.status, 201, show(r));
  assert.is(new Set(rs.map((r) => r.json.spec.clusterIP)).size, 30);
  assert.is(new Set(rs.map((r) => r.json.spec.ports[0].nodePort)).size, 30);

  const taken = new Set(rs.map((r) => r.json.spec.clusterIP));
  const free = Array.from({ length: 253 }, (_, i) => `10.0.0.${254 - i}`).filter((ip) => !taken.has(ip));
  for (let round = 0; round < 3; round++) {
    const ip = free[round]!;
    const race = await Promise.all(
      Array.from({ length: 6 }, (_, i) => replicas[i % 2].client.request('POST', SVC, { body: svc(`same-${round}-${i}`, { clusterIP: ip, ports: [{ port: 80 }] }) })),
    );
    const won = race.filter((r) => r.status === 201);
    assert.is(won.length, 1, `round ${round}: ${race.map((r) => r.status)}`);
    for (const r of race) if (r.status !== 201) assert.ok(r.json.message.endsWith(`failed to allocate IP ${ip}: provided IP is already allocated`), show(r));
  }
});

test('a replica that stops cleanly withdraws its address', async () => {
  await replicas[0].server.kill('SIGTERM');
  await eventually('only the second address', async () => JSON.stringify(await addressesOn(replicas[1])) === JSON.stringify([ADDRS[1]]));
});

test.run();
