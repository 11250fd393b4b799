/**
 * NamespaceLifecycle (kube-apiserver's plugin of that name): objects cannot be created in a
 * namespace that does not exist or is terminating, and protected namespaces cannot be deleted.
 * The fold re-checks existence/termination at commit time (the namespace may change between
 * admission and fold); this plugin gives the early, friendly answer.
 */
import type { ValidatingPlugin, AdmissionAttributes } from './chain.ts';
import { forbidden, notFound } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';

export function namespaceLifecycle(storage: Storage): ValidatingPlugin {
  return {
    name: 'NamespaceLifecycle',
    validate(a: AdmissionAttributes) {
      const gr = { group: a.kind.group, resource: a.kind.resource };
      if (a.operation === 'DELETE' && a.kind.undeletable?.includes(a.name) && !a.subresource) {
        throw forbidden(gr, a.name, 'this namespace may not be deleted');
      }
      if (a.operation !== 'CREATE' || !a.kind.namespaced || a.subresource) return;
      const ns = storage.entry({ group: '', resource: 'namespaces', namespace: '', name: a.namespace });
      if (!ns) throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
      if (ns.deleting) throw namespaceTerminating(gr, a.name, a.namespace);
    },
  };
}

/** 403 with the NamespaceTerminating cause, as Kubernetes answers. */
export function namespaceTerminating(gr: { group: string; resource: string }, name: string, namespace: string) {
  return forbidden(gr, name, `unable to create new content in namespace ${namespace} because it is being terminated`, [
    { reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' },
  ]);
}
