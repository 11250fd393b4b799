/**
 * Replay and audit against a real Kafka topic written by two API replicas:
 *   - a rebuild from offset 0 equals a replica's live store (state hash via `replay verify`);
 *   - the state at an offset equals what a list at that exact version returned at the time;
 *   - `history` shows the accepted and the fold-rejected (AlreadyExists) events of one object.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, cm, setup, stopAll, type Replica, type ReplicaSet } from './replicas.ts';
import { spawnServer, clientFor, tempDir } from '../harness.ts';
import { ok } from '../assertions.ts';

let kafka: KafkaCluster;
let set: ReplicaSet;
const replicas: Replica[] = [];
const CM = '/api/v1/namespaces/default/configmaps';

function replay(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'cmd/replay.ts', ...args], { cwd: new URL('../..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c));
    p.stderr.on('data', (c: Buffer) => (err += c));
    p.on('exit', (code) => resolve({ code, out, err }));
  });
}

test.before(() => setup(async () => {
  kafka = await startKafka({ brokers: 1 });
  set = replicaSet(kafka.bootstrap, 'kube-replay');
  replicas.push(await set.start(), await set.start());
}));

test.after(() => stopAll(replicas, kafka));

test('rebuild from the topic = live store; state at an offset = the exact list taken then; history shows verdicts', async () => {
  const [a, b] = replicas;
  for (let i = 0; i < 40; i++) await ok((i % 2 ? a : b).client.request('POST', CM, { body: cm(`r-${i}`, { i: String(i) }) }), 201, 'create');
  // A create race across replicas: the later event is rejected by the fold (AlreadyExists).
  const race = await Promise.all([a, b, a, b].map((r) => r.client.request('POST', CM, { body: cm('contested', { by: 'race' }) })));
  assert.is(race.filter((r) => r.status === 201).length, 1);
  const snapshotList = await ok(a.client.request('GET', CM), 200, 'list');
  const x = snapshotList.metadata.resourceVersion;
  const atX = await ok(b.client.request('GET', `${CM}?resourceVersion=${x}&resourceVersionMatch=Exact`), 200, 'exact list at x');
  // Changes after x must not appear in a rebuild cut at x.
  const cur = await ok(a.client.request('GET', `${CM}/contested`), 200, 'get');
  await ok(a.client.request('PUT', `${CM}/contested`, { body: { ...cur, data: { by: 'update' } } }), 200, 'update after x');
  await ok(b.client.request('DELETE', `${CM}/r-0`), 200, 'delete after x');

  // State at x: rebuild with the log copied gives an embedded data dir a server can serve.
  const out = tempDir('kafka-rebuild-');
  const rb = await replay(['rebuild', '--log', set.log, '--out', out, '--to-offset', x, '--copy-log', '--output', 'json']);
  assert.is(rb.code, 0, rb.err);
  const summary = JSON.parse(rb.out);
  assert.is(summary.lastOffset, Number(x));
  assert.ok(summary.rejected.AlreadyExists >= 3, `rejections folded: ${rb.out}`);
  const past = await spawnServer(out, 0, ['--pki-dir', set.pkiDir]);
  const pc = clientFor(past.url, set.pkiDir);
  try {
    const pastList = await ok(pc.request('GET', CM), 200, 'list on the rebuilt store');
    const view = (l: any) => l.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}:${JSON.stringify(o.data)}`);
    assert.equal(view(pastList), view(atX));
    // The server may write once at start-up (its kubernetes Service follows the new port, as
    // kube-apiserver's does), so the store is at x or just after it; the listed objects are x's.
    assert.ok(Number(pastList.metadata.resourceVersion) >= Number(x), `${pastList.metadata.resourceVersion} >= ${x}`);
  } finally {
    await pc.close();
    await past.kill();
  }

  // Live store = full rebuild: stop replica b (LevelDB allows one process) and verify its data dir.
  await b.server.kill();
  const v = await replay(['verify', '--log', set.log, '--data-dir', b.dataDir, '--output', 'json']);
  assert.is(v.code, 0, `${v.out}\n${v.err}`);
  const verdict = JSON.parse(v.out);
  assert.is(verdict.equal, true, v.out);
  assert.is(verdict.expected.hash, verdict.actual.hash);
  assert.ok(verdict.actual.objects >= 41, v.out);

  const h = await replay(['history', '--log', set.log, 'configmaps', 'default/contested', '--output', 'json']);
  assert.is(h.code, 0, h.err);
  const list: any[] = JSON.parse(h.out).entries;
  const accepted = list.filter((e) => e.accepted);
  const rejected = list.filter((e) => !e.accepted);
  assert.is(accepted.length, 2, 'create + update accepted');
  assert.is(rejected.length, 3, 'three racing creates rejected');
  for (const r of rejected) assert.match(JSON.stringify(r), /AlreadyExists/);
  assert.is(accepted[1].verb, 'update');
  assert.is(accepted[0].verb, 'create');
});

test.run();
