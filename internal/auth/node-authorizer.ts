/**
 * kube-apiserver 1.24's Node authorization mode (plugin/pkg/auth/authorizer/node): requests of a
 * kubelet (user `system:node:<name>` in group `system:nodes`) for secrets, configmaps, PVCs, PVs,
 * VolumeAttachments and service-account tokens are allowed only along kube's graph — object →
 * pod bound to the node → node (PV → PVC, kubelet-visible PV secret → PV) —, leases and CSINodes
 * only under the node's own name, and everything else by kube's static node rules
 * (bootstrappolicy.NodeRules). Anything not allowed is "no opinion" with kube's reason, so the next
 * mode (RBAC) decides.
 *
 * The graph is held as per-pod references kept current from the fold (like the RBAC cache); a
 * path exists exactly when one of the pods on the node (or, for a secret, the PV bound to one of
 * their claims) names the object.
 */
import type { UserInfo } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { ObjectKey } from '../storage/keys.ts';
import { followStore } from '../storage/follow.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { AuthorizationAttributes, Authorizer, Decision, RuleSet } from './authz.ts';
import { ruleAllows, type PolicyRule } from './rbac/rules.ts';

const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';

/** nodeidentifier.NewDefaultNodeIdentifier: the node name, or undefined for a non-node. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}

const READ = ['get', 'list', 'watch'];
const rule = (verbs: string[], group: string, ...resources: string[]): PolicyRule => ({ verbs, apiGroups: [group], resources });
/** bootstrappolicy.NodeRules (1.24 default feature gates). */
const NODE_RULES: PolicyRule[] = [
  rule(['create'], 'authentication.k8s.io', 'tokenreviews'),
  rule(['create'], 'authorization.k8s.io', 'subjectaccessreviews', 'localsubjectaccessreviews'),
  rule(READ, '', 'services'),
  rule(['create', 'get', 'list', 'watch'], '', 'nodes'),
  rule(['update', 'patch'], '', 'nodes/status'),
  rule(['update', 'patch'], '', 'nodes'),
  rule(['create', 'update', 'patch'], '', 'events'),
  rule(READ, '', 'pods'),
  rule(['create', 'delete'], '', 'pods'),
  rule(['update', 'patch'], '', 'pods/status'),
  rule(['create'], '', 'pods/eviction'),
  rule(READ, '', 'secrets', 'configmaps'),
  rule(['get'], '', 'persistentvolumeclaims', 'persistentvolumes'),
  rule(['get'], '', 'endpoints'),
  rule(['create', 'get', 'list', 'watch'], 'certificates.k8s.io', 'certificatesigningrequests'),
  rule(['get', 'create', 'update', 'patch', 'delete'], 'coordination.k8s.io', 'leases'),
  rule(['get'], 'storage.k8s.io', 'volumeattachments'),
  rule(['create'], '', 'serviceaccounts/token'),
  rule(['get', 'update', 'patch'], '', 'persistentvolumeclaims/status'),
  rule(['get', 'watch', 'list'], 'storage.k8s.io', 'csidrivers'),
  rule(['get', 'create', 'update', 'patch', 'delete'], 'storage.k8s.io', 'csinodes'),
  rule(READ, 'node.k8s.io', 'runtimeclasses'),
];

type Vertex = 'secret' | 'configmap' | 'pvc' | 'pv' | 'serviceaccount' | 'volumeattachment';

interface Ref {
  name: string;
}
export interface PodShape {
  metadata: { name: string; namespace: string; annotations?: Record<string, string> };
  spec?: {
    nodeName?: string;
    serviceAccountName?: string;
    imagePullSecrets?: Ref[];
    containers?: ContainerShape[];
    initContainers?: ContainerShape[];
    ephemeralContainers?: ContainerShape[];
    volumes?: VolumeShape[];
  };
}
interface ContainerShape {
  env?: { valueFrom?: { secretKeyRef?: Ref; configMapKeyRef?: Ref } }[];
  envFrom?: { secretRef?: Ref; configMapRef?: Ref }[];
}
type VolumeShape = Record<string, Record<string, unknown> | undefined> & { name: string };

interface PodRefs {
  node: string;
  /** `<vertex>/<name>` in the pod's namespace. */
  refs: Set<string>;
}

const MIRROR_POD = 'kubernetes.io/config.mirror';

