/**
 * The decode step of a write, as kube-apiserver's handlers run it: TypeMeta checked against the
 * endpoint's kind, the body decoded into the kind's Go shape (SchemaDecoder), unknown and
 * duplicate fields handled by the fieldValidation directive, and every failure a 400 with the
 * codec's wording (`ConfigMap in version "v1" cannot be handled as a ConfigMap: …`).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError, failure } from '../api/errors.ts';
import { generatedSource } from '../schema/registry.ts';
import type { GroupVersionKind } from '../schema/types.ts';
import { GoDecodeError, SchemaDecoder } from './decode.ts';

/** fieldValidation directives (metav1 CreateOptions/UpdateOptions/PatchOptions). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** Duplicate keys and number literals of a JSON body (set by the request decoder, read by the store). */
const parsedFacts = new WeakMap<object, { duplicates: string[]; literals: Map<string, string> }>();

/** Record what parsing learnt about a body that the parsed value cannot carry (json-parse.ts). */
export function noteParsed(body: unknown, duplicates: string[], literals: Map<string, string>): void {
  if ((duplicates.length || literals.size) && body && typeof body === 'object') parsedFacts.set(body, { duplicates, literals });
}

let decoder: SchemaDecoder | undefined;
const GO_TYPES = join(dirname(fileURLToPath(import.meta.url)), '..', 'schema', 'generated', 'go', 'types.json');
const shared = (): SchemaDecoder => (decoder ??= new SchemaDecoder(generatedSource(), JSON.parse(readFileSync(GO_TYPES, 'utf8')) as Record<string, Record<string, string>>));

/** The schema definition of a kind, if generated. */
export function definitionOf(gvk: GroupVersionKind): string | undefined {
  return generatedSource().kind(gvk)?.$ref;
}

/** The endpoint a body is decoded for. */
export interface DecodeTarget {
  group: string;
  /** Versions the endpoint accepts (its kind's). */
  versions: string[];
  kind: string;
}

/** What the body decodes to, and the warnings a Warn directive adds. */
export interface DecodedBody {
  object: Record<string, unknown>;
  warnings: string[];
}

const FIND_KIND_TYPE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** handlers.summarizeData: the body's first 30 bytes, as text for an object, else hex. */
function summarize(body: Buffer): string {
  if (!body.length) return '<empty>';
  const cut = body.length > 30;
  const head = body.subarray(0, 30);
  return (body[0] === 0x7b ? head.toString('utf8') : head.toString('hex')) + (cut ? ' ...' : '');
}

/**
 * The 400 for a body whose version/kind cannot be read (transformDecodeError without a kind):
 * `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind;
 * json parse error: … (<summary>)`.
 */
export function unrecognizedBody(kind: string, why: string, body: Buffer): Error {
  return unrecognized(kind, `couldn't get version/kind; json parse error: ${why}`, body);
}

/** transformDecodeError's 400 for any decoder error: `the object provided is unrecognized …`. */
export function unrecognized(kind: string, why: string, body: Buffer): Error {
  return new ApiError(failure(400, 'BadRequest', `the object provided is unrecognized (must be of type ${kind}): ${why} (${summarize(body)})`));
}

/**
 * The decoder's first step (json serializer's findKind): apiVersion and kind read as strings
 * from a JSON object (null is an empty one). Returns encoding/json's error, if any.
 */
export function findKindError(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    const t = Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'string';
    return `json: cannot unmarshal ${t} into Go value of type ${FIND_KIND_TYPE}`;
  }
  for (const f of ['apiVersion', 'kind']) {
    const v = (value as Record<string, unknown>)[f];
    if (v === undefined || v === null || typeof v === 'string') continue;
    const t = Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : 'object';
    return `json: cannot unmarshal ${t} into Go struct field .${f} of type string`;
  }
  return undefined;
}

/**
 * A body the decoder refused (400 `X in version "v" cannot be handled as a Y: <why>`); `why` is
 * the decoder's own error, which a patch reports in its 422 instead.
 */
export class BodyDecodeError extends ApiError {
  constructor(readonly why: string, message: string) {
    super(failure(400, 'BadRequest', message));
  }
}

/** Internal package name of a group in conversion messages (core for the legacy group). */
const internalPackage = (group: string): string => (group ? group.split('.')[0] : 'core');

/**
 * Decode a parsed request body for `target`. `validation` is the effective directive (Ignore when
 * the ServerSideFieldValidation gate is off, as kube-apiserver 1.24 ignores the parameter).
 */
export function decodeRequestBody(body: unknown, target: DecodeTarget, validation: FieldValidation): DecodedBody {
  const obj = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const apiVersion = typeof obj.apiVersion === 'string' && obj.apiVersion ? obj.apiVersion : undefined;
  const kind = typeof obj.kind === 'string' && obj.kind ? obj.kind : target.kind;
  const slash = apiVersion?.lastIndexOf('/') ?? -1;
  const group = apiVersion ? (slash >= 0 ? apiVersion.slice(0, slash) : '') : target.group;
  const version = apiVersion ? apiVersion.slice(slash + 1) : target.versions[0];
  const fail = (why: string): never => {
    throw new BodyDecodeError(why, `${kind} in version "${version}" cannot be handled as a ${target.kind}: ${why}`);
  };
  const gvk = { group, version, kind };
  const def = definitionOf(gvk);
  const sameKind = kind === target.kind && group === target.group && target.versions.includes(version);
  if (!def) {
    if (!sameKind) fail(`no kind "${kind}" is registered for version "${apiVersion ?? version}" in scheme "pkg/runtime/scheme.go:100"`);
    // A kind without a generated schema: the body is kept as written.
    return { object: { ...obj, kind: target.kind, apiVersion: target.group ? `${target.group}/${version}` : version }, warnings: [] };
  }
  // The body is decoded into the Go type it names first (its errors win, e.g. a ConfigMap's data
  // patched into a Secret fails on base64), then converted: another kind fails there.
  let decoded;
  try {
    decoded = shared().decode(obj, def, 'decode', parsedFacts.get(obj)?.literals);
  } catch (e) {
    if (e instanceof GoDecodeError) fail(e.message);
    throw e;
  }
  if (!sameKind) fail(`converting (${version}.${kind}) to (${internalPackage(target.group)}.${target.kind}): unknown conversion`);
  const out = decoded.value as Record<string, unknown>;
  out.kind = target.kind;
  out.apiVersion = target.group ? `${target.group}/${version}` : version;
  const problems = validation === 'Ignore' ? [] : [...(parsedFacts.get(obj)?.duplicates ?? []).map((p) => `duplicate field ${JSON.stringify(p)}`), ...decoded.unknown.map((p) => `unknown field ${JSON.stringify(p)}`)];
  if (problems.length && validation === 'Strict') fail(`strict decoding error: ${problems.join(', ')}`);
  // TypeMeta first, as Go writes it.
  const { kind: k, apiVersion: a, ...rest } = out;
  return { object: { kind: k, apiVersion: a, ...rest }, warnings: problems };
}

/** An object in its Go-encoded form (for objects the server changed after decoding). */
export function canonicalObject<T extends Record<string, unknown>>(obj: T, gvk: GroupVersionKind): T {
  const def = definitionOf(gvk);
  if (!def) return obj;
  const { kind, apiVersion, ...rest } = shared().decode(obj, def).value as Record<string, unknown>;
  return { kind, apiVersion, ...rest } as unknown as T;
}
