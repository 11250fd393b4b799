/**
 * Crash safety: a server process is killed with SIGKILL in the middle of a burst of concurrent
 * creates, then restarted on the same data dir. Every write the server acknowledged must survive
 * with the same resourceVersion and content; whatever else survived must be complete; versions
 * handed out after the restart must be greater than every version seen before. Three cycles.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { spawnServer, clientFor, tempDir, type ChildServer, type Client } from './harness.ts';

const NS = 'durable';
const BURST = 500;
const CYCLES = 3;
const AFTER_RESTART = 25;
/** Kill once this many creates were acknowledged… */
const KILL_AT_ACKS = BURST / 2;
/** …or after this long, whichever comes first. */
const KILL_AFTER_MS = 3000;

interface Acked {
  rv: number;
  value: string;
}

/** A deterministic 1 KiB value per name, so content can be checked without remembering it. */
function valueFor(name: string): string {
  let out = '';
  for (let i = 0; out.length < 1024; i++) out += createHash('sha256').update(`${name}/${i}`).digest('hex');
  return out.slice(0, 1024);
}

const cmBody = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { suite: 'durability' } },
  data: { value: valueFor(name), name },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dataDir: string;
let server: ChildServer | null = null;
let client: Client | null = null;
/** Every acknowledged write so far, by name. */
const acked = new Map<string, Acked>();
/** Highest resourceVersion observed anywhere so far. */
let maxSeenRv = 0;
const timings: Record<string, number | string>[] = [];

async function start(): Promise<{ ms: number }> {
  const t0 = Date.now();
  server = await spawnServer(dataDir, 0);
  client = clientFor(server.url, join(dataDir, 'pki'));
  return { ms: Date.now() - t0 };
}

async function readyz(c: Client): Promise<void> {
  const r = await c.request('GET', '/readyz');
  assert.is(r.status, 200, `readyz: ${r.status} ${r.text}`);
  assert.is(r.text.trim(), 'ok');
  const v = await c.request('GET', '/readyz?verbose');
  assert.is(v.status, 200);
  assert.match(v.text, /readyz check passed/);
}

/** List the suite's ConfigMaps; asserts every present object is complete and correct. */
async function verifyStore(c: Client, phase: string): Promise<Map<string, number>> {
  const r = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps?labelSelector=suite%3Ddurability`);
  assert.is(r.status, 200, `${phase}: list → ${r.status} ${r.text.slice(0, 300)}`);
  assert.ok(r.json, `${phase}: list body is valid JSON`);
  const listRv = Number(r.json.metadata.resourceVersion);
  const present = new Map<string, number>();
  const rvs = new Set<number>();
  for (const item of r.json.items) {
    const name = item.metadata?.name as string;
    assert.ok(name, `${phase}: item has a name`);
    assert.is(item.kind, undefined, `${phase}: list items carry no kind, as kube writes lists`);
    assert.is(item.metadata.namespace, NS);
    assert.ok(item.metadata.uid, `${phase}: ${name} has a uid`);
    assert.equal(item.data, { value: valueFor(name), name }, `${phase}: ${name} content intact`);
    const rv = Number(item.metadata.resourceVersion);
    assert.ok(Number.isSafeInteger(rv) && rv > 0, `${phase}: ${name} has a numeric resourceVersion`);
    assert.not.ok(rvs.has(rv), `${phase}: resourceVersion ${rv} is unique`);
    assert.ok(rv <= listRv, `${phase}: ${name} rv ${rv} <= list rv ${listRv}`);
    rvs.add(rv);
    present.set(name, rv);
  }
  // nothing acknowledged was lost, and it is exactly as acknowledged
  const lost: string[] = [];
  for (const [name, a] of acked) {
    const rv = present.get(name);
    if (rv === undefined) lost.push(name);
    else assert.is(rv, a.rv, `${phase}: ${name} keeps its acknowledged resourceVersion`);
  }
  assert.equal(lost, [], `${phase}: ${lost.length} acknowledged creates lost`);
  // spot-check single GETs agree with the list
  const sample = [...present.keys()].filter((_, i) => i % 37 === 0);
  for (const name of sample) {
    const g = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps/${name}`);
    assert.is(g.status, 200);
    assert.is(Number(g.json.metadata.resourceVersion), present.get(name));
    assert.is(g.json.data.value, valueFor(name));
  }
  for (const rv of rvs) maxSeenRv = Math.max(maxSeenRv, rv);
  maxSeenRv = Math.max(maxSeenRv, listRv);
  return present;
}

test.before(async () => {
  dataDir = tempDir('apiserver-durability-');
  const s = await start();
  timings.push({ phase: 'first start', ms: s.ms });
  const r = await client!.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } });
  assert.is(r.status, 201, r.text);
  maxSeenRv = Number(r.json.metadata.resourceVersion);
});

test.after(async () => {
  await client?.close().catch(() => undefined);
  if (server && server.proc.exitCode === null && server.proc.signalCode === null) await server.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  console.log('durability timings:');
  for (const t of timings) console.log('  ' + Object.entries(t).map(([k, v]) => `${k}=${v}`).join(' '));
});

