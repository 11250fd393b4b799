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
import { x509Authenticator, unionAuthenticator, withAnonymous, type Authenticator } from '../auth/authn.ts';
import { buildTokenAuthentication, type TokenAuthOptions } from './token-auth.ts';
import { TokenCleaner } from '../controllers/token-cleaner.ts';
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
import { WebhookSource } from '../admission/webhook/source.ts';
import { mutatingWebhooks, validatingWebhooks, type WebhookObservation } from '../admission/webhook/dispatch.ts';
import { kindConverter } from '../admission/webhook/equivalents.ts';
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
import { DEFAULT_RING_BYTES, DEFAULT_RING_SIZE, WatchHub } from '../watch/hub.ts';
import { WatchBudget, type BudgetLimits } from '../watch/budget.ts';
import { ApiError } from '../api/errors.ts';
import type { LogLocation } from '../storage/log/uri.ts';
import { restoreLatestCheckpoint } from '../storage/checkpoint.ts';
import { kubeHealthChecks } from '../health/checks.ts';
import { ApiMetrics } from '../metrics/api-metrics.ts';
import { InflightRequests } from '../http/inflight.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../http/timeout.ts';
import { holdDuringConnectionBursts, maxInflight, priorityAndFairness, type RequestLimiter } from '../http/flowcontrol-filter.ts';
import { FlowController } from '../flowcontrol/controller.ts';
import { MaxInflightLimiter } from '../flowcontrol/max-inflight.ts';
import { WatchTracker, WorkEstimator } from '../flowcontrol/work-estimator.ts';
import { flowControlMetrics } from '../metrics/flowcontrol-metrics.ts';
import { runtimeConfig, servedKinds } from './runtime-config.ts';
import { readFileSync } from 'node:fs';
import { Auditor } from '../audit/auditor.ts';
import { AuditLogWriter } from '../audit/log-writer.ts';
import { parsePolicy } from '../audit/policy.ts';
import type { LogInstruments } from '../storage/log/instruments.ts';
import type { OidcConfig } from '../auth/oidc-claims.ts';
import { ClientCertVerifier, DynamicCaBundle, parseCaBundle, staticCaSource, type CaSource } from '../auth/client-ca.ts';
import { secureServerOptions } from '../auth/tls-options.ts';
import { requestHeaderAuthenticator, requestHeaderConfig, type RequestHeaderFlags } from '../auth/requestheader.ts';
import { ClusterAuthenticationTrustController } from '../controllers/cluster-authentication-trust.ts';
import { AtRest } from '../storage/encryption/at-rest.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import { ServiceAccountTokens } from '../auth/serviceaccount/setup.ts';
import { usesDefaultSigningKey, type ServiceAccountFlags } from '../auth/serviceaccount/options.ts';
import { ensureDefaultSigningKey } from '../auth/serviceaccount/keys.ts';
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
  /** Bytes watch streams may have queued, each and all together (internal/watch/budget.ts defaults). */
  watchBudget?: Partial<BudgetLimits>;
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
  /**
   * --max-requests-inflight (400) and --max-mutating-requests-inflight (200): with Priority and
   * Fairness their sum is the server's concurrency limit, shared out among the priority levels;
   * without it, the two limits of the max-in-flight filter. 0 = unlimited (max-in-flight only).
   */
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** --enable-priority-and-fairness (default true); false: the max-in-flight filter instead. */
  enablePriorityAndFairness?: boolean;
  /** --request-timeout: the longest a non-watch request may take (default 60 s; http/timeout.ts). */
  requestTimeoutMs?: number;
  /** --min-request-timeout (seconds, default 1800): a watch without timeoutSeconds ends after [min, 2·min). */
  minRequestTimeoutS?: number;
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
  /** --oidc-* (after oidcConfigFromFlags): the OpenID Connect token authenticator; absent = off. */
  oidc?: OidcConfig;
  /**
   * --client-ca-file: the CAs whose client certificates authenticate (CN user, O groups). Absent:
   * this server's generated CA (<pki>/ca.crt), which signs the admin certificate of the kubeconfig.
   */
  clientCaFile?: string;
  /** --requestheader-client-ca-file and friends: the authenticating proxy (off without the CA file). */
  requestHeader?: RequestHeaderFlags;
  /**
   * --encryption-provider-config: kube's EncryptionConfiguration; the resources it names are
   * encrypted before their events enter the log. Every replica of a topic needs the same file.
   */
  encryptionProviderConfig?: string;
  /**
   * Token authentication beyond --token-auth-file: --enable-bootstrap-token-auth,
   * --authentication-token-webhook-config-file / -cache-ttl / -version, --api-audiences.
   */
  tokenAuth?: TokenAuthOptions;
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
  // Client-certificate trust, read before anything starts (a bad bundle is a start-up error). kube
  // has no client-certificate authentication without --client-ca-file; this server always issues
  // an admin certificate, so its own CA is the default, and a given bundle replaces it.
  // Bundle files are re-read when they change (kube's dynamic CA content); a bad rewrite is logged
  // and the previous bundle stays.
  const reloadError = (err: Error): void => log.error({ err: err.message }, 'CA bundle reload failed; the previous bundle stays in force');
  const clientCA: CaSource = opts.clientCaFile ? DynamicCaBundle.load(opts.clientCaFile, 'client-ca-bundle', reloadError) : staticCaSource(parseCaBundle(pki.caCertPem, `client-ca-bundle::${join(pki.dir, 'ca.crt')}`));
  const requestHeader = opts.requestHeader?.clientCaFile ? requestHeaderConfig(opts.requestHeader, reloadError) : undefined;
  const ownCa = parseCaBundle(pki.caCertPem, 'pki')[0]!;
  if (!clientCA.certificates.some((c) => c.raw.equals(ownCa.raw))) log.warn({ clientCaFile: opts.clientCaFile }, '--client-ca-file does not include this server\'s CA: the admin certificate of the generated kubeconfig will not authenticate');
  // Read and check the audit policy before anything starts: a bad policy file is a start-up error.
  // Bad --service-account-* combinations fail start-up here, with kube's messages.
  // Resolved while the storage opens (below).
  const saTokensReady = defaultSaKey.then(() => ServiceAccountTokens.create(opts.serviceAccounts ?? {}, pki.dir, log));
  saTokensReady.catch(() => undefined); // awaited below, where its error is thrown
  const auditor = openAuditor(opts);
  // kube reads --oidc-ca-file when it builds the authenticator, before serving: a bad file is a start-up error.
  // auth/oidc.ts (jose and an HTTP client, ~75 ms to load) only when OIDC is configured.
  const oidcModule = opts.oidc ? await import('../auth/oidc.ts') : null;
  const oidcCaPem = opts.oidc?.caFile ? oidcModule!.readOidcCaBundle(opts.oidc.caFile) : undefined;
  // OIDC is one of the token authenticators (after the service accounts and bootstrap tokens,
  // before the webhook, as kube orders them); its discovery starts now, in the background.
  const oidc = opts.oidc ? oidcModule!.oidcAuthenticator(opts.oidc, log, { caPem: oidcCaPem }) : null;
  // The token authenticators (kube's order, cached union), read and checked before anything
  // starts: asked by the bearer-token filter and by TokenReview. Bootstrap tokens read Secrets
  // through the registry, built later.
  let registryRef: Registry | undefined;
  const metrics = new ApiMetrics({ showHidden: opts.showHiddenMetrics });
  const storageOpening = openStorage(opts, log, metrics.logInstruments());
  storageOpening.catch(() => undefined); // awaited below
  let saTokens: ServiceAccountTokens;
  let tokenAuth: ReturnType<typeof buildTokenAuthentication>;
  try {
    saTokens = await saTokensReady;
    // The service-account JWT authenticators take their slot after the token file; the API
    // audiences are --api-audiences, or the service-account issuers (kube's default).
    tokenAuth = buildTokenAuthentication({ ...opts.tokenAuth, tokenAuthFile: opts.tokenAuthFile, apiAudiences: opts.tokenAuth?.apiAudiences ?? saTokens.config.apiAudiences }, () => registryRef, log, {
      oidc: oidc ?? undefined,
      serviceAccounts: saTokens.tokenAuthenticators,
    });
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
  // The dynamic admission webhooks come last in each chain (MutatingAdmissionWebhook,
  // ValidatingAdmissionWebhook); their configurations are read from a cache that follows the fold.
  const webhookSource = new WebhookSource();
  let registryKinds: () => readonly KindDescriptor[] = () => [];
  const webhookDeps = { source: webhookSource, converter: kindConverter(() => registryKinds()), observe: (o: WebhookObservation) => metrics.observeWebhook(o) };
  const admission = new AdmissionChain(
    [rbacEscalation(authorizer, rbac), lifecycle, serviceAccount, priorityAdmission, defaultTolerationSeconds, defaultStorageClass(storage), storageObjectInUseProtection(), runtimeClassAdmission, mutatingWebhooks(webhookDeps)],
    [lifecycle, serviceAccount, persistentVolumeClaimResize(storage), runtimeClassAdmission, validatingWebhooks(webhookDeps)],
  );
  const kinds = servedKinds(opts.kinds ?? defaultKinds, runtimeConfig(opts.runtimeConfig ?? ''));
  const registry = new Registry(
    kinds,
    storage,
    admission,
    { serviceClusterIPRange: opts.serviceClusterIPRange, serviceNodePortRange: opts.serviceNodePortRange, featureGates: opts.featureGates, serviceAccountTokens: saTokens.tokenRequest },
    { authorizer, tokenAuthenticator: tokenAuth.tokenAuthenticator, apiAudiences: tokenAuth.apiAudiences },
  );
  registryRef = registry;
  registryKinds = () => registry.kinds.map((k) => k.kind);
  saTokens.attach(registry);
  await bootstrap(registry, kinds);
  phase('bootstrap');
  await rbacCache.start(storage);
  await webhookSource.start(storage);
  phase('rbacCache');
  // kube-apiserver's rbac/bootstrap-roles post-start hook, then the aggregation controller.
  const reconciled = await reconcileBootstrapPolicy(registry);
  if (reconciled.created || reconciled.updated) log.info(reconciled, 'RBAC bootstrap policy reconciled');
  phase('rbacBootstrap');
  const aggregator = new ClusterRoleAggregator(rbacCache, registry, log);
  aggregator.start();
  const hub = new WatchHub(storage, DEFAULT_RING_SIZE, DEFAULT_RING_BYTES, new WatchBudget(opts.watchBudget));
  metrics.attach({
    folded: () => storage.folded,
    endOffset: () => storage.log.endOffset(),
    objectCounts: () => storageObjectCounts(storage.materializer.objectCounts()),
    ring: () => hub.ringUsage(),
    watchersEnded: () => hub.endedByReason(),
    watchQueued: () => hub.budget.usage(),
    watchEvents: () => hub.events(),
  });
  const controller = new NamespaceController(storage, registry, log, { graceMs: opts.namespaceDeletionGraceMs });
  await controller.start();
  phase('namespaceController');
  const gc = new GarbageCollector(storage, registry, log);
  // kube-controller-manager's pv-protection and pvc-protection controllers.
  const storageProtection = new StorageProtectionController(storage, registry, log);
  const events = registry.lookup('', 'v1', 'events');
  const ttlMs = opts.eventTtlMs ?? DEFAULT_EVENT_TTL_MS;
  // --event-ttl 0: no expiry (kube attaches no etcd lease for a zero TTL).
  const eventTtl = events && ttlMs > 0 ? new EventTtlController(storage, events, ttlMs, log) : null;
  // Each runs when its kind is served (a server built with a subset of kinds has fewer).
  const perNamespace: (ServiceAccountsController | RootCaPublisher)[] = [];
  if (opts.namespaceDefaults !== false) {
    if (registry.lookup('', 'v1', 'serviceaccounts')) perNamespace.push(new ServiceAccountsController(storage, registry, log));
    if (registry.lookup('', 'v1', 'configmaps')) perNamespace.push(new RootCaPublisher(storage, registry, pki.caCertPem, log));
  }
  // kube-controller-manager's tokens controller (legacy token Secrets).
  const tokensController = opts.namespaceDefaults !== false && registry.lookup('', 'v1', 'secrets') ? new ServiceAccountTokensController(storage, registry, saTokens.legacyGenerator, pki.caCertPem, log, !(opts.featureGates ?? new FeatureGates()).enabled('LegacyServiceAccountTokenNoAutoGeneration')) : null;
  tokensController?.start();

  // kube-apiserver's cluster_authentication_trust_controller: kube-system/extension-apiserver-authentication.
  const trust = registry.lookup('', 'v1', 'configmaps')
    ? new ClusterAuthenticationTrustController(storage, registry, () => ({
        clientCA: clientCA.certificates,
        requestHeaderCA: requestHeader?.ca.certificates,
        requestHeaderAllowedNames: requestHeader?.allowedNames,
        requestHeaderUsernameHeaders: requestHeader?.usernameHeaders,
        requestHeaderGroupHeaders: requestHeader?.groupHeaders,
        requestHeaderExtraHeaderPrefixes: requestHeader?.extraHeaderPrefixes,
      }), log)
    : null;
  await trust?.start();
  phase('controllers');

  // kube-controller-manager's tokencleaner, run whenever bootstrap tokens authenticate.
  const secrets = registry.lookup('', 'v1', 'secrets');
  const tokenCleaner = opts.tokenAuth?.enableBootstrapTokenAuth && secrets ? new TokenCleaner(storage, secrets, log) : null;
  tokenCleaner?.start();

  const authenticators: Authenticator[] = [x509Authenticator(new ClientCertVerifier(clientCA))];
  // kube's order: the front proxy first, then client certificates, then bearer tokens (the token
  // authenticators' union, internal/app/token-auth.ts: token file, bootstrap, OIDC, webhook).
  if (requestHeader) authenticators.unshift(requestHeaderAuthenticator(requestHeader));
  if (tokenAuth.bearer) authenticators.push(tokenAuth.bearer);
  let shuttingDown = false;
  const inflight = new InflightRequests();
  const health = kubeHealthChecks({
    storageOpen: () => storage.folded >= 0,
    probeStorage: () => storage.probe(),
    shuttingDown: () => shuttingDown,
    storageProblem: () => storage.health.problem,
  });
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
    requestTimeoutMs: opts.requestTimeoutMs,
    minRequestTimeoutS: opts.minRequestTimeoutS,
  };
  const limiting = requestLimiter(opts, metrics, () => storageObjectCounts(storage.materializer.objectCounts()));
  deps.limiter = limiting?.limiter;
  deps.openIdDiscovery = saTokens.discovery(() => deps.advertiseAddress, log);
  const tlsCas = (): string[] => [...clientCA.certificates, ...(requestHeader?.ca.certificates ?? [])].map((c) => c.toString());
  const server = createServer(pki, createHandler(deps), tlsCas());
  const bursts = limiting?.controller ? holdDuringConnectionBursts(server, (held) => limiting.controller!.holdDispatch(held)) : null;
  // A reloaded bundle: new connections are asked for the new CAs, and the ConfigMap follows.
  const bundles = [clientCA, requestHeader?.ca].filter((b): b is DynamicCaBundle => b instanceof DynamicCaBundle);
  for (const b of bundles) {
    b.onChange(() => {
      server.setSecureContext(secureServerOptions(pki, tlsCas()));
      trust?.enqueue();
      log.info({ file: b.path }, 'CA bundle reloaded');
    });
    b.start();
  }
  // Go's listen backlog (the kernel's somaxconn) rather than Node's 511: connections that arrive in a
  // burst wait to be accepted, and then get an answer (a 429 at worst), instead of a reset.
  server.listen({ port: opts.securePort, host: opts.bindAddress, backlog: listenBacklog() });
  await once(server, 'listening');
  phase('listen');
  const port = (server.address() as AddressInfo).port;
  const serviceControllers = await startServiceControllers(storage, registry, log, { ...opts, securePort: port });
  phase('kubernetesService');
  // kube-controller-manager's controllers (GC, pv/pvc protection, event TTL, serviceaccounts,
  // root-ca-cert-publisher) start once the server serves, as kube's start after the apiserver is
  // ready: their start-up scans (every object of their kinds) are not on the path to /readyz.
  if (opts.garbageCollector !== false) gc.start();
  storageProtection.start();
  eventTtl?.start();
  for (const c of perNamespace) c.start();
  const url = serverUrl(opts.bindAddress, port);
  // kube-apiserver's ExternalAddress: the advertise address (its default rule) and the secure port.
  deps.advertiseAddress = new URL(serverUrl(opts.advertiseAddress ?? defaultAdvertiseAddress(opts.bindAddress), port)).host;
  const kubeconfigPath = join(opts.dataDir, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, { server: url, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem });
  phase('kubeconfig');
  log.info({ url, kubeconfig: kubeconfigPath, startupMs: Date.now() - started, folded: storage.folded, phases }, 'API server ready');

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
        trust?.stop();
        for (const b of bundles) b.stop();
        tokenCleaner?.stop();
        tokensController?.stop();
        if (!(await inflight.idle(SHUTDOWN_REQUEST_TIMEOUT_MS))) log.warn({ inflight: inflight.size }, 'shutdown: requests still in flight after the timeout');
        hub.close(); // ends every watch stream (each ends its response, flushing what was written)
        await connections.drain(SHUTDOWN_DRAIN_MS);
        await controller.idle().catch(() => undefined);
        await gc.idle().catch(() => undefined);
        await aggregator.idle();
        rbacCache.stop();
        webhookSource.stop();
        await storageProtection.idle().catch(() => undefined);
        for (const c of perNamespace) await c.idle().catch(() => undefined);
        await tokensController?.idle().catch(() => undefined);
        await trust?.idle();
        await tokenCleaner?.idle().catch(() => undefined);
        await tokenAuth.close();
        await storage.close();
        metrics.close();
        bursts?.close();
        auditor?.close();
        oidc?.close();
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
  // A bad file stops the start before anything is opened (kube's message names the file).
  const atRest = AtRest.fromFile(opts.encryptionProviderConfig);
  const onUndecryptable = (c: Change, err: Error): void => {
    // Never the value: only where it is and why it does not decrypt.
    log.error({ key: c.key, resourceVersion: c.offset, err: err.message }, 'committed change not decryptable with --encryption-provider-config; not delivered to watchers and controllers');
  };
  if (where.kind === 'embedded') return Storage.openEmbedded({ dataDir: opts.dataDir, historyWindowMs: opts.historyWindowMs, sync: opts.sync, instruments, atRest, onUndecryptable, logger: log });
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
    atRest,
    onUndecryptable,
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

