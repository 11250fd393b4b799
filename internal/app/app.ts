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
import { coreKinds } from '../registry/core/index.ts';
import { AdmissionChain } from '../admission/chain.ts';
import { namespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { createHandler, createServer } from '../http/server.ts';
import { NamespaceController } from '../controllers/namespace.ts';
import { GarbageCollector } from '../controllers/garbage-collector.ts';
import { systemContext } from '../registry/generic/context.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import { WatchHub } from '../watch/hub.ts';
import { ApiError } from '../api/errors.ts';
import type { LogLocation } from '../storage/log/uri.ts';
import { restoreLatestCheckpoint } from '../storage/checkpoint.ts';

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
  /**
   * Run the garbage collector (default true). Tests turn it off to leave collection work
   * undone, then restart with it on to check that a restarted server resumes it.
   */
  garbageCollector?: boolean;
  /** `--feature-gates` (1.24 defaults when absent). */
  featureGates?: FeatureGates;
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
  const storage = await openStorage(opts, log);
  const admission = new AdmissionChain([], [namespaceLifecycle(storage)]);
  const kinds = opts.kinds ?? coreKinds;
  const registry = new Registry(kinds, storage, admission, opts.featureGates);
  await bootstrap(registry, kinds);
  const hub = new WatchHub(storage);
  const controller = new NamespaceController(storage, registry, log);
  await controller.start();
  const gc = new GarbageCollector(storage, registry, log);
  if (opts.garbageCollector !== false) gc.start();

  const authenticators: Authenticator[] = [x509Authenticator()];
  if (opts.tokenAuthFile) authenticators.push(tokenFileAuthenticator(opts.tokenAuthFile));
  const storageCheck = { name: 'storage', check: () => { if (storage.folded < 0) throw new Error('storage not open'); } };
  const handler = createHandler({
    registry,
    hub,
    folded: () => storage.folded,
    authenticator: unionAuthenticator(authenticators),
    authorizer: allowAuthenticated,
    health: { livez: [{ name: 'ping', check: () => undefined }, storageCheck], readyz: [{ name: 'ping', check: () => undefined }, storageCheck, { name: 'bootstrap-namespaces', check: () => undefined }] },
    log,
    advertiseAddress: `${opts.bindAddress}:${opts.securePort}`,
  });
  const server = createServer(pki, handler);
  server.listen(opts.securePort, opts.bindAddress);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = serverUrl(opts.bindAddress, port);
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
      closing ??= (async () => {
        controller.stop();
        gc.stop();
        hub.close(); // ends every watch stream so the server can close
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Long-lived streams must not hold shutdown forever.
          setTimeout(resolve, 2000).unref();
        });
        await controller.idle().catch(() => undefined);
        await gc.idle().catch(() => undefined);
        await storage.close();
      })();
      return closing;
    },
  };
}

async function openStorage(opts: ServerOptions, log: pino.Logger): Promise<Storage> {
  const where = opts.log ?? { kind: 'embedded' };
  if (where.kind === 'embedded') return Storage.openEmbedded({ dataDir: opts.dataDir, historyWindowMs: opts.historyWindowMs, sync: opts.sync });
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
  });
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
