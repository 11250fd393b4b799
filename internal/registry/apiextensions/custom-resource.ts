/**
 * The kinds a CustomResourceDefinition defines (apiextensions-apiserver's crdHandler serving
 * storage): `customResourceKinds(crd)` turns a CRD object (apiextensions.k8s.io/v1, as stored) into
 * the registry descriptors that serve its custom resources, for `registry.add(...)`. One
 * descriptor serves every served version (one storage, keys not depending on version); the
 * schema, subresources and printer columns of a request are those of its object's apiVersion.
 *
 * The strategy follows kube's customresource strategy on top of internal/apiextensions: the body
 * is pruned, coerced and defaulted (decodeCustomResource; kube does it in its decoder, here in the
 * strategy's `defaults`, so before validation and on every write), then validated against the
 * version's schema (422 with kube's causes); create sets generation 1, any non-metadata change bumps
 * it; with the `status` subresource a main-resource write keeps the stored status and a /status
 * write changes nothing but status. Bodies are JSON or YAML (no Protobuf message exists for the
 * kind: Accept of Protobuf only is 406); strategic merge patch is refused with kube's 415
 * (`KindDescriptor.customResource`).
 *
 * The `scale` subresource is custom-resource-scale.ts. Not done here (see the issue): conversion
 * between versions whose schemas differ (objects keep the apiVersion they were written with),
 * defaulting of objects read from storage, and server-side apply's schema list/map types (our
 * apply layer takes field types from the generated schemas only: a custom resource's lists are
 * atomic there).
 */
import type { KubeObject } from '../../api/types.ts';
import type { FieldError } from '../../api/field-errors.ts';
import { badRequest } from '../../api/errors.ts';
import { CoerceError, decodeCustomResource, validateCustomResource, validateCustomResourceStatusUpdate, validateCustomResourceUpdate, type ScaleSubresource } from '../../apiextensions/custom-resource.ts';
import type { JSONSchemaProps } from '../../apiextensions/types.ts';
import { prune } from '../../apiextensions/prune.ts';
import type { KindDescriptor, StatusStrategy, Strategy, SubresourceDescriptor } from '../rest/strategy.ts';
import { customResourceTable, type PrinterColumn } from './custom-resource-table.ts';
import { customResourceScale } from './custom-resource-scale.ts';

/** The part of a CustomResourceDefinition (v1) this file reads. */
export interface CustomResourceDefinition {
  metadata?: { name?: string };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { plural: string; singular?: string; kind: string; listKind?: string; shortNames?: string[]; categories?: string[] };
    preserveUnknownFields?: boolean;
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      deprecated?: boolean;
      deprecationWarning?: string;
      schema?: { openAPIV3Schema?: JSONSchemaProps };
      subresources?: { status?: object; scale?: ScaleSubresource };
      additionalPrinterColumns?: PrinterColumn[];
    }[];
  };
  status?: { acceptedNames?: CustomResourceDefinition['spec']['names'] };
}

type Version = CustomResourceDefinition['spec']['versions'][number];

/** Verbs of a custom resource, in the order kube's discovery lists them (unsorted, unlike built-ins). */
export const CUSTOM_RESOURCE_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

const content = (o: KubeObject): Record<string, unknown> => o as unknown as Record<string, unknown>;

/**
 * The registry descriptors of a CRD's custom resources: one descriptor serving its served versions
 * (storage version's name for the storage version hash), or none when no version is served. The
 * names are the CRD's accepted names when it has them (kube serves status.acceptedNames).
 */
