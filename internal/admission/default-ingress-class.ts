/**
 * DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass), on by default in 1.24:
 * an Ingress created without spec.ingressClassName and without the `kubernetes.io/ingress.class`
 * annotation gets the IngressClass annotated `ingressclass.kubernetes.io/is-default-class: "true"`;
 * two or more such classes refuse the create.
 */
import type { MutatingPlugin } from './chain.ts';
import { forbidden } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import { currentPrefix } from '../storage/keys.ts';
import { parseObject } from '../registry/generic/serialize.ts';

const IS_DEFAULT_INGRESS_CLASS = 'ingressclass.kubernetes.io/is-default-class';
const ANNOTATION_INGRESS_CLASS = 'kubernetes.io/ingress.class';

export function defaultIngressClass(storage: Storage): MutatingPlugin {
  async function defaults(): Promise<string[]> {
    const names: string[] = [];
    const view = await storage.view();
    try {
      const prefix = currentPrefix('networking.k8s.io', 'ingressclasses', '');
      for await (const [, b] of view.scan(prefix, `${prefix}\uffff`)) {
        const c = parseObject(b);
        if (c.metadata.annotations?.[IS_DEFAULT_INGRESS_CLASS] === 'true') names.push(c.metadata.name ?? '');
      }
    } finally {
      await view.close();
    }
    return names;
  }
  return {
    name: 'DefaultIngressClass',
    admit(a) {
      // Synchronous unless it applies (AdmissionChain awaits only promises).
      if (a.operation !== 'CREATE' || a.subresource || !a.object || a.kind.group !== 'networking.k8s.io' || a.kind.resource !== 'ingresses') return;
      const ing = a.object;
      if (typeof ing.spec !== 'object' || ing.spec === null) ing.spec = {};
      const spec = ing.spec as Record<string, unknown>;
      if (typeof spec.ingressClassName === 'string' || ANNOTATION_INGRESS_CLASS in (ing.metadata.annotations ?? {})) return;
      return defaults().then((names) => {
        if (names.length > 1) throw forbidden({ group: 'networking.k8s.io', resource: 'ingresses' }, a.name, `Internal error occurred: ${names.length} default IngressClasses were found, only 1 allowed`);
        if (names.length === 1) spec.ingressClassName = names[0];
      });
    },
  };
}
