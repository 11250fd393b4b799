/**
 * Snapshot key layout (one LevelDB keyspace, utf8 keys), format 3 (format.ts):
 *   o/<group>/<resource>/<ns>/<name>                → current object JSON
 *   h/<group>/<resource>/<ns>/<name>\0<rv hex16>     → object JSON as of rv ('' = deleted at rv)
 *   i/<group>/<resource>/<ns>/<name>                → key index entry (mvcc/key-index.ts)
 *   t/<offset hex16>                                → event time (mvcc/compactor.ts)
 *   l/<offset hex16>                                → Avro event (embedded log only; its own store, <data-dir>/log)
 *   m/folded                                        → last folded offset (hex16), same batch as the state
 *   m/compacted                                     → history below this offset is gone (410 below it)
 *   m/format                                        → key format version (format.ts; absent = format 1)
 * Group '' (core) is written `core`; cluster-scoped objects have an empty <ns>. Names and namespaces
 * never contain '/', so prefixes are unambiguous: a namespace prefix `…/<ns>/` never matches a
 * longer namespace.
 *
 * Order. kube-apiserver lists in etcd key order of `/registry/<resource>/<ns>/<name>`: plain byte
 * order of `<ns>/<name>`. o/ keys end with the name, so they sort the same way (`app` < `app-x` <
 * `app.y` < `app0`; namespace `x-b` before `x`, by the '/' after the namespace). h/ keys must keep
 * the same object order, because exact-version lists walk h/ and continue tokens move between o/
 * and h/ reads: the separator before the version is NUL, the lowest character (a NUL inside a
 * name is escaped, see NUL_ESCAPED), so all versions of `app` come before `app-x`'s (format 1 ended the name with '/',
 * which '-' and '.' sort below: that put `app-x` before `app`).
 * Offsets are fixed-width hex so byte order equals numeric order.
 */

export interface ObjectKey {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

export const hex16 = (n: number): string => n.toString(16).padStart(16, '0');
export const fromHex16 = (s: string): number => parseInt(s, 16);

const g = (group: string): string => group || 'core';

/** `<group>/<resource>/<ns>/<name>` — the identity of an object in storage. */
export const objectPath = (k: ObjectKey): string => `${g(k.group)}/${k.resource}/${k.namespace}/${k.name}`;

/** The objectPath of namespace `ns` (the fold looks it up for requireActiveNamespace). */
export const namespacePath = (ns: string): string => objectPath({ group: '', resource: 'namespaces', namespace: '', name: ns });

/** Separator between an object's path and the version in h/ keys (below every other character). */
export const HISTORY_SEP = '\u0000';
/** Length of the `<sep><rv hex16>` tail of an h/ key. */
export const HISTORY_TAIL = 17;
/**
 * NUL inside a path (kube accepts it in names validated as path segments, e.g. RBAC roles) is
 * written NUL DEL in h/ keys: DEL sorts after every hex digit and 'g', so an object whose name
 * extends another's with NUL still sorts after all of the shorter one's versions, as in o/ keys.
 */
const NUL_ESCAPED = '\u0000\u007f';
const escapeNul = (path: string): string => (path.includes(HISTORY_SEP) ? path.replaceAll(HISTORY_SEP, NUL_ESCAPED) : path);
const unescapeNul = (p: string): string => (p.includes(HISTORY_SEP) ? p.replaceAll(NUL_ESCAPED, HISTORY_SEP) : p);

/** Keys of an object by its objectPath (the fold and the tools work on paths). */
export const currentKeyOf = (path: string): string => `o/${path}`;
export const historyKeyOf = (path: string, rv: number): string => `h/${escapeNul(path)}${HISTORY_SEP}${hex16(rv)}`;
/** The objectPath of an h/ key. */
export const pathOfHistoryKey = (key: string): string => unescapeNul(key.slice(2, -HISTORY_TAIL));
/** The rv of an h/ key. */
export const rvOfHistoryKey = (key: string): number => fromHex16(key.slice(-16));
/** The objectPath of an o/ key. */
export const pathOfCurrentKey = (key: string): string => key.slice(2);
/** Every h/ key of the object at `path` starts with this (and no other object's does). */
export const historyPrefixOf = (path: string): string => `h/${escapeNul(path)}${HISTORY_SEP}`;
/**
 * A key after every h/ key of `path` and before the h/ keys of any object after it (a seek target
 * that skips an object's remaining versions): 'g' sorts after every hex digit.
 */
export const historyEndOf = (path: string): string => `${historyPrefixOf(path)}g`;
export const indexKey = (path: string): string => `i/${path}`;
/** Time marker `t/<offset>` → event time in ms (see mvcc/compactor.ts). */
export const markerKey = (offset: number): string => `t/${hex16(offset)}`;

export const currentKey = (k: ObjectKey): string => currentKeyOf(objectPath(k));
/** Every h/ key of one object starts with this. */
export const historyPrefix = (k: ObjectKey): string => historyPrefixOf(objectPath(k));
export const historyKey = (k: ObjectKey, rv: number): string => historyKeyOf(objectPath(k), rv);
export const logKey = (offset: number): string => `l/${hex16(offset)}`;

/** Prefix of o/ keys for a resource, optionally one namespace. */
export function currentPrefix(group: string, resource: string, namespace?: string): string {
  return namespace === undefined ? `o/${g(group)}/${resource}/` : `o/${g(group)}/${resource}/${namespace}/`;
}

/** Prefix of h/ keys for a resource, optionally one namespace. */
export function historyScanPrefix(group: string, resource: string, namespace?: string): string {
  return 'h' + currentPrefix(group, resource, namespace).slice(1);
}

/** Parse `o/<group>/<resource>/<ns>/<name>`, `h/…\0<rv>` or an objectPath back into parts. */
export function parseObjectPath(path: string): ObjectKey {
  const p = path.startsWith('o/') ? path.slice(2) : path.startsWith('h/') ? pathOfHistoryKey(path) : path;
  const [group, resource, namespace, name] = p.split('/');
  return { group: group === 'core' ? '' : group, resource, namespace, name };
}

export const META_FOLDED = 'm/folded';
export const META_COMPACTED = 'm/compacted';
export const META_FORMAT = 'm/format';