for (let cycle = 1; cycle <= CYCLES; cycle++) {
  test(`cycle ${cycle}: SIGKILL during ${BURST} concurrent creates; acknowledged writes survive restart`, async () => {
    const c = client!;
    const srv = server!;
    await readyz(c);

    // --- the burst ---------------------------------------------------------------------------
    const cycleAcked = new Map<string, Acked>();
    let failures = 0;
    const otherStatuses: string[] = [];
    let ackCount = 0;
    let reachedHalf: () => void = () => undefined;
    const half = new Promise<void>((r) => (reachedHalf = r));
    const t0 = Date.now();
    let firstAckMs = -1;
    const burst = Array.from({ length: BURST }, async (_, i) => {
      const name = `c${cycle}-${String(i).padStart(4, '0')}`;
      try {
        const r = await c.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: cmBody(name) });
        if (r.status === 201) {
          assert.is(r.json.metadata.name, name);
          assert.is(r.json.data.value, valueFor(name));
          cycleAcked.set(name, { rv: Number(r.json.metadata.resourceVersion), value: r.json.data.value });
          if (firstAckMs < 0) firstAckMs = Date.now() - t0;
          if (++ackCount >= KILL_AT_ACKS) reachedHalf();
        } else {
          otherStatuses.push(`${name}: ${r.status} ${r.text.slice(0, 200)}`);
        }
      } catch {
        failures++; // connection reset by the kill: outcome unknown, may or may not be stored
      }
    });
    await Promise.race([half, sleep(KILL_AFTER_MS)]);
    // a slow machine: give the server a while to acknowledge at least one write before the kill
    for (let waited = 0; ackCount === 0 && waited < 20_000; waited += 50) await sleep(50);
    const killAtMs = Date.now() - t0;
    const ackedAtKill = ackCount;
    await srv.kill('SIGKILL');
    await Promise.all(burst);
    await c.close().catch(() => undefined);
    // Only answers that arrived before the process died are acknowledgements.
    assert.equal(otherStatuses, [], 'no create was refused before the kill');
    assert.ok(cycleAcked.size > 0, 'some creates were acknowledged before the kill');

    const rvs = [...cycleAcked.values()].map((a) => a.rv);
    assert.is(new Set(rvs).size, rvs.length, 'acknowledged resourceVersions are unique');
    // every acknowledged rv of this burst is newer than anything seen before it
    for (const rv of rvs) assert.ok(rv > maxSeenRv, `burst rv ${rv} > earlier max ${maxSeenRv}`);
    for (const [name, a] of cycleAcked) acked.set(name, a);
    maxSeenRv = Math.max(maxSeenRv, ...rvs);

    // --- restart -----------------------------------------------------------------------------
    const s = await start();
    const c2 = client!;
    await readyz(c2);
    const present = await verifyStore(c2, `cycle ${cycle} after restart`);
    const thisCycle = [...present.keys()].filter((n) => n.startsWith(`c${cycle}-`));
    const unackedSurvivors = thisCycle.filter((n) => !cycleAcked.has(n)).length;

    // the bootstrap namespaces and our namespace are intact
    const nsList = await c2.request('GET', '/api/v1/namespaces');
    const nsNames = nsList.json.items.map((n: any) => n.metadata.name);
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease', NS]) assert.ok(nsNames.includes(n), `namespace ${n} survived`);

    // --- writes after the restart get strictly newer versions --------------------------------
    const priorMax = maxSeenRv;
    const after = await Promise.all(
      Array.from({ length: AFTER_RESTART }, (_, i) => c2.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: cmBody(`c${cycle}-after-${i}`) })),
    );
    const afterRvs: number[] = [];
    for (const r of after) {
      assert.is(r.status, 201, r.text);
      const rv = Number(r.json.metadata.resourceVersion);
      assert.ok(rv > priorMax, `post-restart rv ${rv} > every earlier rv (${priorMax})`);
      afterRvs.push(rv);
      acked.set(r.json.metadata.name, { rv, value: r.json.data.value });
    }
    assert.is(new Set(afterRvs).size, afterRvs.length);
    // an acknowledged object from before the crash can be updated, and its version moves forward
    const [someName, some] = [...cycleAcked.entries()][0]!;
    const upd = await c2.request('PATCH', `/api/v1/namespaces/${NS}/configmaps/${someName}`, {
      raw: JSON.stringify({ metadata: { annotations: { touched: 'yes' } } }),
      contentType: 'application/merge-patch+json',
    });
    assert.is(upd.status, 200, upd.text);
    const updRv = Number(upd.json.metadata.resourceVersion);
    assert.ok(updRv > Math.max(...afterRvs));
    assert.ok(updRv > some.rv);
    acked.set(someName, { rv: updRv, value: some.value });
    maxSeenRv = Math.max(priorMax, updRv, ...afterRvs);
    // everything still reads back consistently
    await verifyStore(c2, `cycle ${cycle} after post-restart writes`);

    timings.push({
      cycle,
      firstAckMs,
      killAtMs,
      ackedAtKill,
      ackedTotal: cycleAcked.size,
      connectionErrors: failures,
      unackedButStored: unackedSurvivors,
      restartMs: s.ms,
      storedTotal: present.size,
    });
  });
}

test('final: graceful stop and start keeps everything', async () => {
  await client!.close();
  await server!.kill('SIGTERM');
  const code = await server!.exited;
  assert.is(code, 0, 'SIGTERM exits cleanly');
  const s = await start();
  timings.push({ phase: 'graceful restart', ms: s.ms });
  await readyz(client!);
  const present = await verifyStore(client!, 'after graceful restart');
  assert.ok(present.size >= acked.size);
});

test.run();
