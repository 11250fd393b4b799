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
import type { Storage } from '../storage/storage.ts';
import { currentPrefix } from '../storage/keys.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { compareQuantities } from '../registry/core/volumes/quantity.ts';
import { isObj as isObject } from '../gocompat/json.ts';
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

/** A cluster-scoped object from storage, or undefined when there is none. */
async function getObject(storage: Storage, group: string, resource: string, name: string): Promise<J | undefined> {
  const b = await storage.get({ group, resource, namespace: '', name });
  return b && b.length ? (parseObject(b) as J) : undefined;
}

/** Every stored object of a cluster-scoped resource. */
async function listObjects(storage: Storage, group: string, resource: string): Promise<J[]> {
  const out: J[] = [];
  const view = await storage.view();
  try {
    const prefix = currentPrefix(group, resource, '');
    for await (const [, b] of view.scan(prefix, `${prefix}\uffff`)) out.push(parseObject(b) as J);
  } finally {
    await view.close();
  }
  return out;
}

/** getDefaultPriorityClass: the global default with the lowest value, if any. */
async function defaultPriorityClass(storage: Storage): Promise<J | undefined> {
  let dpc: J | undefined;
  for (const pc of await listObjects(storage, 'scheduling.k8s.io', 'priorityclasses')) {
    if (pc.globalDefault === true && (dpc === undefined || Number(dpc.value ?? 0) > Number(pc.value ?? 0))) dpc = pc;
  }
  return dpc;
}

const isPriorityClass = (a: AdmissionAttributes): boolean => a.kind.group === 'scheduling.k8s.io' && a.kind.resource === 'priorityclasses' && !a.subresource && a.object !== null;

/**
 * Priority (plugin/pkg/admission/priority): a Pod's priority and preemption policy from its
 * PriorityClass (or the global default; 0 without one), and at most one global default class.
 */
