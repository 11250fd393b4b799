/**
 * Wiring of one API server process: PKI, storage, registry, admission, controllers, HTTPS.
 * Used by cmd/apiserver.ts and by tests that need a server in-process.
 */
import { FeatureGates } from '../features/gates.ts';
import { join } from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { ensurePki, type Pki } from '../auth/pki.ts';
import { writeKubeconfig, serverUrl } from '../auth/kubeconfig.ts';
import { x509Authenticator, tokenFileAuthenticator, unionAuthenticator, withAnonymous, type Authenticator } from '../auth/authn.ts';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupAuthorizer, unionAuthorizer, type AuthorizationMode } from '../auth/authorizers.ts';
import { RbacCache } from '../auth/rbac/cache.ts';
import { RbacAuthorizer } from '../auth/rbac/authorizer.ts';
import { reconcileBootstrapPolicy } from '../auth/rbac/bootstrap.ts';
import { ClusterRoleAggregator } from '../controllers/clusterrole-aggregation.ts';
import { rbacEscalation } from '../admission/rbac-escalation.ts';
import { Storage } from '../storage/storage.ts';
import { Registry } from '../registry/registry.ts';
import { defaultKinds } from '../registry/kinds.ts';
import { AdmissionChain } from '../admission/chain.ts';
import { defaultTolerationSeconds, priorityAdmission, runtimeClassAdmission } from '../admission/pod-defaults.ts';
import { namespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { serviceAccountAdmission } from '../admission/service-account.ts';
import { StorageProtectionController } from '../controllers/storage-protection.ts';
import { defaultStorageClass, persistentVolumeClaimResize, storageObjectInUseProtection } from '../admission/storage.ts';
import { createHandler, createServer, type ServerDeps } from '../http/server.ts';
import { NamespaceController } from '../controllers/namespace.ts';
import { GarbageCollector } from '../controllers/garbage-collector.ts';
import { defaultAdvertiseAddress, startServiceControllers } from '../controllers/kubernetes-service.ts';
import { EventTtlController, DEFAULT_EVENT_TTL_MS } from '../controllers/event-ttl.ts';
import { ServiceAccountsController } from '../controllers/service-accounts.ts';
import { RootCaPublisher } from '../controllers/root-ca-publisher.ts';
import { systemContext } from '../registry/generic/context.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import { WatchHub } from '../watch/hub.ts';
import { ApiError } from '../api/errors.ts';
import type { LogLocation } from '../storage/log/uri.ts';
import { restoreLatestCheckpoint } from '../storage/checkpoint.ts';
import { kubeHealthChecks } from '../health/checks.ts';
import { ApiMetrics } from '../metrics/api-metrics.ts';
import { InflightRequests } from '../http/inflight.ts';
import { runtimeConfig, servedKinds } from './runtime-config.ts';
import { readFileSync } from 'node:fs';
import { Auditor } from '../audit/auditor.ts';
import { AuditLogWriter } from '../audit/log-writer.ts';
import { parsePolicy } from '../audit/policy.ts';
import type { LogInstruments } from '../storage/log/instruments.ts';
import { ServiceAccountTokens } from '../auth/serviceaccount/setup.ts';
import type { ServiceAccountFlags } from '../auth/serviceaccount/options.ts';
import { ServiceAccountTokensController } from '../controllers/service-account-tokens.ts';

export interface ServerOptions {
  dataDir: string;
  /** Where the log lives (default embedded). */
  log?: LogLocation;
  /** Kafka topic creation settings (when this replica creates the topic). */
  kafkaReplicationFactor?: number;
  kafkaMinInsyncReplicas?: number;
  /** Checkpoints published by `cmd/materializer.ts`: a replica with no data bootstraps from the newest. */
  checkpointDir?: string;
  /** CA and certificates (default <dataDir>/pki); replicas of one cluster share one. */
  pkiDir?: string;
  bindAddress: string;
  securePort: number;
  historyWindowMs: number;
  tokenAuthFile?: string;
  logLevel?: string;
  sync?: boolean;
  kinds?: KindDescriptor[];
  /** Namespace controller: delay before a terminating namespace is emptied (default kube's 5 s). */
  namespaceDeletionGraceMs?: number;
  /**
   * Run the garbage collector (default true). Tests turn it off to leave collection work
   * undone, then restart with it on to check that a restarted server resumes it.
   */
  garbageCollector?: boolean;
  /**
   * Run kube-controller-manager's per-namespace controllers (default true): the serviceaccounts
   * controller (`default` in every active namespace) and the root-ca-cert-publisher
   * (`kube-root-ca.crt`). Only tests that must see an empty fresh namespace turn them off.
   */
  namespaceDefaults?: boolean;
  /** `--feature-gates` (1.24 defaults when absent). */
  featureGates?: FeatureGates;
  /** --service-cluster-ip-range (default 10.0.0.0/24) and --service-node-port-range (30000-32767). */
  serviceClusterIPRange?: string;
  serviceNodePortRange?: string;
  /** --advertise-address: published in the `kubernetes` Endpoints (default: the bind address). */
  advertiseAddress?: string;
  /** --event-ttl: Events are deleted this long after their last write (default 1h; 0 = never). */
  eventTtlMs?: number;
  /** --show-hidden-metrics-for-version was given (validated): register the hidden metrics too. */
  showHiddenMetrics?: boolean;
  /**
   * --shutdown-delay-duration: after close() begins, /readyz fails but requests are still served
   * this long before the listener closes (default 0).
   */
  shutdownDelayMs?: number;
  /** --authorization-mode (default RBAC), checked by parseAuthorizationModes. */
  authorizationModes?: AuthorizationMode[];
  /** --anonymous-auth (default true): requests without credentials are system:anonymous. */
  anonymousAuth?: boolean;
  /** --runtime-config: API versions and resources switched on or off (kube's syntax). */
  runtimeConfig?: string;
  /** --audit-log-path (`-`: stdout) with --audit-policy-file: where audit events go. */
  auditLogPath?: string;
  /** --audit-policy-file: without it nothing is audited (as kube-apiserver). */
  auditPolicyFile?: string;
  /** --audit-log-maxage (days), --audit-log-maxbackup (files), --audit-log-maxsize (MB). */
  auditLogMaxAge?: number;
  auditLogMaxBackup?: number;
  auditLogMaxSize?: number;
  /**
   * --service-account-signing-key-file, --service-account-key-file, --service-account-issuer,
   * --api-audiences, --service-account-lookup, --service-account-max-token-expiration,
   * --service-account-extend-token-expiration (none given: a key generated under the PKI dir).
   */
  serviceAccounts?: ServiceAccountFlags;
}

export interface RunningServer {
  url: string;
  port: number;
  kubeconfigPath: string;
  pki: Pki;
  storage: Storage;
  close(): Promise<void>;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const started = Date.now();
  const log = pino({ level: opts.logLevel ?? 'info' }, pino.destination(2));
  const pki = await ensurePki(opts.pkiDir ?? join(opts.dataDir, 'pki'), { hosts: [opts.bindAddress].filter((h) => h && h !== '0.0.0.0' && h !== '::') });
  // Read and check the audit policy before anything starts: a bad policy file is a start-up error.
  // Bad --service-account-* combinations fail start-up here, with kube's messages.
  const saTokens = await ServiceAccountTokens.create(opts.serviceAccounts ?? {}, pki.dir, log);
  const auditor = openAuditor(opts);
  const metrics = new ApiMetrics({ showHidden: opts.showHiddenMetrics });
  saTokens.onTokenUsed = (kind) => metrics.serviceAccountTokenUsed(kind);
  const storage = await openStorage(opts, log, metrics.logInstruments()).catch((err: unknown) => {
    metrics.close();
    throw err;
  });
  // Authorization: the privileged group, then --authorization-mode in order (default RBAC). The
  // RBAC cache follows the fold; it is loaded before the server listens.
  const rbacCache = new RbacCache();
  const rbac = new RbacAuthorizer(rbacCache);
  const modes = opts.authorizationModes ?? ['RBAC'];
  const authorizer = unionAuthorizer([privilegedGroupAuthorizer, ...modes.map((m) => (m === 'RBAC' ? rbac : m === 'AlwaysAllow' ? alwaysAllowAuthorizer : alwaysDenyAuthorizer))]);
  const lifecycle = namespaceLifecycle(storage);
  // kube-apiserver 1.24's default plugin order (AllOrderedPlugins), for the plugins this server has:
  // NamespaceLifecycle, ServiceAccount, Priority, DefaultTolerationSeconds, DefaultStorageClass, ….
  const serviceAccount = serviceAccountAdmission(storage);
  const admission = new AdmissionChain(
    [rbacEscalation(authorizer, rbac), lifecycle, serviceAccount, priorityAdmission, defaultTolerationSeconds, defaultStorageClass(storage), storageObjectInUseProtection(), runtimeClassAdmission],
    [lifecycle, serviceAccount, persistentVolumeClaimResize(storage), runtimeClassAdmission],
  );
  const kinds = servedKinds(opts.kinds ?? defaultKinds, runtimeConfig(opts.runtimeConfig ?? ''));
  const registry = new Registry(
    kinds,
    storage,
    admission,
    { serviceClusterIPRange: opts.serviceClusterIPRange, serviceNodePortRange: opts.serviceNodePortRange, featureGates: opts.featureGates, serviceAccountTokens: saTokens.tokenRequest },
    { authorizer },
  );
  saTokens.attach(registry);
  await bootstrap(registry, kinds);
  await rbacCache.start(storage);
  // kube-apiserver's rbac/bootstrap-roles post-start hook, then the aggregation controller.
  const reconciled = await reconcileBootstrapPolicy(registry);
  if (reconciled.created || reconciled.updated) log.info(reconciled, 'RBAC bootstrap policy reconciled');
  const aggregator = new ClusterRoleAggregator(rbacCache, registry, log);
  aggregator.start();
  const hub = new WatchHub(storage);
  metrics.attach({
    folded: () => storage.folded,
    endOffset: () => storage.log.endOffset(),
    objectCounts: () => storageObjectCounts(storage.materializer.objectCounts()),
    ring: () => hub.ringUsage(),
    watchersEnded: () => hub.endedByReason(),
  });
  const controller = new NamespaceController(storage, registry, log, { graceMs: opts.namespaceDeletionGraceMs });
  await controller.start();
  const gc = new GarbageCollector(storage, registry, log);
  if (opts.garbageCollector !== false) gc.start();
  // kube-controller-manager's pv-protection and pvc-protection controllers.
  const storageProtection = new StorageProtectionController(storage, registry, log);
  storageProtection.start();
  const events = registry.lookup('', 'v1', 'events');
  const ttlMs = opts.eventTtlMs ?? DEFAULT_EVENT_TTL_MS;
  // --event-ttl 0: no expiry (kube attaches no etcd lease for a zero TTL).
  const eventTtl = events && ttlMs > 0 ? new EventTtlController(storage, events, ttlMs, log) : null;
  eventTtl?.start();
  // Each runs when its kind is served (a server built with a subset of kinds has fewer).
  const perNamespace: (ServiceAccountsController | RootCaPublisher)[] = [];
  if (opts.namespaceDefaults !== false) {
    if (registry.lookup('', 'v1', 'serviceaccounts')) perNamespace.push(new ServiceAccountsController(storage, registry, log));
    if (registry.lookup('', 'v1', 'configmaps')) perNamespace.push(new RootCaPublisher(storage, registry, pki.caCertPem, log));
  }
  for (const c of perNamespace) c.start();
  // kube-controller-manager's tokens controller (legacy token Secrets).
  const tokensController = opts.namespaceDefaults !== false && registry.lookup('', 'v1', 'secrets') ? new ServiceAccountTokensController(storage, registry, saTokens.legacyGenerator, pki.caCertPem, log, !(opts.featureGates ?? new FeatureGates()).enabled('LegacyServiceAccountTokenNoAutoGeneration')) : null;
  tokensController?.start();

  const authenticators: Authenticator[] = [x509Authenticator()];
  if (opts.tokenAuthFile) authenticators.push(tokenFileAuthenticator(opts.tokenAuthFile));
  // kube's token union order: token file, service accounts (legacy, then bound), bootstrap, OIDC, webhook.
  authenticators.push(saTokens.authenticator);
  let shuttingDown = false;
  const inflight = new InflightRequests();
  const health = kubeHealthChecks({ storageOpen: () => storage.folded >= 0, probeStorage: () => storage.probe(), shuttingDown: () => shuttingDown });
  // advertiseAddress (/api's serverAddressByClientCIDRs) is read per request; it is set to the
  // listening host:port below, once `--secure-port 0` has become a real port.
  const deps: ServerDeps = {
    registry,
    hub,
    folded: () => storage.folded,
    authenticator: opts.anonymousAuth === false ? unionAuthenticator(authenticators) : withAnonymous(unionAuthenticator(authenticators)),
    authorizer,
    health,
    log,
    advertiseAddress: `${opts.bindAddress}:${opts.securePort}`,
    metrics,
    inflight,
    audit: auditor,
  };
  deps.openIdDiscovery = saTokens.discovery(() => deps.advertiseAddress, log);
  const server = createServer(pki, createHandler(deps));
  server.listen(opts.securePort, opts.bindAddress);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const serviceControllers = await startServiceControllers(storage, registry, log, { ...opts, securePort: port });
  const url = serverUrl(opts.bindAddress, port);
  // kube-apiserver's ExternalAddress: the advertise address (its default rule) and the secure port.
  deps.advertiseAddress = new URL(serverUrl(opts.advertiseAddress ?? defaultAdvertiseAddress(opts.bindAddress), port)).host;
  const kubeconfigPath = join(opts.dataDir, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, { server: url, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem });
  log.info({ url, kubeconfig: kubeconfigPath, startupMs: Date.now() - started, folded: storage.folded }, 'API server ready');

  const connections = trackConnections(server);
  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    kubeconfigPath,
    pki,
    storage,
    close() {
      // kube-apiserver's graceful termination: /readyz fails at once (load balancers stop sending
      // new work), requests are still served for --shutdown-delay-duration, then the listener
      // closes, short requests in flight are answered (accepted writes are acknowledged), watches
      // end with what they were sent flushed, and only then is the log closed.
      shuttingDown = true;
      closing ??= (async () => {
        if (opts.shutdownDelayMs) await new Promise((r) => setTimeout(r, opts.shutdownDelayMs));
        server.close();
        connections.goAway();
        controller.stop();
        gc.stop();
        aggregator.stop();
        storageProtection.stop();
        await serviceControllers.stop();
        eventTtl?.stop();
        for (const c of perNamespace) c.stop();
        tokensController?.stop();
        if (!(await inflight.idle(SHUTDOWN_REQUEST_TIMEOUT_MS))) log.warn({ inflight: inflight.size }, 'shutdown: requests still in flight after the timeout');
        hub.close(); // ends every watch stream (each ends its response, flushing what was written)
        await connections.drain(SHUTDOWN_DRAIN_MS);
        await controller.idle().catch(() => undefined);
        await gc.idle().catch(() => undefined);
        await aggregator.idle();
        rbacCache.stop();
        await storageProtection.idle().catch(() => undefined);
        for (const c of perNamespace) await c.idle().catch(() => undefined);
        await tokensController?.idle().catch(() => undefined);
        await storage.close();
        metrics.close();
        auditor?.close();
      })();
      return closing;
    },
  };
}

