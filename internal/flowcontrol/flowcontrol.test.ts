/**
 * Unit tests of the pieces of API Priority and Fairness: shuffle sharding, fair queuing dispatch
 * (a fake clock), classification against the 1.24 bootstrap schemas, the work estimates and the
 * dumps' tabwriter alignment (checked against kube-apiserver 1.24.17's dump_priority_levels).
 */
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Dealer, hashFlowId } from './shuffle-sharding.ts';
import { QueueSet, type FlowControlObserver, type QueuedRequest, type RequestDescription } from './queue-set.ts';
import { FlowController } from './controller.ts';
import { WatchTracker, WorkEstimator } from './work-estimator.ts';
import { tabwrite } from './tabwriter.ts';
import { FLOW_SCHEMAS, PRIORITY_LEVELS } from './bootstrap.ts';
import { bootstrapFlowSchema, bootstrapPriorityLevel, flowSchemaFromObject, priorityLevelFromObject } from './objects.ts';
import type { RequestDigest } from './match.ts';

test('a hand is handSize distinct cards of the deck, as the mixed-radix deal gives them', () => {
  // deck 4, hand 2, hash 9: 9 mod 4 = 1; (9 / 4 = 2) mod 3 = 2 → third of the remaining {0, 2, 3}.
  assert.equal(new Dealer(4, 2).deal(9n), [1, 3]);
  const d = new Dealer(128, 6);
  for (let i = 0; i < 500; i++) {
    const hand = d.deal(hashFlowId('global-default', `user-${i}`));
    assert.is(new Set(hand).size, 6);
    assert.ok(hand.every((c) => Number.isInteger(c) && c >= 0 && c < 128));
  }
  // Deterministic per flow; different flows rarely share a whole hand.
  assert.equal(d.deal(hashFlowId('fs', 'a')), d.deal(hashFlowId('fs', 'a')));
  assert.not.equal(d.deal(hashFlowId('fs', 'a')), d.deal(hashFlowId('fs', 'b')));
  assert.throws(() => new Dealer(4, 5), /handSize 5 is greater than deckSize 4/);
  assert.throws(() => new Dealer(1 << 20, 4), /required entropy bits/);
});

test('hashFlowId: first 8 bytes of sha256(schema NUL distinguisher), little-endian', () => {
  const sum = createHash('sha256').update(Buffer.from('a\u0000b')).digest();
  let expected = 0n;
  for (let i = 7; i >= 0; i--) expected = (expected << 8n) | BigInt(sum[i]);
  assert.is(hashFlowId('a', 'b'), expected);
});

/** A recording observer and a fake clock. */
function harness() {
  let now = 0;
  const events: string[] = [];
  const observer: FlowControlObserver = {
    concurrencyLimit() {}, inQueue() {}, executing() {}, seatsInUse() {}, queueLengthAfterEnqueue() {}, waitDuration() {}, executionDuration() {}, estimatedSeats() {}, currentR() {}, dispatchR() {},
    rejected: (pl, fs, reason) => events.push(`reject ${fs} ${reason}`),
    dispatched: (pl, fs) => events.push(`dispatch ${fs}`),
  };
  return { observer, events, clock: () => now, advance: (ms: number) => (now += ms) };
}

const DESC: RequestDescription = { userName: 'u', verb: 'get', path: '/', namespace: '', name: '', apiVersion: 'v1', resource: '', subresource: '' };
const ONE = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };

test('fair queuing: a later flow is served before the backlog of an earlier one', async () => {
  const h = harness();
  // 2 queues, hand 1: flow a and flow b each get a queue of their own (hash chosen to deal 0 and 1).
  const qs = new QueueSet({ name: 'pl', queues: 2, handSize: 1, queueLengthLimit: 10, requestWaitLimitMs: 15_000, concurrencyLimit: 1 }, new Dealer(2, 1), h.observer, h.clock);
  const order: string[] = [];
  const start = (flow: string, hash: bigint): QueuedRequest => {
    const r = qs.start(flow, flow, hash, ONE, DESC);
    if ('rejected' in r) throw new Error('rejected');
    void r.request.decided.then((d) => d === 'execute' && order.push(flow));
    return r.request;
  };
  const a1 = start('a', 0n);
  const a2 = start('a', 0n);
  const a3 = start('a', 0n);
  h.advance(1);
  const b1 = start('b', 1n);
  assert.is(a1.decision, 'execute');
  assert.is(a2.decision, null);
  assert.is(qs.totalWaiting, 3);
  h.advance(10);
  a1.finish();
  // b1 finishes first in virtual time: its queue starts at its arrival, a's carries a1's work.
  assert.is(b1.decision, 'execute');
  assert.is(a2.decision, null);
  h.advance(10);
  b1.finish();
  assert.is(a2.decision, 'execute');
  a2.finish();
  a3.finish(); // not executing: ignored
  assert.is(a3.decision, 'execute');
  a3.finish();
  await Promise.resolve();
  assert.equal(order, ['a', 'b', 'a', 'a']);
  assert.ok(qs.idle);
  assert.is(qs.totalSeatsInUse, 0);
});

