/**
 * The `scale` subresource of a custom resource (apiextensions-apiserver's ScaleREST): an
 * autoscaling/v1 Scale read from and written into the custom resource at the CRD's
 * specReplicasPath, statusReplicasPath and labelSelectorPath.
 *
 *   get     the Scale of the stored object; a 500 `the spec replicas field ".spec.replicas" does
 *           not exist` when the object has none.
 *   update  the body (or the patched Scale) is decoded as autoscaling/v1 Scale (400 / 422 with the
 *           codec's message); its spec.replicas is written at specReplicasPath, its
 *           resourceVersion is a precondition; the custom resource's own strategy then validates
 *           (negative replicas: 422 on the Widget). A patch on an object without spec replicas
 *           that sets none is a 400 `the spec replicas field ... cannot be empty`.
 *   fields  kube 1.24 runs the field manager on the Scale with the custom resource's type
 *           converter, which cannot convert a Scale: the failure is swallowed and the Scale's
 *           managedFields dropped (fieldmanager UpdateNoErrors), so ScaleHandler.ToParent takes the
 *           replicas path away from every manager of the parent and adds none; entries left empty
 *           go, entries of an apiVersion the CRD does not have go. An apply on the scale fails
 *           the same conversion, and is a 500 here too (see `apply`).
 *   admission  webhooks get autoscaling/v1 Scales (see SubresourceView); the mutating webhooks'
 *           old Scale carries the parent's owners of the replicas path (ScaleHandler.ToSubresource).
 */
import type { KubeObject, ManagedFieldsEntry } from '../../api/types.ts';
import { ApiError, badRequest, failure, internalError } from '../../api/errors.ts';
import { SchemaDecoder, GoDecodeError, type DefinitionLookup } from '../../decode/decode.ts';
import { generatedSource } from '../../schema/registry.ts';
import { FieldSet } from '../../schema/fieldpath.ts';
import { BodyDecodeError } from '../../decode/body.ts';
import type { OpenApiSchema } from '../../schema/types.ts';
import { isObj } from '../../gocompat/json.ts';
import type { ScaleSubresource } from '../../apiextensions/scale.ts';
import type { SubresourceView, TableConvertor } from '../rest/strategy.ts';
import { decodeManaged, encodeManaged, type Managed } from '../generic/managed-fields.ts';
import { NAME_COLUMN, CREATION_TIMESTAMP_DESCRIPTION } from '../rest/table-columns.ts';
import { humanDuration } from '../rest/human-duration.ts';

const SCALE = 'io.k8s.api.autoscaling.v1.Scale';
/** autoscaling/v1 Scale as the published OpenAPI has it (not among the generated schemas: no built-in kind serves it). */
const SCALE_DEFINITIONS: Record<string, OpenApiSchema> = {
  [SCALE]: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string', 'x-go': 'vo' },
      kind: { type: 'string', 'x-go': 'vo' },
      metadata: { $ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'x-go': 'so' },
      spec: { $ref: `${SCALE}Spec`, 'x-go': 'so' },
      status: { $ref: `${SCALE}Status`, 'x-go': 'so' },
    },
  },
  [`${SCALE}Spec`]: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32', 'x-go': 'vo' } } },
  [`${SCALE}Status`]: { type: 'object', required: ['replicas'], properties: { replicas: { type: 'integer', format: 'int32', 'x-go': 'v' }, selector: { type: 'string', 'x-go': 'vo' } } },
} as Record<string, OpenApiSchema>;

let decoder: SchemaDecoder | undefined;
const scaleDecoder = (): SchemaDecoder => {
  const generated = generatedSource();
  const defs: DefinitionLookup = { definition: (name) => SCALE_DEFINITIONS[name] ?? generated.definition(name) };
  return (decoder ??= new SchemaDecoder(defs));
};

const NOT_A_SCALE = 'no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:100"';

/** Written in place of a missing spec replicas (ScaleREST's invalidSpecReplicas, the smallest int32). */
const INVALID_SPEC_REPLICAS = -2147483648;

const split = (path: string): string[] => path.replace(/^\./, '').split('.');