export function priorityAdmission(storage: Storage): MutatingPlugin & ValidatingPlugin {
  const gr = { group: '', resource: 'pods' };
  async function admitCreate(a: AdmissionAttributes, spec: J): Promise<void> {
    const name = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    let priority = 0;
    let policy: unknown = 'PreemptLowerPriority';
    if (name === '') {
      const dpc = await defaultPriorityClass(storage);
      if (dpc) {
        spec.priorityClassName = (dpc.metadata as J).name;
        priority = Number(dpc.value ?? 0);
        policy = dpc.preemptionPolicy;
      }
    } else {
      const pc = await getObject(storage, 'scheduling.k8s.io', 'priorityclasses', name);
      if (!pc) throw forbidden(gr, a.name, `no PriorityClass with name ${name} was found`);
      priority = Number(pc.value ?? 0);
      policy = pc.preemptionPolicy;
    }
    if (typeof spec.priority === 'number' && spec.priority !== priority) {
      throw forbidden(gr, a.name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec.priority = priority;
    if (typeof policy !== 'string') return;
    if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== policy) {
      throw forbidden(gr, a.name, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
    }
    spec.preemptionPolicy = policy;
  }
  async function validateDefault(a: AdmissionAttributes): Promise<void> {
    const dpc = await defaultPriorityClass(storage);
    const dname = dpc ? String((dpc.metadata as J).name) : '';
    if (dpc && (a.operation === 'CREATE' || dname !== a.object!.metadata.name)) {
      throw forbidden({ group: 'scheduling.k8s.io', resource: 'priorityclasses' }, a.name, `PriorityClass ${dname} is already marked as default. Only one default can exist`);
    }
  }
  return {
    name: 'Priority',
    admit(a) {
      if (!isMainPod(a)) return;
      const spec = specOf(a.object as J);
      if (a.operation === 'UPDATE') {
        const old = specOf((a.oldObject ?? {}) as J);
        if (spec.priority == null && old.priority != null) spec.priority = old.priority;
        if (spec.preemptionPolicy == null && old.preemptionPolicy != null) spec.preemptionPolicy = old.preemptionPolicy;
        return;
      }
      if (a.operation === 'CREATE') return admitCreate(a, spec);
    },
    validate(a) {
      if (!isPriorityClass(a) || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
      if ((a.object as J).globalDefault !== true) return;
      return validateDefault(a);
    },
  };
}

/** apiequality.Semantic of two ResourceLists (quantities compared by value; nil and {} differ as Go's maps do not). */
function sameResources(a: unknown, b: unknown): boolean {
  if (!isObject(a) || !isObject(b)) return !isObject(a) && !isObject(b);
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && compareQuantities(a[k], b[k]) === 0);
}

/** apiequality.Semantic of two tolerations. */
const sameToleration = (a: J, b: J): boolean =>
  (a.key ?? '') === (b.key ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === (b.effect ?? '') && (a.tolerationSeconds ?? null) === (b.tolerationSeconds ?? null);

/** tolerations.isSuperset: does `ss` tolerate everything `t` does? */
function isSuperset(ss: J, t: J): boolean {
  if (sameToleration(t, ss)) return true;
  if ((t.key ?? '') !== (ss.key ?? '') && ((ss.key ?? '') !== '' || ss.operator !== 'Exists')) return false;
  if ((t.effect ?? '') !== (ss.effect ?? '') && (ss.effect ?? '') !== '') return false;
  if (ss.effect === 'NoExecute' && typeof ss.tolerationSeconds === 'number') {
    if (typeof t.tolerationSeconds !== 'number' || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  if (ss.operator === 'Equal' || (ss.operator ?? '') === '') return t.operator === 'Equal' && (t.value ?? '') === (ss.value ?? '');
  return ss.operator === 'Exists';
}

/** tolerations.MergeTolerations: both lists, without the tolerations another one covers. */
function mergeTolerations(first: J[], second: J[]): J[] {
  const all = [...first, ...second];
  const merged: J[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((t2) => !sameToleration(t, t2) && isSuperset(t2, t))) return;
    merged.push(t);
  });
  return merged;
}

const OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

/**
 * RuntimeClass (plugin/pkg/admission/runtimeclass), create only: a Pod naming a RuntimeClass takes
 * its overhead and scheduling (nodeSelector merged, conflicts refused; tolerations merged); a Pod
 * naming none, or one without overhead, may not set spec.overhead.
 */
export function runtimeClassAdmission(storage: Storage): MutatingPlugin & ValidatingPlugin {
  const gr = { group: '', resource: 'pods' };
  async function lookup(a: AdmissionAttributes, spec: J): Promise<J | undefined> {
    if (typeof spec.runtimeClassName !== 'string') return undefined;
    const rc = await getObject(storage, 'node.k8s.io', 'runtimeclasses', spec.runtimeClassName);
    if (!rc) throw forbidden(gr, a.name, `pod rejected: RuntimeClass ${JSON.stringify(spec.runtimeClassName)} not found`);
    return rc;
  }
  async function admit(a: AdmissionAttributes, spec: J): Promise<void> {
    const rc = await lookup(a, spec);
    if (!rc) return;
    if (isObject(rc.overhead)) {
      const podFixed = rc.overhead.podFixed;
      if (spec.overhead != null && !sameResources(podFixed, spec.overhead)) throw forbidden(gr, a.name, OVERHEAD_MISMATCH);
      if (podFixed === undefined) delete spec.overhead;
      else spec.overhead = structuredClone(podFixed);
    }
    if (isObject(rc.scheduling)) {
      const runtimeSelector = isObject(rc.scheduling.nodeSelector) ? (rc.scheduling.nodeSelector as Record<string, string>) : undefined;
      if (!isObject(spec.nodeSelector)) {
        if (runtimeSelector) spec.nodeSelector = { ...runtimeSelector };
      } else {
        const sel = spec.nodeSelector as Record<string, string>;
        for (const [k, v] of Object.entries(runtimeSelector ?? {})) {
          if (k in sel && sel[k] !== v) throw forbidden(gr, a.name, `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${sel[k]}`);
          sel[k] = v;
        }
      }
      const podTols = Array.isArray(spec.tolerations) ? (spec.tolerations as J[]) : [];
      const rcTols = Array.isArray(rc.scheduling.tolerations) ? (rc.scheduling.tolerations as J[]) : [];
      const merged = mergeTolerations(podTols, structuredClone(rcTols));
      if (merged.length) spec.tolerations = merged;
      else delete spec.tolerations;
    }
  }
  async function validate(a: AdmissionAttributes, spec: J): Promise<void> {
    const rc = await lookup(a, spec);
    if (rc && isObject(rc.overhead)) {
      if (!sameResources(rc.overhead.podFixed, spec.overhead)) throw forbidden(gr, a.name, OVERHEAD_MISMATCH);
    } else if (spec.overhead != null) {
      throw forbidden(gr, a.name, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    }
  }
  return {
    name: 'RuntimeClass',
    admit(a) {
      if (!isMainPod(a) || a.operation !== 'CREATE') return;
      const spec = specOf(a.object as J);
      if (typeof spec.runtimeClassName !== 'string') return;
      return admit(a, spec);
    },
    validate(a) {
      if (!isMainPod(a) || a.operation !== 'CREATE') return;
      const spec = specOf(a.object as J);
      if (typeof spec.runtimeClassName !== 'string' && spec.overhead == null) return;
      return validate(a, spec);
    },
  };
}
