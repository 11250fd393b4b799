/**
 * Disk full (issue 24): the server's data dir on a small tmpfs of its own, filled by a filler file
 * and then by creates. While the disk is full every create fails fast with a 503 Status naming the
 * cause (never a 404) — or, when the log store took a group commit and the snapshot store then hit
 * the full disk, a 504 Timeout saying the write is in the log and is applied once the store
 * recovers (it must then be there after recovery and after a restart) — reads keep working, /readyz and its etcd check fail (/livez stays 200), the
 * state is logged once; once the filler is deleted writes resume by themselves and /readyz is 200
 * again. After kill -9 and a restart every acknowledged create is there and no refused one is. A
 * start-up on a full disk fails saying ENOSPC.
 *
 * This server only (it exercises this server's storage, not an API behaviour kube could be
 * compared on). Needs a tmpfs mount: as root directly; otherwise the file runs itself again under
 * `unshare --user --map-root-user --mount` (a private mount namespace); if neither works the test
 * fails, it never skips.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer, clientFor, eventually, type ChildServer, type Client, type HttpResult } from './harness.ts';
import { mountTmpfs, withMountRights, type Tmpfs } from './tmpfs.ts';

/** Big enough for a fresh server (pki, bootstrap objects, LevelDB files); small enough to fill in a blink. */
const TMPFS_MB = 48;
/** Free space left by the filler before the creates fill the rest. */
const LEAVE_FREE = 2 * 1024 * 1024;
const NS = 'default';
const CONCURRENCY = 24;
const IN_LOG = /the write is in the log but the snapshot store failed/;

withMountRights(fileURLToPath(import.meta.url), suite);