export function customResourceKinds(crd: CustomResourceDefinition): KindDescriptor[] {
  const { spec } = crd;
  const names = crd.status?.acceptedNames?.kind ? crd.status.acceptedNames : spec.names;
  const served = spec.versions.filter((v) => v.served);
  if (!served.length) return [];
  const byName = new Map(served.map((v) => [v.name, v]));
  // The version of an object: its apiVersion's (every body is decoded to `<group>/<version>`).
  const versionOf = (o: KubeObject): Version => {
    const av = String(o.apiVersion ?? '');
    return byName.get(av.slice(av.lastIndexOf('/') + 1)) ?? served[0];
  };
  const schemaOf = (o: KubeObject): JSONSchemaProps | undefined => versionOf(o).schema?.openAPIV3Schema;
  const scaleOf = (o: KubeObject): ScaleSubresource | undefined => versionOf(o).subresources?.scale;
  // Subresources, printer columns and deprecation are the first served version's for the kind as
  // a whole (a descriptor has one set); the per-object checks above follow each object's version.
  const first = served[0];
  const hasStatus = !!first.subresources?.status;
  const storageVersion = spec.versions.find((v) => v.storage);
  const storage = storageVersion?.name;
  const decode = (o: KubeObject): void => {
    try {
      decodeCustomResource(content(o), schemaOf(o), { preserveUnknownFields: spec.preserveUnknownFields });
    } catch (e) {
      if (!(e instanceof CoerceError)) throw e;
      const v = versionOf(o).name;
      throw badRequest(`${names.kind} in version "${v}" cannot be handled as a ${names.kind}: ${e.detail}`);
    }
  };

  const strategy: Strategy = {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    defaults: decode,
    prepareForCreate(obj) {
      if (hasStatus) delete content(obj).status;
    },
    prepareForUpdate(obj, old) {
      if (!hasStatus) return;
      if (old.status !== undefined) content(obj).status = structuredClone(old.status);
      else delete content(obj).status;
    },
    // Stored in the storage version's shape (conversion None changes only apiVersion, which the
    // object keeps here): what that version's schema does not know is pruned, as kube's storage
    // round trip prunes it.
    canonicalize(obj) {
      const v = versionOf(obj);
      if (storageVersion && v.name !== storageVersion.name && !spec.preserveUnknownFields) prune(content(obj), storageVersion.schema?.openAPIV3Schema);
    },
    validate: (obj): FieldError[] => validateCustomResource(content(obj), schemaOf(obj), scaleOf(obj)),
    validateUpdate: (obj, old): FieldError[] => validateCustomResourceUpdate(content(obj), content(old), schemaOf(obj), scaleOf(obj)),
  };

  const statusStrategy: StatusStrategy = {
    // Only status changes (kube's statusStrategy: the stored object with the request's status and managedFields).
    prepareForUpdate(obj, old) {
      decode(obj);
      const status = content(obj).status;
      const managedFields = obj.metadata.managedFields;
      const keep = structuredClone(old);
      for (const k of Object.keys(obj)) delete content(obj)[k];
      Object.assign(obj, keep);
      if (managedFields !== undefined) obj.metadata.managedFields = managedFields;
      else delete obj.metadata.managedFields;
      if (status !== undefined) content(obj).status = status;
      else delete content(obj).status;
    },
    validateUpdate: (obj): FieldError[] => validateCustomResourceStatusUpdate(content(obj), schemaOf(obj), scaleOf(obj)),
  };
  const subresources: SubresourceDescriptor[] = hasStatus ? [{ name: 'status', verbs: ['get', 'patch', 'update'], strategy: statusStrategy }] : [];
  if (first.subresources?.scale) {
    const view = customResourceScale(spec.group, (v) => byName.get(v)?.subresources?.scale, spec.versions.map((v) => v.name));
    subresources.push({ name: 'scale', verbs: ['get', 'patch', 'update'], kind: { ...view.kind, generated: false }, view });
  }

  const kind: KindDescriptor = {
    group: spec.group,
    versions: served.map((v) => v.name),
    resource: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    kind: names.kind,
    listKind: names.listKind || `${names.kind}List`,
    namespaced: spec.scope === 'Namespaced',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    strategy,
    verbs: CUSTOM_RESOURCE_VERBS,
    subresources,
    table: customResourceTable(first.additionalPrinterColumns ?? []),
    deleteReturns: 'Status',
    hasGeneration: true,
    customResource: true,
    // apimachinery's finalizer rules (a name without '/' is allowed), as for every CR
    apimachineryFinalizers: true,
    ...(storage && storage !== served[0].name ? { storageVersion: storage } : {}),
    // One warning per kind: given only when every served version is deprecated (their first's).
    ...(served.every((v) => v.deprecated) ? { deprecationWarning: first.deprecationWarning ?? `${spec.group}/${first.name} ${names.kind} is deprecated` } : {}),
  };
  return [kind];
}
