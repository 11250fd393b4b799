/**
 * Canonical object bytes for the log. Objects are written the way kube-apiserver's Go encoder
 * writes them (the kind's canonicalizer: internal/decode, Go field order, omitempty), with
 * metadata.resourceVersion as an empty placeholder at its Go position (after uid): the fold
 * fills it in without re-parsing (see storage/mvcc/fold.ts), so stored bytes are already in
 * kube's order and reads serve them as they are.
 */
import type { KubeObject } from '../../api/types.ts';
import { goJson } from '../../gocompat/json.ts';

/** ObjectMeta fields that Go writes after resourceVersion (the placeholder goes before them). */
const AFTER_RESOURCE_VERSION = new Set(['generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'clusterName', 'managedFields']);

/** metadata with resourceVersion `rv` at its ObjectMeta position (other keys keep their order). */
function metaWithRv(metadata: KubeObject['metadata'] | undefined, rv: string | undefined): KubeObject['metadata'] {
  const out: Record<string, unknown> = {};
  let placed = rv === undefined;
  // for…in, not Object.entries: no [key, value] array per field on every write.
  const meta = (metadata ?? {}) as Record<string, unknown>;
  for (const k in meta) {
    if (k === 'resourceVersion' || !Object.hasOwn(meta, k)) continue;
    if (!placed && AFTER_RESOURCE_VERSION.has(k)) {
      out.resourceVersion = rv;
      placed = true;
    }
    out[k] = meta[k];
  }
  if (!placed) out.resourceVersion = rv;
  return out as KubeObject['metadata'];
}

/** Log bytes of an object (already canonical, or `canonical` makes it so); rv left for the fold. */
export function serializeForLog(obj: KubeObject, canonical?: (o: KubeObject) => KubeObject): Buffer {
  const c = canonical ? canonical(obj) : obj;
  const { kind, apiVersion, metadata, ...rest } = c;
  return Buffer.from(goJson({ kind, apiVersion, metadata: metaWithRv(metadata, ''), ...rest }));
}

/** The object as a client sees it before storage: metadata.resourceVersion set to `rv`. */
export function withResourceVersion(obj: KubeObject, rv: string | undefined): KubeObject {
  const { kind, apiVersion, metadata, ...rest } = obj;
  return { kind, apiVersion, metadata: metaWithRv(metadata, rv), ...rest };
}

export const parseObject = (b: Buffer): KubeObject => JSON.parse(b.toString('utf8')) as KubeObject;

/** Kubernetes timestamps: RFC 3339, second precision, UTC. */
export const rfc3339: (d: Date) => string = lastSecondMemo((d) => {
  const iso = d.toISOString();
  // The usual shape (years 0–9999, `2026-11-26T09:00:00.000Z`) without a regular expression.
  return iso.length === 24 ? iso.slice(0, 19) + 'Z' : iso.replace(/\.\d{3}Z$/, 'Z');
});

/**
 * `format` remembered for the last second asked: a create stamps creationTimestamp and its
 * managedFields entry, and a write load asks for the same second thousands of times; Date's
 * toISOString was ~1 % of a create's CPU.
 */
function lastSecondMemo(format: (d: Date) => string): (d: Date) => string {
  let second = NaN;
  let text = '';
  return (d) => {
    const s = Math.floor(d.getTime() / 1000);
    if (s !== second) {
      text = format(d);
      second = s;
    }
    return text;
  };
}

export { deepCopy } from '../../gocompat/json.ts';
