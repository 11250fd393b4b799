/**
 * Start-up step: every controller of the server, registered with the manager under kube's name —
 * kube-controller-manager's (selected by --controllers) and kube-apiserver's own (always on). Each
 * runs when its kind is served (a server built with a subset of kinds has fewer).
 *
 * Stage `before-serving`: what /readyz waits for in kube (the aggregation of bootstrap roles, the
 * namespace controller's first pass, the authentication ConfigMap) or what must see every change
 * from the start (tokens). Stage `serving`: kube-controller-manager's controllers start once the
 * server serves, as kube's start after the apiserver is ready; their start-up scans (every object
 * of their kinds) are not on the path to /readyz.
 */
import type pino from 'pino';
import type { Pki } from '../auth/pki.ts';
import type { RbacCache } from '../auth/rbac/cache.ts';
import { FeatureGates } from '../features/gates.ts';
import type { Storage } from '../storage/storage.ts';
import type { Registry } from '../registry/registry.ts';
import { ControllerManager } from '../controllers/manager.ts';
import { ClusterRoleAggregator } from '../controllers/clusterrole-aggregation.ts';
import { NamespaceController } from '../controllers/namespace.ts';
import { GarbageCollector } from '../controllers/garbage-collector.ts';
import { StorageProtectionController } from '../controllers/storage-protection.ts';
import { CRDController } from '../controllers/crd-controller.ts';
import { startServiceControllers } from '../controllers/kubernetes-service.ts';
import { EventTtlController, DEFAULT_EVENT_TTL_MS } from '../controllers/event-ttl.ts';
import { DisruptionController } from '../controllers/disruption.ts';
import { ServiceAccountsController } from '../controllers/service-accounts.ts';
import { ResourceQuotaController } from '../controllers/resource-quota.ts';
import { RootCaPublisher } from '../controllers/root-ca-publisher.ts';
import { ServiceAccountTokensController } from '../controllers/service-account-tokens.ts';
import { ClusterAuthenticationTrustController } from '../controllers/cluster-authentication-trust.ts';
import { TokenCleaner } from '../controllers/token-cleaner.ts';
import { ApfConfigConsumer, ApfConfigProducer, type ConfigurationSink } from '../controllers/apf-configuration.ts';
import { APIServiceAutoRegister } from '../controllers/apiservice-autoregister.ts';
import { APIServiceAvailability } from '../controllers/apiservice-availability.ts';
import type { APIServiceIndex } from '../http/aggregator.ts';
import type { FlowController } from '../flowcontrol/controller.ts';
import type { ServiceAccountTokens } from './service-accounts.ts';
import type { ClientTrust } from './authentication.ts';
import type { ServerOptions } from './options.ts';

export interface ControllerDeps {
  storage: Storage;
  registry: Registry;
  rbacCache: RbacCache;
  pki: Pki;
  trust: ClientTrust;
  saTokens: ServiceAccountTokens;
  log: pino.Logger;
  /** The listening port, known in the `serving` stage (`--secure-port 0`). */
  port: () => number;
  /** Priority and Fairness's limiter, known in the `serving` stage (none with max-in-flight). */
  flowController?: () => FlowController | undefined;
  /** The aggregator's APIService index (the availability controller reads it). */
  aggregator?: APIServiceIndex;
}

/** The --controllers selection with the test options' switches first (the first entry naming a controller wins). */
export function controllerSelection(opts: ServerOptions): string[] {
  const off: string[] = [];
  if (opts.garbageCollector === false) off.push('-garbagecollector');
  if (opts.namespaceDefaults === false) off.push('-serviceaccount', '-root-ca-cert-publisher', '-serviceaccount-token');
  return [...off, ...(opts.controllers ?? ['*'])];
}

/**
 * A serving thread's (app/workers.ts) controllers: only the serving of Established CRDs' kinds, as
 * the fold makes them; the leader's controllers write (conditions, cleanup, everything else).
 */