/**
 * podutil.VisitPodSecretNames / VisitPodConfigmapNames, PVC claims and the service account, as
 * `<vertex>/<name>` (NodeRestriction checks a mirror pod's with it too).
 */
export function podReferences(p: PodShape): Set<string> {
  const out = new Set<string>();
  const add = (v: Vertex, name: unknown) => {
    if (typeof name === 'string' && name) out.add(`${v}/${name}`);
  };
  const spec = p.spec ?? {};
  add('serviceaccount', spec.serviceAccountName);
  for (const s of spec.imagePullSecrets ?? []) add('secret', s.name);
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])]) {
    for (const e of c.envFrom ?? []) {
      add('secret', e.secretRef?.name);
      add('configmap', e.configMapRef?.name);
    }
    for (const e of c.env ?? []) {
      add('secret', e.valueFrom?.secretKeyRef?.name);
      add('configmap', e.valueFrom?.configMapKeyRef?.name);
    }
  }
  const ref = (o: Record<string, unknown> | undefined, field: string) => (o?.[field] as Ref | undefined)?.name;
  for (const v of spec.volumes ?? []) {
    add('secret', v.azureFile?.secretName);
    add('secret', ref(v.cephfs, 'secretRef'));
    add('secret', ref(v.cinder, 'secretRef'));
    add('secret', ref(v.flexVolume, 'secretRef'));
    add('secret', ref(v.rbd, 'secretRef'));
    add('secret', v.secret?.secretName);
    add('secret', ref(v.scaleIO, 'secretRef'));
    add('secret', ref(v.iscsi, 'secretRef'));
    add('secret', ref(v.storageos, 'secretRef'));
    add('secret', ref(v.csi, 'nodePublishSecretRef'));
    add('configmap', v.configMap?.name);
    for (const s of (v.projected?.sources as { secret?: Ref; configMap?: Ref }[] | undefined) ?? []) {
      add('secret', s.secret?.name);
      add('configmap', s.configMap?.name);
    }
    add('pvc', (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName);
    // ephemeral.VolumeClaimName: `<pod>-<volume>`.
    if (v.ephemeral) add('pvc', `${p.metadata.name}-${v.name}`);
  }
  return out;
}

interface PvShape {
  metadata: { name: string };
  spec?: Record<string, Record<string, unknown> | undefined> & { claimRef?: { namespace?: string; name?: string } };
}

interface PvRefs {
  claim: string;
  /** `<namespace>/<secret>` the kubelet may read through this PV. */
  secrets: Set<string>;
}

/** pvutil.VisitPVSecretNames, the kubelet-visible ones. */
function pvRefs(pv: PvShape): PvRefs | undefined {
  const spec = pv.spec ?? {};
  const claim = spec.claimRef;
  if (!claim) return undefined;
  const claimNs = claim.namespace ?? '';
  const secrets = new Set<string>();
  const add = (ns: unknown, name: unknown) => {
    if (typeof name === 'string' && name) secrets.add(`${typeof ns === 'string' ? ns : ''}/${name}`);
  };
  const withDefault = (o: Record<string, unknown> | undefined, field: string) => {
    const r = o?.[field] as { name?: string; namespace?: string } | undefined;
    if (r) add(r.namespace || claimNs, r.name);
  };
  const az = spec.azureFile;
  if (az) add(az.secretNamespace || claimNs, az.secretName);
  for (const k of ['cephfs', 'flexVolume', 'rbd', 'scaleIO', 'iscsi']) withDefault(spec[k], 'secretRef');
  for (const k of ['cinder', 'storageos']) {
    const r = spec[k]?.secretRef as { name?: string; namespace?: string } | undefined;
    if (r) add(r.namespace, r.name);
  }
  for (const f of ['nodePublishSecretRef', 'nodeStageSecretRef']) {
    const r = spec.csi?.[f] as { name?: string; namespace?: string } | undefined;
    if (r) add(r.namespace, r.name);
  }
  return { claim: `${claimNs}/${claim.name ?? ''}`, secrets };
}

