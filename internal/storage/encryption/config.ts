/**
 * `--encryption-provider-config`: kube-apiserver 1.24's EncryptionConfiguration file
 * (k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go, apis/config/validation), read
 * the same way — YAML or JSON; `apiserver.config.k8s.io/v1` EncryptionConfiguration or the legacy
 * `v1` EncryptionConfig; unknown fields ignored — and validated with the same rules and messages:
 *
 *   resources:
 *   - resources: [secrets, configmaps, deployments.apps]   # <resource>[.<group>]
 *     providers:                                          # the first writes, every one reads
 *     - aescbc: {keys: [{name: key1, secret: <base64 of 16/24/32 bytes>}]}
 *     - aesgcm: {keys: [...]}                              # 16/24/32 bytes
 *     - secretbox: {keys: [...]}                           # 32 bytes
 *     - identity: {}
 *
 * `kms` passes kube's validation but this server has no KMS plugin client: start-up fails saying so.
 * A resource named by several entries gets their providers one after another, as kube does.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { prefixTransformers, identityTransformer, cbcTransformer, gcmTransformer, secretboxTransformer, type PrefixTransformer, type Transformer } from './providers.ts';

const GROUP = 'apiserver.config.k8s.io';
const ROOT = 'resources';
const AES_SIZES = [16, 24, 32];
const SECRETBOX_SIZES = [32];
const PROVIDERS = ['aesgcm', 'aescbc', 'secretbox', 'identity', 'kms'] as const;
type ProviderName = (typeof PROVIDERS)[number];

/** A key as validated: the name and the decoded secret. */
export interface KeySpec {
  name: string;
  secret: Buffer;
}

export type ProviderSpec = { type: 'identity' } | { type: 'aescbc' | 'aesgcm' | 'secretbox'; keys: KeySpec[] } | { type: 'kms'; name: string };

export interface ResourceSpec {
  /** `<resource>[.<group>]` as written. */
  resources: string[];
  providers: ProviderSpec[];
}

/** A config file's problem; `message` is kube's text after "error while parsing file: ". */
export class EncryptionConfigError extends Error {}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's %#v of the provider element, as field.Invalid prints it (pointer values are not stable in Go either). */
function providerValue(p: Json): string {
  const ptr = (k: ProviderName, t: string): string => `(*config.${t})(${p[k] === undefined || p[k] === null ? 'nil' : '0xc000010000'})`;
  return `config.ProviderConfiguration{AESGCM:${ptr('aesgcm', 'AESConfiguration')}, AESCBC:${ptr('aescbc', 'AESConfiguration')}, Secretbox:${ptr('secretbox', 'SecretboxConfiguration')}, Identity:${ptr('identity', 'IdentityConfiguration')}, KMS:${ptr('kms', 'KMSConfiguration')}}`;
}

const required = (path: string, detail: string): string => `${path}: Required value: ${detail}`;
const invalid = (path: string, value: string, detail: string): string => `${path}: Invalid value: ${value}: ${detail}`;

/** Go's strict base64.StdEncoding (padding required, no whitespace). */
function decodeBase64(s: string): Buffer | null {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  return Buffer.from(s, 'base64');
}

const list = (v: unknown, what: string): unknown[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new EncryptionConfigError(`json: cannot unmarshal ${typeof v} into Go struct field ${what} of type []`);
  return v;
};
const str = (v: unknown, what: string): string => {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new EncryptionConfigError(`json: cannot unmarshal ${typeof v} into Go struct field ${what} of type string`);
  return v;
};

function validateKeys(raw: unknown, path: string, sizes: number[], errs: string[]): KeySpec[] {
  const keys = list(raw, 'keys');
  if (!keys.length) {
    errs.push(required(path, 'at least one keys is required'));
    return [];
  }
  const out: KeySpec[] = [];
  keys.forEach((k, i) => {
    const kp = `${path}[${i}]`;
    const o = isObject(k) ? k : {};
    const name = str(o.name, 'name');
    const secret = str(o.secret, 'secret');
    if (!name) errs.push(required(`${kp}.name`, 'name is a mandatory field for a key'));
    if (!secret) {
      errs.push(required(`${kp}.secret`, 'secret is a mandatory field for a key'));
      return;
    }
    const bytes = decodeBase64(secret);
    if (!bytes) {
      errs.push(invalid(`${kp}.secret`, '"REDACTED"', 'secrets must be base64 encoded'));
      return;
    }
    if (!sizes.includes(bytes.length)) {
      errs.push(invalid(`${kp}.secret`, '"REDACTED"', `secret is not of the expected length, got ${bytes.length}, expected one of [${sizes.join(' ')}]`));
      return;
    }
    out.push({ name, secret: bytes });
  });
  return out;
}

/**
 * The file as kube echoes it in a missing apiVersion/kind error, except the keys: kube prints them;
 * this server never writes a key to its log (`secret: …` values, YAML or JSON, become REDACTED).
 */