/** unstructured.NestedInt64 / NestedString: the value, undefined when absent, an Error for the wrong type. */
function nested(obj: unknown, path: string, want: 'number' | 'string'): unknown {
  const fields = split(path);
  let v: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (!isObj(v)) {
      if (v === undefined || v === null) return undefined;
      throw new Error(`${fields.slice(0, i).join('.')} accessor error: ${String(v)} is of the type ${typeof v}, expected map[string]interface{}`);
    }
    if (!Object.prototype.hasOwnProperty.call(v, fields[i])) return undefined;
    v = v[fields[i]];
  }
  if (typeof v !== want || (want === 'number' && !Number.isInteger(v))) throw new Error(`${fields.join('.')} accessor error: ${String(v)} is of the type ${typeof v}, expected ${want === 'number' ? 'int64' : 'string'}`);
  return v;
}

/** Go's int32(x) of an int64. */
const int32 = (n: number): number => Number(BigInt.asIntN(32, BigInt(n)));

/** scaleFromCustomResource: the Scale and whether the spec replicas were there. */
function scaleOf(cr: KubeObject, paths: ScaleSubresource): { scale: KubeObject; found: boolean } {
  const spec = nested(cr, paths.specReplicasPath, 'number') as number | undefined;
  const status = nested(cr, paths.statusReplicasPath, 'number') as number | undefined;
  const selector = paths.labelSelectorPath ? (nested(cr, paths.labelSelectorPath, 'string') as string | undefined) : undefined;
  const m = cr.metadata;
  const metadata: Record<string, unknown> = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) if (m[k] !== undefined && m[k] !== '') metadata[k] = m[k];
  const specReplicas = int32(spec ?? 0);
  const scale = {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: specReplicas ? { replicas: specReplicas } : {},
    status: { replicas: int32(status ?? 0), ...(selector ? { selector } : {}) },
  } as unknown as KubeObject;
  return { scale, found: spec !== undefined };
}

/** The parent's managedFields once a scale write went through (ScaleHandler.ToParent with no Scale entries). */
function stealReplicas(parent: KubeObject, gvPaths: Map<string, string[] | null>): void {
  let managed;
  try {
    managed = decodeManaged(parent.metadata.managedFields);
  } catch {
    return; // undecodable: left for the field manager, which resets them
  }
  for (const [id, e] of managed) {
    const path = gvPaths.get(e.apiVersion);
    if (path === undefined) {
      managed.delete(id);
      continue;
    }
    const p = path?.map((field) => ({ field }));
    if (!p || !e.set.has(p)) continue;
    e.set = e.set.difference(FieldSet.of(p));
    if (e.set.isEmpty()) managed.delete(id);
  }
  const entries = encodeManaged(managed);
  if (entries) parent.metadata.managedFields = entries;
  else delete parent.metadata.managedFields;
}

const REPLICAS_IN_SCALE = FieldSet.of([{ field: 'spec' }, { field: 'replicas' }]);

/**
 * ScaleHandler.ToSubresource: the parent's managers owning its replicas path, as owners of the
 * Scale's spec.replicas (autoscaling/v1); what a scale write's mutating admission sees on the old
 * Scale. Undecodable entries give none.
 */
function scaleManagedFields(parent: KubeObject, gvPaths: Map<string, string[] | null>): ManagedFieldsEntry[] | undefined {
  let managed;
  try {
    managed = decodeManaged(parent.metadata.managedFields);
  } catch {
    return undefined;
  }
  const out: Managed = new Map();
  for (const [id, e] of managed) {
    const path = gvPaths.get(e.apiVersion);
    if (path && e.set.has(path.map((field) => ({ field })))) out.set(id, { ...e, apiVersion: 'autoscaling/v1', set: REPLICAS_IN_SCALE });
  }
  return encodeManaged(out);
}