/** How often the LIST work estimator's object counts are refreshed (kube: every minute). */
const OBJECT_COUNT_REFRESH_MS = 1000;

/**
 * The request limiter the flags ask for: Priority and Fairness over the limits' sum, with kube's
 * queue wait limit of a quarter of the request timeout, or the max-in-flight filter.
 */
function requestLimiter(opts: ServerOptions, metrics: ApiMetrics, objectCounts: () => Map<string, number>): { limiter: RequestLimiter; controller?: FlowController } | undefined {
  const readOnly = opts.maxRequestsInflight ?? 400;
  const mutating = opts.maxMutatingRequestsInflight ?? 200;
  // --request-timeout: kube's queue wait limit is a quarter of it (a queued request's deadline is timeout.ts's).
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (opts.enablePriorityAndFairness === false) return readOnly === 0 && mutating === 0 ? undefined : { limiter: maxInflight(new MaxInflightLimiter(readOnly, mutating)) };
  const controller = new FlowController({ serverConcurrencyLimit: readOnly + mutating, requestWaitLimitMs: requestTimeout / 4, observer: flowControlMetrics(metrics.registry) });
  let counts = new Map<string, number>();
  let countedAt = -Infinity;
  const objectCount = (groupResource: string): number | undefined => {
    const now = performance.now();
    if (now - countedAt > OBJECT_COUNT_REFRESH_MS) {
      counts = objectCounts();
      countedAt = now;
    }
    return counts.get(groupResource);
  };
  const watches = new WatchTracker();
  return { limiter: priorityAndFairness({ controller, estimator: new WorkEstimator(objectCount, watches), watches }), controller };
}

