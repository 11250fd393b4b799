/**
 * kube-controller-manager's pv-protection and pvc-protection controllers, in process
 * (pkg/controller/volume/pvprotection, pvcprotection; Kubernetes 1.24), so deleting a
 * PersistentVolume / PersistentVolumeClaim completes on this server:
 *   - a PV being deleted loses `kubernetes.io/pv-protection` once it is not Bound;
 *   - a PVC being deleted loses `kubernetes.io/pvc-protection` once no scheduled Pod uses it
 *     (a `persistentVolumeClaim` volume naming it, or an ephemeral volume whose claim it is,
 *     unless that Pod is shut down);
 *   - a live PV/PVC without its finalizer gets it (objects created before the admission plugin).
 * Pods (`core/pods`) are read through storage generically; when the kind is not served, no Pod
 * uses a claim.
 *
 * Several replicas (Kafka mode) each run this controller. Every decision is made after
 * `storage.latest()` on the object as stored, and every write is a merge patch of
 * metadata.finalizers carrying the uid and resourceVersion it was computed from (preconditions):
 * when two replicas act at once one write wins and the other gets 409/404, which re-queues the
 * item for a fresh look. Every step is idempotent.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import { ApiError } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../admission/storage.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { QueueController } from './controller.ts';
import { listAll } from './list-all.ts';
import { isObj } from '../gocompat/json.ts';

interface Task {
  key: string;
  kind: 'pv' | 'pvc';
  namespace: string;
  name: string;
}

const errCode = (e: unknown): number | undefined => (e instanceof ApiError ? e.code : undefined);
const finalizersOf = (o: KubeObject): string[] => (Array.isArray(o.metadata.finalizers) ? o.metadata.finalizers : []);

/** What a PV/PVC needs from the controller: its finalizer removed or added. */
function needsWork(o: KubeObject, finalizer: string): boolean {
  const has = finalizersOf(o).includes(finalizer);
  return o.metadata.deletionTimestamp ? has : !has;
}

/** Claims a Pod names (persistentVolumeClaim volumes, and `<pod>-<volume>` for ephemeral ones). */
function claimsOf(pod: KubeObject): string[] {
  const vols = isObj(pod.spec) && Array.isArray(pod.spec.volumes) ? pod.spec.volumes : [];
  const out: string[] = [];
  for (const v of vols) {
    if (!isObj(v)) continue;
    if (isObj(v.persistentVolumeClaim) && typeof v.persistentVolumeClaim.claimName === 'string') out.push(v.persistentVolumeClaim.claimName);
    if (isObj(v.ephemeral) && typeof v.name === 'string') out.push(`${pod.metadata.name}-${v.name}`);
  }
  return out;
}

/**
 * Cheap pre-check on a stored Pod: only Pods with claim or ephemeral volumes concern the
 * controller (most Pods; parsing each would cost the Pod write path).
 */
const namesClaims = (b: Buffer): boolean => b.indexOf('"persistentVolumeClaim"') >= 0 || b.indexOf('"ephemeral"') >= 0;

/** podIsShutDown: deleted with a zero grace period (kubelet done, or force-deleted). */
const podIsShutDown = (pod: KubeObject): boolean => Boolean(pod.metadata.deletionTimestamp) && pod.metadata.deletionGracePeriodSeconds === 0;

/** podUsesPVC of the pvc-protection controller. */
export function podUsesPVC(pod: KubeObject, pvc: KubeObject): boolean {
  const spec = isObj(pod.spec) ? pod.spec : {};
  if (typeof spec.nodeName !== 'string' || spec.nodeName === '') return false;
  const vols = Array.isArray(spec.volumes) ? spec.volumes : [];
  for (const v of vols) {
    if (!isObj(v)) continue;
    if (isObj(v.persistentVolumeClaim) && v.persistentVolumeClaim.claimName === pvc.metadata.name) return true;
    if (!podIsShutDown(pod) && isObj(v.ephemeral) && `${pod.metadata.name}-${v.name}` === pvc.metadata.name) {
      // ephemeral.VolumeIsForPod: the claim is controlled by this Pod.
      const owned = (pvc.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === pod.metadata.uid);
      if (owned) return true;
    }
  }
  return false;
}

export class StorageProtectionController extends QueueController<Task> {
  private readonly ctx = systemContext('kube-controller-manager');

  /** `only`: run as kube's pv-protection or pvc-protection controller alone (default both). */
  constructor(
    storage: Storage,
    private readonly registry: Registry,
    log: Logger,
    private readonly only?: 'pv' | 'pvc',
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    super(
      only ? `${only}-protection` : 'storage-protection',
      storage,
      log,
      (t) => this.process(t),
      (t, err) => {
        if (errCode(err) !== 409) log.warn({ err, kind: t.kind, namespace: t.namespace, name: t.name }, 'storage protection step failed; retrying');
      },
      queueOptions,
    );
  }