/** Longest graceful shutdown waits for short requests (kube's http.Server ShutdownTimeout: 60 s). */
const SHUTDOWN_REQUEST_TIMEOUT_MS = 60_000;
/** How long ended streams get to flush to slow clients before their connections are cut. */
const SHUTDOWN_DRAIN_MS = 2_000;

/**
 * The open connections of a server, for graceful shutdown, as Go's http.Server.Shutdown treats
 * them: `goAway` tells HTTP/2 clients to open no more streams here (streams in flight complete),
 * closes idle HTTP/1.1 keep-alive connections and makes busy ones close after their current
 * response, so no new request can arrive once the listener is closed. `drain` closes what is left
 * once every response has ended — gracefully first, forcibly after `ms`.
 */
function trackConnections(server: ReturnType<typeof createServer>): { goAway(): void; drain(ms: number): Promise<void> } {
  type Socket = import('node:net').Socket;
  const sockets = new Set<Socket>();
  const sessions = new Set<import('node:http2').Http2Session>();
  /** HTTP/1.1 sockets → requests being answered on them. */
  const busy = new Map<Socket, number>();
  let draining = false;
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => {
      sockets.delete(s);
      busy.delete(s);
    });
  });
  server.on('session', (s: import('node:http2').Http2Session) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  server.on('request', (req: { httpVersionMajor: number; socket: Socket }, res: import('node:http').ServerResponse) => {
    if (req.httpVersionMajor !== 1) return;
    const s = req.socket;
    busy.set(s, (busy.get(s) ?? 0) + 1);
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    res.once('close', () => {
      const n = (busy.get(s) ?? 1) - 1;
      busy.set(s, n);
      if (draining && n === 0) s.end();
    });
  });
  const h2Sockets = (): Set<unknown> => new Set([...sessions].map((x) => x.socket));
  return {
    goAway() {
      draining = true;
      for (const s of sessions) if (!s.closed && !s.destroyed) s.close();
      const h2 = h2Sockets();
      for (const s of sockets) if (!h2.has(s) && !busy.get(s)) s.end();
    },
    async drain(ms) {
      draining = true;
      for (const s of sessions) if (!s.closed && !s.destroyed) s.close();
      for (const s of sockets) s.end();
      if (sockets.size === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          for (const s of sockets) s.destroy();
          resolve();
        }, ms);
        timer.unref();
        const check = (): void => {
          if (sockets.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        };
        for (const s of sockets) s.once('close', () => setImmediate(check));
      });
    },
  };
}

