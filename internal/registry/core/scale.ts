/**
 * The `scale` subresource of ReplicationControllers, Deployments, ReplicaSets and StatefulSets, after
 * kube 1.24.17's ScaleREST (pkg/registry/apps/<kind>/storage/storage.go,
 * pkg/registry/core/replicationcontroller/storage/storage.go): an autoscaling/v1 Scale read from
 * the parent (spec.replicas, status.replicas, the selector as text: each kind says how) and written
 * into it.
 *
 *   get     scaleFrom<Kind>/scaleFromRC: name, namespace, uid, resourceVersion, creationTimestamp of the parent.
 *   update  the body (or the patched Scale) decoded as autoscaling/v1 Scale, validated
 *           (ValidateScale: `Scale.autoscaling "x" is invalid: spec.replicas: ...`); its
 *           resourceVersion, when set, is a precondition; spec.replicas goes into the parent,
 *           which its own strategy then prepares (generation) and validates.
 *   fields  the parent's field manager records the write as an Update through `scale` (the
 *           Scale converts for built-in kinds, so kube's ScaleHandler hands spec.replicas to the
 *           writer and takes it from every other manager).
 */
import type { KubeObject } from '../../api/types.ts';
import { badRequest, invalid as invalidError } from '../../api/errors.ts';
import { FieldPath } from '../../api/field-errors.ts';
import { decodeRequestBody } from '../../decode/body.ts';
import type { SubresourceDescriptor, SubresourceView, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_DESCRIPTION, creationTimestampCell } from '../rest/table-columns.ts';
import { nonNegative, num, statusOf } from './replicas.ts';
import { type J, obj } from './pod-util.ts';

const specOf = (o: KubeObject): J => obj(o.spec) ?? ((o as J).spec = {});

const SCALE_GVK = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/**
 * printScale, the built-in kinds' Table of a Scale (a custom resource's scale has another one:
 * custom-resource-scale.ts); descriptions are autoscaling/v1's.
 */
const SCALE_TABLE: TableConvertor = {
  columns: [
    { name: 'Name', type: 'string', description: NAME_DESCRIPTION, priority: 0 },
    { name: 'Desired', type: 'integer', description: 'desired number of instances for the scaled object.', priority: 0 },
    { name: 'Available', type: 'integer', description: 'actual number of observed instances of the scaled object.', priority: 0 },
    AGE_COLUMN,
  ],
  cells: (o) => [o.metadata.name ?? '', num(obj(o.spec)?.replicas), num(obj(o.status)?.replicas), creationTimestampCell(o)],
};

/** scaleFromDeployment / scaleFromReplicaSet / scaleFromStatefulSet / scaleFromRC, the selector's text from `selectorText`. */
function reader(selectorText: (parent: KubeObject) => string): (parent: KubeObject) => KubeObject {
  return (parent) => {
    const m = parent.metadata;
    const metadata: Record<string, unknown> = {};
    for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) if (m[k] !== undefined && m[k] !== '') metadata[k] = m[k];
    const replicas = num(specOf(parent).replicas);
    const selector = selectorText(parent);
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata,
      spec: replicas ? { replicas } : {},
      status: { replicas: num(statusOf(parent).replicas), ...(selector ? { selector } : {}) },
    } as unknown as KubeObject;
  };
}

/**
 * The Scale view of a kind whose selector reads as `selectorText` (labels.Selector's String()); a
 * missing parent's 404 names `<resource>/scale` of `notFoundGroup` (absent: the parent's group).
 */
export function scaleView(selectorText: (parent: KubeObject) => string, notFoundGroup?: string): SubresourceView {
  const read = reader(selectorText);
  return {
    kind: SCALE_GVK,
    table: SCALE_TABLE,
    read,
    current: read,
    of: read,
    decode(body) {
      const out = decodeRequestBody(body, { group: SCALE_GVK.group, versions: [SCALE_GVK.version], kind: SCALE_GVK.kind }, 'Ignore').object as KubeObject;
      if (!obj(out.metadata)) out.metadata = {};
      return out;
    },
    write(scale, parent) {
      const replicas = num(obj(scale.spec)?.replicas);
      const errs = nonNegative(replicas, new FieldPath('spec').child('replicas'));
      if (errs.length) throw invalidError('Scale', 'autoscaling', scale.metadata.name ?? '', errs);
      specOf(parent).replicas = replicas;
      return parent;
    },
    apply() {
      throw new Error('unreachable: applyToParent is set');
    },
    applyToParent(patch, parent) {
      // The applied Scale's apiVersion must be the view's; its spec.replicas (and a resourceVersion precondition) go to the parent.
      if (patch.apiVersion !== 'autoscaling/v1') throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${typeof patch.apiVersion === 'string' ? patch.apiVersion : ''}, expected: autoscaling/v1`);
      const meta = obj(patch.metadata) ?? {};
      const spec = obj(patch.spec);
      const out: Record<string, unknown> = { apiVersion: parent.apiVersion, kind: parent.kind, metadata: { ...(meta.name !== undefined ? { name: meta.name } : {}), ...(meta.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}) } };
      if (spec && 'replicas' in spec) out.spec = { replicas: spec.replicas };
      return out;
    },
    fieldsByParent: true,
    notFoundResource: ({ group, resource }) => ({ group: notFoundGroup ?? group, resource: `${resource}/scale` }),
  };
}

/** The scale subresource of a kind, over its Scale view. */
export const scaleSubresource = (view: SubresourceView): SubresourceDescriptor => ({ name: 'scale', verbs: ['get', 'patch', 'update'], kind: SCALE_GVK, view });

/** labels.SelectorFromSet(set).String(): `k=v` pairs sorted by key (a ReplicationController's selector). */
export function setSelectorText(set: unknown): string {
  const m = obj(set) ?? {};
  return Object.keys(m).sort().map((k) => `${k}=${typeof m[k] === 'string' ? m[k] : ''}`).join(',');
}
