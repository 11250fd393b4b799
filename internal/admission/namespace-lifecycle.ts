/**
 * NamespaceLifecycle (kube-apiserver's plugin of that name): objects cannot be created in a
 * namespace that does not exist or is terminating, and protected namespaces cannot be deleted.
 * The fold re-checks existence/termination at commit time (the namespace may change between
 * admission and fold); this plugin gives the early, friendly answer.
 */
import type { MutatingPlugin, ValidatingPlugin, AdmissionAttributes } from './chain.ts';
import { forbidden, notFound, namespaceTerminating } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';

/**
 * The plugin, in both chains: kube runs NamespaceLifecycle as a mutating plugin, so a create in a
 * missing or terminating namespace is refused before the object is validated (`admit`); our store
 * consults only the validating chain on DELETE, where protected namespaces are refused (`validate`).
 */
export function namespaceLifecycle(storage: Storage): MutatingPlugin & ValidatingPlugin {
  return {
    name: 'NamespaceLifecycle',
    admit(a: AdmissionAttributes) {
      // Named creates on a subresource (pods/eviction, pods/binding, serviceaccounts/token) count too.
      if (a.operation !== 'CREATE' || !a.kind.namespaced) return;
      const ns = storage.entry({ group: '', resource: 'namespaces', namespace: '', name: a.namespace });
      if (!ns) throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
      if (ns.deleting) throw namespaceTerminating({ group: a.kind.group, resource: a.kind.resource }, nameForError(a), a.namespace);
    },
    validate(a: AdmissionAttributes) {
      if (a.operation === 'DELETE' && a.kind.undeletable?.includes(a.name) && !a.subresource) {
        throw forbidden({ group: a.kind.group, resource: a.kind.resource }, a.name, a.kind.undeletableReason ?? 'this namespace may not be deleted');
      }
    },
  };
}

/**
 * The name kube's admission errors print (admission.extractResourceName): kube refuses creates in a
 * terminating namespace in its mutating phase, before a generateName'd object has its name, so it
 * shows the generateName; "Unknown" when there is neither. Our store names the object first, so
 * a name that is generateName plus the 5 random characters counts as not yet chosen.
 */
export function nameForError(a: AdmissionAttributes): string {
  const gen = a.object?.metadata?.generateName;
  if (gen && (!a.name || (a.name.length === gen.length + 5 && a.name.startsWith(gen)))) return gen;
  return a.name || 'Unknown';
}
