/**
 * Disk full in Kafka mode (issue 24): replica A's data dir (its snapshot LevelDB) is on a small
 * tmpfs that fills up; replica B's is not. The log is the broker, so the cluster keeps writing
 * through B. A refuses writes fast with a 503 naming ENOSPC (a write it had already put in the log
 * is answered at once with a 504: its outcome is in the log), keeps serving reads, fails /readyz
 * on its etcd check and logs the state once; once space is freed A reopens its store, folds what
 * it missed and writes again. Every acknowledged write, and every write answered 504, is then on
 * both replicas; no write answered 503 is. Never a 404.
 *
 * This server only (its storage, not an API behaviour kube could be compared on). Needs a tmpfs
 * (test/tmpfs.ts: root, or unshare) and a broker (test/kafka/broker.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, cm, sleep, stopAll, printLogTails, setup, type Replica } from './replicas.ts';
import { mountTmpfs, withMountRights, type Tmpfs } from '../tmpfs.ts';
import type { HttpResult } from '../harness.ts';

const CM = '/api/v1/namespaces/default/configmaps';

withMountRights(fileURLToPath(import.meta.url), () => {
  let fs: Tmpfs;
  let kafka: KafkaCluster | undefined;
  const replicas: Replica[] = [];
  const acked = new Set<string>();
  const inLog = new Set<string>(); // answered 504: the event is in the log
  const refused = new Set<string>(); // answered 503: nothing was appended

  test.before(() =>
    setup(async () => {
      fs = mountTmpfs(32);
      kafka = await startKafka({ brokers: 1 });
      const set = replicaSet(kafka.bootstrap, 'kube-disk-full');
      replicas.push(await set.start(join(fs.dir, 'data')));
      replicas.push(await set.start());
    }),
  );

  test.after(async () => {
    await stopAll(replicas, kafka);
    fs?.unmount();
  });

  async function create(r: Replica, name: string): Promise<HttpResult> {
    const t = Date.now();
    const res = await r.client.request('POST', CM, { body: cm(name, { v: 'x'.repeat(2048) }) });
    const ms = Date.now() - t;
    if (res.status === 201) acked.add(name);
    else if (res.status === 504) {
      inLog.add(name);
      assert.is(res.json?.reason, 'Timeout', res.text);
      assert.match(res.json.message, /is in the log.*no space left on device/i);
    } else {
      refused.add(name);
      assert.is.not(res.status, 404, `${name}: a wrong 404: ${res.text}`);
      assert.is(res.status, 503, `${name}: ${res.status} ${res.text}`);
      assert.is(res.json?.reason, 'ServiceUnavailable');
      assert.match(res.json.message, /no space left on device/i);
      assert.is(res.headers['retry-after'], '1');
    }
    assert.ok(ms < 3000, `${name} answered ${res.status} after ${ms} ms`);
    return res;
  }

  test('replica A on a full disk: 503/504 fast, reads, readyz fails, logged once; B keeps writing; A resumes when space returns', async () => {
    try {
      const [a, b] = replicas;
      for (let i = 0; i < 10; i++) assert.is((await create(a, `a-before-${i}`)).status, 201);
      fs.fill(0);
      let n = 0;
      for (let i = 0; i < 200 && refused.size < 10; i++) await create(a, `a-full-${n++}`);
      assert.ok(refused.size >= 10, `A refused writes once its disk was full: ${acked.size} acked, ${inLog.size} in log, ${refused.size} refused`);
      console.log(`A while full: ${acked.size} acked, ${inLog.size} answered 504 (in the log), ${refused.size} answered 503`);

      // Reads: what A has (resourceVersion=0); a consistent read, which needs A to fold the log's
      // end, fails fast saying why.
      assert.is((await a.client.request('GET', `${CM}/a-before-0?resourceVersion=0`)).status, 200, 'A serves reads');
      assert.is((await a.client.request('GET', `${CM}?resourceVersion=0`)).status, 200);
      const t = Date.now();
      const consistent = await a.client.request('GET', `${CM}/a-before-0`);
      assert.is(consistent.status, 503, consistent.text);
      assert.match(consistent.json.message, /cannot serve a consistent read.*no space left on device/i);
      assert.ok(Date.now() - t < 2000);
      const ready = await a.client.request('GET', '/readyz?verbose');
      assert.is(ready.status, 500, ready.text);
      assert.match(ready.text, /\[-\]etcd failed/);
      assert.match((await a.client.request('GET', '/readyz/etcd')).text, /no space left on device/i);
      assert.is((await a.client.request('GET', '/livez')).status, 200);

      // The cluster keeps writing through B.
      for (let i = 0; i < 20; i++) assert.is((await create(b, `b-during-${i}`)).status, 201);
      await sleep(2000); // A's fold keeps failing meanwhile
      const logged = (s: string) => (a.server.logTail().match(new RegExp(s, 'g')) ?? []).length;
      assert.is(logged('storage refuses writes'), 1, a.server.logTail());

      fs.free();
      const freed = Date.now();
      for (let i = 0; ; i++) {
        if ((await create(a, `a-after-${n++}`)).status === 201) break;
        assert.ok(Date.now() - freed < 20_000, 'A writes again within 20 s of space being freed');
        await sleep(200);
      }
      console.log(`A writes again ${Date.now() - freed} ms after space was freed`);
      assert.is((await a.client.request('GET', '/readyz')).status, 200);
      assert.is(logged('storage problem cleared'), 1);

      for (const [i, r] of replicas.entries()) {
        const list = await r.client.request('GET', CM);
        assert.is(list.status, 200);
        const have = new Set<string>(list.json.items.map((x: { metadata: { name: string } }) => x.metadata.name));
        for (const name of acked) assert.ok(have.has(name), `replica ${i}: acknowledged ${name}`);
        for (const name of inLog) assert.ok(have.has(name), `replica ${i}: ${name} (answered 504, in the log)`);
        for (const name of refused) assert.not.ok(have.has(name), `replica ${i}: ${name} was answered 503 but is present`);
      }
    } catch (err) {
      printLogTails(replicas);
      throw err;
    }
  });

  test.run();
});
