/**
 * Wiring of one API server process, as the sequence of its start-up steps (one module each):
 * PKI → client trust, audit, OIDC, service-account keys → storage → token authentication →
 * authorization → admission → registry and bootstrap objects → RBAC bootstrap policy → watch hub
 * and metrics → controllers (before serving) → HTTPS → controllers (serving) → kubeconfig; and the
 * graceful shutdown, in the reverse direction. Used by cmd/apiserver.ts and by tests that need a
 * server in-process.
 */
import { join } from 'node:path';
import pino from 'pino';
import { ensurePki } from '../auth/pki.ts';
import { writeKubeconfig, serverUrl } from '../auth/kubeconfig.ts';
import { usesDefaultSigningKey } from '../auth/serviceaccount/options.ts';
import { ensureDefaultSigningKey } from '../auth/serviceaccount/keys.ts';
import { defaultAdvertiseAddress } from '../controllers/kubernetes-service.ts';
import type { Registry } from '../registry/registry.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import { DEFAULT_RING_BYTES, DEFAULT_RING_SIZE, WatchHub } from '../watch/hub.ts';
import { WatchBudget, DEFAULT_TOTAL_BYTES, type BudgetLimits } from '../watch/budget.ts';
import { kubeHealthChecks } from '../health/checks.ts';
import { ApiMetrics } from '../metrics/api-metrics.ts';
import type { ServerOptions, RunningServer } from './options.ts';
import { clientTrust, oidcAuthentication, requestAuthenticator, sharedTokenAuthenticators, tokenAuthentication } from './authentication.ts';
import { LeaderClient, LeaderServices, shareFlowControlDumps, shareMetrics } from './leader-services.ts';
import { openAuditor } from './audit.ts';
import { openStorage } from './storage.ts';
import { LeaderChannel, startServingThreads, threadShare, type ServingThreads } from './workers.ts';
import { ServiceAccountTokens } from './service-accounts.ts';
import { authorization } from './authorization.ts';
import { admissionChains, admissionConfiguration } from './admission.ts';
import { buildRegistry, createBootstrapObjects } from './registry.ts';
import { reconcileBootstrapPolicy } from './rbac-bootstrap.ts';
import { registerControllers, servingThreadControllers } from './controllers.ts';
import { startAggregator } from './aggregation.ts';
import type { FlowController } from '../flowcontrol/controller.ts';
import { serve, storageObjectCounts, SHUTDOWN_DRAIN_MS, SHUTDOWN_REQUEST_TIMEOUT_MS, type Serving } from './serve.ts';

