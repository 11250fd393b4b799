/**
 * The leader ⇄ serving thread protocol (follower.ts) over a real MessageChannel in one thread: the
 * commit record and verdicts, and Kafka mode's topic reads forwarded to the leader a chunk at a
 * time. The two ends' Storage parts are reduced to what the protocol touches (the Storage-level
 * behaviour runs in test/workers.test.ts and test/kafka/workers-watch.test.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import { LeaderFeed, FollowerTail, type LeaderSide } from './follower.ts';
import { StoreHealth } from './store-health.ts';
import type { CommitListener, FollowedCommit, Materializer, PendingFold } from './mvcc/materializer.ts';
import type { Verdict } from './mvcc/fold.ts';
import type { PositionedEvent } from './log/event.ts';

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

function pair(readLog: LeaderSide['readLog'] = async function* () {}) {
  let onCommit: CommitListener | null = null;
  let append: ((id: string) => void) | null = null;
  const leaderSide: LeaderSide = {
    materializer: { folded: 0, onCommit: (l: CommitListener) => ((onCommit = l), () => undefined) } as unknown as Materializer,
    health: new StoreHealth(),
    compaction: { compacted: -1, onAdvance: null },
    tables: { onState: null },
    damage: () => undefined,
    appendFor: (id) => new Promise<Verdict>(() => append?.(id)),
    latest: async () => 0,
    kafka: true,
    readLog,
  };
  const feed = new LeaderFeed(leaderSide);
  const { port1, port2 } = new MessageChannel();
  const link = feed.link(port1);
  const tail = new FollowerTail({ ...link, port: port2 }, new StoreHealth(), null);
  // What the follower's Materializer is asked, in order.
  const seen: string[] = [];
  const verdicts = new Map<string, Verdict>();
  tail.start({
    follow: (c: FollowedCommit) => seen.push(`follow ${c.lastOffset}: ${c.changes.map((x) => `${x.type} ${x.key.name}=${x.object.toString()}`).join(', ')}; ${c.entries.map(([p, e]) => `${p} ${e}`).join(', ')}`),
    resolveVerdict: (id: string, v: Verdict) => {
      seen.push(`verdict ${id}`);
      verdicts.set(id, v);
    },
    cancelVerdict: () => undefined,
  } as unknown as Materializer);
  return { feed, tail, seen, verdicts, commit: (p: PendingFold) => onCommit!(p), onAppend: (f: (id: string) => void) => (append = f), close: () => { feed.close(); void tail.close(); } };
}

test('a commit reaches the thread as one record; an accepted verdict carries its change object, after the commit', async () => {
  const p = pair();
  let asked = '';
  p.onAppend((id) => (asked = id));
  await p.tail.append({ id: 'w1', op: 'CREATE', object: Buffer.from('{}') } as never);
  await tick();
  assert.is(asked, 'w1', 'the intent went to the leader');
  const object = Buffer.from('{"metadata":{"name":"a","resourceVersion":"5"}}');
  p.commit({
    lastOffset: 5,
    time: 1,
    verdicts: [{ id: 'w1', verdict: { accepted: true, rv: 5, op: 'CREATE', object, previousRv: null } }],
    changes: [{ offset: 5, type: 'ADDED', key: { group: '', resource: 'configmaps', namespace: 'd', name: 'a' }, object, time: 1 }],
    entries: [['core/configmaps/d/a', { rv: 5, uid: 'u1', deleting: false }]],
  });
  await tick();
  assert.equal(p.seen, [`follow 5: ADDED a=${object}; core/configmaps/d/a 5 u1 0`, 'verdict w1']);
  const v = p.verdicts.get('w1')!;
  assert.ok(v.accepted);
  if (v.accepted) {
    assert.is(v.object.toString(), object.toString());
    assert.equal({ ...v, object: null }, { accepted: true, rv: 5, op: 'CREATE', object: null, previousRv: null });
  }
  p.close();
});

test('Kafka mode: a thread reads the topic through its leader, every event across chunks, in order', async () => {
  const events = (from: number, to: number): PositionedEvent[] =>
    Array.from({ length: to - from }, (_, i) => ({ offset: from + i, event: { id: `e${from + i}`, op: 'CREATE', object: Buffer.from(`{"i":${from + i}}`) } as never }));
  const p = pair(async function* (from, to) {
    yield* events(from, to);
  });
  const got: PositionedEvent[] = [];
  for await (const e of p.tail.read(3, 603)) got.push(e); // 600 events: 256 + 256 + 88
  assert.is(got.length, 600);
  assert.equal(got.map((e) => e.offset), events(3, 603).map((e) => e.offset));
  assert.ok(Buffer.isBuffer(got[599]!.event.object));
  assert.is(got[599]!.event.object!.toString(), '{"i":602}');
  p.close();
});

test('Kafka mode: a read given up early closes the leader\'s read; a failed one fails the thread\'s', async () => {
  let closed = false;
  const p = pair(async function* (from) {
    try {
      for (let i = from; ; i++) yield { offset: i, event: { id: `e${i}`, op: 'CREATE', object: null } as never };
    } finally {
      closed = true;
    }
  });
  let n = 0;
  for await (const _ of p.tail.read(0, 10_000)) if (++n === 300) break;
  await tick();
  assert.ok(closed, 'the leader returned its iterator');
  p.close();

  const q = pair(async function* () {
    yield { offset: 0, event: { id: 'e0', op: 'CREATE', object: null } as never };
    throw Object.assign(new Error('offset out of range'), { code: 'x' });
  });
  const seen: number[] = [];
  let err: Error | null = null;
  try {
    for await (const e of q.tail.read(0, 5)) seen.push(e.offset);
  } catch (e) {
    err = e as Error;
  }
  assert.match(err?.message ?? '', /offset out of range/);
  q.close();
});

test.run();
