/**
 * N API replicas on one Kafka topic (a real KRaft broker from test/kafka/broker.ts): the fold is
 * deterministic, so replicas agree on every verdict; consistent reads on one replica see writes
 * acknowledged by another; watches on any replica see the log order; a killed replica catches up
 * from its own snapshot; a new replica bootstraps from a materializer checkpoint.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, openWatch, cm, sleep, setup, stopAll, type Replica, type ReplicaSet } from './replicas.ts';
import { tempDir } from '../harness.ts';
import { ok, show } from '../assertions.ts';

let kafka: KafkaCluster;
let set: ReplicaSet;
let replicas: Replica[] = [];
const NS = 'kafka';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

test.before(() => setup(async () => {
  kafka = await startKafka({ brokers: 1 });
  set = replicaSet(kafka.bootstrap, 'kube-replicas');
  // Started together: they race to create the topic, write GENESIS and bootstrap namespaces.
  replicas = await Promise.all([set.start(), set.start(), set.start()]);
  await ok(replicas[0].client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
}));

test.after(() => stopAll(replicas, kafka));

test('every replica bootstrapped the system namespaces exactly once', async () => {
  for (const [i, r] of replicas.entries()) {
    const list = await ok(r.client.request('GET', '/api/v1/namespaces'), 200, `list on ${i}`);
    const names = list.items.map((n: any) => n.metadata.name).sort();
    assert.equal(names, ['default', NS, 'kube-node-lease', 'kube-public', 'kube-system'], `replica ${i}`);
  }
});

test('every replica runs the serviceaccounts controller and the root-ca publisher: one of each per namespace', async () => {
  // Each replica's controllers race for every namespace; creates lose to AlreadyExists, updates to
  // their resourceVersion precondition, so each namespace ends with exactly one of each.
  const deadline = Date.now() + 15_000;
  for (const ns of ['default', NS, 'kube-node-lease', 'kube-public', 'kube-system']) {
    for (const [resource, name] of [['serviceaccounts', 'default'], ['configmaps', 'kube-root-ca.crt']]) {
      for (;;) {
        const list = await ok(replicas[0].client.request('GET', `/api/v1/namespaces/${ns}/${resource}?fieldSelector=metadata.name%3D${name}`), 200, `${ns}/${resource}`);
        if (list.items.length === 1) break;
        assert.ok(Date.now() < deadline, `${ns}: ${resource}/${name} never appeared`);
        await sleep(100);
      }
    }
  }
  for (const [i, r] of replicas.entries()) {
    const sas = await ok(r.client.request('GET', '/api/v1/serviceaccounts'), 200, `serviceaccounts on ${i}`);
    assert.equal(sas.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`), ['default/default', `${NS}/default`, 'kube-node-lease/default', 'kube-public/default', 'kube-system/default'], `replica ${i}`);
    const cms = await ok(r.client.request('GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Dkube-root-ca.crt'), 200, `configmaps on ${i}`);
    assert.is(cms.items.length, 5, `replica ${i}`);
    // The replicas share one CA (one --pki-dir), so no two publishers disagree about the content.
    const ca = readFileSync(join(set.pkiDir, 'ca.crt'), 'utf8');
    for (const cm of cms.items) assert.equal(cm.data, { 'ca.crt': ca }, `${cm.metadata.namespace} on ${i}`);
  }
});

test('concurrent creates of one name on different replicas: one 201, the rest 409 AlreadyExists', async () => {
  for (let round = 0; round < 5; round++) {
    const name = `race-${round}`;
    const rs = await Promise.all(replicas.flatMap((r) => [0, 1, 2].map(() => r.client.request('POST', CM, { body: cm(name) }))));
    const created = rs.filter((r) => r.status === 201);
    const conflicts = rs.filter((r) => r.status === 409);
    assert.is(created.length, 1, `round ${round}: ${rs.map((r) => r.status)}`);
    assert.is(conflicts.length, rs.length - 1, `round ${round}`);
    for (const c of conflicts) assert.is(c.json.reason, 'AlreadyExists', show(c));
  }
});

test('concurrent updates with the same resourceVersion on different replicas: exactly one wins', async () => {
  const base = await ok(replicas[0].client.request('POST', CM, { body: cm('contended', { v: '0' }) }), 201, 'create');
  for (let round = 0; round < 5; round++) {
    const current = await ok(replicas[0].client.request('GET', `${CM}/contended`), 200, 'get');
    const rs = await Promise.all(replicas.flatMap((r, i) => [0, 1].map((j) => r.client.request('PUT', `${CM}/contended`, { body: { ...current, data: { v: `${round}-${i}-${j}` } } }))));
    const won = rs.filter((r) => r.status === 200);
    assert.is(won.length, 1, `round ${round}: ${rs.map((r) => r.status)}`);
    for (const r of rs.filter((x) => x.status !== 200)) {
      assert.is(r.status, 409, show(r));
      assert.is(r.json.reason, 'Conflict', show(r));
    }
    // The winner's version is what every replica serves now.
    for (const r of replicas) {
      const got = await ok(r.client.request('GET', `${CM}/contended`), 200, 'get after');
      assert.is(got.metadata.resourceVersion, won[0].json.metadata.resourceVersion);
      assert.is(got.data.v, won[0].json.data.v);
    }
  }
  assert.ok(Number(base.metadata.resourceVersion) > 0);
});

test('a write acknowledged on A is seen by a consistent read on B at once (get and list)', async () => {
  for (let i = 0; i < 30; i++) {
    const a = replicas[i % 3];
    const b = replicas[(i + 1) % 3];
    const made = await ok(a.client.request('POST', CM, { body: cm(`ryw-${i}`, { i: String(i) }) }), 201, 'create');
    const got = await ok(b.client.request('GET', `${CM}/ryw-${i}`), 200, `get ryw-${i} on the next replica`);
    assert.is(got.metadata.resourceVersion, made.metadata.resourceVersion);
    const list = await ok(b.client.request('GET', `${CM}?labelSelector=`), 200, 'list');
    assert.ok(Number(list.metadata.resourceVersion) >= Number(made.metadata.resourceVersion), 'list version covers the write');
    assert.ok(list.items.some((x: any) => x.metadata.name === `ryw-${i}`), 'list has the write');
  }
});

test("a watch on B sees A's writes in log order with the same resourceVersions", async () => {
  const start = await ok(replicas[1].client.request('GET', CM), 200, 'list');
  const w = await openWatch(replicas[1].server.url, set.pkiDir, `${CM}?watch=1&resourceVersion=${start.metadata.resourceVersion}`);
  const written: { name: string; rv: string; type: string }[] = [];
  for (let i = 0; i < 20; i++) {
    const a = replicas[i % 2 === 0 ? 0 : 2];
    const made = await ok(a.client.request('POST', CM, { body: cm(`w-${i}`) }), 201, 'create');
    written.push({ name: `w-${i}`, rv: made.metadata.resourceVersion, type: 'ADDED' });
    if (i % 5 === 4) {
      // DELETE answers a Status; the event carries the deletion's version, one after the create here.
      await ok(a.client.request('DELETE', `${CM}/w-${i}`), 200, 'delete');
      written.push({ name: `w-${i}`, rv: String(Number(made.metadata.resourceVersion) + 1), type: 'DELETED' });
    }
  }
  const events = await w.waitFor(written.length);
  await w.close();
  const seen = events.map((e) => ({ name: e.object.metadata.name, rv: e.object.metadata.resourceVersion, type: e.type }));
  assert.equal(JSON.stringify(seen), JSON.stringify(written));
});

test('killing a replica under load: the others keep serving; the restarted one catches up', async () => {
  const [a, b, c] = replicas;
  let stop = false;
  const acked: { name: string; rv: string }[] = [];
  const failures: number[] = [];
  const load = (async () => {
    for (let i = 0; !stop; i++) {
      const r = await b.client.request('POST', CM, { body: cm(`load-${i}`) });
      if (r.status === 201) acked.push({ name: `load-${i}`, rv: r.json.metadata.resourceVersion });
      else failures.push(r.status);
    }
  })();
  await sleep(500);
  const port = c.server.port;
  await c.server.kill('SIGKILL');
  await c.client.close();
  const whileDown = acked.length;
  await sleep(1000);
  assert.ok(acked.length > whileDown, 'writes on another replica continue while one is down');
  const r = await a.client.request('GET', `${CM}/load-0`);
  assert.is(r.status, 200, show(r));
  // Restart on the same data dir and port: it folds what it missed from its own folded offset.
  replicas[2] = await set.start(c.dataDir, port);
  stop = true;
  await load;
  assert.equal(failures, [], 'no write failed on the surviving replica');
  const list = await ok(replicas[2].client.request('GET', `${CM}?labelSelector=`), 200, 'list on the restarted replica');
  const byName = new Map(list.items.map((x: any) => [x.metadata.name, x.metadata.resourceVersion]));
  for (const w of acked) assert.is(byName.get(w.name), w.rv, `${w.name} on the restarted replica`);
});

test('a new replica bootstraps from a materializer checkpoint and tails from there', async () => {
  const checkpoints = tempDir('kafka-checkpoints-');
  for (let i = 0; i < 50; i++) await ok(replicas[0].client.request('POST', CM, { body: cm(`cp-${i}`) }), 201, 'create');
  const out = await runNode(['cmd/materializer.ts', '--log', set.log, '--data-dir', join(tempDir('kafka-mat-'), 'm'), '--checkpoint-dir', checkpoints, '--once', '--log-level', 'warn']);
  const line = JSON.parse(out.trim().split('\n').pop()!);
  assert.ok(line.checkpoint.offset > 0, out);
  // Writes after the checkpoint must come from the log tail.
  for (let i = 0; i < 5; i++) await ok(replicas[0].client.request('POST', CM, { body: cm(`after-cp-${i}`) }), 201, 'create');
  const fresh = await set.start(undefined, 0, ['--checkpoint-dir', checkpoints]);
  replicas.push(fresh);
  const list = await ok(fresh.client.request('GET', `${CM}?labelSelector=`), 200, 'list on the new replica');
  const reference = await ok(replicas[0].client.request('GET', `${CM}?resourceVersion=${list.metadata.resourceVersion}&resourceVersionMatch=Exact`), 200, 'reference');
  assert.is(reference.items.length, list.items.length, `exact list at ${list.metadata.resourceVersion} on replica 0: ${JSON.stringify(reference).slice(0, 400)}`);
  const pairs = (l: any) => l.items.map((x: any) => `${x.metadata.name}@${x.metadata.resourceVersion}`).join(' ');
  assert.is(pairs(list), pairs(reference));
  assert.ok(list.items.some((x: any) => x.metadata.name === 'after-cp-4'));
});

function runNode(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: new URL('../..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c));
    p.stderr.on('data', (c: Buffer) => (err += c));
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`node ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

test.run();
