/**
 * ConfigMap (core/v1), after pkg/registry/core/configmap/strategy.go and ValidateConfigMap /
 * ValidateConfigMapUpdate in pkg/apis/core/validation (Kubernetes 1.24).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, forbidden, invalid, tooLong } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { isConfigMapKey } from '../../validation/names.ts';

/** Total size of a ConfigMap's data + binaryData values, and of a Secret's data: 1 MiB. */
export const MAX_DATA_SIZE = 1024 * 1024;
export const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

// ---------------------------------------------------------------------------------------------
// base64 as Go's encoding/json decodes []byte (base64.StdEncoding: padded, '\r' and '\n' skipped)

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_MAP: Int16Array = (() => {
  const m = new Int16Array(256).fill(-1);
  for (let i = 0; i < B64.length; i++) m[B64.charCodeAt(i)] = i;
  return m;
})();

export type Base64Result = { ok: true; bytes: Buffer } | { ok: false; error: string };

/**
 * Decode standard padded base64 exactly as Go's base64.StdEncoding.Decode accepts it. On failure
 * the error reads like Go's: "illegal base64 data at input byte N".
 */
export function decodeBase64Std(s: string): Base64Result {
  const src = Buffer.from(s, 'utf8');
  const corrupt = (at: number): Base64Result => ({ ok: false, error: `illegal base64 data at input byte ${at}` });
  const isNL = (c: number | undefined): boolean => c === 0x0a || c === 0x0d;
  const out: number[] = [];
  let si = 0;
  for (;;) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let j = 0;
    let done = false;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return { ok: true, bytes: Buffer.from(out) };
        return corrupt(si - j);
      }
      const c = src[si]!;
      si++;
      const v = B64_MAP[c]!;
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (isNL(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d /* '=' */) return corrupt(si - 1);
      // padding: only valid in the last two positions of a quantum
      if (j === 0 || j === 1) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNL(src[si])) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== 0x3d) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNL(src[si])) si++;
      if (si < src.length) return corrupt(si);
      dlen = j;
      done = true;
      break;
    }
    const val = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    const b = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    if (dlen === 4) out.push(b[0]!, b[1]!, b[2]!);
    else if (dlen === 3) out.push(b[0]!, b[1]!);
    else if (dlen === 2) out.push(b[0]!);
    if (done) return { ok: true, bytes: Buffer.from(out) };
    // skip newlines between quanta so a trailing newline ends cleanly
    while (si < src.length && isNL(src[si])) si++;
  }
}

// ---------------------------------------------------------------------------------------------
// shared helpers for map-of-string fields

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Entries of a string map field; null/absent → none. */
export const mapEntries = (v: unknown): [string, unknown][] => (isPlainObject(v) ? Object.entries(v) : []);

/** Table columns shared by the core kinds (re-exported: kinds import them from here). */
export { NAME_COLUMN, AGE_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';

// ---------------------------------------------------------------------------------------------
// validation

interface DecodedBinary {
  errors: FieldError[];
  /** key → decoded bytes, for keys that decoded. */
  bytes: Map<string, Buffer>;
}

function decodeBinaryData(obj: KubeObject): DecodedBinary {
  const errors: FieldError[] = [];
  const bytes = new Map<string, Buffer>();
  const p = new FieldPath('binaryData');
  for (const [k, v] of mapEntries(obj.binaryData)) {
    if (v === null || v === undefined) {
      bytes.set(k, Buffer.alloc(0));
      continue;
    }
    if (typeof v !== 'string') {
      errors.push(invalid(p.key(k), v, 'must be a base64-encoded string'));
      continue;
    }
    const r = decodeBase64Std(v);
    if (r.ok) bytes.set(k, r.bytes);
    else errors.push(invalid(p.key(k), v, r.error));
  }
  return { errors, bytes };
}

/** ValidateConfigMap minus ObjectMeta (the store validates metadata). */
export function validateConfigMap(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const dataPath = new FieldPath('data');
  const binPath = new FieldPath('binaryData');
  if (obj.data !== undefined && obj.data !== null && !isPlainObject(obj.data)) {
    errs.push(invalid(dataPath, obj.data, 'must be a map of string keys to string values'));
  }
  if (obj.binaryData !== undefined && obj.binaryData !== null && !isPlainObject(obj.binaryData)) {
    errs.push(invalid(binPath, obj.binaryData, 'must be a map of string keys to base64-encoded values'));
  }
  if (obj.immutable !== undefined && obj.immutable !== null && typeof obj.immutable !== 'boolean') {
    errs.push(invalid(new FieldPath('immutable'), obj.immutable, 'must be a boolean'));
  }
  const binKeys = new Set(mapEntries(obj.binaryData).map(([k]) => k));
  const decoded = decodeBinaryData(obj);

  let total = 0;
  for (const [k, v] of mapEntries(obj.data)) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(dataPath.key(k), k, msg));
    if (binKeys.has(k)) errs.push(invalid(dataPath.key(k), k, 'duplicate of key present in binaryData'));
    if (typeof v === 'string') total += Buffer.byteLength(v, 'utf8');
    else if (v !== null && v !== undefined) errs.push(invalid(dataPath.key(k), v, 'must be a string'));
  }
  for (const [k] of mapEntries(obj.binaryData)) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(binPath.key(k), k, msg));
    total += decoded.bytes.get(k)?.length ?? 0;
  }
  errs.push(...decoded.errors);
  if (total > MAX_DATA_SIZE) {
    // Kubernetes reports this against the whole object, with an empty path rendered as "[]".
    errs.push(tooLong(new FieldPath('[]'), '', MAX_DATA_SIZE));
  }
  return errs;
}

