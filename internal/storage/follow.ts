/**
 * An in-memory copy of some resources that stays current with the fold (the RBAC cache, the
 * admission-webhook source): subscribe first, load the current objects from one snapshot, then
 * apply the changes folded after that snapshot — the ones that arrived during the load included,
 * none of them twice. Resolves once the copy is current; returns the unsubscribe function.
 */
import type { Storage } from './storage.ts';
import { currentPrefix, type ObjectKey } from './keys.ts';
import type { Change } from './mvcc/materializer.ts';

export interface Follower {
  /** The resources loaded from the snapshot, in this order. */
  resources: readonly { group: string; resource: string }[];
  /** Whether a change concerns the copy (its resources, usually). */
  wants(key: ObjectKey): boolean;
  /** One current object of the snapshot (its stored JSON, already decrypted). */
  load(resource: { group: string; resource: string }, json: Buffer): void;
  /** A change folded after the snapshot. */
  apply(change: Change): void;
}

export async function followStore(storage: Storage, f: Follower): Promise<() => void> {
  const pending: Change[] = [];
  let loaded = false;
  let loadedAt = -1;
  const unsubscribe = storage.onChange((changes) => {
    for (const c of changes) {
      if (!f.wants(c.key)) continue;
      if (!loaded) pending.push(c);
      else if (c.offset > loadedAt) f.apply(c);
    }
  });
  const view = await storage.view();
  try {
    loadedAt = view.rv;
    for (const r of f.resources) {
      const prefix = currentPrefix(r.group, r.resource);
      for await (const [, value] of view.scan(prefix, prefix.slice(0, -1) + '0')) f.load(r, value);
    }
  } finally {
    await view.close();
  }
  for (const c of pending) if (c.offset > loadedAt) f.apply(c);
  loaded = true;
  return unsubscribe;
}