function suite(): void {
  let fs: Tmpfs;
  let dataDir = '';
  let server: ChildServer | null = null;
  let client: Client | null = null;
  /** Names whose create was acknowledged (201), names refused, and names answered "in the log" (504). */
  const acked = new Set<string>();
  const refused = new Set<string>();
  const inLog = new Set<string>();
  const fill = (leave: number): void => fs.fill(leave);

  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { suite: 'disk-full' } }, data: { v: 'x'.repeat(4096) } });

  async function create(name: string): Promise<HttpResult> {
    const r = await client!.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: cm(name) });
    if (r.status === 201) acked.add(name);
    else if (r.status === 504 && IN_LOG.test(r.json?.message ?? '')) inLog.add(name);
    else refused.add(name);
    return r;
  }

  /**
   * The group commit's log write succeeded and its snapshot write hit the full disk: a 504 Timeout
   * (the write may land, as kube's 504 after etcd committed) that names the cause and says it is
   * applied once the store recovers.
   */
  function assertInLog(r: HttpResult, name: string): void {
    assert.is(r.json?.kind, 'Status', `create ${name}: ${r.status} ${r.text}`);
    assert.is(r.json.reason, 'Timeout');
    assert.match(r.json.message, /no space left on device/i, `create ${name}: the message names the cause: ${r.json.message}`);
  }

  /** A refused create: 503 ServiceUnavailable naming the full disk, with Retry-After. */
  function assertRefusal(r: HttpResult, name: string): void {
    assert.is.not(r.status, 404, `create ${name}: a wrong 404 while the disk is full: ${r.text}`);
    assert.is(r.status, 503, `create ${name}: ${r.status} ${r.text}`);
    assert.is(r.json?.kind, 'Status');
    assert.is(r.json.reason, 'ServiceUnavailable');
    assert.match(r.json.message, /no space left on device/i, `create ${name}: the message names the cause: ${r.json.message}`);
    assert.is(r.headers['retry-after'], '1');
    assert.is(r.json.details?.retryAfterSeconds, 1);
  }

  const count = (re: RegExp): number => (server!.logTail().match(new RegExp(re.source, 'g')) ?? []).length;

  test.before(() => {
    fs = mountTmpfs(TMPFS_MB);
    dataDir = join(fs.dir, 'data');
  });

  test.after(async () => {
    await client?.close().catch(() => undefined);
    if (server && server.proc.exitCode === null && server.proc.signalCode === null) await server.kill('SIGKILL');
    fs?.unmount();
  });

  test('disk full: 503 naming ENOSPC (no 404), reads work, readyz fails, logged once; writes resume by themselves', async () => {
    server = await spawnServer(dataDir, 0);
    client = clientFor(server.url, join(dataDir, 'pki'));
    const c = client;
    for (let i = 0; i < 20; i++) assert.is((await create(`before-${i}`)).status, 201);

    // Fill the disk: a filler leaves LEAVE_FREE, the creates take the rest.
    fill(LEAVE_FREE);
    let n = 0;
    let failedInARow = 0;
    const statuses = new Map<number, number>();
    const t0 = Date.now();
    while (failedInARow < 200) {
      const names = Array.from({ length: CONCURRENCY }, () => `fill-${n++}`);
      const rs = await Promise.all(names.map((name) => create(name)));
      rs.forEach((r, i) => {
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 201) failedInARow = 0;
        else {
          failedInARow++;
          if (r.status === 504) assertInLog(r, names[i]);
          else assertRefusal(r, names[i]);
        }
      });
      assert.ok(Date.now() - t0 < 60_000, `the disk did not fill within 60 s: ${JSON.stringify([...statuses])}`);
    }
    console.log(`filling: ${JSON.stringify(Object.fromEntries(statuses))} in ${Date.now() - t0} ms (${inLog.size} answered "in the log")`);
    // Make sure nothing is left: creates could not fill the last few KiB.
    fill(0);
    const refusedAt = Date.now();
    for (let i = 0; i < 3; i++) assertRefusal(await create(`full-${i}`), `full-${i}`);
    assert.ok(Date.now() - refusedAt < 2000, 'refusals are fast');

    // Reads keep working.
    const got = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps/before-0`);
    assert.is(got.status, 200, got.text);
    const list = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps?labelSelector=suite%3Ddisk-full`);
    assert.is(list.status, 200, list.text.slice(0, 300));
    assert.is(list.json.items.length, acked.size, 'the list holds exactly the acknowledged creates (a 504 "in the log" one is applied only once the store recovers)');

    // Readiness fails on the etcd check and says why; liveness stays (the server recovers by itself).
    const ready = await c.request('GET', '/readyz?verbose');
    assert.is(ready.status, 500, ready.text);
    assert.match(ready.text, /\[-\]etcd failed/);
    const etcd = await c.request('GET', '/readyz/etcd');
    assert.is(etcd.status, 500);
    assert.match(etcd.text, /no space left on device/i);
    assert.is((await c.request('GET', '/livez')).status, 200);
    assert.is((await c.request('GET', '/healthz')).status, 200);

    // Logged once, not per refused request.
    assert.is(count(/storage refuses writes/), 1, server.logTail());
    assert.match(server.logTail(), /no space left on device/i);

    // Free space: writes resume by themselves, readiness comes back, logged once.
    // Readers keep reading while the store is reopened.
    let reading = true;
    const readFailures: string[] = [];
    let reads = 0;
    let retried = 0;
    const readers = Array.from({ length: 4 }, async () => {
      while (reading) {
        // A paged list reads LevelDB (a single GET may be answered from memory).
        const r = await c.request('GET', reads++ % 2 ? `/api/v1/namespaces/${NS}/configmaps/before-${reads % 20}` : `/api/v1/namespaces/${NS}/configmaps?limit=5`);
        // A scan already running when LevelDB closes ends with a 503 and Retry-After (client-go
        // retries it); a read that begins during the reopen waits for it.
        if (r.status === 503 && r.headers['retry-after'] === '1') retried++;
        else if (r.status !== 200) readFailures.push(`${r.status} ${r.text.slice(0, 200)}`);
      }
    });
    fs.free();
    const freedAt = Date.now();
    let resumed = '';
    await eventually('a create to succeed after space was freed', async () => {
      const name = `after-${n++}`;
      const r = await create(name);
      if (r.status === 201) resumed = name;
      else assertRefusal(r, name);
      return r.status === 201;
    }, 10_000, () => console.log(server!.logTail()));
    console.log(`writes resumed ${Date.now() - freedAt} ms after the filler was deleted`);
    assert.ok(resumed);
    await eventually('/readyz 200', async () => (await c.request('GET', '/readyz')).status === 200, 5_000);
    reading = false;
    await Promise.all(readers);
    console.log(`${reads} reads while the store recovered: ${readFailures.length} failed, ${retried} answered 503 with Retry-After`);
    assert.equal(readFailures, [], 'reads while the store is reopened');
    // Recovery refolded the log: the creates answered "in the log" are there now.
    for (const name of inLog) {
      const r = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps/${name}`);
      assert.is(r.status, 200, `${name} was answered "in the log" while the disk was full: ${r.text}`);
    }
    assert.is(count(/storage problem cleared/), 1, server.logTail());
    assert.is(count(/storage refuses writes/), 1);
    for (let i = 0; i < 50; i++) assert.is((await create(`later-${i}`)).status, 201);
  });

  test('kill -9 and restart: every acknowledged create is there, no refused one', async () => {
    await client!.close();
    await server!.kill('SIGKILL');
    server = await spawnServer(dataDir, 0);
    client = clientFor(server.url, join(dataDir, 'pki'));
    const list = await client.request('GET', `/api/v1/namespaces/${NS}/configmaps?labelSelector=suite%3Ddisk-full`);
    assert.is(list.status, 200);
    const present = new Set<string>(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
    const lost = [...acked, ...inLog].filter((x) => !present.has(x));
    const ghosts = [...refused].filter((x) => present.has(x));
    assert.equal(lost, [], `${lost.length} acknowledged (or "in the log") creates lost`);
    assert.equal(ghosts, [], `${ghosts.length} refused creates present`);
    assert.is(present.size, acked.size + inLog.size);
    console.log(`after restart: ${acked.size} acknowledged and ${inLog.size} "in the log" present, ${refused.size} refused absent`);
    // Some writes for the next test: LevelDB's write-ahead log then holds more than a full disk
    // leaves room for when the store is opened again (its contents are written into a table).
    for (let i = 0; i < 100; i++) assert.is((await create(`restarted-${i}`)).status, 201);
  });

  test('start-up on a full disk fails and says ENOSPC', async () => {
    await client!.close();
    client = null;
    await server!.kill('SIGTERM');
    server = null;
    // Room for the small files written before the store opens (the PKI lock), not for the store.
    fill(64 * 1024);
    let err = '';
    try {
      const s = await spawnServer(dataDir, 0);
      await s.kill('SIGKILL');
    } catch (e) {
      err = (e as Error).message;
    }
    assert.ok(err, 'the server started on a full disk');
    assert.match(err, /no space left on device \(ENOSPC\)/, err.slice(-2000));
    assert.match(err, /cannot open the store/, err.slice(-2000));
  });

  test.run();
}
