/**
 * Helpers for the watch hub's unit tests (hub.test.ts, resume.test.ts): ConfigMap intents, sinks
 * that record what they get, a HubStorage wrapper with a hook before each history read, and a
 * small history written through a real embedded Storage and reopened (a restart). Test-only;
 * nothing outside *.test.ts imports this.
 */
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage, type WriteIntent } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { ObjectKey } from '../storage/keys.ts';
import { WatchHub, type EndReason, type HubStorage, type WatchFilter } from './hub.ts';

export const cm = (name: string, namespace = 'default'): ObjectKey => ({ group: '', resource: 'configmaps', namespace, name });
export const ALL_CMS: WatchFilter = { group: '', resource: 'configmaps', namespace: '', name: '' };

export function intent(op: WriteIntent['op'], k: ObjectKey, data: Record<string, string> = {}, extra: Partial<WriteIntent> = {}): WriteIntent {
  const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: k.name, namespace: k.namespace }, data };
  return {
    op, group: k.group, resource: k.resource, namespace: k.namespace, name: k.name, expectRv: null, expectUid: null,
    requireActiveNamespace: false, uid: `uid-${k.name}`, deleting: false, object: Buffer.from(JSON.stringify(obj)), time: Date.now(),
    verb: op.toLowerCase(), user: 'test', groups: [], fieldManager: null, userAgent: null, requestId: null, ...extra,
  };
}

const dirs: string[] = [];
export function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'hub-test-'));
  dirs.push(d);
  return d;
}
/** Remove the directories `tmp` made (a suite's test.after). */
export function cleanup(): void {
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
}

/** A sink that records what it gets; `slowAfter` makes it report "full" after that many changes. */
export function recorder(slowAfter = Infinity) {
  const r = {
    changes: [] as Change[],
    ended: null as EndReason | null,
    sink: {
      deliver(c: Change): boolean {
        r.changes.push(c);
        return r.changes.length < slowAfter;
      },
      end(reason: EndReason): void {
        assert.is(r.ended, null, 'end is called at most once');
        r.ended = reason;
      },
    },
  };
  return r;
}

export async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const data = (b: Buffer | undefined): unknown => (b ? JSON.parse(b.toString()).data : undefined);
export const rvOf = (b: Buffer | undefined): string | undefined => (b ? JSON.parse(b.toString()).metadata.resourceVersion : undefined);
/** Comparable form of a change: everything a watcher can observe. */
export const view = (c: Change) => ({ offset: c.offset, type: c.type, key: c.key, object: c.object.toString(), prev: c.prev?.toString(), time: c.time });

export interface Wrapped {
  /** Runs once, before the next history read. */
  beforeHistory: null | (() => Promise<void> | void);
  /** Overrides the storage's compaction point when set. */
  compacted: number | null;
  storage: HubStorage;
}

/** Storage as the hub sees it, with a hook run before a history read and a settable compaction point. */
export function wrap(s: Storage): Wrapped {
  const w: Wrapped = {
    beforeHistory: null as null | (() => Promise<void> | void),
    compacted: null as number | null,
    storage: {
      get folded() { return s.folded; },
      get compactedBelow(): number { return w.compacted ?? s.compactedBelow; },
      log: s.log,
      onChange: (l) => s.onChange(l),
      async historyAt(key, rv) {
        const hook = w.beforeHistory;
        w.beforeHistory = null;
        await hook?.();
        return s.historyAt(key, rv);
      },
      eventObject: (key, offset, object) => s.eventObject(key, offset, object),
    } satisfies HubStorage,
  };
  return w;
}


/** Writes a small history, restarts the storage and returns what a live watcher saw before. */
export async function historyThenRestart(dir: string) {
  let s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  let hub = new WatchHub(s);
  const live = recorder();
  hub.watch(ALL_CMS, s.folded, live.sink);
  const a = await s.write(intent('CREATE', cm('a'), { v: '1' }));
  const b = await s.write(intent('CREATE', cm('b'), { v: '1' }));
  await s.write(intent('UPDATE', cm('a'), { v: '2' }, { expectRv: a.rv }));
  const stale = await s.write(intent('UPDATE', cm('b'), { v: 'stale' }, { expectRv: a.rv })); // rejected: Conflict
  assert.not.ok(stale.accepted);
  await s.write(intent('CREATE', cm('other', 'ns2'), { v: '1' }));
  await s.write(intent('CREATE', { group: '', resource: 'secrets', namespace: 'default', name: 'a' }, { v: '1' }));
  await s.write(intent('DELETE', cm('b'), { v: '1' }, { expectRv: b.rv }));
  await s.write(intent('UPDATE', cm('a'), { v: '3' }));
  hub.close();
  await s.close();
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  return { s, from: a.rv, before: live.changes };
}
