/**
 * A MINIMAL stand-in for crserve's `customResourceKinds(crd)` (internal/registry/apiextensions/
 * custom-resource.ts, written on branch crserve): the registry descriptor of an Established CRD's
 * custom resources, served as plain JSON with no schema validation, pruning or defaulting and no
 * subresources. Enough for the CRD controller and its tests; the lead replaces it with crserve's
 * at merge (the controller imports only `customResourceKinds`).
 */
import type { KubeObject } from '../../api/types.ts';
import type { KindDescriptor } from '../rest/strategy.ts';
import { arr, obj, str } from '../storage/helpers.ts';

/** One descriptor: every served version of the CRD, the storage version's first (kube's preferred is by priority; close enough here). */
export function customResourceKinds(crd: KubeObject): KindDescriptor[] {
  const spec = obj(crd.spec);
  const names = obj(obj(crd.status).acceptedNames);
  const served = arr(spec.versions).map(obj).filter((v) => v.served === true).map((v) => str(v.name));
  if (!served.length || !str(names.plural)) return [];
  return [
    {
      group: str(spec.group),
      versions: served,
      resource: str(names.plural),
      singular: str(names.singular),
      kind: str(names.kind),
      listKind: str(names.listKind),
      namespaced: spec.scope === 'Namespaced',
      shortNames: arr(names.shortNames).map(str),
      categories: arr(names.categories).map(str),
      strategy: { allowCreateOnUpdate: false, allowUnconditionalUpdate: true, validate: () => [], validateUpdate: () => [] },
      deleteReturns: 'Object',
      apimachineryFinalizers: true,
      hasGeneration: true,
    },
  ];
}