async function openStorage(opts: ServerOptions, log: pino.Logger, instruments: LogInstruments): Promise<Storage> {
  const where = opts.log ?? { kind: 'embedded' };
  if (where.kind === 'embedded') return Storage.openEmbedded({ dataDir: opts.dataDir, historyWindowMs: opts.historyWindowMs, sync: opts.sync, instruments });
  if (opts.checkpointDir) {
    const restored = await restoreLatestCheckpoint(opts.checkpointDir, opts.dataDir);
    if (restored) log.info(restored, 'bootstrapped the snapshot from a checkpoint');
  }
  return Storage.openKafka({
    dataDir: opts.dataDir,
    historyWindowMs: opts.historyWindowMs,
    brokers: where.brokers,
    topic: where.topic,
    replicationFactor: opts.kafkaReplicationFactor ?? 1,
    minInsyncReplicas: opts.kafkaMinInsyncReplicas ?? 1,
    checkpointsCover: Boolean(opts.checkpointDir),
    logger: log,
    instruments,
  });
}

/** The audit log and policy, when both flags are given (kube audits nothing without a policy). */
function openAuditor(opts: ServerOptions): Auditor | undefined {
  if (!opts.auditLogPath || !opts.auditPolicyFile) return undefined;
  let policy;
  try {
    policy = parsePolicy(readFileSync(opts.auditPolicyFile, 'utf8'));
  } catch (err) {
    throw new Error(`loading audit policy file: ${(err as Error).message}`);
  }
  const writer = AuditLogWriter.open(opts.auditLogPath, { maxAgeDays: opts.auditLogMaxAge, maxBackups: opts.auditLogMaxBackup, maxSizeMB: opts.auditLogMaxSize });
  return new Auditor(policy, writer);
}