test('a full hand is a 429 (queue-full); a request older than the wait limit is rejected when its queue gets a new one; cancel leaves the queue', () => {
  const h = harness();
  const qs = new QueueSet({ name: 'pl', queues: 4, handSize: 2, queueLengthLimit: 2, requestWaitLimitMs: 15_000, concurrencyLimit: 1 }, new Dealer(4, 2), h.observer, h.clock);
  const hash = 9n; // hand [1, 3]
  const reqs = Array.from({ length: 5 }, () => qs.start('fs', 'x', hash, ONE, DESC));
  // One executes, 2 + 2 wait in queues 1 and 3, the sixth finds both full.
  assert.ok(reqs.every((r) => 'request' in r));
  assert.is(qs.totalWaiting, 4);
  assert.equal(qs.queues.map((q) => q.requests.length), [0, 2, 0, 2]);
  assert.equal(qs.start('fs', 'x', hash, ONE, DESC), { rejected: 'queue-full' });
  // Another flow with another hand still gets in.
  const other = qs.start('fs', 'y', 2n, ONE, DESC); // hand [2, 1]
  assert.ok('request' in other && other.request.queue === qs.queues[2]);
  // Cancel: the waiting request leaves, the count follows.
  const waiting = (reqs[1] as { request: QueuedRequest }).request;
  waiting.cancel();
  assert.is(waiting.decision, 'cancel');
  assert.is(qs.totalWaiting, 4);
  // 16 s later a new arrival in queue 1 or 3 rejects the requests there that waited over 15 s.
  h.advance(16_000);
  const late = qs.start('fs', 'x', hash, ONE, DESC);
  assert.ok('request' in late);
  assert.ok(h.events.includes('reject fs time-out'));
  assert.ok(h.events.includes('reject fs cancelled'));
  assert.ok(h.events.includes('reject fs queue-full'));
});

test('without queues (catch-all) a request over the limit is rejected at once; a wide request waits for seats', () => {
  const h = harness();
  const qs = new QueueSet({ name: 'catch-all', queues: 0, handSize: 0, queueLengthLimit: 0, requestWaitLimitMs: 15_000, concurrencyLimit: 2 }, null, h.observer, h.clock);
  const a = qs.start('catch-all', '', 0n, ONE, DESC);
  const b = qs.start('catch-all', '', 0n, ONE, DESC);
  assert.ok('request' in a && 'request' in b);
  assert.equal(qs.start('catch-all', '', 0n, ONE, DESC), { rejected: 'concurrency-limit' });
  (a as { request: QueuedRequest }).request.finish();
  assert.ok('request' in qs.start('catch-all', '', 0n, ONE, DESC));

  const wide = new QueueSet({ name: 'pl', queues: 1, handSize: 1, queueLengthLimit: 5, requestWaitLimitMs: 15_000, concurrencyLimit: 4 }, new Dealer(1, 1), h.observer, h.clock);
  const small = wide.start('fs', '', 0n, ONE, DESC) as { request: QueuedRequest };
  const list = wide.start('fs', '', 0n, { initialSeats: 4, finalSeats: 0, additionalLatencyMs: 0 }, DESC) as { request: QueuedRequest };
  assert.is(list.request.decision, null, '4 seats do not fit beside 1');
  small.request.finish();
  assert.is(list.request.decision, 'execute');
  assert.is(wide.totalSeatsInUse, 4);
});

const digest = (user: string, groups: string[], extra: Partial<RequestDigest> = {}): RequestDigest => ({
  user: { username: user, groups }, isResourceRequest: true, verb: 'get', group: '', resource: 'configmaps', subresource: '', namespace: 'default', name: 'x', path: '/api/v1/namespaces/default/configmaps/x', ...extra,
});

