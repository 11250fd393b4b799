/**
 * Secret (core/v1), after pkg/registry/core/secret/strategy.go and ValidateSecret /
 * ValidateSecretUpdate in pkg/apis/core/validation (Kubernetes 1.24).
 *
 * In Kubernetes `stringData` never reaches validation: converting v1 → internal merges it into
 * `data`. Here validation works on that same merged view (`effectiveSecretData`), so errors name
 * `data[key]` even for keys that came from stringData, and `canonicalize` performs the merge for
 * storage.
 */
import { goSyntaxError } from '../../decode/json-parse.ts';
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, forbidden, invalid, required, tooLong } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { isConfigMapKey } from '../../validation/names.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import {
  AGE_COLUMN,
  IMMUTABLE_WHEN_SET,
  MAX_DATA_SIZE,
  NAME_COLUMN,
  byteMapsEqual,
  creationTimestampCell,
  decodeBase64Std,
  isPlainObject,
  mapEntries,
} from './configmap.ts';

export const SECRET_TYPE_OPAQUE = 'Opaque';
export const SECRET_TYPE_SERVICE_ACCOUNT_TOKEN = 'kubernetes.io/service-account-token';
export const SECRET_TYPE_DOCKERCFG = 'kubernetes.io/dockercfg';
export const SECRET_TYPE_DOCKER_CONFIG_JSON = 'kubernetes.io/dockerconfigjson';
export const SECRET_TYPE_BASIC_AUTH = 'kubernetes.io/basic-auth';
export const SECRET_TYPE_SSH_AUTH = 'kubernetes.io/ssh-auth';
export const SECRET_TYPE_TLS = 'kubernetes.io/tls';
export const SECRET_TYPE_BOOTSTRAP_TOKEN = 'bootstrap.kubernetes.io/token';

export const SERVICE_ACCOUNT_NAME_KEY = 'kubernetes.io/service-account.name';
export const DOCKER_CONFIG_KEY = '.dockercfg';
export const DOCKER_CONFIG_JSON_KEY = '.dockerconfigjson';
export const BASIC_AUTH_USERNAME_KEY = 'username';
export const BASIC_AUTH_PASSWORD_KEY = 'password';
export const SSH_AUTH_PRIVATE_KEY = 'ssh-privatekey';
export const TLS_CERT_KEY = 'tls.crt';
export const TLS_PRIVATE_KEY_KEY = 'tls.key';

const REDACTED = '<secret contents redacted>';

/** One data entry after decoding: bytes, or the reason it could not be decoded. */
type Entry = { bytes: Buffer } | { error: string; raw: unknown };

/**
 * The data Kubernetes validates: `data` base64-decoded, then every `stringData` entry (UTF-8
 * bytes) written over it. Keys keep first-seen order.
 */
export function effectiveSecretData(obj: KubeObject): Map<string, Entry> {
  const m = new Map<string, Entry>();
  for (const [k, v] of mapEntries(obj.data)) {
    if (v === null || v === undefined) m.set(k, { bytes: Buffer.alloc(0) });
    else if (typeof v !== 'string') m.set(k, { error: 'must be a base64-encoded string', raw: v });
    else {
      const r = decodeBase64Std(v);
      m.set(k, r.ok ? { bytes: r.bytes } : { error: r.error, raw: REDACTED });
    }
  }
  for (const [k, v] of mapEntries(obj.stringData)) {
    if (v === null || v === undefined) m.set(k, { bytes: Buffer.alloc(0) });
    else if (typeof v !== 'string') m.set(k, { error: 'must be a string', raw: v });
    else m.set(k, { bytes: Buffer.from(v, 'utf8') });
  }
  return m;
}

const secretType = (obj: KubeObject): string => (typeof obj.type === 'string' ? obj.type : '');

/** Go's json.Unmarshal into map[string]interface{}: returns the error text, or '' when accepted. */
function goJSONObjectError(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return goSyntaxError(text) || 'unexpected end of JSON input';
  }
  if (parsed === null || isPlainObject(parsed)) return '';
  const kind = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

