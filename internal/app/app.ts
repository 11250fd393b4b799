/**
 * Wiring of one API server process: PKI, storage, registry, admission, controllers, HTTPS.
 * Used by cmd/apiserver.ts and by tests that need a server in-process.
 */
import type { FeatureGates } from '../features/gates.ts';
import { join } from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { ensurePki, type Pki } from '../auth/pki.ts';
import { writeKubeconfig, serverUrl } from '../auth/kubeconfig.ts';
import { x509Authenticator, tokenFileAuthenticator, unionAuthenticator, type Authenticator } from '../auth/authn.ts';
import { allowAuthenticated } from '../auth/authz.ts';
import { Storage } from '../storage/storage.ts';
import { Registry } from '../registry/registry.ts';
import { defaultKinds } from '../registry/kinds.ts';
import { AdmissionChain } from '../admission/chain.ts';
import { namespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { createHandler, createServer, type ServerDeps } from '../http/server.ts';
import { NamespaceController } from '../controllers/namespace.ts';
import { GarbageCollector } from '../controllers/garbage-collector.ts';
import { defaultAdvertiseAddress, startServiceControllers } from '../controllers/kubernetes-service.ts';
import { EventTtlController, DEFAULT_EVENT_TTL_MS } from '../controllers/event-ttl.ts';
import { systemContext } from '../registry/generic/context.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import { WatchHub } from '../watch/hub.ts';
import { ApiError } from '../api/errors.ts';
import type { LogLocation } from '../storage/log/uri.ts';
import { restoreLatestCheckpoint } from '../storage/checkpoint.ts';
import { kubeHealthChecks } from '../health/checks.ts';
import { ApiMetrics } from '../metrics/api-metrics.ts';
import type { LogInstruments } from '../storage/log/instruments.ts';

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
  const metrics = new ApiMetrics({ showHidden: opts.showHiddenMetrics });
  const storage = await openStorage(opts, log, metrics.logInstruments()).catch((err: unknown) => {
    metrics.close();
    throw err;
  });
  const lifecycle = namespaceLifecycle(storage);
  const admission = new AdmissionChain([lifecycle], [lifecycle]);
  const kinds = opts.kinds ?? [...defaultKinds];
  // One authorizer for the request filter and the access reviews (RBAC will replace both at once).
  const authorizer = allowAuthenticated;
  const registry = new Registry(
    kinds,
    storage,
    admission,
    { serviceClusterIPRange: opts.serviceClusterIPRange, serviceNodePortRange: opts.serviceNodePortRange, featureGates: opts.featureGates },
    { authorizer },
  );
  await bootstrap(registry, kinds);
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
  const events = registry.lookup('', 'v1', 'events');
  const ttlMs = opts.eventTtlMs ?? DEFAULT_EVENT_TTL_MS;
  // --event-ttl 0: no expiry (kube attaches no etcd lease for a zero TTL).
  const eventTtl = events && ttlMs > 0 ? new EventTtlController(storage, events, ttlMs, log) : null;
  eventTtl?.start();

  const authenticators: Authenticator[] = [x509Authenticator()];
  if (opts.tokenAuthFile) authenticators.push(tokenFileAuthenticator(opts.tokenAuthFile));
  let shuttingDown = false;
  const health = kubeHealthChecks({ storageOpen: () => storage.folded >= 0, shuttingDown: () => shuttingDown });
  // advertiseAddress (/api's serverAddressByClientCIDRs) is read per request; it is set to the
  // listening host:port below, once `--secure-port 0` has become a real port.
  const deps: ServerDeps = {
    registry,
    hub,
    folded: () => storage.folded,
    authenticator: unionAuthenticator(authenticators),
    authorizer,
    health,
    log,
    advertiseAddress: `${opts.bindAddress}:${opts.securePort}`,
    metrics,
  };
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

  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    kubeconfigPath,
    pki,
    storage,
    close() {
      shuttingDown = true;
      closing ??= (async () => {
        controller.stop();
        gc.stop();
        await serviceControllers.stop();
        eventTtl?.stop();
        hub.close(); // ends every watch stream so the server can close
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Long-lived streams must not hold shutdown forever.
          setTimeout(resolve, 2000).unref();
        });
        await controller.idle().catch(() => undefined);
        await gc.idle().catch(() => undefined);
        await storage.close();
        metrics.close();
      })();
      return closing;
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