test('classification follows the 1.24 schemas in matching order', () => {
  const c = new FlowController({ serverConcurrencyLimit: 600, requestWaitLimitMs: 15_000 });
  const fs = (d: RequestDigest) => c.classify(d).schema.name;
  assert.is(fs(digest('admin', ['system:masters', 'system:authenticated'])), 'exempt');
  assert.is(fs(digest('system:anonymous', ['system:unauthenticated'], { isResourceRequest: false, path: '/readyz', verb: 'get' })), 'probes');
  assert.is(fs(digest('system:anonymous', ['system:unauthenticated'], { isResourceRequest: false, path: '/readyz/etcd', verb: 'get' })), 'probes');
  assert.is(fs(digest('system:anonymous', ['system:unauthenticated'], { isResourceRequest: false, path: '/readyz', verb: 'post' })), 'global-default');
  assert.is(fs(digest('system:kube-controller-manager', ['system:authenticated'], { group: 'coordination.k8s.io', resource: 'leases', verb: 'update' })), 'system-leader-election');
  assert.is(fs(digest('system:kube-controller-manager', ['system:authenticated'], { resource: 'endpoints', verb: 'update' })), 'endpoint-controller');
  assert.is(fs(digest('system:kube-controller-manager', ['system:authenticated'], { resource: 'pods', verb: 'list', name: '' })), 'kube-controller-manager');
  assert.is(fs(digest('system:serviceaccount:kube-system:foo', ['system:serviceaccounts', 'system:authenticated'], { resource: 'configmaps', verb: 'update' })), 'workload-leader-election');
  assert.is(fs(digest('system:serviceaccount:kube-system:foo', ['system:serviceaccounts', 'system:authenticated'], { resource: 'pods' })), 'kube-system-service-accounts');
  assert.is(fs(digest('system:serviceaccount:kube-systemx:foo', ['system:serviceaccounts', 'system:authenticated'], { resource: 'pods' })), 'service-accounts');
  assert.is(fs(digest('system:node:n1', ['system:nodes', 'system:authenticated'], { resource: 'nodes', subresource: 'status', namespace: '', verb: 'patch' })), 'system-node-high');
  assert.is(fs(digest('system:node:n1', ['system:nodes', 'system:authenticated'], { resource: 'pods' })), 'system-nodes');
  assert.is(fs(digest('alice', ['system:authenticated'])), 'global-default');
  // Not even in system:authenticated: the catch-all.
  assert.is(fs(digest('nobody', [])), 'catch-all');
  assert.equal(
    Object.fromEntries(c.concurrencyLimits()),
    { 'catch-all': 13, system: 74, 'node-high': 98, 'leader-election': 25, 'workload-high': 98, 'workload-low': 245, 'global-default': 49 },
  );
});

test('objects: the bootstrap specs round-trip through their v1beta2 objects', () => {
  for (const spec of FLOW_SCHEMAS) assert.equal(flowSchemaFromObject(bootstrapFlowSchema(spec.name)), spec, spec.name);
  for (const spec of PRIORITY_LEVELS) assert.equal(priorityLevelFromObject(bootstrapPriorityLevel(spec.name)), spec, spec.name);
});

