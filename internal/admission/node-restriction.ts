/**
 * NodeRestriction (plugin/pkg/admission/noderestriction), as kubeadm enables it: what a kubelet
 * identity (system:node:<name> in system:nodes) may write. Its own Node only (no taints, no
 * configSource, no `node-restriction.kubernetes.io/` or non-kubelet `kubernetes.io`/`k8s.io`
 * labels), mirror pods bound to itself with no secrets/configmaps/claims/service account, the status
 * of its own pods (labels unchanged), evictions of its own pods, PVC status capacity/conditions,
 * tokens bound to its own pods, its own Lease and CSINode; kube's messages. Everyone else passes.
 */
import type { MutatingPlugin } from './chain.ts';
import type { AdmissionAttributes } from '../registry/rest/admission.ts';
import type { KubeObject } from '../api/types.ts';
import { forbidden, notFound } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { nodeIdentity, podReferences, type PodShape } from '../auth/node-authorizer.ts';

const MIRROR_POD = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const NODE_RESTRICTION_NAMESPACE = 'node-restriction.kubernetes.io';
/** k8s.io/kubelet/pkg/apis: the labels (and label namespaces) a kubelet may set on its Node. */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

type J = Record<string, any>;

const labelNamespace = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (ns: string, of: string): boolean => ns === of || ns.endsWith(`.${of}`);
const isKubeletLabel = (key: string): boolean => KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((n) => inNamespace(labelNamespace(key), n));
const isKubernetesLabel = (key: string): boolean => inNamespace(labelNamespace(key), 'kubernetes.io') || inNamespace(labelNamespace(key), 'k8s.io');

/** getModifiedLabels + getForbiddenLabels, sorted (sets.String.List). */
function forbiddenLabels(now: Record<string, string> = {}, before: Record<string, string> = {}): string[] {
  const modified = new Set<string>();
  for (const [k, v] of Object.entries(now)) if (before[k] !== v) modified.add(k);
  for (const [k, v] of Object.entries(before)) if (now[k] !== v) modified.add(k);
  return [...modified].filter((k) => inNamespace(labelNamespace(k), NODE_RESTRICTION_NAMESPACE) || (isKubernetesLabel(k) && !isKubeletLabel(k))).sort();
}

/** apiequality.Semantic.DeepEqual on JSON: nil and empty lists/maps are equal. */
function semanticEqual(a: unknown, b: unknown): boolean {
  const empty = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
  if (empty(a) && empty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => semanticEqual((a as J)[k], (b as J)[k]));
  }
  return a === b;
}

/** The JSON paths where `a` and `b` differ (semantically). */
function changedPaths(a: unknown, b: unknown, at: string): string[] {
  if (semanticEqual(a, b)) return [];
  const isMap = (v: unknown): v is J => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isMap(a) || !isMap(b)) return [at || '.'];
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((k) => changedPaths(a[k], b[k], `${at}.${k}`));
}