/** ValidateSecret minus ObjectMeta (the store validates metadata). */
export function validateSecret(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const dataPath = new FieldPath('data');
  if (obj.data !== undefined && obj.data !== null && !isPlainObject(obj.data)) {
    errs.push(invalid(dataPath, REDACTED, 'must be a map of string keys to base64-encoded values'));
  }
  if (obj.stringData !== undefined && obj.stringData !== null && !isPlainObject(obj.stringData)) {
    errs.push(invalid(new FieldPath('stringData'), REDACTED, 'must be a map of string keys to string values'));
  }
  if (obj.type !== undefined && obj.type !== null && typeof obj.type !== 'string') {
    errs.push(invalid(new FieldPath('type'), obj.type, 'must be a string'));
  }
  if (obj.immutable !== undefined && obj.immutable !== null && typeof obj.immutable !== 'boolean') {
    errs.push(invalid(new FieldPath('immutable'), obj.immutable, 'must be a boolean'));
  }

  const data = effectiveSecretData(obj);
  let total = 0;
  for (const [k, e] of data) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(dataPath.key(k), k, msg));
    if ('bytes' in e) total += e.bytes.length;
    else errs.push(invalid(dataPath.key(k), e.raw, e.error));
  }
  if (total > MAX_DATA_SIZE) errs.push(tooLong(dataPath, '', MAX_DATA_SIZE));

  const bytesOf = (k: string): Buffer | undefined => {
    const e = data.get(k);
    return e && 'bytes' in e ? e.bytes : undefined;
  };

  switch (secretType(obj)) {
    case SECRET_TYPE_SERVICE_ACCOUNT_TOKEN: {
      // Only the annotation is required; uid and token are filled in later by a controller.
      const ann = obj.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY];
      if (typeof ann !== 'string' || ann.length === 0) {
        errs.push(required(new FieldPath('metadata').child('annotations').key(SERVICE_ACCOUNT_NAME_KEY)));
      }
      break;
    }
    case SECRET_TYPE_DOCKERCFG:
    case SECRET_TYPE_DOCKER_CONFIG_JSON: {
      const key = secretType(obj) === SECRET_TYPE_DOCKERCFG ? DOCKER_CONFIG_KEY : DOCKER_CONFIG_JSON_KEY;
      if (!data.has(key)) {
        errs.push(required(dataPath.key(key)));
        break;
      }
      const b = bytesOf(key);
      if (b === undefined) break; // already reported as undecodable
      const msg = goJSONObjectError(b);
      if (msg) errs.push(invalid(dataPath.key(key), REDACTED, msg));
      break;
    }
    case SECRET_TYPE_BASIC_AUTH:
      // Either may be empty, but at least one of the keys must be present.
      if (!data.has(BASIC_AUTH_USERNAME_KEY) && !data.has(BASIC_AUTH_PASSWORD_KEY)) {
        errs.push(required(dataPath.key(BASIC_AUTH_USERNAME_KEY)));
        errs.push(required(dataPath.key(BASIC_AUTH_PASSWORD_KEY)));
      }
      break;
    case SECRET_TYPE_SSH_AUTH: {
      const b = bytesOf(SSH_AUTH_PRIVATE_KEY);
      if (!data.has(SSH_AUTH_PRIVATE_KEY) || (b !== undefined && b.length === 0)) {
        errs.push(required(dataPath.key(SSH_AUTH_PRIVATE_KEY)));
      }
      break;
    }
    case SECRET_TYPE_TLS:
      if (!data.has(TLS_CERT_KEY)) errs.push(required(dataPath.key(TLS_CERT_KEY)));
      if (!data.has(TLS_PRIVATE_KEY_KEY)) errs.push(required(dataPath.key(TLS_PRIVATE_KEY_KEY)));
      break;
    default:
      // Opaque, bootstrap.kubernetes.io/token and custom types: nothing beyond the generic rules.
      break;
  }
  return errs;
}

const bytesView = (obj: KubeObject): Map<string, Buffer | string> => {
  const m = new Map<string, Buffer | string>();
  for (const [k, e] of effectiveSecretData(obj)) m.set(k, 'bytes' in e ? e.bytes : JSON.stringify(e.raw));
  return m;
};

/** ValidateSecretUpdate minus ObjectMeta: type immutable, immutable data, then ValidateSecret. */
export function validateSecretUpdate(newObj: KubeObject, oldObj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (secretType(newObj) !== secretType(oldObj)) errs.push(invalid(new FieldPath('type'), secretType(newObj), FIELD_IMMUTABLE));
  if (oldObj.immutable === true) {
    if (newObj.immutable !== true) errs.push(forbidden(new FieldPath('immutable'), IMMUTABLE_WHEN_SET));
    if (!byteMapsEqual(bytesView(newObj), bytesView(oldObj))) errs.push(forbidden(new FieldPath('data'), IMMUTABLE_WHEN_SET));
  }
  errs.push(...validateSecret(newObj));
  return errs;
}

/** Fold stringData into data (base64 of the UTF-8 bytes, overriding data keys) and drop it. */
function canonicalizeSecret(obj: KubeObject): void {
  const data = effectiveSecretData(obj);
  if (data.size > 0 || isPlainObject(obj.data)) {
    const out: Record<string, string> = {};
    for (const [k, e] of data) {
      // Undecodable entries never get here (validation rejects them); keep them verbatim if so.
      out[k] = 'bytes' in e ? e.bytes.toString('base64') : String(e.raw);
    }
    obj.data = out;
  }
  delete obj.stringData;
}

export const secretStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults(obj) {
    if (obj.type === undefined || obj.type === null || obj.type === '') obj.type = SECRET_TYPE_OPAQUE;
  },
  prepareForUpdate(newObj, oldObj) {
    // Kept from Kubernetes; after defaulting `type` is never empty, so it rarely applies.
    if (!newObj.type && oldObj.type) newObj.type = oldObj.type;
  },
  validate: validateSecret,
  validateUpdate: validateSecretUpdate,
  canonicalize: canonicalizeSecret,
};

export const secretTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    {
      name: 'Type',
      type: 'string',
      description:
        'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
      priority: 0,
    },
    {
      // printers.go declares Data a string column although its cells are integers.
      name: 'Data',
      type: 'string',
      description:
        "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
      priority: 0,
    },
    AGE_COLUMN,
  ],
  cells: (obj) => [obj.metadata.name ?? '', secretType(obj), effectiveSecretData(obj).size, creationTimestampCell(obj)],
};

export const secretKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'secrets',
  singular: 'secret',
  kind: 'Secret',
  listKind: 'SecretList',
  namespaced: true,
  shortNames: [],
  strategy: secretStrategy,
  table: secretTable,
  fieldSelectors: { type: (obj) => secretType(obj) },
  deleteReturns: 'Status',
};
