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
 * kind: Accept of Protobuf only is 406, a Protobuf body 400); strategic merge patch is refused
 * with kube's 415 (the descriptor's `bodyMediaTypes` and `patchTypes`).
 *
 * Versions (conversion.ts): objects are stored in the storage version and served in the
 * request's (`KindDescriptor.conversion`): a write is decoded, defaulted and validated at the
 * request's version, converted to the storage version before the append, and answered at the
 * request's; every read converts (None: apiVersion only; Webhook: a ConversionReview) and
 * defaults from storage. The status rules of a write follow its version's `subresources`, a
 * Table its version's printer columns.
 *
 * The `scale` subresource is custom-resource-scale.ts. managedFields and server-side apply take
 * the kind's field types from its schemas (custom-resource-types.ts).
 */
import type { KubeObject } from '../../api/types.ts';
import type { FieldError } from '../../api/field-errors.ts';
import { badRequest } from '../../api/errors.ts';
import { CoerceError, decodeCustomResource, validateCustomResource, validateCustomResourceStatusUpdate, validateCustomResourceUpdate, type ScaleSubresource } from '../../apiextensions/custom-resource.ts';
import type { JSONSchemaProps } from '../../apiextensions/types.ts';
import type { KindDescriptor, StatusStrategy, Strategy, SubresourceDescriptor } from '../rest/strategy.ts';
import { customResourceTable, type PrinterColumn } from './custom-resource-table.ts';
import { customResourceScale } from './custom-resource-scale.ts';
import { customResourceFieldTypes } from './custom-resource-types.ts';
import { crdConversion, type ConversionClientConfig, type ConversionWebhookCall } from './conversion.ts';

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
    conversion?: { strategy?: string; webhook?: { clientConfig?: ConversionClientConfig; conversionReviewVersions?: string[] } };
  };
  status?: { acceptedNames?: CustomResourceDefinition['spec']['names'] };
}

type Version = CustomResourceDefinition['spec']['versions'][number];

/**
 * apimachinery's CompareKubeAwareVersionStrings: GA > beta > alpha, then major, then minor
 * (v2 > v1 > v1beta2 > v1beta1 > v1alpha1); versions not of that form sort after those that are,
 * among themselves in reverse string order. Negative when `a` sorts below `b`.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const parse = (v: string): [number, number, number] | null => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return null;
    return [Number(m[1]), m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2, m[2] ? Number(m[3]) : 0];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (!pa && !pb) return b < a ? -1 : 1;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa[1] !== pb[1]) return pa[1] - pb[1];
  if (pa[0] !== pb[0]) return pa[0] - pb[0];
  return pa[2] - pb[2];
}

/** Verbs of a custom resource, in the order kube's discovery lists them (unsorted, unlike built-ins). */
export const CUSTOM_RESOURCE_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

const content = (o: KubeObject): Record<string, unknown> => o as unknown as Record<string, unknown>;

/**
 * The registry descriptors of a CRD's custom resources: one descriptor serving its served versions
 * (storage version's name for the storage version hash), or none when no version is served. The
 * names are the CRD's accepted names when it has them (kube serves status.acceptedNames).
 */