/** The graph kube's node authorizer walks, as an index kept current from the fold. */
export class NodeGraph {
  /** `<ns>/<pod>` → its node and references. */
  private readonly pods = new Map<string, PodRefs>();
  /** `<ns>/<vertex>/<name>` → pods (`<ns>/<pod>`) naming it. */
  private readonly referencedBy = new Map<string, Set<string>>();
  private readonly pvs = new Map<string, PvRefs>();
  /** VolumeAttachment name → node. */
  private readonly attachments = new Map<string, string>();
  /** node → count of pods and attachments (kube's node vertex exists while something points at it). */
  private readonly nodeEdges = new Map<string, number>();
  private unsubscribe: (() => void) | null = null;

  async start(storage: Storage): Promise<void> {
    this.unsubscribe = await followStore(storage, {
      resources: [
        { group: '', resource: 'pods' },
        { group: '', resource: 'persistentvolumes' },
        { group: 'storage.k8s.io', resource: 'volumeattachments' },
      ],
      wants: (key) => wanted(key),
      load: (r, json) => this.put(r.resource, JSON.parse(json.toString('utf8'))),
      apply: (c) => this.apply(c),
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private apply(c: Change): void {
    // graph_populator.updatePod: a bound pod's node, uid and references never change (spec.nodeName
    // is immutable once set), so its status updates — most pod writes — need no parse at all.
    if (c.type === 'MODIFIED' && c.key.resource === 'pods' && this.pods.has(`${c.key.namespace}/${c.key.name}`)) return;
    if (c.type === 'DELETED') {
      const ns = c.key.namespace ?? '';
      if (c.key.resource === 'pods') this.removePod(`${ns}/${c.key.name}`);
      else if (c.key.resource === 'persistentvolumes') this.pvs.delete(c.key.name);
      else this.removeAttachment(c.key.name);
    } else this.put(c.key.resource, JSON.parse(c.object.toString('utf8')));
  }

  private put(resource: string, o: Record<string, unknown>): void {
    if (resource === 'pods') this.putPod(o as unknown as PodShape);
    else if (resource === 'persistentvolumes') {
      const pv = o as unknown as PvShape;
      const refs = pvRefs(pv);
      if (refs) this.pvs.set(pv.metadata.name, refs);
      else this.pvs.delete(pv.metadata.name);
    } else {
      const va = o as { metadata: { name: string }; spec?: { nodeName?: string } };
      this.removeAttachment(va.metadata.name);
      if (va.spec?.nodeName) {
        this.attachments.set(va.metadata.name, va.spec.nodeName);
        this.bump(va.spec.nodeName, 1);
      }
    }
  }

  private putPod(p: PodShape): void {
    const node = p.spec?.nodeName;
    // graph_populator.updatePod: a pod without a node is not in the graph (nor removed from it).
    if (!node) return;
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    this.removePod(key);
    // Graph.AddPod: a mirror pod gets no edges (a node must not grant itself access by creating one).
    const refs = p.metadata.annotations?.[MIRROR_POD] !== undefined ? new Set<string>() : podReferences(p);
    this.pods.set(key, { node, refs });
    this.bump(node, 1);
    for (const r of refs) {
      const k = `${p.metadata.namespace}/${r}`;
      let s = this.referencedBy.get(k);
      if (!s) this.referencedBy.set(k, (s = new Set()));
      s.add(key);
    }
  }

  private removePod(key: string): void {
    const old = this.pods.get(key);
    if (!old) return;
    this.pods.delete(key);
    this.bump(old.node, -1);
    const ns = key.slice(0, key.indexOf('/'));
    for (const r of old.refs) {
      const k = `${ns}/${r}`;
      const s = this.referencedBy.get(k);
      s?.delete(key);
      if (s && s.size === 0) this.referencedBy.delete(k);
    }
  }

  private removeAttachment(name: string): void {
    const node = this.attachments.get(name);
    if (node === undefined) return;
    this.attachments.delete(name);
    this.bump(node, -1);
  }

  private bump(node: string, by: number): void {
    const n = (this.nodeEdges.get(node) ?? 0) + by;
    if (n > 0) this.nodeEdges.set(node, n);
    else this.nodeEdges.delete(node);
  }

  /** hasPathFrom: is `vertex` `namespace/name` related to `node`? */
  hasPath(node: string, vertex: Vertex, namespace: string, name: string): boolean {
    if (!this.nodeEdges.has(node)) return false;
    switch (vertex) {
      case 'volumeattachment':
        return this.attachments.get(name) === node;
      case 'pv': {
        const pv = this.pvs.get(name);
        return pv !== undefined && this.podRelated(node, pv.claim.slice(0, pv.claim.indexOf('/')), 'pvc', pv.claim.slice(pv.claim.indexOf('/') + 1));
      }
      case 'secret':
        if (this.podRelated(node, namespace, vertex, name)) return true;
        for (const [pvName, pv] of this.pvs) if (pv.secrets.has(`${namespace}/${name}`) && this.hasPath(node, 'pv', '', pvName)) return true;
        return false;
      default:
        return this.podRelated(node, namespace, vertex, name);
    }
  }

  private podRelated(node: string, namespace: string, vertex: Vertex, name: string): boolean {
    for (const pod of this.referencedBy.get(`${namespace}/${vertex}/${name}`) ?? []) if (this.pods.get(pod)?.node === node) return true;
    return false;
  }
}

function wanted(key: ObjectKey): boolean {
  return (key.group === '' && (key.resource === 'pods' || key.resource === 'persistentvolumes')) || (key.group === 'storage.k8s.io' && key.resource === 'volumeattachments');
}

const noOpinion = (reason: string): Decision => ({ allowed: false, reason });
const ALLOW: Decision = { allowed: true, reason: '' };
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** NodeAuthorizer.Authorize. */
export class NodeAuthorizer implements Authorizer {
  constructor(private readonly graph: NodeGraph) {}

  /** RulesFor: a node's permissions are not enumerable (the rules review says incomplete). */
  rulesFor(user: UserInfo): RuleSet {
    return nodeIdentity(user) === undefined
      ? { resourceRules: [], nonResourceRules: [], incomplete: false }
      : { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
  }

  authorize(a: AuthorizationAttributes): Decision {
    const node = nodeIdentity(a.user);
    if (node === undefined) return noOpinion('');
    if (!node) return noOpinion(`unknown node for user ${JSON.stringify(a.user.username)}`);
    if (a.isResourceRequest) {
      const gr = `${a.group}/${a.resource}`;
      switch (gr) {
        case '/secrets':
          return this.readNamespaced(node, 'secret', a);
        case '/configmaps':
          return this.readNamespaced(node, 'configmap', a);
        case '/persistentvolumeclaims':
          return a.subresource === 'status' ? this.statusUpdate(node, a) : this.get(node, 'pvc', a);
        case '/persistentvolumes':
          return this.get(node, 'pv', a);
        case 'storage.k8s.io/volumeattachments':
          return this.get(node, 'volumeattachment', a);
        case '/serviceaccounts':
          return this.createToken(node, a);
        case 'coordination.k8s.io/leases':
          return this.named(node, a, 'node lease', () =>
            a.namespace !== NODE_LEASE_NAMESPACE ? `can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace` : undefined,
          );
        case 'storage.k8s.io/csinodes':
          return this.named(node, a, 'CSINode', () => (a.subresource ? 'cannot authorize CSINode subresources' : undefined));
      }
    }
    return NODE_RULES.some((r) => ruleAllows(a, r)) ? ALLOW : noOpinion('');
  }

  /** authorizeLease / authorizeCSINode: only the node's own name (any name on create). */
  private named(node: string, a: AuthorizationAttributes, what: string, extra: () => string | undefined): Decision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion(`can only get, create, update, patch, or delete a ${what}`);
    const refused = extra();
    if (refused) return noOpinion(refused);
    if (a.verb !== 'create' && a.name !== node) return noOpinion(`can only access ${what} with the same name as the requesting node`);
    return ALLOW;
  }

  private statusUpdate(node: string, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, 'pvc', a);
  }

  private get(node: string, v: Vertex, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource) return noOpinion('cannot get subresource');
    return this.related(node, v, a);
  }

  private readNamespaced(node: string, v: Vertex, a: AuthorizationAttributes): Decision {
    if (!READ.includes(a.verb)) return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(node, v, a);
  }

  private createToken(node: string, a: AuthorizationAttributes): Decision {
    if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.graph.hasPath(node, 'serviceaccount', a.namespace, a.name) ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
  }

  private related(node: string, v: Vertex, a: AuthorizationAttributes): Decision {
    if (!a.name) return noOpinion('No Object name found');
    return this.graph.hasPath(node, v, a.namespace, a.name) ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
  }
}