export type { ServerOptions, RunningServer } from './options.ts';

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const started = Date.now();
  // Milliseconds each start-up step took (logged with "API server ready": where start-up time goes).
  // `beforeStart`: from the process's start to here (node itself, loading the modules, flags).
  const phases: Record<string, number> = { beforeStart: Math.round(performance.now()) };
  let phaseStart = performance.now();
  const phase = (name: string): void => {
    const now = performance.now();
    phases[name] = Math.round(now - phaseStart);
    phaseStart = now;
  };
  const log = pino({ level: opts.logLevel ?? 'info' }, pino.destination(2));
  // On a first start the default service-account key, an RSA prime search in a libuv thread, is
  // generated while the PKI is read and the storage opens (ServiceAccountTokens.create below then
  // finds it).
  const pkiDir = opts.pkiDir ?? join(opts.dataDir, 'pki');
  const defaultSaKey = usesDefaultSigningKey(opts.serviceAccounts ?? {}) ? ensureDefaultSigningKey(pkiDir) : Promise.resolve('');
  defaultSaKey.catch(() => undefined); // awaited below, where its error is thrown
  const pki = await ensurePki(pkiDir, { hosts: [opts.bindAddress].filter((h) => h && h !== '0.0.0.0' && h !== '::') });
  phase('pki');
  // Read and checked before anything starts: the client-certificate trust, the audit policy, the
  // --service-account-* combinations and the OIDC CA file are start-up errors with kube's messages.
  const trust = clientTrust(opts, pki, log);
  // Resolved while the storage opens (below).
  const saTokensReady = defaultSaKey.then(() => ServiceAccountTokens.create(opts.serviceAccounts ?? {}, pki.dir, log));
  saTokensReady.catch(() => undefined); // awaited below, where its error is thrown
  const admissionConfig = admissionConfiguration(opts.admissionControlConfigFile);
  // A serving thread (app/workers.ts) sends its audit events to its leader.
  const channel = opts.follower ? new LeaderChannel() : null;
  const auditor = openAuditor(opts, channel?.auditSink());
  const oidc = await oidcAuthentication(opts, log);
  // `--workers N`: what kube keeps once per process is the leader's, asked by the serving threads.
  const leaderServices = !opts.follower && (opts.workers ?? 1) > 1 ? new LeaderServices() : undefined;
  const leaderClient = opts.leaderServices ? new LeaderClient(opts.leaderServices) : undefined;
  let registryRef: Registry | undefined;
  const metrics = new ApiMetrics({ showHidden: opts.showHiddenMetrics, servingThread: Boolean(channel) });
  if (leaderClient) shareMetrics(metrics, { leader: leaderClient });
  // A serving thread (app/workers.ts) follows the leader's storage instead of opening its own.
  const follower = opts.follower;
  const storageOpening = openStorage(opts, log, metrics.logInstruments());
  storageOpening.catch(() => undefined); // awaited below
  let saTokens: ServiceAccountTokens;
  let tokenAuth: ReturnType<typeof tokenAuthentication>;
  try {
    saTokens = await saTokensReady;
    tokenAuth = tokenAuthentication(opts, saTokens, sharedTokenAuthenticators(opts, oidc, { services: leaderServices, leader: leaderClient }), () => registryRef, log);
  } catch (err) {
    // A start-up error (kube's message) with the storage opened meanwhile: close it first.
    await storageOpening.then((s) => s.close(), () => undefined);
    metrics.close();
    throw err;
  }
  saTokens.onTokenUsed = (kind) => metrics.serviceAccountTokenUsed(kind);
  const storage = await storageOpening.catch((err: unknown) => {
    metrics.close();
    throw err;
  });
  phase('storage');
  const { tables, bytes, ms } = storage.openCheck;
  log.info({ tables, mib: Math.round(bytes / 104857.6) / 10, ms: Math.round(ms) }, 'storage tables verified (checksums)');

  const { rbacCache, rbac, authorizer, nodeGraph } = authorization(opts);
  let registryKinds: () => readonly KindDescriptor[] = () => [];
  const { admission, webhookSource } = admissionChains(storage, authorizer, rbac, metrics, () => registryKinds(), () => registryRef, admissionConfig);
  const registry = buildRegistry(opts, storage, admission, authorizer, saTokens, tokenAuth);
  registryRef = registry;
  // The served kinds as the webhooks' matching sees them: rebuilt when a kind comes or goes.
  let kindList: readonly KindDescriptor[] | undefined;
  registry.subscribe(() => (kindList = undefined));
  registryKinds = () => (kindList ??= registry.kinds.map((k) => k.kind));
  if (!follower) await createBootstrapObjects(registry);
  phase('bootstrap');
  await rbacCache.start(storage);
  await nodeGraph?.start(storage);
  await webhookSource.start(storage);
  const aggregator = await startAggregator(opts, storage, log);
  phase('rbacCache');
  // kube-apiserver's rbac/bootstrap-roles post-start hook (the aggregation controller follows).
  const reconciled = follower ? { created: 0, updated: 0 } : await reconcileBootstrapPolicy(registry);
  if (reconciled.created || reconciled.updated) log.info(reconciled, 'RBAC bootstrap policy reconciled');
  phase('rbacBootstrap');
  // `--workers N` with N > 1: N serving threads serve HTTP (app/workers.ts) and this thread, the
  // leader, serves none: no listener, no watch hub (its ring would hold every change for nobody).
  const servesHttp = Boolean(follower) || (opts.workers ?? 1) <= 1;
  const hub = servesHttp ? new WatchHub(storage, DEFAULT_RING_SIZE, DEFAULT_RING_BYTES, new WatchBudget(watchBudgetShare(opts))) : null;
  // The storage's figures are the leader's alone (the leader's /metrics adds up every thread's:
  // a serving thread reports 0 there); the watch hub's are each thread's own.
  metrics.attach({
    folded: () => (follower ? 0 : storage.folded),
    endOffset: async () => (follower ? 0 : storage.log.endOffset()),
    objectCounts: () => (follower ? new Map() : storageObjectCounts(storage.materializer.objectCounts())),
    ring: () => hub?.ringUsage() ?? { changes: 0, bytes: 0 },
    watchersEnded: () => hub?.endedByReason() ?? {},
    ...(hub && {
      watchQueued: () => hub.budget.usage(),
      watchEvents: () => hub.events(),
      watchResumeReads: () => hub.resumeReads(),
    }),
  });
  let port = 0;
  let threads: ServingThreads | null = null;
  let flowController: FlowController | undefined;
  // A serving thread runs no controller: it only serves the kinds of Established CRDs as the fold
  // makes them (the leader's CRD controller writes their conditions; the leader's availability
  // controller the APIServices' conditions, which every thread's aggregator follows).
  // A serving thread's APF configuration, digested before it serves, kept until its limiter exists.
  let apfConfig: Parameters<FlowController['configure']> | undefined;
  const controllers = follower
    ? servingThreadControllers(opts, storage, registry, log, (...config) => {
        apfConfig = config;
        flowController?.configure(...config);
      })
    : registerControllers(opts, { storage, registry, rbacCache, pki, trust, saTokens, log, port: () => port, flowController: () => flowController, aggregator: aggregator.index });
  await controllers.manager.start('before-serving');
  phase('controllers');

  let shuttingDown = false;
  const health = kubeHealthChecks({
    storageOpen: () => storage.folded >= 0,
    probeStorage: () => storage.probe(),
    shuttingDown: () => shuttingDown,
    storageProblem: () => storage.health.problem,
  });
  let serving: Serving | null = null;
  if (hub) {
    serving = await serve(opts, {
      pki,
      trust,
      storage,
      registry,
      hub,
      authenticator: requestAuthenticator(opts, trust, tokenAuth.bearer),
      authorizer,
      health,
      log,
      metrics,
      auditor,
      openIdDiscovery: (address) => saTokens.discovery(address, log),
      aggregator: aggregator.index,
      onCaReload: controllers.onCaReload,
    });
    phase('listen');
    port = serving.port;
    flowController = serving.flowController;
    if (apfConfig) flowController?.configure(...apfConfig);
    shareFlowControlDumps(flowController, { services: leaderServices, leader: leaderClient });
  } else {
    // The serving threads listen instead (the first one picks the port of `--secure-port 0`);
    // the controllers that run once the server serves (the kubernetes Service's port) follow.
    // The leader has no flow controller: its dumps are the threads' (registered before they serve).
    shareFlowControlDumps(undefined, { services: leaderServices, leader: leaderClient });
    threads = await startServingThreads(opts, storage, log, { metrics, auditor, services: leaderServices! });
    phase('servingThreads');
    port = threads.port;
  }
  // kube-apiserver's ExternalAddress: the advertise address (its default rule) and the secure port.
  serving?.setAdvertiseAddress(new URL(serverUrl(opts.advertiseAddress ?? defaultAdvertiseAddress(opts.bindAddress), port)).host);
  await controllers.manager.start('serving');
  phase('servingControllers');
  if (follower) {
    log.info({ port, folded: storage.folded, startupMs: Date.now() - started }, 'serving thread ready');
    return runningServer();
  }
  const url = serverUrl(opts.bindAddress, port);
  const kubeconfigPath = join(opts.dataDir, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, { server: url, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem });
  phase('kubeconfig');
  log.info({ url, kubeconfig: kubeconfigPath, startupMs: Date.now() - started, folded: storage.folded, phases }, 'API server ready');

  return runningServer();

  function runningServer(): RunningServer {
  let closing: Promise<void> | null = null;
  return {
    url: serverUrl(opts.bindAddress, port),
    port,
    kubeconfigPath: join(opts.dataDir, 'kubeconfig'),
    pki,
    storage,
    registry,
    ...(threads && { threads }),
    close() {
      // kube-apiserver's graceful termination: /readyz fails at once (load balancers stop sending
      // new work), requests are still served for --shutdown-delay-duration, then the listener
      // closes, short requests in flight are answered (accepted writes are acknowledged), watches
      // end with what they were sent flushed, and only then is the log closed.
      shuttingDown = true;
      closing ??= (async () => {
        // The serving threads shut down alongside (each: /readyz fails, serves for the delay,
        // drains); they are waited for before the storage they follow closes.
        const threadsClosed = threads?.close();
        if (opts.shutdownDelayMs) await new Promise((r) => setTimeout(r, opts.shutdownDelayMs));
        serving?.server.close();
        serving?.connections.goAway();
        await controllers.manager.stop();
        serving?.close();
        if (serving && !(await serving.inflight.idle(SHUTDOWN_REQUEST_TIMEOUT_MS))) log.warn({ inflight: serving.inflight.size }, 'shutdown: requests still in flight after the timeout');
        hub?.close(); // ends every watch stream (each ends its response, flushing what was written)
        await serving?.connections.drain(SHUTDOWN_DRAIN_MS);
        await controllers.manager.idle();
        rbacCache.stop();
        nodeGraph?.stop();
        webhookSource.stop();
        aggregator.stop();
        await tokenAuth.close();
        await threadsClosed;
        leaderServices?.close();
        leaderClient?.close();
        await storage.close();
        metrics.close();
        auditor?.close();
        oidc?.close();
      })();
      return closing;
    },
  };
  }
}

/**
 * `--workers N`: each thread's watchers are budgeted by its own hub, so each thread takes an equal
 * share of the total (rounded up) and the process as a whole keeps the flag's bound on queued
 * bytes; a watcher lives on one thread, so its own limit is unchanged.
 */
function watchBudgetShare(opts: ServerOptions): Partial<BudgetLimits> | undefined {
  if ((opts.workers ?? 1) <= 1) return opts.watchBudget;
  return { ...opts.watchBudget, total: threadShare(opts.watchBudget?.total ?? DEFAULT_TOTAL_BYTES, opts) };
}
