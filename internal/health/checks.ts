/**
 * The health checks this server reports, under kube-apiserver 1.24's names and in its order
 * (`/livez?verbose`, `/readyz?verbose` of a v1.24.17 kube-apiserver with its default flags), so
 * that clients and the upstream e2e "health handlers should contain necessary checks" spec see
 * the same list:
 *
 *   ping, log, etcd, [informer-sync], poststarthook/… (19 hooks), [shutdown]     ([…] = readyz only)
 *
 * What each name checks here:
 * - ping, log: always ok (kube-apiserver: the handler runs; klog is not stuck — pino writes
 *   asynchronously and cannot block a request).
 * - etcd: this server's storage plays etcd's role: the snapshot store answers a read and the log
 *   answers its end offset (Kafka: a broker round trip), each within 2 s; and the store has no
 *   problem (storage/store-health.ts: disk full, a failed write, damage found in its files). On
 *   /readyz any problem fails it; on /livez (and /healthz) only a fatal one (a restart must clear
 *   it, or damage, which a restart refuses naming the file): a full disk leaves the server alive,
 *   serving reads and resuming writes by itself once space is freed, where a liveness restart
 *   would only turn it into a crash loop that serves nothing.
 * - informer-sync: the watch hub and materializer are running, i.e. the storage is open (a Kafka
 *   replica folds up to the log's end before it starts listening).
 * - poststarthook/<name>: kube-apiserver's post-start hooks. This server does the equivalent work
 *   (admission chain, bootstrap namespaces, registry, discovery) before it starts listening, so
 *   each is done by the time any request can arrive.
 * - shutdown: fails once the server has begun to close (kube-apiserver's readyz shutdown check),
 *   so load balancers stop sending traffic before the listener closes.
 */
import type { HealthCheck } from './health.ts';

/** kube-apiserver 1.24's post-start hooks, in the order its /livez?verbose lists them. */
export const KUBE_POST_START_HOOKS: readonly string[] = [
  'start-kube-apiserver-admission-initializer',
  'generic-apiserver-start-informers',
  'priority-and-fairness-config-consumer',
  'priority-and-fairness-filter',
  'start-apiextensions-informers',
  'start-apiextensions-controllers',
  'crd-informer-synced',
  'bootstrap-controller',
  'rbac/bootstrap-roles',
  'scheduling/bootstrap-system-priority-classes',
  'priority-and-fairness-config-producer',
  'start-cluster-authentication-info-controller',
  'start-kube-aggregator-informers',
  'apiservice-registration-controller',
  'apiservice-status-available-controller',
  'kube-apiserver-autoregistration',
];

/** Checks that come after the post-start hooks in kube-apiserver's list (`autoregister-completion` is not a hook). */
const TRAILING: readonly string[] = ['autoregister-completion', 'poststarthook/apiservice-openapi-controller', 'poststarthook/apiservice-openapiv3-controller'];

/** What the checks look at. */
export interface HealthState {
  /** The storage is open and folding (false before start-up finished or after close). */
  storageOpen(): boolean;
  /** Probe the snapshot store and the log; rejects saying which did not answer. */
  probeStorage(): Promise<void>;
  /** close() has been called. */
  shuttingDown(): boolean;
  /**
   * Why the store refuses writes (undefined: it does not); `fatal` when only a restart clears it;
   * source `corrupt`: damage found, reads are refused too (storage/store-health.ts).
   */
  storageProblem(): { source?: string; reason: string; fatal: boolean } | undefined;
}

const ok = (): void => undefined;

/**
 * The livez and readyz check lists (/healthz serves the livez list: kube-apiserver's healthz has
 * no informer-sync or shutdown check). Pure: builds closures over `state`, mutates nothing.
 */
export function kubeHealthChecks(state: HealthState): { livez: HealthCheck[]; readyz: HealthCheck[] } {
  const open = (): void => {
    if (!state.storageOpen()) throw new Error('storage not open');
  };
  const etcdCheck = (readiness: boolean): HealthCheck => ({
    name: 'etcd',
    check: async () => {
      open();
      const p = state.storageProblem();
      if (p && (readiness || p.fatal)) throw new Error(`storage refuses ${p.source === 'corrupt' ? 'reads and writes' : 'writes'}: ${p.reason}`);
      await state.probeStorage();
    },
  });
  const hooks: HealthCheck[] = [...KUBE_POST_START_HOOKS.map((h) => `poststarthook/${h}`), ...TRAILING].map((name) => ({ name, check: ok }));
  const head = (readiness: boolean): HealthCheck[] => [{ name: 'ping', check: ok }, { name: 'log', check: ok }, etcdCheck(readiness)];
  const informerSync: HealthCheck = { name: 'informer-sync', check: open, readyzOnly: true };
  const shutdown: HealthCheck = {
    name: 'shutdown',
    readyzOnly: true,
    check: () => {
      if (state.shuttingDown()) throw new Error('process is shutting down');
    },
  };
  return { livez: [...head(false), ...hooks], readyz: [...head(true), informerSync, ...hooks, shutdown] };
}