test('configure: stored objects classify (their uids), dangling schemas are ignored, missing mandatory ones imagined, limits follow the shares', () => {
  const c = new FlowController({ serverConcurrencyLimit: 600, requestWaitLimitMs: 15_000 });
  const withUid = (o: any, uid: string) => ({ ...o, metadata: { ...o.metadata, uid } });
  const pl = withUid({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kind: 'PriorityLevelConfiguration', metadata: { name: 'mine' }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 5, limitResponse: { type: 'Reject' } } } }, 'pl-uid');
  const rules = [{ subjects: [{ kind: 'User', user: { name: 'noxu' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }];
  const fs = withUid({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kind: 'FlowSchema', metadata: { name: 'mine' }, spec: { priorityLevelConfiguration: { name: 'mine' }, matchingPrecedence: 1000, rules } }, 'fs-uid');
  const dangling = { ...fs, metadata: { name: 'dangling', uid: 'd' }, spec: { ...fs.spec, matchingPrecedence: 500, priorityLevelConfiguration: { name: 'none' } } };
  const global = withUid(bootstrapPriorityLevel('global-default'), 'g');
  c.configure([fs, dangling, withUid(bootstrapFlowSchema('global-default'), 'gfs')], [pl, global]);
  const noxu = c.classify(digest('noxu', ['system:authenticated'], { isResourceRequest: false, path: '/version', verb: 'get' }));
  assert.is(noxu.schema.name, 'mine');
  assert.is(noxu.schemaUid, 'fs-uid');
  assert.is(noxu.level.uid, 'pl-uid');
  assert.is(c.classify(digest('alice', ['system:authenticated'])).schema.name, 'global-default');
  // exempt and catch-all were not given: imagined.
  assert.is(c.classify(digest('admin', ['system:masters'])).schema.name, 'exempt');
  assert.is(c.classify(digest('nobody', [])).schema.name, 'catch-all');
  // Shares 5 + 20 + 5 (imagined catch-all): 600 × 5 / 30 → 100.
  assert.equal(Object.fromEntries(c.concurrencyLimits()), { mine: 100, 'global-default': 400, 'catch-all': 100 });
  // An unchanged level keeps its queues; its limit follows the new sum.
  const before = (c as any).levels.get('global-default').queues;
  c.configure([fs], [global]);
  assert.is((c as any).levels.get('global-default').queues, before);
  assert.equal(Object.fromEntries(c.concurrencyLimits()), { 'global-default': 480, 'catch-all': 120 });
  assert.is(c.classify(digest('noxu', ['system:authenticated'])).schema.name, 'catch-all');
});

test('work estimates: LIST by objects read (1 seat per 100, 1–10), writes by the watches they notify', () => {
  const counts = new Map([['configmaps', 2500], ['deployments.apps', 150]]);
  const watches = new WatchTracker();
  const e = new WorkEstimator((gr) => counts.get(gr), watches);
  const list = (q: string, extra: Partial<{ group: string; resource: string; name: string }> = {}) =>
    e.estimate({ verb: 'list', group: '', resource: 'configmaps', namespace: 'ns', name: '', query: new URLSearchParams(q), ...extra }).initialSeats;
  assert.is(list(''), 10); // from storage: 2 × 2500 objects → capped at 10
  assert.is(list('limit=100'), 2); // 2 × 100
  assert.is(list('limit=100&labelSelector=a%3Db'), 10); // 2500 + 100
  assert.is(list('resourceVersion=0&limit=100'), 10); // from the cache: all 2500
  assert.is(list('', { group: 'apps', resource: 'deployments' }), 3); // 2 × 150
  assert.is(list('', { resource: 'unknown' }), 1);
  assert.is(list('', { name: 'x' }), 1);
  assert.is(list('limit=abc'), 10);
  const write = () => e.estimate({ verb: 'create', group: '', resource: 'configmaps', namespace: 'ns', name: 'x', query: new URLSearchParams() });
  assert.equal(write(), { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  const forget = Array.from({ length: 25 }, (_, i) => watches.register({ verb: 'watch', group: '', resource: 'configmaps', namespace: i % 2 ? 'ns' : '', name: '', query: new URLSearchParams() }));
  // A kubelet's pod watch on its node is not counted.
  watches.register({ verb: 'watch', group: '', resource: 'pods', namespace: '', name: '', query: new URLSearchParams('fieldSelector=spec.nodeName%3Dn1') });
  assert.equal(write(), { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 });
  assert.is(watches.interested({ group: '', resource: 'configmaps', namespace: 'other', name: 'x' }), 13);
  assert.is(watches.interested({ group: '', resource: 'pods', namespace: 'x', name: 'x' }), 0);
  for (const f of forget) f();
  assert.equal(write(), { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
});

test('tabwriter aligns as Go text/tabwriter(8, 0, 1, space): kube-apiserver 1.24.17 dump_priority_levels', () => {
  const rows = [
    ['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests'],
    ['workload-high', '0', 'true', 'false', '0', '0'],
    ['exempt', '<none>', '<none>', '<none>', '<none>', '<none>'],
  ];
  // Bytes served by the reference for these rows.
  const expected = [
    'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests',
    'workload-high,     0,            true,   false,       0,               0',
    'exempt,            <none>,       <none>, <none>,      <none>,          <none>',
    '',
  ].join('\n');
  assert.is(tabwrite(rows.map((r) => r.join(',\t') + '\n').join('')), expected);
});

test('FlowController: exempt requests run at once; a queued one is admitted when a seat frees; dump shows it', async () => {
  let now = 0;
  const c = new FlowController({ serverConcurrencyLimit: 2, requestWaitLimitMs: 15_000, now: () => now });
  const one = () => ({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  const admin = c.begin(digest('admin', ['system:masters']), one, false);
  assert.is(admin.immediate, true);
  assert.is(admin.classification.priorityLevel, 'exempt');
  const first = c.begin(digest('alice', ['system:authenticated']), one, false);
  assert.is(first.immediate, true);
  const second = c.begin(digest('alice', ['system:authenticated']), one, false);
  assert.is(second.immediate, null);
  assert.match(c.dumpRequests(true), /^global-default, +global-default, +\d+, +0, +alice, +\S+Z, +1, +0, +0s, +alice, +get, /m);
  assert.match(c.dumpPriorityLevels(), /^global-default, +1, +false, +false, +1, +1$/m);
  now += 5;
  first.finish();
  assert.is(await second.admitted, true);
  second.finish();
  assert.match(c.dumpPriorityLevels(), /^global-default, +0, +true, +false, +0, +0$/m);
  // A waiting request that is cancelled is not admitted.
  const a = c.begin(digest('alice', ['system:authenticated']), one, false);
  const b = c.begin(digest('alice', ['system:authenticated']), one, false);
  b.cancel();
  assert.is(await b.admitted, false);
  a.finish();
});

test('holdDispatch: while held, limited requests queue (429 once their queue is full) and exempt ones run; release dispatches', async () => {
  const c = new FlowController({ serverConcurrencyLimit: 600, requestWaitLimitMs: 15_000, now: () => 0 });
  const one = () => ({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  c.holdDispatch(true);
  const admin = c.begin(digest('admin', ['system:masters']), one, false);
  assert.is(admin.immediate, true);
  const waiting = Array.from({ length: 300 }, () => c.begin(digest('alice', ['system:authenticated']), one, false));
  assert.ok(waiting.every((t) => t.immediate === null), 'queued although 49 seats are free');
  // alice's hand: 6 queues × 50 = 300 waiting; the next is refused at once.
  const refused = c.begin(digest('alice', ['system:authenticated']), one, false);
  assert.is(refused.immediate, false);
  c.holdDispatch(false);
  let admitted = 0;
  for (const t of waiting) void t.admitted.then((ok) => ok && admitted++);
  await new Promise((r) => setImmediate(r));
  assert.is(admitted, 49, 'global-default has 49 seats');
  assert.match(c.dumpPriorityLevels(), /^global-default, +\d+, +false, +false, +251, +49$/m);
});

test('--workers: each thread takes its share of a level\'s seats and queue length, the limit reported is the server\'s; the dumps add the threads up', async () => {
  const limits: [string, number][] = [];
  const noop = () => undefined;
  const observer: FlowControlObserver = {
    concurrencyLimit: (pl, n) => void limits.push([pl, n]),
    rejected: noop, dispatched: noop, inQueue: noop, executing: noop, seatsInUse: noop, queueLengthAfterEnqueue: noop,
    waitDuration: noop, executionDuration: noop, estimatedSeats: noop, currentR: noop, dispatchR: noop,
  };
  // 600 seats over 2 threads: global-default has 49 for the server, 25 on each thread.
  const threads = [0, 1].map(() => new FlowController({ serverConcurrencyLimit: 600, threadShare: (n) => (n <= 0 ? n : Math.max(1, Math.ceil(n / 2))), requestWaitLimitMs: 15_000, now: () => 0, observer }));
  assert.equal(limits.find(([pl]) => pl === 'global-default'), ['global-default', 49]);
  assert.is(threads[0]!.concurrencyLimits().get('global-default'), 25);
  const one = () => ({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  for (const c of threads) c.holdDispatch(true);
  // alice's hand of 6 queues holds 6 × 25 on a thread (kube's 50 shared out): the next is refused.
  const waiting = Array.from({ length: 150 }, () => threads[0]!.begin(digest('alice', ['system:authenticated']), one, false));
  assert.ok(waiting.every((t) => t.immediate === null));
  assert.is(threads[0]!.begin(digest('alice', ['system:authenticated']), one, false).immediate, false);
  threads[1]!.begin(digest('bob', ['system:authenticated']), one, false);
  // Each thread's dump is its own; with everyThread, every thread's as one server's.
  assert.match(threads[1]!.dumpPriorityLevels(), /^global-default, +1, +false, +false, +1, +0$/m);
  const all = async () => threads.map((c) => c.snapshot());
  threads[1]!.everyThread = all;
  assert.match(await threads[1]!.dump('priority_levels'), /^global-default, +\d+, +false, +false, +151, +0$/m);
  const requests = (await threads[1]!.dump('requests', true)).trimEnd().split('\n');
  assert.is(requests.length - 1, 151);
  assert.is(requests.filter((l) => /\bbob, +get,/.test(l)).length, 1);
  const queues = await threads[1]!.dump('queues');
  const pending = queues.split('\n').filter((l) => l.startsWith('global-default,')).reduce((n, l) => n + Number(l.split(',')[2]), 0);
  assert.is(pending, 151);
  // Without threads the dump is the thread's own, as before.
  assert.is(await threads[0]!.dump('priority_levels'), threads[0]!.dumpPriorityLevels());
});

test.run();
