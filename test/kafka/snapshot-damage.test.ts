/**
 * A Kafka replica's damaged snapshot (issue 24, storage faults), against a real KRaft broker: a
 * replica takes creates, stops; a table of its snapshot store gets 64 KiB of zeros (which LevelDB
 * alone would read as an empty block: objects silently missing). The next start is refused,
 * naming the file and the remedies; with the damaged store moved away the replica refolds the
 * topic, and after `replay repair --log kafka://…` it starts from the rebuilt store: either way it
 * serves every acknowledged object with its acknowledged resourceVersion.
 * This server's internals (files on disk): it runs here, not against the reference.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeSync, openSync, readdirSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, cm, setup, stopAll, type Replica, type ReplicaSet } from './replicas.ts';
import { ok } from '../assertions.ts';
import { runCommand } from '../kubectl-run.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

let kafka: KafkaCluster;
let set: ReplicaSet;
const replicas: Replica[] = [];
const CM = '/api/v1/namespaces/default/configmaps';
const COUNT = 600;

test.before(() => setup(async () => {
  kafka = await startKafka({ brokers: 1 });
  set = replicaSet(kafka.bootstrap, 'kube-damage');
}));

test.after(() => stopAll(replicas, kafka));

test('a damaged replica snapshot is refused at start, naming the file; moved away, the replica refolds the topic', async () => {
  const first = await set.start();
  replicas.push(first);
  const acked = new Map<string, number>();
  for (let i = 0; i < COUNT; i += 50) {
    await Promise.all(Array.from({ length: 50 }, async (_, k) => {
      const name = `d-${String(i + k).padStart(4, '0')}`;
      const created = await ok(first.client.request('POST', CM, { body: cm(name, { v: name.repeat(100) }) }), 201, 'create');
      acked.set(name, Number(created.metadata.resourceVersion));
    }));
  }
  await first.client.close();
  await first.server.kill('SIGTERM');
  replicas.pop();
  const dbDir = join(first.dataDir, 'db');

  /** 64 KiB of zeros in the biggest table of the stopped replica's snapshot; the refusal names it. */
  const damageAndRefused = async (): Promise<void> => {
    // Opening the store replays LevelDB's write-ahead log into a table.
    const db = new ClassicLevel(dbDir);
    await db.open();
    await db.close();
    const table = readdirSync(dbDir).filter((n) => n.endsWith('.ldb')).map((n) => join(dbDir, n)).sort((a, b) => statSync(b).size - statSync(a).size)[0];
    assert.ok(statSync(table).size > 128 * 1024, `a table of more than 128 KiB (${statSync(table).size})`);
    const fd = openSync(table, 'r+');
    writeSync(fd, Buffer.alloc(64 * 1024), 0, 64 * 1024, Math.floor(statSync(table).size / 2));
    closeSync(fd);
    let failure = '';
    try {
      replicas.push(await set.start(first.dataDir));
    } catch (e) {
      failure = (e as Error).message;
    }
    assert.match(failure, /server exited with [1-9]/, 'the replica does not start on a damaged snapshot');
    assert.ok(failure.includes(table), `the refusal names ${table}: ${failure.slice(-600)}`);
    assert.match(failure, /replay -- repair --data-dir .* --log <its --log>; or move .*\/db away and start it again: it refolds the topic/);
  };

  /** Start the replica: every acknowledged object with its resourceVersion; stop it again. */
  const servesEverything = async (): Promise<void> => {
    const r = await set.start(first.dataDir);
    replicas.push(r);
    const list = await ok(r.client.request('GET', `${CM}?fieldSelector=metadata.name%21%3Dkube-root-ca.crt`), 200, 'list');
    const got = new Map<string, any>(list.items.map((i: any) => [i.metadata.name, i]));
    for (const [name, rv] of acked) {
      assert.ok(got.has(name), `${name} is back`);
      assert.is(Number(got.get(name).metadata.resourceVersion), rv, `${name} keeps its resourceVersion`);
      assert.is(got.get(name).data.v, name.repeat(100));
    }
    assert.is(got.size, acked.size);
    await r.client.close();
    await r.server.kill('SIGTERM');
    replicas.pop();
  };

  // Remedy 1: the damaged store moved away, the replica refolds the topic at start.
  await damageAndRefused();
  renameSync(dbDir, `${dbDir}.damaged`);
  await servesEverything();
  // Remedy 2: `replay repair` rebuilds the store from the topic.
  await damageAndRefused();
  const repair = await runCommand(process.execPath, ['--import', 'tsx', join(ROOT, 'cmd/replay.ts'), 'repair', '--data-dir', first.dataDir, '--log', set.log, '--output', 'json'], { timeoutMs: 120_000 });
  assert.is(repair.code, 0, repair.stderr);
  assert.ok(JSON.parse(repair.stdout).lastOffset >= Math.max(...acked.values()), `folded the whole topic: ${repair.stdout}`);
  await servesEverything();
});

test.run();