/** Go's listen backlog: /proc/sys/net/core/somaxconn (at most 65535), else 4096. */
function listenBacklog(): number {
  try {
    const n = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());
    if (Number.isInteger(n) && n > 0) return Math.min(n, 65535);
  } catch {
    // not Linux: Go's default
  }
  return 4096;
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

/**
 * Create each kind's bootstrap objects (e.g. the system namespaces) that do not exist yet. They are
 * independent: created concurrently, so a first start pays one group commit for them, not one each.
 */
async function bootstrap(registry: Registry, kinds: KindDescriptor[]): Promise<void> {
  const ctx = systemContext('apiserver-bootstrap');
  const work: Promise<void>[] = [];
  for (const k of kinds) {
    const served = registry.lookup(k.group, k.versions[0], k.resource)!;
    for (const obj of k.bootstrap ?? []) {
      const ns = obj.metadata.namespace ?? '';
      work.push((async () => {
        const exists = await served.store.getLatest(ns, obj.metadata.name!).then(() => true, () => false);
        if (exists) return;
        await served.store.create(ctx, ns, structuredClone(obj)).catch((err: unknown) => {
          // Another replica on the same log bootstrapped it first.
          if (!(err instanceof ApiError && err.status.reason === 'AlreadyExists')) throw err;
        });
      })());
    }
  }
  await Promise.all(work);
}
