/**
 * kube-controller-manager's serviceaccounts controller (pkg/controller/serviceaccount/
 * serviceaccounts_controller.go, Kubernetes 1.24), in process: every Active namespace has the
 * ServiceAccounts it must have (`default`), created when the namespace appears and again when one
 * is deleted. A namespace that is not Active (Terminating) is left alone: its accounts go with it.
 *
 * Triggers, as kube's informer handlers: a namespace added or updated, a ServiceAccount deleted
 * (its namespace), and every namespace at start. A create refused because the namespace is
 * terminating, or because the account exists already (another replica won), is success.
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { DEFAULT_SERVICE_ACCOUNT_NAME } from '../registry/core/serviceaccount.ts';
import { NAMESPACE_ACTIVE } from '../registry/core/namespace.ts';
import type { WorkQueueOptions } from './work-queue.ts';
import { NamespaceReconciler, getOrNull, isNamespaceTerminating, namespacesOf } from './namespace-reconciler.ts';
import type { Controller } from './controller.ts';

/** DefaultServiceAccountsControllerOptions: the accounts every namespace gets. */
export const SERVICE_ACCOUNTS_TO_ENSURE: readonly string[] = [DEFAULT_SERVICE_ACCOUNT_NAME];

/** The namespace a committed change asks the controller to sync (kube's event handlers). */
export function serviceAccountsTrigger(c: Change): string | undefined {
  if (c.key.group !== '') return undefined;
  if (c.key.resource === 'namespaces') return c.type === 'DELETED' ? undefined : c.key.name;
  if (c.key.resource === 'serviceaccounts' && c.type === 'DELETED') return c.key.namespace;
  return undefined;
}

/**
 * syncNamespace's decision: the accounts to create in `namespace` (null: it does not exist),
 * given which names exist. Only an Active namespace gets any.
 */
export function serviceAccountsToCreate(namespace: KubeObject | null, exists: (name: string) => boolean, ensure: readonly string[] = SERVICE_ACCOUNTS_TO_ENSURE): string[] {
  if (!namespace) return [];
  if ((namespace.status as { phase?: unknown } | undefined)?.phase !== NAMESPACE_ACTIVE) return [];
  return ensure.filter((name) => !exists(name));
}

/** The object the controller creates (kube's `ServiceAccount{ObjectMeta{Name}}`, namespace set). */
export function serviceAccountFor(name: string, namespace: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } };
}

export class ServiceAccountsController implements Controller {
  private readonly reconciler: NamespaceReconciler;
  private readonly accounts: ServedKind;
  private readonly namespaces: ServedKind;
  private readonly ctx = systemContext('kube-controller-manager');

  constructor(storage: Storage, registry: Registry, log: Logger, queueOptions?: WorkQueueOptions) {
    const sa = registry.lookup('', 'v1', 'serviceaccounts');
    if (!sa) throw new Error('serviceaccounts controller: the serviceaccounts resource is not registered');
    this.accounts = sa;
    this.namespaces = namespacesOf(registry, 'serviceaccounts controller');
    this.reconciler = new NamespaceReconciler(storage, this.namespaces, log, { name: 'serviceaccount', trigger: serviceAccountsTrigger, sync: (ns) => this.sync(ns) }, queueOptions);
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
    const namespace = await getOrNull(this.namespaces, '', ns);
    const present = new Set<string>();
    for (const name of SERVICE_ACCOUNTS_TO_ENSURE) if (await getOrNull(this.accounts, ns, name)) present.add(name);
    const failures: ApiError[] = [];
    for (const name of serviceAccountsToCreate(namespace, (n) => present.has(n))) {
      try {
        await this.accounts.store.create(this.ctx, ns, serviceAccountFor(name, ns));
      } catch (err) {
        if (err instanceof ApiError && err.reason === 'AlreadyExists') continue;
        if (isNamespaceTerminating(err)) continue;
        if (!(err instanceof ApiError)) throw err;
        failures.push(err);
      }
    }
    if (failures.length) throw failures[0];
  }
}