/** The Table of a Scale (kube's scaleTable: Desired, Available, Age). */
const SCALE_TABLE: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Desired', type: 'integer', format: '', description: 'Number of desired replicas', priority: 0 },
    { name: 'Available', type: 'integer', format: '', description: 'Number of actual replicas', priority: 0 },
    { name: 'Age', type: 'date', format: '', description: CREATION_TIMESTAMP_DESCRIPTION, priority: 0 },
  ],
  cells: (o) => {
    const s = o as unknown as { spec: { replicas?: number }; status: { replicas: number } };
    const t = o.metadata.creationTimestamp ? Date.parse(o.metadata.creationTimestamp) : NaN;
    return [o.metadata.name ?? '', s.spec.replicas ?? 0, s.status.replicas, Number.isNaN(t) ? '<unknown>' : humanDuration(Date.now() - t)];
  },
};

/**
 * The scale view of a CRD's custom resources: `paths` of each version (null: no scale there), the
 * request's version being the object's.
 */
export function customResourceScale(group: string, scaleOfVersion: (version: string) => ScaleSubresource | undefined, versions: string[]): SubresourceView {
  const gvPaths = new Map(versions.map((v) => [`${group}/${v}`, scaleOfVersion(v) ? split(scaleOfVersion(v)!.specReplicasPath) : null]));
  const pathsOf = (cr: KubeObject): ScaleSubresource => {
    const av = String(cr.apiVersion ?? '');
    return scaleOfVersion(av.slice(av.lastIndexOf('/') + 1)) ?? scaleOfVersion(versions[0])!;
  };
  return {
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    table: SCALE_TABLE,
    read(cr) {
      const paths = pathsOf(cr);
      let r;
      try {
        r = scaleOf(cr, paths);
      } catch (e) {
        throw internalError((e as Error).message);
      }
      if (!r.found) throw internalError(`the spec replicas field "${paths.specReplicasPath}" does not exist`);
      return r.scale;
    },
    current(cr) {
      const r = scaleOf(cr, pathsOf(cr));
      if (!r.found) (r.scale as unknown as { spec: { replicas: number } }).spec.replicas = INVALID_SPEC_REPLICAS;
      const managed = scaleManagedFields(cr, gvPaths);
      if (managed) r.scale.metadata.managedFields = managed;
      return r.scale;
    },
    of(cr) {
      try {
        return scaleOf(cr, pathsOf(cr)).scale;
      } catch (e) {
        throw internalError((e as Error).message);
      }
    },
    decode(body) {
      // Whatever does not decode as a Scale (another kind, a field of the wrong type) falls
      // through kube's codec to the unstructured decoder, whose error names the Go type.
      const o = isObj(body) ? body : {};
      const av = o.apiVersion;
      const kind = o.kind;
      if ((av !== undefined && av !== '' && av !== 'autoscaling/v1') || (kind !== undefined && kind !== '' && kind !== 'Scale')) throw new BodyDecodeError('', NOT_A_SCALE);
      try {
        const out = scaleDecoder().decode(o, SCALE, 'decode').value as KubeObject;
        out.kind = 'Scale';
        out.apiVersion = 'autoscaling/v1';
        if (!isObj(out.metadata)) out.metadata = {};
        // Dropped as kube's field manager drops them when it fails on the Scale (see `fields`),
        // before mutating admission sees the Scale.
        delete out.metadata.managedFields;
        return out;
      } catch (e) {
        if (e instanceof GoDecodeError) throw new BodyDecodeError(e.message, NOT_A_SCALE);
        throw e;
      }
    },
    write(scale, cr) {
      const paths = pathsOf(cr);
      const replicas = (scale as unknown as { spec?: { replicas?: number } }).spec?.replicas ?? 0;
      if (replicas === INVALID_SPEC_REPLICAS) throw badRequest(`the spec replicas field "${paths.specReplicasPath}" cannot be empty`);
      // unstructured.SetNestedField: creates the maps on the way, replaces what is not one.
      const fields = split(paths.specReplicasPath);
      let at = cr as unknown as Record<string, unknown>;
      for (const f of fields.slice(0, -1)) {
        if (!isObj(at[f])) at[f] = {};
        at = at[f] as Record<string, unknown>;
      }
      at[fields[fields.length - 1]] = replicas;
      stealReplicas(cr, gvPaths);
      return cr;
    },
    apply() {
      throw new ApiError(failure(500, undefined, 'failed to create manager for existing fields: failed to convert live object (/; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1'));
    },
  };
}

