/**
 * Canonical object bytes for the log. `kind`, `apiVersion`, `metadata` come first and
 * metadata.resourceVersion is left out: the fold stamps it (see storage/mvcc/fold.ts).
 */
import type { KubeObject } from '../../api/types.ts';

export function serializeForLog(obj: KubeObject): Buffer {
  const { kind, apiVersion, metadata, ...rest } = obj;
  const { resourceVersion: _rv, ...meta } = metadata ?? {};
  return Buffer.from(JSON.stringify({ kind, apiVersion, metadata: meta, ...rest }));
}

/** The object as a client sees it before storage: metadata.resourceVersion set to `rv`. */
export function withResourceVersion(obj: KubeObject, rv: string | undefined): KubeObject {
  const { kind, apiVersion, metadata, ...rest } = obj;
  const meta = { ...metadata };
  if (rv !== undefined) meta.resourceVersion = rv;
  return { kind, apiVersion, metadata: meta, ...rest };
}

export const parseObject = (b: Buffer): KubeObject => JSON.parse(b.toString('utf8')) as KubeObject;

/** Kubernetes timestamps: RFC 3339, second precision, UTC. */
export const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export const deepCopy = <T>(v: T): T => structuredClone(v);
