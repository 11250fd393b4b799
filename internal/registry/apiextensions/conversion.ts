/**
 * Versions of a custom resource (apiextensions-apiserver 1.24's crConverter and the storage codec
 * of crdConversionRESTOptionsGetter): objects are stored in the CRD's storage version and served in
 * the request's.
 *
 *   read  (get, list, watch, a write's answer): the stored object is decoded at its own version —
 *         pruned, non-nullable nulls dropped, metadata coerced (invalid fields dropped), defaulted
 *         with that version's schema ("defaulting from storage") — then, when its version is not
 *         the request's, converted and coerced again at the target (pruned, no defaults: kube's
 *         schemaCoercingConverter).
 *   write (the body, already decoded and validated at the request's version): converted to the
 *         storage version and coerced there, just before the append.
 *
 * Conversion `None` changes apiVersion only. `Webhook` POSTs a ConversionReview (the first of the
 * CRD's conversionReviewVersions that is v1 or v1beta1) for each object not yet at the desired
 * version (kube's storage decodes, and so converts, each object it reads: a list of n such objects
 * is n reviews) and checks the answer as kube does: its uid (v1), the result's status, the count,
 * the object's apiVersion and kind, name/namespace/uid unchanged; only the labels and annotations
 * of the converted object's metadata are taken from the webhook. Failures are kube's 500 without
 * a reason: `conversion webhook for <group/version>, Kind=<kind> failed: …`. The HTTPS
 * call itself is the caller's (`ConversionWebhookCall`, from the admission webhook client: the
 * registry does no network I/O of its own).
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/types.ts';
import { unknownError } from '../../api/errors.ts';
import { validateAnnotations, validateLabels } from '../../validation/objectmeta.ts';
import { FieldPath, fieldErrorMessage, type FieldError } from '../../api/field-errors.ts';
import { isObj } from '../../gocompat/json.ts';
import { decodeStoredCustomResource } from '../../apiextensions/custom-resource.ts';
import { coerceEmbedded, coerceObjectMeta } from '../../apiextensions/embedded.ts';
import { prune, pruneNonNullableNulls } from '../../apiextensions/prune.ts';
import type { JSONSchemaProps } from '../../apiextensions/types.ts';
import type { VersionConversion } from '../rest/strategy.ts';

/** A CRD's `spec.conversion.webhook.clientConfig` (v1). */
export interface ConversionClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  caBundle?: string;
}

/**
 * POST a ConversionReview to the CRD's webhook and give back the parsed answer; rejects with an
 * Error whose message is the rest client's (`Post "<url>": <cause>`, or the answer's Status message).
 * `name` is kube's client name for it (`conversion_webhook_for_<crd name>`).
 */
export type ConversionWebhookCall = (name: string, clientConfig: ConversionClientConfig, review: unknown) => Promise<unknown>;

/** The part of a CRD this file reads. */
export interface ConvertedCRD {
  metadata?: { name?: string };
  spec: {
    group: string;
    names: { kind: string };
    preserveUnknownFields?: boolean;
    versions: { name: string; storage: boolean; schema?: { openAPIV3Schema?: JSONSchemaProps } }[];
    conversion?: { strategy?: string; webhook?: { clientConfig?: ConversionClientConfig; conversionReviewVersions?: string[] } };
  };
}

const content = (o: KubeObject): Record<string, unknown> => o as unknown as Record<string, unknown>;
const versionOf = (o: KubeObject): string => {
  const av = String(o.apiVersion ?? '');
  return av.slice(av.lastIndexOf('/') + 1);
};

