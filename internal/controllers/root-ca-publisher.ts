/**
 * kube-controller-manager's root-ca-cert-publisher (pkg/controller/certificates/
 * rootcacertpublisher/publisher.go, Kubernetes 1.24), in process: every namespace has the
 * ConfigMap `kube-root-ca.crt` whose `ca.crt` is this server's cluster CA (PEM, as the
 * kubeconfig's certificate-authority-data), with the `kubernetes.io/description` annotation.
 * Pods read it through the projected `kube-api-access-*` volume the ServiceAccount admission
 * plugin adds.
 *
 * Triggers, as kube's informer handlers: a namespace added, a namespace updated while Active, the
 * ConfigMap updated or deleted, and every namespace at start. A sync creates the ConfigMap when
 * it is missing (a create refused because the namespace is gone or terminating is success, so a
 * deleted namespace's ConfigMap is never written back), and otherwise rewrites `data` and the
 * annotation when either drifted, keeping everything else (other annotations, labels, binaryData)
 * as kube's Update does. The update carries the resourceVersion it was computed from.
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { NAMESPACE_ACTIVE } from '../registry/core/namespace.ts';
import type { WorkQueueOptions } from './work-queue.ts';
import { NamespaceReconciler, getOrNull, isNamespaceTerminating, namespacesOf } from './namespace-reconciler.ts';
import type { Controller } from './controller.ts';

/** RootCACertConfigMapName. */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/** The one key of its data. */
export const ROOT_CA_KEY = 'ca.crt';
/** DescriptionAnnotation and Description. */
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
export const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

/**
 * The namespace a committed change asks the publisher to sync. Namespace updates count only
 * while the namespace is Active (kube's namespaceUpdated reads the new object's phase).
 */
export function rootCaTrigger(c: Change): string | undefined {
  if (c.key.group !== '') return undefined;
  if (c.key.resource === 'namespaces') {
    if (c.type === 'ADDED') return c.key.name;
    if (c.type !== 'MODIFIED') return undefined;
    const phase = (parseObject(c.object).status as { phase?: unknown } | undefined)?.phase;
    return phase === NAMESPACE_ACTIVE ? c.key.name : undefined;
  }
  if (c.key.resource === 'configmaps' && c.key.name === ROOT_CA_CONFIGMAP && c.type !== 'ADDED') return c.key.namespace;
  return undefined;
}

/** What a sync does: create the ConfigMap, update it (the object to PUT), or nothing. */
export type RootCaAction = { op: 'create'; object: KubeObject } | { op: 'update'; object: KubeObject } | null;

const stringMap = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * syncNamespace's decision, given the stored ConfigMap (null: none) and the CA bundle. `data` must
 * be exactly `{ca.crt: <ca>}` (reflect.DeepEqual) and the description annotation non-empty.
 */
export function rootCaAction(namespace: string, current: KubeObject | null, caPem: string): RootCaAction {
  if (!current) {
    return {
      op: 'create',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
        data: { [ROOT_CA_KEY]: caPem },
      },
    };
  }
  const data = Object.entries(stringMap(current.data));
  const dataOk = data.length === 1 && data[0]![0] === ROOT_CA_KEY && data[0]![1] === caPem;
  const annotation = current.metadata.annotations?.[DESCRIPTION_ANNOTATION];
  if (dataOk && typeof annotation === 'string' && annotation.length > 0) return null;
  const object = structuredClone(current);
  object.data = { [ROOT_CA_KEY]: caPem };
  object.metadata.annotations = { ...(object.metadata.annotations ?? {}), [DESCRIPTION_ANNOTATION]: DESCRIPTION };
  return { op: 'update', object };
}

export class RootCaPublisher implements Controller {
  private readonly reconciler: NamespaceReconciler;
  private readonly configMaps: ServedKind;
  private readonly ctx = systemContext('kube-controller-manager');

  constructor(storage: Storage, registry: Registry, private readonly caPem: string, log: Logger, queueOptions?: WorkQueueOptions) {
    const cm = registry.lookup('', 'v1', 'configmaps');
    if (!cm) throw new Error('root-ca-cert-publisher: the configmaps resource is not registered');
    this.configMaps = cm;
    const namespaces = namespacesOf(registry, 'root-ca-cert-publisher');
    this.reconciler = new NamespaceReconciler(storage, namespaces, log, { name: 'root-ca-cert-publisher', trigger: rootCaTrigger, sync: (ns) => this.sync(ns) }, queueOptions);
  }

  start(): void {
    this.reconciler.start();
  }

  stop(): void {
    this.reconciler.stop();
  }

  /** Resolves when no sync is queued or running (tests, shutdown). */
  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  private async sync(ns: string): Promise<void> {
    const action = rootCaAction(ns, await getOrNull(this.configMaps, ns, ROOT_CA_CONFIGMAP), this.caPem);
    if (!action) return;
    if (action.op === 'update') {
      // The object carries the resourceVersion it was read at: a concurrent write is a 409 and a retry.
      await this.configMaps.store.update(this.ctx, ns, ROOT_CA_CONFIGMAP, action.object);
      return;
    }
    try {
      await this.configMaps.store.create(this.ctx, ns, action.object);
    } catch (err) {
      // Don't retry a create if the namespace doesn't exist or is terminating.
      if (err instanceof ApiError && err.code === 404) return;
      if (isNamespaceTerminating(err)) return;
      // AlreadyExists (another replica, or a client, created it since): retried like any error,
      // as kube does, so the next sync checks what was written.
      throw err;
    }
  }
}