export function customResourceKinds(crd: CustomResourceDefinition, opts: { conversionWebhook?: ConversionWebhookCall } = {}): KindDescriptor[] {
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
  // The schema checks, the status rules of a write, the Table columns, the subresources and the
  // deprecation warning (`perVersion`, when versions differ) follow the version of the request;
  // the descriptor's own `table`/`subresources`/`deprecationWarning` are the first version's.
  const first = served[0];
  const hasStatus = !!first.subresources?.status;
  // A write's status rules are those of its version (the body is at the request's version).
  const statusOf = (o: KubeObject): boolean => !!versionOf(o).subresources?.status;
  const storage = spec.versions.find((v) => v.storage)?.name;
  // kube's warning on every answer of a deprecated version: its own text, or the default, which
  // names the highest served non-deprecated version above it (defaultDeprecationWarning).
  const deprecation = (v: Version): string | undefined => {
    if (!v.deprecated) return undefined;
    if (v.deprecationWarning !== undefined) return v.deprecationWarning;
    const msg = `${spec.group}/${v.name} ${names.kind} is deprecated`;
    const newer = spec.versions.filter((x) => x.served && !x.deprecated && compareKubeAwareVersions(v.name, x.name) < 0).sort((a, b) => compareKubeAwareVersions(b.name, a.name));
    return newer.length ? `${msg}; use ${spec.group}/${newer[0].name} ${names.kind}` : msg;
  };
  // Columns, the status subresource or deprecation differing between versions: each version serves its own.
  const perVersion = served.some(
    (v) => JSON.stringify(v.additionalPrinterColumns ?? []) !== JSON.stringify(first.additionalPrinterColumns ?? []) || !!v.subresources?.status !== hasStatus || !!v.subresources?.scale !== !!first.subresources?.scale || deprecation(v) !== deprecation(first),
  );
  const singular = names.singular || names.kind.toLowerCase();
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
    // kube prunes, coerces and defaults a custom resource in its decoder, before managedFields and admission.
    defaultsOnDecode: true,
    prepareForCreate(obj) {
      if (statusOf(obj)) delete content(obj).status;
    },
    prepareForUpdate(obj, old) {
      if (!statusOf(obj)) return;
      if (old.status !== undefined) content(obj).status = structuredClone(old.status);
      else delete content(obj).status;
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
  const statusSubresource: SubresourceDescriptor = { name: 'status', verbs: ['get', 'patch', 'update'], strategy: statusStrategy };
  const scaleView = served.some((v) => v.subresources?.scale) ? customResourceScale(spec.group, (v) => byName.get(v)?.subresources?.scale, spec.versions.map((v) => v.name)) : undefined;
  const scaleSubresource: SubresourceDescriptor | undefined = scaleView && { name: 'scale', verbs: ['get', 'patch', 'update'], kind: { ...scaleView.kind, generated: false }, view: scaleView };
  // A version's subresources: status and scale as its `subresources` says.
  const subresourcesOf = (v: Version): SubresourceDescriptor[] => [
    ...(v.subresources?.status ? [statusSubresource] : []),
    ...(v.subresources?.scale && scaleSubresource ? [scaleSubresource] : []),
  ];
  const subresources = subresourcesOf(first);

  const kind: KindDescriptor = {
    group: spec.group,
    versions: served.map((v) => v.name),
    resource: names.plural,
    singular,
    kind: names.kind,
    listKind: names.listKind || `${names.kind}List`,
    namespaced: spec.scope === 'Namespaced',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    strategy,
    verbs: CUSTOM_RESOURCE_VERBS,
    subresources,
    table: customResourceTable(first.additionalPrinterColumns ?? []),
    ...(perVersion ? { perVersion: Object.fromEntries(served.map((v) => [v.name, { table: customResourceTable(v.additionalPrinterColumns ?? []), subresources: subresourcesOf(v), deprecationWarning: deprecation(v) }])) } : {}),
    deleteReturns: 'Status',
    hasGeneration: true,
    customResource: true,
    fieldTypes: customResourceFieldTypes(spec.group, names.kind, served),
    patchTypes: ['json', 'merge', 'apply'],
    bodyMediaTypes: ['application/json', 'application/yaml'],
    unstructuredLists: true,
    discovery: { singularName: singular, verbsInOrder: true },
    // apimachinery's finalizer rules (a name without '/' is allowed), as for every CR
    apimachineryFinalizers: true,
    ...(storage && storage !== served[0].name ? { storageVersion: storage } : {}),
    customResourceSchemas: {
      preserveUnknownFields: !!spec.preserveUnknownFields,
      versions: served.map((v) => ({ name: v.name, schema: v.schema?.openAPIV3Schema, status: !!v.subresources?.status, scale: !!v.subresources?.scale })),
    },
    // Stored in the storage version, served in each (None: apiVersion only; Webhook: a review).
    conversion: crdConversion(crd, opts.conversionWebhook),
    // The first served version's warning (others' in perVersion).
    ...(deprecation(first) ? { deprecationWarning: deprecation(first) } : {}),
  };
  return [kind];
}