/** The conversion of a CRD's custom resources (see module comment). */
export function crdConversion(crd: ConvertedCRD, call?: ConversionWebhookCall): VersionConversion {
  const { spec } = crd;
  const schemas = new Map(spec.versions.map((v) => [v.name, v.schema?.openAPIV3Schema]));
  const storage = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name ?? '';
  const preserve = !!spec.preserveUnknownFields;
  const apiVersion = (v: string): string => `${spec.group}/${v}`;
  const webhook = spec.conversion?.strategy === 'Webhook' ? spec.conversion.webhook : undefined;

  /** kube's unstructuredSchemaCoercer without defaults: after a conversion, at the target version. */
  const coerce = (o: KubeObject, v: string): void => {
    const schema = schemas.get(v);
    if (!preserve) {
      prune(content(o), schema);
      pruneNonNullableNulls(content(o), schema);
    }
    coerceObjectMeta(content(o));
    coerceEmbedded(content(o), schema);
  };

  /** Objects (of this kind, any version) → `v`: apiVersion only, or a review for each object not there yet. */
  const convert = (objs: KubeObject[], v: string): KubeObject[] | Promise<KubeObject[]> => {
    const want = apiVersion(v);
    if (objs.every((o) => o.apiVersion === want)) return objs;
    if (!webhook) {
      for (const o of objs) {
        if (o.apiVersion === want) continue;
        o.apiVersion = want;
        coerce(o, v);
      }
      return objs;
    }
    // One review per object, as kube's storage decodes (and converts) each object it reads.
    return (async () => {
      const out: KubeObject[] = [];
      for (const o of objs) {
        if (o.apiVersion === want) out.push(o);
        else {
          const converted = await callWebhook(o, want);
          coerce(converted, v);
          out.push(converted);
        }
      }
      return out;
    })();
  };

  /** One ConversionReview for `obj` (not at `want`): the converted object, checked, with its metadata restored. */
  async function callWebhook(obj: KubeObject, want: string): Promise<KubeObject> {
    const av = String(obj.apiVersion ?? '');
    const fail = (why: string): never => {
      throw unknownError(`conversion webhook for ${av}, Kind=${String(obj.kind ?? '')} ${why}`);
    };
    const reviewVersion = (webhook?.conversionReviewVersions ?? []).find((v) => v === 'v1' || v === 'v1beta1');
    if (!reviewVersion) throw unknownError('no supported conversion review versions');
    const uid = randomUUID();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
      request: { uid, desiredAPIVersion: want, objects: [obj] },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    let answer: unknown;
    try {
      if (!call) throw new Error('conversion webhooks are not available in this process');
      answer = await call(`conversion_webhook_for_${crd.metadata?.name ?? ''}`, webhook?.clientConfig ?? {}, review);
    } catch (e) {
      return fail(`failed: ${(e as Error).message}`);
    }
    const converted = convertedObjects(answer, uid, reviewVersion, (why) => fail(`failed: ${why}`));
    if (converted.length !== 1) fail(`returned ${converted.length} objects, expected 1`);
    const c = converted[0];
    if (!isObj(c) || typeof c.kind !== 'string' || !c.kind) throw unknownError(`Object 'Kind' is missing in '${JSON.stringify(c)}'`);
    const o = c as unknown as KubeObject;
    if (o.apiVersion !== want) fail(`returned invalid object at index 0: invalid groupVersion (expected ${want}, received ${String(o.apiVersion ?? '')})`);
    if (o.kind !== obj.kind) fail(`returned invalid object at index 0: invalid kind (expected ${String(obj.kind)}, received ${String(o.kind)})`);
    const bad = sameIdentity(obj, o);
    if (bad) fail(`returned invalid object: ${bad}`);
    const metaErr = restoreObjectMeta(obj, o);
    if (metaErr) fail(`returned invalid metadata: ${metaErr}`);
    return o;
  }

  // Objects fromStorage left as they were parsed (see VersionConversion.servedAsStored).
  const asStored = new WeakSet<KubeObject>();
  return {
    storageVersion: storage,
    fromStorage(objs, v) {
      const want = apiVersion(v);
      for (const o of objs) {
        const schema = schemas.get(versionOf(o));
        const changed = decodeStoredCustomResource(content(o), schema, { preserveUnknownFields: preserve, fromStorage: true });
        if (!changed && o.apiVersion === want) asStored.add(o);
      }
      return convert(objs, v);
    },
    servedAsStored: (o) => asStored.has(o),
    toStorage(obj) {
      const r = convert([obj], storage);
      return Array.isArray(r) ? r[0] : r.then((x) => x[0]);
    },
  };
}