export function nodeRestriction(storage: Storage): MutatingPlugin {
  const load = async (resource: string, namespace: string, name: string): Promise<KubeObject | undefined> => {
    const b = await storage.get({ group: '', resource, namespace, name });
    return b ? parseObject(b) : undefined;
  };
  /** The lister's NotFound (kube's listers name the singular resource). */
  const lookup = async (resource: 'pods' | 'nodes', namespace: string, name: string): Promise<J> => {
    const o = await load(resource, namespace, name);
    if (!o) throw notFound({ group: '', resource: resource.slice(0, -1) }, name);
    return o as J;
  };

  async function admit(a: AdmissionAttributes, node: string): Promise<void> {
    // admission.NewForbidden: the request's name, else the object's (or its generateName), else "Unknown".
    const o = a.object as J | null;
    const refuse = (message: string) => forbidden({ group: a.kind.group, resource: a.kind.resource }, a.name || o?.metadata?.name || o?.metadata?.generateName || 'Unknown', message);
    if (!node) throw refuse(`could not determine node from user ${JSON.stringify(a.user.username)}`);
    const old = a.oldObject as J | null;
    switch (`${a.kind.group}/${a.kind.resource}`) {
      case '/pods':
        switch (a.subresource) {
          case '':
            if (a.operation === 'CREATE') return admitMirrorPod(o!, node, refuse);
            if (a.operation === 'DELETE') {
              const pod = await lookup('pods', a.namespace, a.name);
              if (pod.spec?.nodeName !== node) throw refuse(`node ${JSON.stringify(node)} can only delete pods with spec.nodeName set to itself`);
              return;
            }
            throw refuse(`unexpected operation ${JSON.stringify(a.operation)}, node ${JSON.stringify(node)} can only create and delete mirror pods`);
          case 'status':
            if (a.operation !== 'UPDATE') throw refuse(`unexpected operation ${JSON.stringify(a.operation)}`);
            if (old!.spec?.nodeName !== node) throw refuse(`node ${JSON.stringify(node)} can only update pod status for pods with spec.nodeName set to itself`);
            if (!semanticEqual(old!.metadata?.labels, o!.metadata?.labels)) throw refuse(`node ${JSON.stringify(node)} cannot update labels through pod status`);
            return;
          case 'eviction': {
            if (a.operation !== 'CREATE') throw refuse(`unexpected operation ${a.operation}`);
            const podName = a.name || o?.metadata?.name;
            if (!podName) throw refuse('could not determine pod from request data');
            const pod = await lookup('pods', a.namespace, podName);
            if (pod.spec?.nodeName !== node) throw refuse(`node ${node} can only evict pods with spec.nodeName set to itself`);
            return;
          }
          default:
            throw refuse(`unexpected pod subresource ${JSON.stringify(a.subresource)}, only 'status' and 'eviction' are allowed`);
        }
      case '/nodes':
        return admitNode(a, node, o, old, refuse);
      case '/persistentvolumeclaims': {
        if (a.subresource !== 'status') throw refuse('may only update PVC status');
        if (a.operation !== 'UPDATE') throw refuse(`unexpected operation ${JSON.stringify(a.operation)}`);
        const strip = (p: J) => {
          const c = structuredClone(p);
          delete c.metadata?.resourceVersion;
          delete c.metadata?.managedFields;
          delete c.status?.capacity;
          delete c.status?.conditions;
          return c;
        };
        // kube appends a go-cmp diff of its internal objects; here the paths that differ.
        const changed = changedPaths(strip(old!), strip(o!), '');
        if (changed.length) throw refuse(`node ${JSON.stringify(node)} is not allowed to update fields other than status.capacity and status.conditions: ${changed.join(', ')}`);
        return;
      }
      case '/serviceaccounts': {
        if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
        const ref = (o?.spec as J | undefined)?.boundObjectRef as J | undefined;
        if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw refuse('node requested token not bound to a pod');
        if (!ref.uid) throw refuse('node requested token with a pod binding without a uid');
        const pod = await lookup('pods', a.namespace, ref.name);
        if (ref.uid !== pod.metadata?.uid) throw refuse(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
        if (pod.spec?.nodeName !== node) throw refuse('node requested token bound to a pod scheduled on a different node');
        return;
      }
      case 'coordination.k8s.io/leases':
        if (a.namespace !== NODE_LEASE_NAMESPACE) throw refuse(`can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`);
        if ((a.operation === 'CREATE' ? o?.metadata?.name : a.name) !== node) throw refuse('can only access node lease with the same name as the requesting node');
        return;
      case 'storage.k8s.io/csinodes':
        if ((a.operation === 'CREATE' ? o?.metadata?.name : a.name) !== node) throw refuse('can only access CSINode with the same name as the requesting node');
        return;
    }
  }

  async function admitMirrorPod(pod: J, node: string, refuse: (m: string) => Error): Promise<void> {
    const n = JSON.stringify(node);
    if (pod.metadata?.annotations?.[MIRROR_POD] === undefined) throw refuse(`pod does not have ${JSON.stringify(MIRROR_POD)} annotation, node ${n} can only create mirror pods`);
    if (pod.spec?.nodeName !== node) throw refuse(`node ${n} can only create pods with spec.nodeName set to itself`);
    const owners = (pod.metadata?.ownerReferences ?? []) as J[];
    if (owners.length > 1) throw refuse(`node ${n} can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) throw refuse(`node ${n} can only create pods with an owner reference set to itself`);
    const owner = owners[0]!;
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) throw refuse(`node ${n} can only create pods with an owner reference set to itself`);
    if (owner.controller !== true) throw refuse(`node ${n} can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw refuse(`node ${n} must not set blockOwnerDeletion on an owner reference`);
    const self = await lookup('nodes', '', node);
    if (owner.uid !== self.metadata?.uid) throw refuse(`node ${node} UID mismatch: expected ${owner.uid} got ${self.metadata?.uid}`);
    if (pod.spec?.serviceAccountName) throw refuse(`node ${n} can not create pods that reference a service account`);
    const refs = [...podReferences(pod as PodShape)];
    if (refs.some((r) => r.startsWith('secret/'))) throw refuse(`node ${n} can not create pods that reference secrets`);
    if (refs.some((r) => r.startsWith('configmap/'))) throw refuse(`node ${n} can not create pods that reference configmaps`);
    if (((pod.spec?.volumes ?? []) as J[]).some((v) => v.persistentVolumeClaim)) throw refuse(`node ${n} can not create pods that reference persistentvolumeclaims`);
  }

  function admitNode(a: AdmissionAttributes, node: string, o: J | null, old: J | null, refuse: (m: string) => Error): void {
    const n = JSON.stringify(node);
    if (a.name !== node) throw refuse(`node ${n} is not allowed to modify node ${JSON.stringify(a.name)}`);
    if (a.operation === 'CREATE') {
      if (o!.spec?.configSource) throw refuse(`node ${n} is not allowed to create pods with a non-nil configSource`);
      const bad = forbiddenLabels(o!.metadata?.labels);
      if (bad.length) throw refuse(`node ${n} is not allowed to set the following labels: ${bad.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      if (o!.spec?.configSource && !semanticEqual(o!.spec.configSource, old!.spec?.configSource)) throw refuse(`node ${n} is not allowed to update configSource to a new non-nil configSource`);
      if (!semanticEqual(o!.spec?.taints, old!.spec?.taints)) throw refuse(`node ${n} is not allowed to modify taints`);
      const bad = forbiddenLabels(o!.metadata?.labels, old!.metadata?.labels);
      if (bad.length) throw refuse(`is not allowed to modify labels: ${bad.join(', ')}`);
    }
  }

  return {
    name: 'NodeRestriction',
    admit(a) {
      // Synchronous (nothing awaited) for everyone who is not a node.
      const node = nodeIdentity(a.user);
      if (node === undefined) return;
      return admit(a, node);
    },
  };
}
