/**
 * Snapshot key layout (one LevelDB keyspace, utf8 keys):
 *   o/<group>/<resource>/<ns>/<name>/           → current object JSON (trailing '/': same order as h/)
 *   h/<group>/<resource>/<ns>/<name>/<rv hex16> → object JSON as of rv ('' = deleted at rv)
 *   l/<offset hex16>                            → Avro event (embedded log only)
 *   m/folded                                    → last folded offset (hex16), same batch as the state
 *   m/compacted                                 → history below this offset is gone (410 below it)
 * Group '' (core) is written `core`; cluster-scoped objects have an empty <ns>. Names and namespaces
 * never contain '/', so prefixes are unambiguous, and '/' (0x2f) sorts before every name character,
 * so a namespace prefix never matches a longer namespace.
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

/** Keys of an object by its objectPath (the fold and the tools work on paths). */
export const currentKeyOf = (path: string): string => `o/${path}/`;
export const historyKeyOf = (path: string, rv: number): string => `h/${path}/${hex16(rv)}`;
export const indexKey = (path: string): string => `i/${path}`;
/** Time marker `t/<offset>` → event time in ms (see mvcc/compactor.ts). */
export const markerKey = (offset: number): string => `t/${hex16(offset)}`;

export const currentKey = (k: ObjectKey): string => currentKeyOf(objectPath(k));
export const historyPrefix = (k: ObjectKey): string => `h/${objectPath(k)}/`;
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

/** Parse `o/<group>/<resource>/<ns>/<name>/`, `h/…/<rv>` or an objectPath back into parts. */
export function parseObjectPath(path: string): ObjectKey {
  const p = path.startsWith('o/') || path.startsWith('h/') ? path.slice(2) : path;
  const [group, resource, namespace, name] = p.split('/');
  return { group: group === 'core' ? '' : group, resource, namespace, name };
}

export const META_FOLDED = 'm/folded';
export const META_COMPACTED = 'm/compacted';
