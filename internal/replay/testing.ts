/**
 * Helpers for the replay unit tests: intents and events with fixed audit fields, and a small
 * embedded store written through the real Storage (so logs carry real verdicts and layout).
 * Test-only; nothing outside *.test.ts imports this.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WriteIntent } from '../storage/storage.ts';
import type { LogEvent, PositionedEvent } from '../storage/log/event.ts';
import type { ObjectKey } from '../storage/keys.ts';

export const nsKey = (name: string): ObjectKey => ({ group: '', resource: 'namespaces', namespace: '', name });
export const cmKey = (namespace: string, name: string): ObjectKey => ({ group: '', resource: 'configmaps', namespace, name });

export interface IntentExtra extends Partial<WriteIntent> {
  data?: Record<string, string>;
}

/** A write intent for `key` whose object is a minimal ConfigMap/Namespace carrying `data`. */
export function intent(op: WriteIntent['op'], key: ObjectKey, extra: IntentExtra = {}): WriteIntent {
  const { data, ...rest } = extra;
  const uid = rest.uid ?? `uid-${key.namespace}-${key.name}`;
  const kind = key.resource === 'namespaces' ? 'Namespace' : 'ConfigMap';
  const metadata: Record<string, unknown> = { name: key.name, uid };
  if (key.namespace) metadata.namespace = key.namespace;
  const object = { kind, apiVersion: 'v1', metadata, ...(data ? { data } : {}) };
  return {
    op, group: key.group, resource: key.resource, namespace: key.namespace, name: key.name, expectRv: null,
    expectUid: op === 'CREATE' ? null : uid, requireActiveNamespace: op === 'CREATE' && key.resource !== 'namespaces', uid, deleting: false,
    object: Buffer.from(JSON.stringify(object)), time: 1_700_000_000_000, verb: op.toLowerCase(), user: 'tester', groups: ['system:authenticated'],
    fieldManager: 'unit', userAgent: 'unit-test/1', requestId: null, ...rest,
  };
}

/** Positioned events from intents at offsets 1.., after a GENESIS at 0 (ids are `e<offset>`). */
export function positioned(intents: WriteIntent[], genesisTime = 1_700_000_000_000): PositionedEvent[] {
  const genesis: LogEvent = {
    op: 'GENESIS', id: 'genesis', group: '', resource: '', namespace: '', name: '', expectRv: null, expectUid: null,
    requireActiveNamespace: false, uid: '', deleting: false, object: null, time: genesisTime, verb: 'genesis', user: '', groups: [],
    fieldManager: null, userAgent: null, requestId: null,
  };
  return [{ offset: 0, event: genesis }, ...intents.map((i, n) => ({ offset: n + 1, event: { ...i, id: `e${n + 1}` } }))];
}

export async function* iterate<T>(items: T[]): AsyncGenerator<T> {
  for (const x of items) yield x;
}

/** Temp dirs removed by `cleanup()` (call it from test.after). */
export function tempDirs(prefix: string): { make(): string; cleanup(): void } {
  const dirs: string[] = [];
  return {
    make() {
      const d = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    cleanup() {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}
