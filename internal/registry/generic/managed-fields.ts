/**
 * managedFields for non-apply writes (operation Update). Every write records which fields its
 * manager set, as a FieldsV1 tree (`f:<field>` keys, `{}` leaves; `v:<json>` for set items,
 * `.` for "the node itself"). Full server-side apply ownership (conflicts, removal) builds on this
 * in the apply package; here a manager owns exactly the fields present in what it wrote.
 */
import type { KubeObject, ManagedFieldsEntry } from '../../api/types.ts';
import { rfc3339, jsonEqual } from './serialize.ts';

/** Metadata fields the server owns; never attributed to a manager. */
const SERVER_META = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'generateName', 'selfLink']);
const TOP_SKIP = new Set(['kind', 'apiVersion', 'status']);

/** Lists of scalars with set semantics. */
const SET_LISTS = new Set(['metadata.finalizers', 'spec.finalizers']);

export function fieldsOf(value: unknown, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    if (SET_LISTS.has(path)) for (const v of value) out[`v:${JSON.stringify(v)}`] = {};
    return out;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined) continue;
    if (path === '' && TOP_SKIP.has(k)) continue;
    if (path === 'metadata' && SERVER_META.has(k)) continue;
    const child = path ? `${path}.${k}` : k;
    const sub = fieldsOf(v, child);
    out[`f:${k}`] = Object.keys(sub).length ? (v !== null && typeof v === 'object' && !Array.isArray(v) ? sub : { '.': {}, ...sub }) : {};
  }
  return out;
}

/**
 * Record an Update by `manager` on `obj` (mutates obj.metadata.managedFields). On update, the
 * manager's entry is replaced by the fields that differ from `old` plus those it already owned.
 */
export function recordUpdate(obj: KubeObject, old: KubeObject | null, manager: string, apiVersion: string, now: Date, subresource?: string): void {
  const prior = (old?.metadata.managedFields ?? []).filter((e) => e && typeof e === 'object');
  const incoming = obj.metadata.managedFields;
  // A client resetting managedFields to [{}] strips them (seed: server-side apply rule 8).
  const reset = Array.isArray(incoming) && incoming.length === 1 && Object.keys(incoming[0] ?? {}).length === 0;
  let entries: ManagedFieldsEntry[] = reset ? [] : old ? prior : Array.isArray(incoming) ? incoming : [];
  if (reset) {
    obj.metadata.managedFields = undefined;
    delete obj.metadata.managedFields;
    return;
  }
  const scope = (o: KubeObject): Record<string, unknown> =>
    subresource === 'status' ? (o.status === undefined ? {} : { 'f:status': fieldsOf(o.status, 'status') }) : fieldsOf(o, '');
  const fields = scope(obj);
  const changed = old ? diffFields(fields, scope(old)) : fields;
  const mine = entries.find((e) => e.manager === manager && e.operation === 'Update' && (e.subresource ?? '') === (subresource ?? ''));
  const merged = mine?.fieldsV1 ? mergeFields(mine.fieldsV1, changed) : changed;
  entries = entries.filter((e) => e !== mine);
  if (Object.keys(merged).length) {
    const entry: ManagedFieldsEntry = { manager, operation: 'Update', apiVersion, time: rfc3339(now), fieldsType: 'FieldsV1', fieldsV1: merged };
    if (subresource) entry.subresource = subresource;
    entries.push(entry);
  } else if (mine) {
    entries.push(mine);
  }
  if (entries.length) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}

function diffFields(now: Record<string, unknown>, before: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(now)) {
    if (!(k in before)) out[k] = v;
    else if (!jsonEqual(v, before[k]) && v && typeof v === 'object') {
      const d = diffFields(v as Record<string, unknown>, before[k] as Record<string, unknown>);
      if (Object.keys(d).length) out[k] = d;
    }
  }
  return out;
}

function mergeFields(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    out[k] = k in out && out[k] && typeof out[k] === 'object' ? mergeFields(out[k] as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}

/** Default field manager from a User-Agent, as kube-apiserver derives it (text before the first '/'). */
export function defaultManager(userAgent: string | undefined): string {
  if (!userAgent) return 'unknown';
  const first = userAgent.split('/')[0];
  return first.length > 128 ? first.slice(0, 128) : first || 'unknown';
}
