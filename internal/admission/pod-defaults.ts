/**
 * Two of kube-apiserver 1.24's default admission plugins that shape every new Pod:
 *
 * - DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): a Pod that does not
 *   tolerate `node.kubernetes.io/not-ready` / `unreachable` NoExecute taints gets tolerations for
 *   them with tolerationSeconds 300 (main resource only, create and update).
 * - Priority (plugin/pkg/admission/priority): on create, a Pod without priorityClassName gets
 *   priority 0 and preemptionPolicy PreemptLowerPriority (no default PriorityClass exists); a named
 *   class must exist (only the built-in system-cluster-critical / system-node-critical do here),
 *   and a priority or preemptionPolicy the Pod carries must equal the class's (403 otherwise). On
 *   update, a dropped priority or preemptionPolicy is taken from the old Pod.
 */
import { forbidden } from '../api/errors.ts';
import type { AdmissionAttributes, MutatingPlugin, ValidatingPlugin } from './chain.ts';

type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const isMainPod = (a: AdmissionAttributes): boolean => a.kind.group === '' && a.kind.resource === 'pods' && !a.subresource && a.object !== null;
const specOf = (o: J): J => (o.spec && typeof o.spec === 'object' ? o.spec : (o.spec = {}));

/** DefaultTolerationSeconds. */
export const defaultTolerationSeconds: MutatingPlugin = {
  name: 'DefaultTolerationSeconds',
  admit(a) {
    if (!isMainPod(a) || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
    const spec = specOf(a.object as J);
    const tols: J[] = Array.isArray(spec.tolerations) ? spec.tolerations : [];
    const tolerates = (key: string): boolean => tols.some((t) => (t?.key === key || !t?.key) && (t?.effect === 'NoExecute' || !t?.effect));
    const add: J[] = [];
    if (!tolerates('node.kubernetes.io/not-ready')) add.push({ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
    if (!tolerates('node.kubernetes.io/unreachable')) add.push({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
    if (add.length) spec.tolerations = [...tols, ...add];
  },
};

/** The PriorityClasses kube-apiserver bootstraps (value, preemption policy). */
const SYSTEM_PRIORITY_CLASSES: Record<string, number> = { 'system-cluster-critical': 2000000000, 'system-node-critical': 2000001000 };

/** Priority (the Pod half; PriorityClass objects are not served here). */
export const priorityAdmission: MutatingPlugin = {
  name: 'Priority',
  admit(a) {
    if (!isMainPod(a)) return;
    const pod = a.object as J;
    const spec = specOf(pod);
    const gr = { group: '', resource: 'pods' };
    if (a.operation === 'UPDATE') {
      const old = specOf((a.oldObject ?? {}) as J);
      if (spec.priority == null && old.priority != null) spec.priority = old.priority;
      if (spec.preemptionPolicy == null && old.preemptionPolicy != null) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    if (a.operation !== 'CREATE') return;
    const name = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    let priority = 0;
    if (name) {
      if (!(name in SYSTEM_PRIORITY_CLASSES)) throw forbidden(gr, a.name, `no PriorityClass with name ${name} was found`);
      priority = SYSTEM_PRIORITY_CLASSES[name]!;
    }
    if (typeof spec.priority === 'number' && spec.priority !== priority) {
      throw forbidden(gr, a.name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec.priority = priority;
    const policy = 'PreemptLowerPriority';
    if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy && spec.preemptionPolicy !== policy) {
      throw forbidden(gr, a.name, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
    }
    spec.preemptionPolicy = policy;
  },
};

/**
 * RuntimeClass (plugin/pkg/admission/runtimeclass), create only. No RuntimeClass objects exist on
 * this server, so a Pod naming one is refused while admitting ("pod rejected: RuntimeClass "x" not
 * found"), and a Pod with spec.overhead is refused while validating (after the 422 checks), as
 * kube refuses an overhead no RuntimeClass defines.
 */
export const runtimeClassAdmission: MutatingPlugin & ValidatingPlugin = {
  name: 'RuntimeClass',
  admit(a) {
    if (!isMainPod(a) || a.operation !== 'CREATE') return;
    const spec = specOf(a.object as J);
    if (typeof spec.runtimeClassName === 'string') throw forbidden({ group: '', resource: 'pods' }, a.name, `pod rejected: RuntimeClass ${JSON.stringify(spec.runtimeClassName)} not found`);
  },
  validate(a) {
    if (!isMainPod(a) || a.operation !== 'CREATE') return;
    const spec = specOf(a.object as J);
    if (typeof spec.runtimeClassName === 'string') throw forbidden({ group: '', resource: 'pods' }, a.name, `pod rejected: RuntimeClass ${JSON.stringify(spec.runtimeClassName)} not found`);
    if (spec.overhead && typeof spec.overhead === 'object') throw forbidden({ group: '', resource: 'pods' }, a.name, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  },
};