  private served(resource: string): ServedKind | undefined {
    return this.registry.lookup('', 'v1', resource);
  }

  /** Subscribe to changes, then look at every PV and PVC once (the start-up scan). */
  override start(): void {
    if (!this.served('persistentvolumes') && !this.served('persistentvolumeclaims')) return;
    super.start();
  }

  private enqueue(kind: 'pv' | 'pvc', namespace: string, name: string): void {
    if (this.only && kind !== this.only) return;
    this.queue.add({ key: `${kind}/${namespace}/${name}`, kind, namespace, name });
  }

  protected observe(c: Change): void {
    if (c.key.group !== '' || c.type === 'DELETED') {
      // A deleted Pod may free the claims it named.
      if (c.key.group === '' && c.key.resource === 'pods' && c.prev?.length && namesClaims(c.prev)) this.observePod(parseObject(c.prev));
      return;
    }
    const { resource, namespace, name } = c.key;
    if (resource === 'persistentvolumes') {
      if (needsWork(parseObject(c.object), PV_PROTECTION_FINALIZER)) this.enqueue('pv', '', name);
    } else if (resource === 'persistentvolumeclaims') {
      if (needsWork(parseObject(c.object), PVC_PROTECTION_FINALIZER)) this.enqueue('pvc', namespace, name);
    } else if (resource === 'pods' && namesClaims(c.object)) {
      this.observePod(parseObject(c.object));
    }
  }

  /** Re-check the claims a Pod names that are being deleted (the index knows, no read needed). */
  private observePod(pod: KubeObject): void {
    const ns = pod.metadata.namespace ?? '';
    for (const claim of claimsOf(pod)) {
      const e = this.storage.entry({ group: '', resource: 'persistentvolumeclaims', namespace: ns, name: claim });
      if (e?.deleting) this.enqueue('pvc', ns, claim);
    }
  }

  protected scan(): Promise<void> {
    return this.scanUntilDone('storage protection start-up scan', async () => {
      for (const [resource, kind, finalizer] of [
        ['persistentvolumes', 'pv', PV_PROTECTION_FINALIZER],
        ['persistentvolumeclaims', 'pvc', PVC_PROTECTION_FINALIZER],
      ] as const) {
        const served = this.served(resource);
        if (!served || (this.only && kind !== this.only)) continue;
        for await (const b of listAll(served.reader, '', {}, () => this.stopped)) {
          const o = parseObject(b);
          if (needsWork(o, finalizer)) this.enqueue(kind, o.metadata.namespace ?? '', o.metadata.name ?? '');
        }
        if (this.stopped) return;
      }
    });
  }

  private async process(t: Task): Promise<void> {
    // Decide on the log's end, not on a lagging local fold (Kafka replicas).
    await this.storage.latest();
    const served = this.served(t.kind === 'pv' ? 'persistentvolumes' : 'persistentvolumeclaims');
    if (!served) return;
    let o: KubeObject;
    try {
      o = parseObject(await served.store.getLatest(t.namespace, t.name));
    } catch (e) {
      if (errCode(e) === 404) return;
      throw e;
    }
    const finalizer = t.kind === 'pv' ? PV_PROTECTION_FINALIZER : PVC_PROTECTION_FINALIZER;
    const finalizers = finalizersOf(o);
    if (o.metadata.deletionTimestamp) {
      if (!finalizers.includes(finalizer)) return;
      const used = t.kind === 'pv' ? isObj(o.status) && o.status.phase === 'Bound' : await this.claimInUse(o);
      if (used) return;
      const rest = finalizers.filter((f) => f !== finalizer);
      return this.patchFinalizers(served, o, rest.length ? rest : null);
    }
    if (!finalizers.includes(finalizer)) return this.patchFinalizers(served, o, [...finalizers, finalizer]);
  }

  /** Is a scheduled Pod of the claim's namespace using it? */
  private async claimInUse(pvc: KubeObject): Promise<boolean> {
    const pods = this.served('pods');
    if (!pods) return false;
    for await (const b of listAll(pods.reader, pvc.metadata.namespace ?? '')) if (podUsesPVC(parseObject(b), pvc)) return true;
    return false;
  }

  /** Merge patch of metadata.finalizers; uid and resourceVersion are preconditions (409 → retry). */
  private async patchFinalizers(served: ServedKind, o: KubeObject, finalizers: string[] | null): Promise<void> {
    const metadata = { finalizers, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion };
    try {
      await served.store.patch(this.ctx, o.metadata.namespace ?? '', o.metadata.name ?? '', 'merge', Buffer.from(JSON.stringify({ metadata })));
    } catch (e) {
      if (errCode(e) !== 404) throw e;
    }
  }
}