/**
 * apiserver_storage_objects' `resource` label from storage's `<group>/<resource>` counts: the
 * plural for the core group (`configmaps`), `<plural>.<group>` otherwise (kube's
 * GroupResource.String()).
 */
function storageObjectCounts(byPath: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [path, n] of byPath) {
    const [group, resource] = path.split('/') as [string, string];
    out.set(group === 'core' ? resource : `${resource}.${group}`, n);
  }
  return out;
}

/** Create each kind's bootstrap objects (e.g. the system namespaces) that do not exist yet. */
async function bootstrap(registry: Registry, kinds: KindDescriptor[]): Promise<void> {
  const ctx = systemContext('apiserver-bootstrap');
  for (const k of kinds) {
    const served = registry.lookup(k.group, k.versions[0], k.resource)!;
    for (const obj of k.bootstrap ?? []) {
      const ns = obj.metadata.namespace ?? '';
      const exists = await served.store.getLatest(ns, obj.metadata.name!).then(() => true, () => false);
      if (exists) continue;
      await served.store.create(ctx, ns, structuredClone(obj)).catch((err: unknown) => {
        // Another replica on the same log bootstrapped it first.
        if (!(err instanceof ApiError && err.status.reason === 'AlreadyExists')) throw err;
      });
    }
  }
}