/** String maps equal, treating absent/null and {} alike (Kubernetes stores both as omitted). */
function stringMapsEqual(a: unknown, b: unknown): boolean {
  const ea = mapEntries(a);
  const eb = new Map(mapEntries(b));
  if (ea.length !== eb.size) return false;
  return ea.every(([k, v]) => eb.has(k) && (v ?? '') === (eb.get(k) ?? ''));
}

/** Byte maps equal (compared on decoded bytes; undecodable values compare as their raw text). */
export function byteMapsEqual(a: Map<string, Buffer | string>, b: Map<string, Buffer | string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    if (!b.has(k)) return false;
    const w = b.get(k)!;
    if (typeof v === 'string' || typeof w === 'string') {
      if (v !== w) return false;
    } else if (!v.equals(w)) return false;
  }
  return true;
}

function binaryView(obj: KubeObject): Map<string, Buffer | string> {
  const m = new Map<string, Buffer | string>();
  for (const [k, v] of mapEntries(obj.binaryData)) {
    if (v === null || v === undefined) m.set(k, Buffer.alloc(0));
    else if (typeof v === 'string') {
      const r = decodeBase64Std(v);
      m.set(k, r.ok ? r.bytes : v);
    } else m.set(k, JSON.stringify(v));
  }
  return m;
}

/** ValidateConfigMapUpdate minus ObjectMeta. */
export function validateConfigMapUpdate(newObj: KubeObject, oldObj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (oldObj.immutable === true) {
    if (newObj.immutable !== true) errs.push(forbidden(new FieldPath('immutable'), IMMUTABLE_WHEN_SET));
    if (!stringMapsEqual(newObj.data, oldObj.data)) errs.push(forbidden(new FieldPath('data'), IMMUTABLE_WHEN_SET));
    if (!byteMapsEqual(binaryView(newObj), binaryView(oldObj))) {
      errs.push(forbidden(new FieldPath('binaryData'), IMMUTABLE_WHEN_SET));
    }
  }
  errs.push(...validateConfigMap(newObj));
  return errs;
}

/** Re-encode binaryData canonically (Go re-encodes []byte on output) and null data values as "". */
function canonicalizeConfigMap(obj: KubeObject): void {
  if (isPlainObject(obj.data)) {
    for (const [k, v] of Object.entries(obj.data)) if (v === null) obj.data[k] = '';
  }
  if (isPlainObject(obj.binaryData)) {
    for (const [k, v] of Object.entries(obj.binaryData)) {
      if (v === null) obj.binaryData[k] = '';
      else if (typeof v === 'string') {
        const r = decodeBase64Std(v);
        if (r.ok) obj.binaryData[k] = r.bytes.toString('base64');
      }
    }
  }
}

export const configMapStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  validate: validateConfigMap,
  validateUpdate: validateConfigMapUpdate,
  canonicalize: canonicalizeConfigMap,
};

const dataCount = (obj: KubeObject): number => mapEntries(obj.data).length + mapEntries(obj.binaryData).length;

export const configMapTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    {
      // printers.go declares Data a string column although its cells are integers.
      name: 'Data',
      type: 'string',
      description:
        "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
      priority: 0,
    },
    AGE_COLUMN,
  ],
  cells: (obj) => [obj.metadata.name ?? '', dataCount(obj), creationTimestampCell(obj)],
};

export const configMapKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'configmaps',
  singular: 'configmap',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  namespaced: true,
  shortNames: ['cm'],
  strategy: configMapStrategy,
  table: configMapTable,
  deleteReturns: 'Status',
};