export function servingThreadControllers(opts: ServerOptions, storage: Storage, registry: Registry, log: pino.Logger, apfSink: ConfigurationSink): { manager: ControllerManager; onCaReload: () => void } {
  const manager = new ControllerManager(controllerSelection(opts), log)
    .add({ name: 'start-apiextensions-controllers', runBy: 'kube-apiserver', stage: 'before-serving', make: () => new CRDController(storage, registry, log, undefined, { serveOnly: true }) })
    // The thread's limiter follows the FlowSchema/PriorityLevelConfiguration objects from its first
    // request on (the leader's consumer writes their status).
    .add({ name: 'priority-and-fairness-filter', runBy: 'kube-apiserver', stage: 'before-serving', make: () => ApfConfigConsumer.create(storage, registry, log, apfSink, { followOnly: true }) });
  return { manager, onCaReload: () => undefined };
}

/** The manager with every controller registered, and a hook for client-CA reloads. */
export function registerControllers(opts: ServerOptions, d: ControllerDeps): { manager: ControllerManager; onCaReload: () => void } {
  const { storage, registry, log } = d;
  const served = (resource: string): boolean => Boolean(registry.lookup('', 'v1', resource));
  let trust: ClusterAuthenticationTrustController | null = null;
  const manager = new ControllerManager(controllerSelection(opts), log)
    // kube-apiserver's rbac/bootstrap-roles hook is followed by this kube-controller-manager controller.
    .add({ name: 'clusterrole-aggregation', runBy: 'kube-controller-manager', stage: 'before-serving', make: () => new ClusterRoleAggregator(d.rbacCache, registry, log) })
    .add({ name: 'namespace', runBy: 'kube-controller-manager', stage: 'before-serving', make: () => new NamespaceController(storage, registry, log, { graceMs: opts.namespaceDeletionGraceMs }) })
    // The tokens controller (legacy token Secrets).
    .add({
      name: 'serviceaccount-token',
      runBy: 'kube-controller-manager',
      stage: 'before-serving',
      make: () => (served('secrets') ? new ServiceAccountTokensController(storage, registry, d.saTokens.legacyGenerator, d.pki.caCertPem, log, !(opts.featureGates ?? new FeatureGates()).enabled('LegacyServiceAccountTokenNoAutoGeneration')) : null),
    })
    // kube-apiserver's cluster_authentication_trust_controller: kube-system/extension-apiserver-authentication.
    .add({
      name: 'start-cluster-authentication-info-controller',
      runBy: 'kube-apiserver',
      stage: 'before-serving',
      make: () => {
        if (!served('configmaps')) return null;
        const rh = d.trust.requestHeader;
        trust = new ClusterAuthenticationTrustController(storage, registry, () => ({
          clientCA: d.trust.clientCA.certificates,
          requestHeaderCA: rh?.ca.certificates,
          requestHeaderAllowedNames: rh?.allowedNames,
          requestHeaderUsernameHeaders: rh?.usernameHeaders,
          requestHeaderGroupHeaders: rh?.groupHeaders,
          requestHeaderExtraHeaderPrefixes: rh?.extraHeaderPrefixes,
        }), log);
        return trust;
      },
    })
    // apiextensions-apiserver's naming, establishing and finalizing controllers, and the serving of
    // Established CRDs' kinds (kube-apiserver's start-apiextensions-controllers hook).
    // kube-apiserver's priority-and-fairness-config-producer hook: the mandatory and suggested APF objects.
    .add({ name: 'priority-and-fairness-config-producer', runBy: 'kube-apiserver', stage: 'before-serving', make: () => ApfConfigProducer.create(registry, log, opts.apfConfigResyncMs) })
    // kube-apiserver's apiservice-registration-controller and crd-discovery-available hooks: the local APIServices.
    .add({ name: 'apiservice-registration-controller', runBy: 'kube-apiserver', stage: 'before-serving', make: () => APIServiceAutoRegister.create(storage, registry, log) })
    // kube-aggregator's AvailableConditionController: the APIServices' Available condition.
    .add({ name: 'apiservice-status-available-controller', runBy: 'kube-apiserver', stage: 'serving', make: () => APIServiceAvailability.create(storage, registry, d.aggregator, log) })
    .add({ name: 'start-apiextensions-controllers', runBy: 'kube-apiserver', stage: 'before-serving', make: () => new CRDController(storage, registry, log) })
    // Run whenever bootstrap tokens authenticate (see ControllerManager.enabled).
    .add({ name: 'tokencleaner', runBy: 'kube-controller-manager', stage: 'before-serving', make: () => (opts.tokenAuth?.enableBootstrapTokenAuth && served('secrets') ? new TokenCleaner(storage, registry.lookup('', 'v1', 'secrets')!, log) : null) })
    // kube-apiserver's bootstrap-controller: the `kubernetes` Service and Endpoints, and the
    // service IP and node port repair loops.
    .add({ name: 'bootstrap-controller', runBy: 'kube-apiserver', stage: 'serving', make: () => serviceControllers(storage, registry, log, opts, d.port) })
    // kube-apiserver's APF config controller: FlowSchemas' Dangling conditions, the limiter's configuration.
    .add({ name: 'priority-and-fairness-filter', runBy: 'kube-apiserver', stage: 'serving', make: () => ApfConfigConsumer.create(storage, registry, log, (fs, pl) => d.flowController?.()?.configure(fs, pl)) })
    .add({ name: 'garbagecollector', runBy: 'kube-controller-manager', stage: 'serving', make: () => new GarbageCollector(storage, registry, log) })
    .add({ name: 'pv-protection', runBy: 'kube-controller-manager', stage: 'serving', make: () => (served('persistentvolumes') ? new StorageProtectionController(storage, registry, log, 'pv') : null) })
    .add({ name: 'pvc-protection', runBy: 'kube-controller-manager', stage: 'serving', make: () => (served('persistentvolumeclaims') ? new StorageProtectionController(storage, registry, log, 'pvc') : null) })
    // kube-apiserver's --event-ttl (an etcd lease on every Event); 0 = no expiry.
    .add({
      name: 'event-ttl',
      runBy: 'kube-apiserver',
      stage: 'serving',
      make: () => {
        const events = registry.lookup('', 'v1', 'events');
        const ttlMs = opts.eventTtlMs ?? DEFAULT_EVENT_TTL_MS;
        return events && ttlMs > 0 ? new EventTtlController(storage, events, ttlMs, log) : null;
      },
    })
    .add({
      name: 'disruption',
      runBy: 'kube-controller-manager',
      stage: 'serving',
      make: () => {
        const budgets = registry.lookup('policy', 'v1', 'poddisruptionbudgets');
        const pods = registry.lookup('', 'v1', 'pods');
        return budgets && pods ? new DisruptionController(storage, registry, budgets, pods, log) : null;
      },
    })
    .add({ name: 'serviceaccount', runBy: 'kube-controller-manager', stage: 'serving', make: () => (served('serviceaccounts') ? new ServiceAccountsController(storage, registry, log) : null) })
    .add({ name: 'root-ca-cert-publisher', runBy: 'kube-controller-manager', stage: 'serving', make: () => (served('configmaps') ? new RootCaPublisher(storage, registry, d.pki.caCertPem, log) : null) })
    .add({ name: 'resourcequota', runBy: 'kube-controller-manager', stage: 'serving', make: () => (served('resourcequotas') ? new ResourceQuotaController(storage, registry, log) : null) });
  return { manager, onCaReload: () => trust?.enqueue() };
}

/** startServiceControllers as one Controller: started with the listening port, stop withdraws this replica. */
function serviceControllers(storage: Storage, registry: Registry, log: pino.Logger, opts: ServerOptions, port: () => number) {
  let running: { stop(): Promise<void> } | null = null;
  return {
    async start() {
      running = await startServiceControllers(storage, registry, log, { ...opts, securePort: port() });
    },
    async stop() {
      await running?.stop();
    },
    idle: () => Promise.resolve(),
  };
}