/** The converted objects of a ConversionReview answer (getConvertedObjectsFromResponse); `fail` throws. */
function convertedObjects(answer: unknown, uid: string, reviewVersion: string, fail: (why: string) => never): unknown[] {
  const a = isObj(answer) ? answer : {};
  const gvk = `${String(a.apiVersion ?? '').replace(/^\//, '')}, Kind=${String(a.kind ?? '')}`;
  if (reviewVersion === 'v1' && (a.apiVersion !== 'apiextensions.k8s.io/v1' || a.kind !== 'ConversionReview')) fail(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvk}`);
  const r = isObj(a.response) ? a.response : undefined;
  if (!r) return fail('no response provided');
  if (reviewVersion === 'v1' && r.uid !== uid) fail(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(String(r.uid ?? ''))}`);
  const result = isObj(r.result) ? r.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message) fail(result.message);
    fail(`response.result.status was '${String(result.status ?? '')}', not 'Success'`);
  }
  return Array.isArray(r.convertedObjects) ? r.convertedObjects : [];
}

/** validateConvertedObject: kind, name, namespace and uid must not change; the error text or ''. */
function sameIdentity(a: KubeObject, b: KubeObject): string {
  const ma = isObj(a.metadata) ? a.metadata : {};
  const mb = isObj(b.metadata) ? (b.metadata as Record<string, unknown>) : {};
  for (const [f, what] of [['name', 'name'], ['namespace', 'namespace'], ['uid', 'UID']] as const) {
    const x = String((ma as Record<string, unknown>)[f] ?? '');
    const y = String(mb[f] ?? '');
    if (x !== y) return `must have the same ${what}: ${x} != ${y}`;
  }
  return '';
}

/**
 * restoreObjectMeta: the converted object gets the original's metadata, except labels and
 * annotations, taken from the webhook's answer (validated when they changed). The error text or ''.
 */
function restoreObjectMeta(original: KubeObject, converted: KubeObject): string {
  const answered = (converted as unknown as Record<string, unknown>).metadata;
  if (answered === undefined) return 'missing metadata in converted object';
  if (!isObj(answered)) return `invalid metadata of type ${goType(answered)} in converted object`;
  const meta: Record<string, unknown> = structuredClone((original.metadata ?? {}) as Record<string, unknown>);
  for (const f of ['labels', 'annotations'] as const) {
    const given = answered[f];
    if (given === undefined || given === null) {
      delete meta[f];
      continue;
    }
    if (!isObj(given)) return `invalid metadata.${f} of type ${goType(given)} in converted object`;
    const before = isObj(meta[f]) ? (meta[f] as Record<string, unknown>) : {};
    let changed = Object.keys(before).length !== Object.keys(given).length;
    for (const [k, v] of Object.entries(given)) {
      if (typeof v !== 'string') return `metadata.${f}[${k}] must be a string, but is ${goType(v)} in converted object`;
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const errs = f === 'labels' ? validateLabels(given as Record<string, string>, new FieldPath('metadata.labels')) : validateAnnotations(given as Record<string, string>, new FieldPath('metadata.annotation'));
      if (errs.length) return aggregate(errs);
    }
    meta[f] = given;
  }
  converted.metadata = meta as KubeObject['metadata'];
  return '';
}

/** Go's %T of a decoded JSON value. */
function goType(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return 'map[string]interface {}';
  }
}

/** utilerrors.Aggregate's text: one error's message, or several in brackets. */
const aggregate = (errs: FieldError[]): string => (errs.length === 1 ? fieldErrorMessage(errs[0]) : `[${errs.map(fieldErrorMessage).join(', ')}]`);