function redacted(text: string): string {
  return text
    .replace(/("secret"\s*:\s*)"[^"]*"/g, '$1"REDACTED"')
    .replace(/(^|[\s{,-])(secret\s*:[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s,}#]+)/gm, '$1$2REDACTED');
}

/** Check apiVersion/kind as the universal decoder does, then validate (ValidateEncryptionConfiguration). Pure. */
export function parseEncryptionConfiguration(text: string): ResourceSpec[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new EncryptionConfigError(`error converting YAML to JSON: ${(e as Error).message}`);
  }
  if (!isObject(doc)) throw new EncryptionConfigError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(doc) ? 'array' : typeof doc} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  const kind = typeof doc.kind === 'string' ? doc.kind : '';
  if (!apiVersion) throw new EncryptionConfigError(`Object 'apiVersion' is missing in '${redacted(text)}'`);
  if (!kind) throw new EncryptionConfigError(`Object 'Kind' is missing in '${redacted(text)}'`);
  const known = (apiVersion === `${GROUP}/v1` && kind === 'EncryptionConfiguration') || (apiVersion === 'v1' && kind === 'EncryptionConfig');
  if (!known) throw new EncryptionConfigError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:100"`);

  const errs: string[] = [];
  const resources = list(doc.resources, 'resources');
  if (!resources.length) throw new EncryptionConfigError(required(ROOT, `at least one ${ROOT} is required`));
  const out: ResourceSpec[] = [];
  resources.forEach((r, i) => {
    const o = isObject(r) ? r : {};
    const rp = `${ROOT}[${i}].resources`;
    const pp = `${ROOT}[${i}].providers`;
    const names = list(o.resources, 'resources').map((n) => str(n, 'resources'));
    const providers = list(o.providers, 'providers');
    if (!names.length) errs.push(required(rp, `at least one ${rp} is required`));
    if (!providers.length) errs.push(required(pp, `at least one ${pp} is required`));
    const specs: ProviderSpec[] = [];
    providers.forEach((p, j) => {
      const path = `${pp}[${j}]`;
      const po = isObject(p) ? p : {};
      const present = PROVIDERS.filter((k) => po[k] !== undefined && po[k] !== null);
      if (!present.length) {
        errs.push(invalid(path, providerValue(po), 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity'));
        return;
      }
      if (present.length > 1) {
        errs.push(invalid(path, providerValue(po), 'more than one provider specified in a single element, should split into different list elements'));
        return;
      }
      const type = present[0];
      const body = isObject(po[type]) ? (po[type] as Json) : {};
      if (type === 'identity') specs.push({ type });
      else if (type === 'kms') {
        const name = str(body.name, 'name');
        if (!name) errs.push(required(`${path}.kms.name`, 'name is a mandatory field for a provider'));
        specs.push({ type, name });
      } else {
        const keys = validateKeys(body.keys, `${path}.${type}.keys`, type === 'secretbox' ? SECRETBOX_SIZES : AES_SIZES, errs);
        specs.push({ type, keys });
      }
    });
    out.push({ resources: names, providers: specs });
  });
  if (errs.length) {
    const seen = [...new Set(errs)];
    throw new EncryptionConfigError(seen.length === 1 ? seen[0] : `[${seen.join(', ')}]`);
  }
  return out;
}

/** The storage group and resource of `<resource>[.<group>]` (schema.ParseGroupResource). */
export function parseGroupResource(s: string): { group: string; resource: string } {
  const dot = s.indexOf('.');
  return dot < 0 ? { group: '', resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) };
}

const PREFIX = { aescbc: 'k8s:enc:aescbc:v1:', aesgcm: 'k8s:enc:aesgcm:v1:', secretbox: 'k8s:enc:secretbox:v1:' } as const;

function providerTransformer(p: ProviderSpec): PrefixTransformer {
  if (p.type === 'identity') return { prefix: Buffer.alloc(0), transformer: identityTransformer };
  if (p.type === 'kms') {
    throw new Error(`kms provider "${p.name}" is not supported by this server (no KMS plugin client): use aescbc, aesgcm or secretbox`);
  }
  const make = p.type === 'aescbc' ? cbcTransformer : p.type === 'aesgcm' ? gcmTransformer : secretboxTransformer;
  const noKey = p.type === 'secretbox' ? 'no matching key was found for the provided Secretbox transformer' : 'no matching key was found for the provided AES transformer';
  const keys = prefixTransformers(noKey, p.keys.map((k) => ({ prefix: Buffer.from(`${k.name}:`), transformer: make(k.secret) })));
  return { prefix: Buffer.from(PREFIX[p.type]), transformer: keys };
}

/** The transformer of each configured `<group>/<resource>` (group '' = core). */
export type ResourceTransformers = Map<string, Transformer>;

export const groupResourceKey = (group: string, resource: string): string => `${group}/${resource}`;

/** Build the per-resource transformers (GetTransformerOverrides). */
export function buildTransformers(specs: ResourceSpec[]): ResourceTransformers {
  const lists = new Map<string, PrefixTransformer[]>();
  for (const spec of specs) {
    const providers = spec.providers.map(providerTransformer);
    for (const name of spec.resources) {
      const { group, resource } = parseGroupResource(name);
      const k = groupResourceKey(group, resource);
      lists.set(k, [...(lists.get(k) ?? []), ...providers]);
    }
  }
  const out: ResourceTransformers = new Map();
  for (const [k, l] of lists) out.set(k, prefixTransformers('no matching prefix found', l));
  return out;
}

/**
 * Read and build `--encryption-provider-config`. Throws with kube's start-up message:
 * `error while parsing encryption provider configuration file "<path>": error while parsing file: …`.
 */
export function loadEncryptionConfig(path: string): ResourceTransformers {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    throw new Error(`error opening encryption provider configuration file "${path}": open ${path}: ${why}`);
  }
  try {
    return buildTransformers(parseEncryptionConfiguration(text));
  } catch (e) {
    if (e instanceof EncryptionConfigError) throw new Error(`error while parsing encryption provider configuration file "${path}": error while parsing file: ${e.message}`);
    throw new Error(`encryption provider configuration file "${path}": ${(e as Error).message}`);
  }
}
